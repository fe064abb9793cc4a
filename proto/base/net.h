/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * TCP and UNIX-socket helpers with deadlines, for the drivers, ocs-emu
 * and the agents' transports: address parsing, connect, listen, and
 * reads/writes that give up at a deadline (mono_ms() milliseconds).
 * Errors are negative errno values.  A cancel_fd > 0 ends every wait as
 * soon as it is readable, with -ECANCELED: a daemon that must stop does
 * not sit out a connect to a switch that does not answer; <= 0 is none.
 */
#ifndef OCS_NET_H
#define OCS_NET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* "host:port", "[v6]:port", or "host" (defport).  -EINVAL if malformed. */
int net_hostport(const char *s, const char *defport, char *host, size_t hl,
                 char *port, size_t pl);

/* Connect within timeout_ms; the fd is non-blocking with TCP_NODELAY. */
int net_connect(const char *host, const char *port, int timeout_ms,
                int cancel_fd);

/* Listen (SO_REUSEADDR, non-blocking).  Port "0" picks one; the bound
 * "addr:port" is written to bound.  Returns the fd. */
int net_listen(const char *host, const char *port, char *bound, size_t bl);

/*
 * Either kind of stream address: "unix:/path" (a UNIX-domain socket, for
 * peers on one host) or "host:port" (TCP).  Connect: the fd is
 * non-blocking.  Listen: a stale socket file is replaced; bound gets the
 * address with the real port.
 */
int net_connect_addr(const char *addr, int timeout_ms);
/* An nng-style URL of either kind (tcp://host:port, ipc:///path) in the
 * form above.  0, or -EINVAL (tls+tcp:// included). */
int net_url_addr(const char *url, char *out, size_t len);
int net_listen_addr(const char *addr, char *bound, size_t bl);

/* Write everything or fail (-ETIMEDOUT at the deadline, -EPIPE...). */
int net_write_all(int fd, const void *buf, size_t n, uint64_t deadline,
                  int cancel_fd);

/* Wait for data and read some: > 0 bytes, 0 at EOF, -ETIMEDOUT, -errno. */
ssize_t net_read_some(int fd, void *buf, size_t n, uint64_t deadline,
                      int cancel_fd);

/* Sleep ms, or less when cancel_fd becomes readable: 0, or -ECANCELED. */
int net_sleep(uint32_t ms, int cancel_fd);

#endif

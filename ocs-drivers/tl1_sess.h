/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A TL1 client session over TCP, shared by the TL1 drivers (polatis,
 * calient-tl1): connect, ACT-USER, one command at a time matched by its
 * CTAG (all '>' blocks collected; autonomous messages, acknowledgements
 * and the device's prompt skipped), CANC-USER.  Any timeout, EOF or
 * garbage drops the connection (its state is unknown); tl1s_ensure()
 * connects and logs in again with exponential backoff until a deadline.
 * Every wait ends at once when the caller's cancel_fd is readable.
 */
#ifndef OCS_TL1_SESS_H
#define OCS_TL1_SESS_H

#include <stddef.h>
#include <stdint.h>

#include "ocs-drivers/drv.h"
#include "ocs-drivers/tl1.h"

/*
 * How a session's bytes travel: TCP (tl1s_tcp), or a shell channel of
 * SSH (tl1s_ssh, libssh), where the SSH login is the TL1 login.  connect
 * sets s->fd (a descriptor to poll) or returns a negative code with
 * s->err set; read_some and write_all block until the deadline (or the
 * cancel fd): bytes, 0 at EOF, or -errno; hung_up looks without waiting
 * for the peer's close; drop frees everything and leaves s->fd -1.
 */
struct tl1s;
struct tl1s_xport {
	const char *name;
	int (*connect)(struct tl1s *, uint64_t deadline);
	int (*write_all)(struct tl1s *, const void *, size_t, uint64_t dl);
	ssize_t (*read_some)(struct tl1s *, void *, size_t, uint64_t dl);
	int (*hung_up)(struct tl1s *);
	void (*drop)(struct tl1s *);
	int logs_in; /* the transport's login is the session's: no ACT-USER */
};
extern const struct tl1s_xport tl1s_tcp, tl1s_ssh;

struct tl1s {
	char                     host[256], port[16];
	char                     user[64], pass[128];
	int                      timeout_ms;
	int                      fd; /* -1: not connected */
	const struct tl1s_xport *xp;
	void                    *xpriv;             /* the transport's state */
	char                     known_hosts[4096]; /* ssh: the hosts' keys */
	int                      cancel_fd;         /* drv_opts' */
	struct tl1_buf           in;
	uint32_t                 ctag;
	uint64_t                 nauto; /* autonomous messages skipped */
	const char *prompt; /* what the device prints between replies */
	char        err[512];
	void (*trace)(void *, const char *, ...);
	void *trace_arg;
};

__attribute__((__format__(printf, 2, 3))) void
tl1s_seterr(struct tl1s *, const char *fmt, ...);

/* Address ([tl1://]host[:port], defport if none), credentials and the
 * transport (opts->ssh: tl1s_ssh with opts->known_hosts) from opts; no
 * I/O.  0 or -EINVAL. */
int  tl1s_init(struct tl1s *, const char *url, const char *defport,
               const struct drv_opts *, const char *prompt);
void tl1s_drop(struct tl1s *);
/* CANC-USER (briefly waited for) and drop. */
void tl1s_logout(struct tl1s *);

/*
 * Send VERB::AID:CTAG then rest, and collect the reply into *r.  0
 * (COMPLD, or DENY with r->status set; tl1_resp_free after), or a
 * transport error after which the connection is dropped.
 */
int tl1s_command(struct tl1s *, const char *verb, const char *aid,
                 const char *rest, struct tl1_resp *r, uint64_t deadline);
/* Several commands sent in one write, r[i] the reply to c[i]: the
 * device answers each in turn and the replies are matched by tag.  For
 * commands that change nothing or whose order is all that matters: a
 * refusal of one does not stop the next.  Errors as tl1s_command (every
 * r[i] freed then). */
#define TL1S_MAX_CMDS 4
struct tl1s_cmd {
	const char *verb, *aid, *rest;
};
int tl1s_commands(struct tl1s *, const struct tl1s_cmd *c, size_t n,
                  struct tl1_resp *r, uint64_t deadline);
/* The same, but a DENY is returned as -DRV_EDENIED with the device's
 * text in err (r is freed then). */
int tl1s_ok(struct tl1s *, const char *verb, const char *aid, const char *rest,
            struct tl1_resp *r, uint64_t deadline);

/* ocs-emu's SET-EMU-FAULT:::c::SPEC; (the faults now into *now); a real
 * switch refuses it: -DRV_EDENIED. */
/* ocs-emu's RTRV-EMU-CAPTURE of a run, its line checked and parsed
 * (tl1_capture_parse); -DRV_EPROTO with the reason in err if bad. */
struct drv_capture;
int tl1s_capture(struct tl1s *, uint32_t run, struct drv_capture *,
                 uint64_t deadline);
int tl1s_inject(struct tl1s *, const char *spec, char *now, size_t len,
                uint64_t deadline);

/*
 * Be connected and logged in by the deadline, retrying with backoff;
 * after each login, learn(arg, deadline) may ask the device what it
 * needs (its size, its port names).  A switch that closed an idle
 * session is noticed before the next command goes out.
 */
int tl1s_ensure(struct tl1s *, uint64_t                           deadline,
                int (*learn)(void *arg, uint64_t deadline), void *arg);

#endif

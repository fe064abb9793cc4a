/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Where nng sockets meet the network, the same way for ocsd, ocsctl and
 * ocs-agent: ipc:// listeners created 0660 (owner and group), and
 * tls+tcp:// with a certificate+key file on the listening side and a CA
 * file (verification required, server name from the URL) on the dialing
 * side.  Errors are nng error numbers with one line in err.
 */
#ifndef OCS_LINK_H
#define OCS_LINK_H

#include <stddef.h>

#include <nng/nng.h>

/* Does the URL need TLS material? */
int link_is_tls(const char *url);

/* Listen on url; cert_key (PEM, certificate then key) is required for
 * tls+tcp:// and ignored otherwise.  *out may be NULL. */
int link_listen(nng_socket, const char *url, const char *cert_key,
                nng_listener *out, char *err, size_t errlen);

/* Dial url (flags as nng_dial's); ca is required for tls+tcp://. */
int link_dial(nng_socket, const char *url, const char *ca, int flags,
              char *err, size_t errlen);

/* Who sent m, for logs: "1.2.3.4:5678", "ipc /path (pipe 3)", or
 * "pipe 3". */
void link_peer_name(nng_msg *m, char *buf, size_t len);
/* The same from the pipe (costs a lookup in nng: for messages that
 * log, not for every one). */
void link_pipe_name(nng_pipe, char *buf, size_t len);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A client of ocsd's control socket, as ocsctl and ocs-web make their
 * requests: a REQ socket, the proof of the control secret when one is
 * set (Hello, Challenge, then the request with an HMAC of the nonce), the
 * answer checked.  A request is never re-sent: operations are not
 * idempotent.  The caller prints (ocsctl_print.c, as text or JSON).
 */
#ifndef OCS_CTLC_H
#define OCS_CTLC_H

#include <stddef.h>
#include <stdint.h>

#include "proto/auth.h"
#include "proto/msg.h"

struct ctlc {
	const char    *url; /* ocsd's control socket */
	const char    *ca;  /* tls+tcp://: the CA to verify it, or NULL */
	int            timeout_ms; /* each send and receive */
	const uint8_t *secret;     /* the control secret, or NULL */
	size_t         slen;
};

/*
 * Ask ocsd q (its nonce and proof are set here when there is a secret)
 * on a socket of its own, dialled and closed here.  0 with *reply a
 * CtlReply (free with msg_free); else the negative code and one line in
 * err: when ocsd refused (its Error, *refused set if refused is not
 * NULL) its code and text, else why it could not be asked, naming what.
 * Blocks up to twice the timeout (three times with
 * a secret).  Thread-safe: nothing is shared between calls.
 */
int ctlc_call(const struct ctlc *, Ocs__CtlRequest *q, const char *what,
              Ocs__Msg **reply, char *err, size_t len, int *refused);

#endif

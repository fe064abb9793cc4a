/* SPDX-License-Identifier: BSD-2-Clause */
/* A request to ocsd's control socket (see ctlc.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <nng/nng.h>
#include <nng/protocol/reqrep0/req.h>
#include <nng/supplemental/util/platform.h>

#include "ocsd/ctlc.h"
#include "proto/link.h"

static uint64_t
new_seq(void)
{
	return (((uint64_t)nng_random() << 32) | nng_random());
}

/* Hello -> Challenge on the socket, then the proof into q.  0, or a
 * negative code with err (*refused: ocsd's Error). */
static int
prove(const struct ctlc *c, nng_socket sock, Ocs__CtlRequest *q,
      const char *peer, uint8_t nonce[AUTH_NONCE], uint8_t proof[AUTH_PROOF],
      char *err, size_t len, int *refused)
{
	Ocs__Msg   req, *rep;
	Ocs__Hello h;
	char       label[32];
	int        rv;

	msg_init(&req, new_seq());
	ocs__hello__init(&h);
	h.host = "ocsctl";
	req.body_case = OCS__MSG__BODY_HELLO;
	req.hello = &h;
	if ((rv = msg_call(sock, &req, peer, &rep, err, len)) != 0)
		return (rv);
	if (rep->body_case == OCS__MSG__BODY_ERROR) {
		snprintf(err, len, "%s", rep->error->text);
		*refused = 1;
		rv = rep->error->code < 0 ? rep->error->code : -EPROTO;
		msg_free(rep);
		return (rv);
	}
	if (rep->body_case != OCS__MSG__BODY_CHALLENGE ||
	    rep->challenge->nonce.len != AUTH_NONCE) {
		msg_free(rep);
		snprintf(err, len,
		         "ocsd answered the hello without a challenge");
		return (-EPROTO);
	}
	memcpy(nonce, rep->challenge->nonce.data, AUTH_NONCE);
	msg_free(rep);
	snprintf(label, sizeof(label), "ocsctl:%d", q->op);
	if (auth_proof(c->secret, c->slen, nonce, AUTH_NONCE, label, proof) !=
	    0) {
		snprintf(err, len, "cannot compute the proof");
		return (-EINVAL);
	}
	q->has_nonce = q->has_proof = 1;
	q->nonce.data = nonce;
	q->nonce.len = AUTH_NONCE;
	q->proof.data = proof;
	q->proof.len = AUTH_PROOF;
	return (0);
}

int
ctlc_call(const struct ctlc *c, Ocs__CtlRequest *q, const char *what,
          Ocs__Msg **reply, char *err, size_t len, int *refused)
{
	int        dummy;
	uint8_t    nonce[AUTH_NONCE], proof[AUTH_PROOF];
	nng_socket sock;
	Ocs__Msg   req;
	char       why[400], peer[300];
	int        rv;

	*reply = NULL;
	if (refused == NULL)
		refused = &dummy;
	*refused = 0;
	msg_init(&req, new_seq());
	req.body_case = OCS__MSG__BODY_CTL;
	req.ctl = q;
	if ((rv = nng_req0_open(&sock)) != 0) {
		snprintf(err, len, "%s: %s", what, nng_strerror(rv));
		return (msg_nngerr(rv));
	}
	nng_socket_set_ms(sock, NNG_OPT_RECVTIMEO, c->timeout_ms);
	nng_socket_set_ms(sock, NNG_OPT_SENDTIMEO, c->timeout_ms);
	nng_socket_set_size(sock, NNG_OPT_RECVMAXSZ, MSG_MAX_BYTES);
	/* A request is never re-sent: operations are not idempotent. */
	nng_socket_set_ms(sock, NNG_OPT_REQ_RESENDTIME, NNG_DURATION_INFINITE);
	if ((rv = link_dial(sock, c->url, c->ca, 0, why, sizeof(why))) != 0) {
		nng_close(sock);
		snprintf(err, len, "cannot reach ocsd at %s", why);
		return (msg_nngerr(rv));
	}
	snprintf(peer, sizeof(peer), "ocsd at %s", c->url);
	if (c->slen && (rv = prove(c, sock, q, peer, nonce, proof, why,
	                           sizeof(why), refused)) != 0) {
		nng_close(sock);
		if (*refused)
			snprintf(err, len, "%s", why);
		else
			snprintf(err, len, "%s: %s", what, why);
		return (rv);
	}
	rv = msg_call(sock, &req, peer, reply, why, sizeof(why));
	nng_close(sock);
	if (rv != 0) {
		snprintf(err, len, "%s: %s", what, why);
		return (rv);
	}
	if ((*reply)->body_case == OCS__MSG__BODY_ERROR) {
		snprintf(err, len, "%s", (*reply)->error->text);
		*refused = 1;
		rv = (*reply)->error->code < 0 ? (*reply)->error->code
		                               : -EPROTO;
		msg_free(*reply);
		*reply = NULL;
		return (rv);
	}
	if ((*reply)->body_case != OCS__MSG__BODY_CTL_REPLY) {
		msg_free(*reply);
		*reply = NULL;
		snprintf(err, len, "%s: unexpected answer from ocsd", what);
		return (-EPROTO);
	}
	return (0);
}

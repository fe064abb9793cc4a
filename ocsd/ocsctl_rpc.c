/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocsctl's one request to ocsd: a REQ socket per command, the proof of
 * the control secret when one is set (Hello, Challenge, then the request
 * with an HMAC of the nonce), the answer checked and printed, errors in
 * the output's format.  A request is never re-sent: operations are not
 * idempotent.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nng/nng.h>
#include <nng/protocol/reqrep0/req.h>
#include <nng/supplemental/util/platform.h>

#include "ocsd/ocsctl.h"
#include "proto/link.h"

/* An error that ends the command, in the output's format; returns 1. */
__attribute__((__format__(printf, 2, 3))) static int
say(const struct opts *o, const char *fmt, ...)
{
	va_list ap;
	char    msg[1024];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return (ocsctl_fail(o, "%s", msg));
}

/* The reply as kind, then stdout flushed: 0, or 1 after saying why.  A
 * reader that went away (ocsctl show | head) is nobody's error. */
static int
print_reply(const struct opts *o, enum out_kind kind, const Ocs__CtlReply *r)
{
	struct out out;
	int        rv;

	out_init(&out, o->json, o->po.brief);
	ocsctl_print(&out, kind, r, &o->po);
	rv = out_finish(&out);
	if (fflush(stdout) != 0 && errno != EPIPE)
		return (ocsctl_fail(o, "writing output: %s", strerror(errno)));
	return (rv);
}

/* Hello -> Challenge on the socket, then the proof into q. */
static int
prove(const struct opts *o, nng_socket sock, Ocs__CtlRequest *q,
      const char *what, uint8_t nonce[AUTH_NONCE], uint8_t proof[AUTH_PROOF])
{
	Ocs__Msg   req, *rep;
	Ocs__Hello h;
	char       why[400], peer[300], label[32];
	uint64_t   seq = ((uint64_t)nng_random() << 32) | nng_random();

	msg_init(&req, seq);
	ocs__hello__init(&h);
	h.host = "ocsctl";
	req.body_case = OCS__MSG__BODY_HELLO;
	req.hello = &h;
	snprintf(peer, sizeof(peer), "ocsd at %s", o->url);
	if (msg_call(sock, &req, peer, &rep, why, sizeof(why)) != 0)
		return (say(o, "%s: %s", what, why));
	if (rep->body_case == OCS__MSG__BODY_ERROR) {
		say(o, "%s: %s", what, rep->error->text);
		msg_free(rep);
		return (1);
	}
	if (rep->body_case != OCS__MSG__BODY_CHALLENGE ||
	    rep->challenge->nonce.len != AUTH_NONCE) {
		msg_free(rep);
		return (say(o,
		            "%s: ocsd answered the hello without a "
		            "challenge",
		            what));
	}
	memcpy(nonce, rep->challenge->nonce.data, AUTH_NONCE);
	msg_free(rep);
	snprintf(label, sizeof(label), "ocsctl:%d", q->op);
	if (auth_proof(o->secret, o->slen, nonce, AUTH_NONCE, label, proof) !=
	    0)
		return (say(o, "%s: cannot compute the proof", what));
	q->has_nonce = q->has_proof = 1;
	q->nonce.data = nonce;
	q->nonce.len = AUTH_NONCE;
	q->proof.data = proof;
	q->proof.len = AUTH_PROOF;
	return (0);
}

/*
 * apply: ocsd numbers the map's entries; the operator knows lines.  A
 * leading "entry N" becomes FILE:LINE, a later "entry N" "line L".
 */
static const char *
entries_as_lines(const struct opts *o, const char *t, char *out, size_t len)
{
	const char *p = t, *e;
	unsigned    entry;
	size_t      n = 0;
	int         k;

	if (o->file == NULL || o->lines == NULL)
		return (t);
	while ((e = strstr(p, "entry ")) != NULL && n < len) {
		if (sscanf(e, "entry %u%n", &entry, &k) != 1 || entry < 1 ||
		    entry > o->nlines) {
			n += (size_t)snprintf(out + n, len - n, "%.*s",
			                      (int)(e - p) + 6, p);
			p = e + 6;
			continue;
		}
		n += (size_t)snprintf(out + n, len - n, "%.*s", (int)(e - p),
		                      p);
		if (n < len && e == t)
			n += (size_t)snprintf(out + n, len - n, "%s:%u",
			                      o->file, o->lines[entry - 1]);
		else if (n < len)
			n += (size_t)snprintf(out + n, len - n, "line %u",
			                      o->lines[entry - 1]);
		p = e + k;
	}
	if (n < len)
		snprintf(out + n, len - n, "%s", p);
	return (out);
}

/* One request/reply exchange.  Returns 0 with *reply set, or 1 after
 * printing the error. */
static int
call(const struct opts *o, Ocs__CtlRequest *q, const char *what,
     Ocs__Msg **reply)
{
	uint8_t    nonce[AUTH_NONCE], proof[AUTH_PROOF];
	nng_socket sock;
	Ocs__Msg   req;
	char       why[400], peer[300];
	uint64_t   seq = ((uint64_t)nng_random() << 32) | nng_random();
	int        rv;

	*reply = NULL;
	msg_init(&req, seq);
	req.body_case = OCS__MSG__BODY_CTL;
	req.ctl = q;
	if ((rv = nng_req0_open(&sock)) != 0)
		return (say(o, "%s: %s", what, nng_strerror(rv)));
	nng_socket_set_ms(sock, NNG_OPT_RECVTIMEO, o->timeout_ms);
	nng_socket_set_ms(sock, NNG_OPT_SENDTIMEO, o->timeout_ms);
	nng_socket_set_size(sock, NNG_OPT_RECVMAXSZ, MSG_MAX_BYTES);
	/* A request is never re-sent: operations are not idempotent. */
	nng_socket_set_ms(sock, NNG_OPT_REQ_RESENDTIME, NNG_DURATION_INFINITE);
	if ((rv = link_dial(sock, o->url, o->ca, 0, why, sizeof(why))) != 0) {
		nng_close(sock);
		return (say(o, "cannot reach ocsd at %s", why));
	}
	if (o->slen && prove(o, sock, q, what, nonce, proof) != 0) {
		nng_close(sock);
		return (1);
	}
	snprintf(peer, sizeof(peer), "ocsd at %s", o->url);
	rv = msg_call(sock, &req, peer, reply, why, sizeof(why));
	nng_close(sock);
	if (rv != 0)
		return (say(o, "%s: %s", what, why));
	if ((*reply)->body_case == OCS__MSG__BODY_ERROR) {
		char t[1024];

		say(o, "%s: %s", what,
		    entries_as_lines(o, (*reply)->error->text, t, sizeof(t)));
		/* An argument ocsd found wrong is a usage error too. */
		rv = (*reply)->error->code == -OCSD_EUSAGE ? 2 : 1;
		msg_free(*reply);
		*reply = NULL;
		return (rv);
	}
	if ((*reply)->body_case != OCS__MSG__BODY_CTL_REPLY) {
		msg_free(*reply);
		*reply = NULL;
		return (say(o, "%s: unexpected answer from ocsd", what));
	}
	return (0);
}

/* Ask, and print the answer as a kind of reply, in the chosen format. */
int
ocsctl_run_capture(const struct opts *o, Ocs__CtlRequest *q)
{
	Ocs__CtlRequest cq;
	Ocs__Msg       *rep, *crep = NULL;
	Ocs__RunReport *rr;
	int             rv;

	if ((rv = call(o, q, "run", &rep)) != 0)
		return (rv);
	/* The capture of this run, asked once the run is over; the run's
	 * outcome is printed whatever the capture says. */
	rr = rep->ctl_reply->report;
	if (rr != NULL) {
		ocs__ctl_request__init(&cq);
		cq.op = OCS__CTL_REQUEST__OP__CAPTURE;
		cq.has_run_id = 1;
		cq.run_id = rr->run_id;
		if (call(o, &cq, "capture", &crep) == 0 &&
		    crep->ctl_reply->capture != NULL)
			rep->ctl_reply->capture = crep->ctl_reply->capture;
		else
			rv = 1;
	}
	if (print_reply(o, OUT_REPORT, rep->ctl_reply) != 0)
		rv = 1;
	/* The capture belongs to crep's message: give it back. */
	rep->ctl_reply->capture = NULL;
	msg_free(rep);
	if (crep)
		msg_free(crep);
	return (rv);
}

int
ocsctl_request(const struct opts *o, Ocs__CtlRequest *q, enum out_kind kind,
               const char *what)
{
	Ocs__Msg *rep;
	int       rv;

	if (o->force) {
		q->has_force = 1;
		q->force = 1;
	}
	if ((rv = call(o, q, what, &rep)) != 0)
		return (rv);
	rv = print_reply(o, kind, rep->ctl_reply);
	msg_free(rep);
	return (rv);
}

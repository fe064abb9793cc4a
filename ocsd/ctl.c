/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The operator control socket: nng REP with a fixed set of contexts, each
 * an INIT/RECV/WAIT/SEND state machine driven by its aio (nng's
 * demo/async).  Reads (show, status) are answered at once from the state;
 * anything that touches the switch becomes a job for the worker, and the
 * context waits on its aio without a thread.  Every request is checked
 * before use; a bad one gets an Error reply and one log line.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <nng/nng.h>
#include <nng/protocol/reqrep0/rep.h>

#include "ocsd/ctl_check.h"
#include "proto/auth.h"
#include "proto/link.h"
#include "ocsd/log.h"
#include "ocsd/ocsd.h"
#include "ocsd/run.h"

#define CTL_NWORK   8
#define CTL_CHAL    32    /* outstanding challenges */
#define CTL_CHAL_MS 10000 /* a challenge is good this long, once */

struct work {
	enum { W_INIT, W_RECV, W_WAIT, W_SEND } state;
	struct ocsd *d;
	nng_aio     *aio;
	nng_ctx      ctx;
	Ocs__Msg    *req;
	uint64_t     seq;
	char         peer[128];
	uint32_t     pipe;
	struct job   job;
	struct ctl  *c;
};

struct ctl_chal {
	uint32_t pipe;
	uint64_t expires;
	uint8_t  nonce[AUTH_NONCE];
};

/* Challenges are under the daemon's mutex (contexts run in parallel). */
struct ctl {
	nng_socket      sock;
	nng_listener    l;
	struct work     w[CTL_NWORK];
	int             nwork;
	uint8_t         secret[AUTH_SEC_MAX + 1];
	size_t          slen; /* 0: no proof asked */
	struct ctl_chal chal[CTL_CHAL];
};

static void
send_msg(struct work *w, nng_msg *m)
{
	nng_aio_set_msg(w->aio, m);
	w->state = W_SEND;
	nng_ctx_send(w->ctx, w->aio);
}

static void
send_error(struct work *w, int code, const char *text)
{
	nng_msg *m;

	if (msg_error(w->seq, code, text, &m) != 0) {
		log_warnx("ctl: cannot build an error reply");
		w->state = W_RECV;
		nng_ctx_recv(w->ctx, w->aio);
		return;
	}
	send_msg(w, m);
}

static void
send_reply(struct work *w, struct reply *rp)
{
	Ocs__Msg m;
	nng_msg *nm;
	int      rv;

	msg_init(&m, w->seq);
	m.body_case = OCS__MSG__BODY_CTL_REPLY;
	m.ctl_reply = &rp->r;
	if ((rv = msg_encode(&m, &nm)) != 0) {
		send_error(w, rv, "reply too large to send");
		return;
	}
	send_msg(w, nm);
}

/* Hello: a nonce for this connection's next request. */
static void
on_hello(struct work *w)
{
	struct ctl      *c = w->c;
	struct ctl_chal *ch = NULL;
	Ocs__Msg         r;
	Ocs__Challenge   cm;
	nng_msg         *nm;
	uint64_t         now = ocsd_now_ms();
	int              i, rv;

	nng_mtx_lock(w->d->mtx);
	for (i = 0; i < CTL_CHAL && ch == NULL; i++)
		if (c->chal[i].pipe == w->pipe || c->chal[i].expires < now)
			ch = &c->chal[i];
	if (ch == NULL || auth_nonce(ch->nonce) != 0) {
		nng_mtx_unlock(w->d->mtx);
		send_error(w, -EAGAIN, "too many requests at once; try again");
		return;
	}
	ch->pipe = w->pipe;
	ch->expires = now + CTL_CHAL_MS;
	msg_init(&r, w->seq);
	ocs__challenge__init(&cm);
	cm.nonce.data = ch->nonce;
	cm.nonce.len = AUTH_NONCE;
	r.body_case = OCS__MSG__BODY_CHALLENGE;
	r.challenge = &cm;
	rv = msg_encode(&r, &nm);
	nng_mtx_unlock(w->d->mtx);
	if (rv != 0) {
		send_error(w, rv, "cannot build a challenge");
		return;
	}
	send_msg(w, nm);
}

/* With a control secret: the request proves it.  0 or -EPERM (why). */
static int
proven(struct work *w, char *why, size_t len)
{
	const Ocs__CtlRequest *q = w->req->ctl;
	struct ctl            *c = w->c;
	struct ctl_chal       *ch = NULL;
	uint8_t                want[AUTH_PROOF];
	char                   label[32];
	uint64_t               now = ocsd_now_ms();
	int                    i, ok;

	if (c->slen == 0)
		return (0);
	if (!q->has_nonce || !q->has_proof || q->nonce.len != AUTH_NONCE ||
	    q->proof.len != AUTH_PROOF) {
		snprintf(why, len,
		         "this ocsd needs proof of the control "
		         "secret (ocsctl -k FILE)");
		return (-EPERM);
	}
	nng_mtx_lock(w->d->mtx);
	for (i = 0; i < CTL_CHAL; i++)
		if (c->chal[i].pipe == w->pipe && c->chal[i].expires >= now &&
		    memcmp(c->chal[i].nonce, q->nonce.data, AUTH_NONCE) == 0)
			ch = &c->chal[i];
	if (ch != NULL)
		ch->expires = 0; /* once */
	nng_mtx_unlock(w->d->mtx);
	if (ch == NULL) {
		snprintf(why, len, "no valid challenge for this request");
		return (-EPERM);
	}
	snprintf(label, sizeof(label), "ocsctl:%d", q->op);
	ok = auth_proof(c->secret, c->slen, q->nonce.data, AUTH_NONCE, label,
	                want) == 0 &&
	     auth_equal(want, q->proof.data, AUTH_PROOF);
	if (!ok) {
		snprintf(why, len, "wrong proof of the control secret");
		return (-EPERM);
	}
	return (0);
}

static void
on_request(struct work *w)
{
	nng_msg     *m = nng_aio_get_msg(w->aio);
	struct reply rp;
	char         why[300];
	int          rv;

	link_peer_name(m, w->peer, sizeof(w->peer));
	w->pipe = nng_pipe_id(nng_msg_get_pipe(m));
	rv = msg_decode(nng_msg_body(m), nng_msg_len(m), &w->req, why,
	                sizeof(why));
	nng_msg_free(m);
	w->seq = w->req && w->req->has_seq ? w->req->seq : 0;
	if (rv == 0)
		rv = ctl_check(w->req, why, sizeof(why));
	if (rv != 0) {
		log_warnx("ctl: rejected a message from %s: %s", w->peer, why);
		msg_free(w->req);
		w->req = NULL;
		send_error(w, rv, why);
		return;
	}
	if (w->req->body_case == OCS__MSG__BODY_HELLO) {
		msg_free(w->req);
		w->req = NULL;
		on_hello(w);
		return;
	}
	if ((rv = proven(w, why, sizeof(why))) != 0) {
		log_warnx("ctl: request %d from %s refused: %s",
		          w->req->ctl->op, w->peer, why);
		msg_free(w->req);
		w->req = NULL;
		send_error(w, rv, why);
		return;
	}
	switch (w->req->ctl->op) {
	case OCS__CTL_REQUEST__OP__SHOW:
	case OCS__CTL_REQUEST__OP__STATUS:
		reply_init(&rp);
		nng_mtx_lock(w->d->mtx);
		if (w->req->ctl->op == OCS__CTL_REQUEST__OP__SHOW)
			reply_show(&rp, w->d);
		else
			reply_status(&rp, w->d);
		nng_mtx_unlock(w->d->mtx);
		send_reply(w, &rp);
		reply_free(&rp);
		msg_free(w->req);
		w->req = NULL;
		return;
	case OCS__CTL_REQUEST__OP__AGENTS:
		reply_init(&rp);
		nng_mtx_lock(w->d->mtx);
		agents_info(w->d, &rp);
		nng_mtx_unlock(w->d->mtx);
		send_reply(w, &rp);
		reply_free(&rp);
		msg_free(w->req);
		w->req = NULL;
		return;
	case OCS__CTL_REQUEST__OP__ABORT:
		nng_mtx_lock(w->d->mtx);
		if (w->d->run == NULL) {
			nng_mtx_unlock(w->d->mtx);
			send_error(w, -OCSD_EREQUEST, "no run in progress");
		} else {
			run_abort(w->d, "aborted by the operator (%s)",
			          w->peer);
			reply_init(&rp);
			reply_message(&rp, "%s", w->d->last_abort);
			nng_mtx_unlock(w->d->mtx);
			send_reply(w, &rp);
			reply_free(&rp);
		}
		msg_free(w->req);
		w->req = NULL;
		return;
	case OCS__CTL_REQUEST__OP__RUN:
		memset(&w->job, 0, sizeof(w->job));
		w->job.kind = JOB_CTL;
		w->job.req = w->req->ctl;
		reply_init(&w->job.rep);
		w->state = W_WAIT;
		nng_mtx_lock(w->d->mtx);
		rv = run_start(w->d, w->req->ctl->run, &w->job, w->aio);
		nng_mtx_unlock(w->d->mtx);
		if (rv != 0) {
			log_info("ctl: run from %s refused: %s", w->peer,
			         w->job.err);
			send_error(w, rv, w->job.err);
			reply_free(&w->job.rep);
			msg_free(w->req);
			w->req = NULL;
		}
		return;
	default:
		break;
	}
	memset(&w->job, 0, sizeof(w->job));
	w->job.kind = JOB_CTL;
	w->job.req = w->req->ctl;
	reply_init(&w->job.rep);
	w->state = W_WAIT;
	sw_submit(w->d, &w->job, w->aio);
}

static void
on_done(struct work *w)
{
	if (w->job.rv != 0) {
		log_info("ctl: request %d from %s failed: %s", w->req->ctl->op,
		         w->peer, w->job.err);
		send_error(w, w->job.rv,
		           w->job.err[0] ? w->job.err
		                         : ocsd_strerror(w->job.rv));
	} else
		send_reply(w, &w->job.rep);
	reply_free(&w->job.rep);
	msg_free(w->req);
	w->req = NULL;
}

static void
work_cb(void *arg)
{
	struct work *w = arg;
	int          rv = nng_aio_result(w->aio);

	switch (w->state) {
	case W_INIT:
		w->state = W_RECV;
		nng_ctx_recv(w->ctx, w->aio);
		break;
	case W_RECV:
		if (rv != 0) {
			if (rv == NNG_ECLOSED || rv == NNG_ECANCELED)
				return;
			nng_ctx_recv(w->ctx, w->aio);
			return;
		}
		on_request(w);
		break;
	case W_WAIT:
		if (rv != 0) { /* cancelled at shutdown */
			reply_free(&w->job.rep);
			msg_free(w->req);
			w->req = NULL;
			return;
		}
		on_done(w);
		break;
	case W_SEND:
		if (rv != 0) {
			/* Not sent: the message is still ours. */
			nng_msg_free(nng_aio_get_msg(w->aio));
			nng_aio_set_msg(w->aio, NULL);
			if (rv == NNG_ECLOSED || rv == NNG_ECANCELED)
				return;
		}
		w->state = W_RECV;
		nng_ctx_recv(w->ctx, w->aio);
		break;
	}
}

/* mkdir -p for the directory of an ipc:// path. */
static int
ipc_dir(const char *url)
{
	char   dir[PATH_MAX];
	char  *p;
	size_t n;

	if (strncmp(url, "ipc://", 6) != 0)
		return (0);
	snprintf(dir, sizeof(dir), "%s", url + 6);
	if ((p = strrchr(dir, '/')) == NULL || p == dir)
		return (0);
	*p = '\0';
	n = strlen(dir);
	for (p = dir + 1; p <= dir + n; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		*p = '\0';
		if (mkdir(dir, 0750) != 0 && errno != EEXIST)
			return (-errno);
		*p = '/';
	}
	return (0);
}

int
ctl_open(struct ocsd *d, const char *url, struct ctl **out)
{
	struct ctl *c;
	char        err[300];
	int         rv, i;

	*out = NULL;
	if ((c = calloc(1, sizeof(*c))) == NULL)
		return (-ENOMEM);
	if (d->conf->ctl_secret_file[0] &&
	    (rv = auth_read_secret(d->conf->ctl_secret_file, c->secret,
	                           &c->slen, err, sizeof(err))) != 0) {
		log_warnx("ctl: %s", err);
		free(c);
		return (rv);
	}
	if ((rv = ipc_dir(url)) != 0) {
		log_warnx("ctl: creating the directory of %s: %s", url,
		          strerror(-rv));
		free(c);
		return (rv);
	}
	if ((rv = nng_rep0_open(&c->sock)) != 0 ||
	    (rv = nng_socket_set_size(c->sock, NNG_OPT_RECVMAXSZ,
	                              MSG_MAX_BYTES)) != 0) {
		log_warnx("ctl: %s: %s", url, nng_strerror(rv));
		free(c);
		return (msg_nngerr(rv));
	}
	/* IPC: operators in the socket's group may use it, nobody else. */
	if ((rv = link_listen(c->sock, url, d->conf->ctl_tls_cert_key, &c->l,
	                      err, sizeof(err))) != 0) {
		log_warnx("ctl: %s", err);
		nng_close(c->sock);
		free(c);
		return (msg_nngerr(rv));
	}
	for (i = 0; i < CTL_NWORK; i++) {
		struct work *w = &c->w[i];

		w->d = d;
		w->c = c;
		if ((rv = nng_aio_alloc(&w->aio, work_cb, w)) != 0 ||
		    (rv = nng_ctx_open(&w->ctx, c->sock)) != 0) {
			ctl_close(c);
			return (msg_nngerr(rv));
		}
		c->nwork++;
	}
	for (i = 0; i < c->nwork; i++)
		work_cb(&c->w[i]);
	*out = c;
	return (0);
}

void
ctl_close(struct ctl *c)
{
	int i;

	if (c == NULL)
		return;
	/* Closing the socket ends receives and sends (ECLOSED); stopping
	 * each aio then cancels a queued job or waits for a running one. */
	nng_close(c->sock);
	for (i = 0; i < c->nwork; i++)
		nng_aio_stop(c->w[i].aio);
	for (i = 0; i < c->nwork; i++) {
		nng_ctx_close(c->w[i].ctx);
		nng_aio_free(c->w[i].aio);
		reply_free(&c->w[i].job.rep);
		msg_free(c->w[i].req);
	}
	memset(c->secret, 0, sizeof(c->secret));
	free(c);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The join socket: an nng REP socket (nng's URLs and TLS) on which agents
 * say Hello and Join, a few times in their life.  Each context is a
 * receive-answer loop (nng demo/async); every request is answered at
 * once by the registry (agents_hear), so a small pool serves any join
 * storm: requests beyond it wait in nng's queues.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nng/nng.h>
#include <nng/protocol/reqrep0/rep.h>

#include "ocsd/agents_int.h"
#include "proto/base/log.h"
#include "proto/link.h"

#define AGJOIN_CTXS 32

struct jctx {
	enum { J_RECV, J_SEND } state;
	struct agjoin *j;
	nng_aio       *aio;
	nng_ctx        ctx;
};

/*
 * One request's answer state, on on_request's stack: not in the context,
 * which the answer's completion hands to the next request (on another
 * nng thread) before on_request has returned.
 */
struct jreq {
	struct jctx *c;
	nng_pipe     pipe;
	int          answered;
};

struct agjoin {
	struct agents   *ag;
	nng_mtx         *lock;
	nng_socket       rep;
	int              open;
	struct log_limit bad; /* undecodable messages, said a few a window */
	struct jctx      c[AGJOIN_CTXS];
};

static void
recv_next(struct jctx *c)
{
	c->state = J_RECV;
	nng_ctx_recv(c->ctx, c->aio);
}

static void
post(struct jctx *c, nng_msg *nm)
{
	nng_aio_set_msg(c->aio, nm);
	c->state = J_SEND;
	nng_ctx_send(c->ctx, c->aio);
}

static void
j_answer(struct apeer *p, Ocs__Msg *m)
{
	struct jreq *q = p->ctx;
	struct jctx *c = q->c;
	nng_msg     *nm;

	if (q->answered)
		return;
	q->answered = 1;
	m->version = MSG_VERSION;
	m->has_seq = 1;
	m->seq = p->seq;
	if (msg_encode(m, &nm) != 0 &&
	    msg_error(p->seq, -MSG_ESIZE, "answer too large", &nm) != 0) {
		recv_next(c);
		return;
	}
	post(c, nm);
}

static void
j_name(struct apeer *p, char *buf, size_t len)
{
	struct jreq *q = p->ctx;

	link_pipe_name(q->pipe, buf, len);
}

static const struct apeer_ops join_ops = {
    .answer = j_answer,
    .name = j_name,
};

static void
on_request(struct jctx *c)
{
	nng_msg     *nm = nng_aio_get_msg(c->aio);
	struct jreq  q = {.c = c};
	struct apeer from = {.ops = &join_ops, .ctx = &q};
	Ocs__Msg    *m;
	char         why[300], peer[128];
	int          rv;

	nng_aio_set_msg(c->aio, NULL);
	q.pipe = nng_msg_get_pipe(nm);
	from.pipe = nng_pipe_id(q.pipe);
	rv = msg_decode(nng_msg_body(nm), nng_msg_len(nm), &m, why,
	                sizeof(why));
	nng_msg_free(nm);
	if (rv != 0) {
		link_pipe_name(q.pipe, peer, sizeof(peer));
		nng_mtx_lock(c->j->lock);
		log_warnx_limited(&c->j->bad,
		                  "agents: rejected a message from %s: %s",
		                  peer, why);
		nng_mtx_unlock(c->j->lock);
		if (msg_error(0, rv, why, &nm) == 0)
			post(c, nm);
		else
			recv_next(c);
		return;
	}
	from.seq = m->has_seq ? m->seq : 0;
	nng_mtx_lock(c->j->lock);
	agents_hear(c->j->ag, &from, NULL, m);
	nng_mtx_unlock(c->j->lock);
	msg_free(m);
	/* Nothing holds a request here: one that went unanswered is a
	 * bug, and the agent must not wait for it. */
	if (!q.answered) {
		Ocs__Msg   e;
		Ocs__Error er;

		ocs__msg__init(&e);
		ocs__error__init(&er);
		er.code = -OCSD_EREQUEST;
		er.text = "not answered";
		e.body_case = OCS__MSG__BODY_ERROR;
		e.error = &er;
		j_answer(&from, &e);
	}
}

static void
ctx_cb(void *arg)
{
	struct jctx *c = arg;
	int          rv = nng_aio_result(c->aio);

	if (rv == NNG_ECLOSED || rv == NNG_ECANCELED) {
		if (c->state == J_SEND) {
			nng_msg_free(nng_aio_get_msg(c->aio));
			nng_aio_set_msg(c->aio, NULL);
		}
		return;
	}
	if (c->state == J_SEND) {
		/* Not sent (the peer went): the message is still ours. */
		if (rv != 0) {
			nng_msg_free(nng_aio_get_msg(c->aio));
			nng_aio_set_msg(c->aio, NULL);
		}
		recv_next(c);
		return;
	}
	if (rv != 0) {
		recv_next(c);
		return;
	}
	on_request(c);
}

int
agjoin_open(struct agents *ag, nng_mtx *lock, const char *url,
            const char *cert_key, struct agjoin **out, char *bound, size_t bl,
            char *err, size_t el)
{
	struct agjoin *j;
	nng_listener   l;
	int            rv, i, port;

	*out = NULL;
	if ((j = calloc(1, sizeof(*j))) == NULL)
		return (-ENOMEM);
	j->ag = ag;
	j->lock = lock;
	err[0] = '\0';
	if ((rv = nng_rep0_open(&j->rep)) != 0 ||
	    (rv = nng_socket_set_size(j->rep, NNG_OPT_RECVMAXSZ,
	                              MSG_MAX_BYTES)) != 0) {
		snprintf(err, el, "join socket: %s", nng_strerror(rv));
		free(j);
		return (msg_nngerr(rv));
	}
	j->open = 1;
	for (i = 0; i < AGJOIN_CTXS; i++) {
		j->c[i].j = j;
		if ((rv = nng_aio_alloc(&j->c[i].aio, ctx_cb, &j->c[i])) !=
		        0 ||
		    (rv = nng_ctx_open(&j->c[i].ctx, j->rep)) != 0) {
			snprintf(err, el, "join socket: %s", nng_strerror(rv));
			agjoin_close(j);
			return (msg_nngerr(rv));
		}
	}
	if ((rv = link_listen(j->rep, url, cert_key, &l, err, el)) != 0) {
		agjoin_close(j);
		return (msg_nngerr(rv));
	}
	/* [tls+]tcp://host:0: the kernel's port, told in the log. */
	snprintf(bound, bl, "%s", url);
	if (strrchr(url, ':') && strcmp(strrchr(url, ':'), ":0") == 0 &&
	    nng_listener_get_int(l, NNG_OPT_TCP_BOUND_PORT, &port) == 0)
		snprintf(bound, bl, "%.*s:%d", (int)(strrchr(url, ':') - url),
		         url, port);
	for (i = 0; i < AGJOIN_CTXS; i++)
		recv_next(&j->c[i]);
	*out = j;
	return (0);
}

void
agjoin_close(struct agjoin *j)
{
	int i;

	if (j == NULL)
		return;
	if (j->open)
		nng_close(j->rep);
	for (i = 0; i < AGJOIN_CTXS; i++)
		if (j->c[i].aio != NULL) {
			nng_aio_stop(j->c[i].aio);
			nng_aio_free(j->c[i].aio);
		}
	free(j);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* Simulated agents (see load.h). */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <nng/nng.h>
#include <nng/protocol/reqrep0/req.h>
#include <nng/supplemental/util/platform.h>

#include "proto/barlink.h"
#include "proto/base/mono.h"
#include "proto/base/net.h"
#include "proto/link.h"
#include "proto/msg.h"
#include "proto/plan.h"
#include "testbed/load/load.h"

/* As ocs-agent: a join is answered at once by a live ocsd. */
#define LOAD_JOIN_MS  10000
#define LOAD_READY_MS 120000
/* Stopping waits this long for held requests to be answered. */
#define LOAD_STOP_MS 5000

/* An agent's state; S_BAR: its Ready is out on the barrier link, and
 * the link's thread has it, not nng's callbacks. */
enum { S_NONE, S_SEND, S_RECV, S_SLEEP, S_BAR, S_DEAD };

struct simag {
	struct load      *ld;
	char              host[48];
	nng_socket        req;
	nng_ctx           ctx;
	nng_aio          *aio;
	atomic_int        st;
	int               retired; /* no longer counted busy (ld->mtx) */
	int               bfd;     /* its barrier link, or -1 */
	struct barlink_rx brx;
	int               sent; /* OCS__MSG__BODY_* of the request out */
	int               joined;
	uint64_t          seq, run;
	uint32_t          id, hb_ms;
	uint32_t         *bar, nbar, bi; /* the run's barriers, then #phases */
};

struct load {
	struct load_opts  o;
	struct simag     *a;
	uint32_t          n;
	nng_mtx          *mtx;
	nng_cv           *cv;
	uint64_t          t0;
	struct load_stats st;
	uint32_t          busy; /* agents with an exchange under way */
	int               stopping;
	/* The barrier links' answers: one thread, one epoll set. */
	int         bep, bwake;
	nng_thread *bthr;
};

static void hello(struct simag *);

static void
count(struct simag *a, uint64_t *what)
{
	nng_mtx_lock(a->ld->mtx);
	(*what)++;
	nng_cv_wake(a->ld->cv);
	nng_mtx_unlock(a->ld->mtx);
}

/* This agent gives up: said once in the stats. */
static void
fail(struct simag *a, const char *fmt, const char *what)
{
	struct load *ld = a->ld;

	a->st = S_DEAD;
	nng_mtx_lock(ld->mtx);
	ld->st.failed++;
	if (a->joined)
		ld->st.joined--;
	a->joined = 0;
	snprintf(ld->st.err, sizeof(ld->st.err), "%s: ", a->host);
	snprintf(ld->st.err + strlen(ld->st.err),
	         sizeof(ld->st.err) - strlen(ld->st.err), fmt, what);
	nng_cv_wake(ld->cv);
	nng_mtx_unlock(ld->mtx);
}

/* No longer counted busy: once, whichever thread sees it dead first. */
static void
retire(struct simag *a)
{
	nng_mtx_lock(a->ld->mtx);
	if (!a->retired) {
		a->retired = 1;
		a->ld->busy--;
		nng_cv_wake(a->ld->cv);
	}
	nng_mtx_unlock(a->ld->mtx);
}

static void
stamp(struct simag *a, Ocs__Msg *m)
{
	m->version = MSG_VERSION;
	m->has_seq = 1;
	m->seq = ++a->seq;
	if (a->run && !m->has_run_id) {
		m->has_run_id = 1;
		m->run_id = a->run;
	}
}

/*
 * A Ready on the barrier link.  Its fd is armed for one event, so the
 * link's thread hears the answer and nng's callbacks leave the agent
 * alone until then; a send that fails ends the link, and that thread
 * sees the end.
 */
static void
bar_transmit(struct simag *a, Ocs__Msg *m)
{
	struct epoll_event ev = {.events = EPOLLIN | EPOLLONESHOT,
	                         .data.ptr = a};
	uint8_t           *buf;
	size_t             len;

	stamp(a, m);
	if (barlink_pack(m, &buf, &len) != 0) {
		fail(a, "%s", "cannot encode a request");
		return;
	}
	a->sent = m->body_case;
	a->st = S_BAR;
	if (epoll_ctl(a->ld->bep, EPOLL_CTL_MOD, a->bfd, &ev) != 0 ||
	    net_write_all(a->bfd, buf, len, mono_ms() + LOAD_JOIN_MS, -1) != 0)
		shutdown(a->bfd, SHUT_RDWR);
	free(buf);
}

/* Send m; its answer comes back to cb within timeout_ms. */
static void
transmit(struct simag *a, Ocs__Msg *m, int timeout_ms)
{
	nng_msg *nm;

	stamp(a, m);
	if (msg_encode(m, &nm) != 0) {
		fail(a, "%s", "cannot encode a request");
		return;
	}
	a->sent = m->body_case;
	a->st = S_SEND;
	nng_aio_set_msg(a->aio, nm);
	nng_aio_set_timeout(a->aio, timeout_ms);
	nng_ctx_send(a->ctx, a->aio);
}

static void
hello(struct simag *a)
{
	Ocs__Msg   m;
	Ocs__Hello h;

	ocs__msg__init(&m);
	ocs__hello__init(&h);
	h.host = a->host;
	m.body_case = OCS__MSG__BODY_HELLO;
	m.hello = &h;
	a->run = 0;
	transmit(a, &m, LOAD_JOIN_MS);
}

static void
join(struct simag *a, const Ocs__Challenge *c)
{
	const struct load_opts *o = &a->ld->o;
	uint8_t                 proof[AUTH_PROOF];
	Ocs__Msg                m;
	Ocs__Join               j;

	if (c->nonce.len != AUTH_NONCE ||
	    auth_proof(o->secret, o->secret_len, c->nonce.data, AUTH_NONCE,
	               a->host, proof) != 0) {
		fail(a, "%s", "bad challenge");
		return;
	}
	ocs__msg__init(&m);
	ocs__join__init(&j);
	j.host = a->host;
	j.transceivers = o->ntrx;
	j.nonce = c->nonce;
	j.proof.data = proof;
	j.proof.len = AUTH_PROOF;
	j.transport = "fibre";
	m.body_case = OCS__MSG__BODY_JOIN;
	m.join = &j;
	transmit(a, &m, LOAD_JOIN_MS);
}

static void
poll_(struct simag *a)
{
	Ocs__Msg  m;
	Ocs__Poll p;

	ocs__msg__init(&m);
	ocs__poll__init(&p);
	p.agent_id = a->id;
	p.has_fibres_up = 1;
	p.fibres_up = a->ld->o.ntrx;
	m.body_case = OCS__MSG__BODY_POLL;
	m.poll = &p;
	a->run = 0;
	transmit(a, &m, (int)a->hb_ms * 3 + 1000);
}

/* Ready for the run's barrier bi, reporting the phases since the last
 * one as done with nothing moved. */
static void
ready(struct simag *a)
{
	struct plan_done  d[PLAN_MAX_DONE];
	struct ready_wire w;
	Ocs__Msg          m;
	uint32_t          k = a->bar[a->bi], p0, nd = 0;

	p0 = a->bi > 0 ? a->bar[a->bi - 1] : k;
	if (k - p0 > PLAN_MAX_DONE) {
		fail(a, "%s",
		     "a plan with more phases between barriers than "
		     "a Ready reports");
		return;
	}
	memset(d, 0, sizeof(d));
	for (; p0 < k; p0++)
		d[nd++].phase = p0;
	ocs__msg__init(&m);
	(void)plan_ready_encode(a->id, d, nd, &w);
	m.body_case = OCS__MSG__BODY_READY;
	m.ready = &w.r;
	m.has_phase = 1;
	m.phase = k;
	if (a->bfd >= 0)
		bar_transmit(a, &m);
	else
		transmit(a, &m, LOAD_READY_MS);
}

/* A plan: its barriers (phase 0 always is one), then the end. */
static void
start_run(struct simag *a, const Ocs__Msg *r)
{
	const Ocs__Plan *p = r->plan;
	uint32_t         k;

	if (p->agent_id != a->id || !r->has_run_id || p->n_phases == 0 ||
	    p->n_phases > 65536) {
		fail(a, "%s", "a plan that is not for it");
		return;
	}
	free(a->bar);
	if ((a->bar = calloc(p->n_phases + 1, sizeof(*a->bar))) == NULL) {
		fail(a, "%s", "out of memory");
		return;
	}
	a->nbar = a->bi = 0;
	for (k = 0; k < p->n_phases; k++)
		if (k == 0 || p->phases[k]->barrier)
			a->bar[a->nbar++] = k;
	a->bar[a->nbar++] = (uint32_t)p->n_phases;
	a->run = r->run_id;
	count(a, &a->ld->st.plans);
	ready(a);
}

static void
bar_close(struct simag *a)
{
	if (a->bfd >= 0) {
		epoll_ctl(a->ld->bep, EPOLL_CTL_DEL, a->bfd, NULL);
		close(a->bfd);
	}
	a->bfd = -1;
	barlink_rx_free(&a->brx);
}

/* The barrier link the JoinReply offers, attached (as ocs-agent): 0,
 * or -1 after failing the agent. */
static int
bar_attach(struct simag *a, const Ocs__JoinReply *jr)
{
	struct epoll_event ev = {.events = 0, .data.ptr = a};
	char               err[300];
	int                fd;

	bar_close(a);
	if (barlink_attach(jr, a->id, ++a->seq, LOAD_JOIN_MS, &a->brx, &fd,
	                   err, sizeof(err)) != 0) {
		fail(a, "%s", err);
		return (-1);
	}
	if ((a->bfd = fd) >= 0 &&
	    epoll_ctl(a->ld->bep, EPOLL_CTL_ADD, a->bfd, &ev) != 0) {
		fail(a, "epoll: %s", strerror(errno));
		bar_close(a);
		return (-1);
	}
	return (0);
}

static void
joined(struct simag *a, const Ocs__JoinReply *jr)
{
	struct load *ld = a->ld;

	a->id = jr->agent_id;
	a->hb_ms = jr->has_heartbeat_ms ? jr->heartbeat_ms : 2000;
	if (bar_attach(a, jr) != 0)
		return;
	a->joined = 1;
	nng_mtx_lock(ld->mtx);
	ld->st.joined++;
	ld->st.join_last_us = mono_us() - ld->t0;
	nng_cv_wake(ld->cv);
	nng_mtx_unlock(ld->mtx);
	poll_(a);
}

/* An Error answer: a busy join table is tried again shortly, a
 * forgotten agent joins again, a refused Ready ends its run. */
static void
on_error(struct simag *a, const Ocs__Error *e)
{
	if (a->sent == OCS__MSG__BODY_HELLO && e->code == -EAGAIN) {
		count(a, &a->ld->st.join_retries);
		a->st = S_SLEEP;
		nng_sleep_aio(5 + (nng_duration)(a->seq % 16), a->aio);
		return;
	}
	if (a->sent == OCS__MSG__BODY_HELLO ||
	    a->sent == OCS__MSG__BODY_JOIN) {
		fail(a, "%s", e->text);
		return;
	}
	if (e->code == -EPERM) { /* not joined: ocsd restarted */
		nng_mtx_lock(a->ld->mtx);
		a->ld->st.joined -= a->joined;
		nng_mtx_unlock(a->ld->mtx);
		a->joined = 0;
		hello(a);
		return;
	}
	if (a->sent == OCS__MSG__BODY_READY)
		count(a, &a->ld->st.aborts);
	poll_(a);
}

static void
dispatch(struct simag *a, const Ocs__Msg *r)
{
	if (r->body_case == OCS__MSG__BODY_ERROR) {
		on_error(a, r->error);
		return;
	}
	switch (a->sent << 8 | r->body_case) {
	case OCS__MSG__BODY_HELLO << 8 | OCS__MSG__BODY_CHALLENGE:
		join(a, r->challenge);
		return;
	case OCS__MSG__BODY_JOIN << 8 | OCS__MSG__BODY_JOIN_REPLY:
		joined(a, r->join_reply);
		return;
	case OCS__MSG__BODY_POLL << 8 | OCS__MSG__BODY_IDLE:
		count(a, &a->ld->st.idles);
		poll_(a);
		return;
	case OCS__MSG__BODY_POLL << 8 | OCS__MSG__BODY_PLAN:
		start_run(a, r);
		return;
	case OCS__MSG__BODY_READY << 8 | OCS__MSG__BODY_RELEASE:
		count(a, &a->ld->st.releases);
		a->bi++;
		if (a->bi < a->nbar) {
			ready(a);
			return;
		}
		break;
	case OCS__MSG__BODY_READY << 8 | OCS__MSG__BODY_FINISHED:
		count(a, &a->ld->st.finished);
		poll_(a);
		return;
	case OCS__MSG__BODY_READY << 8 | OCS__MSG__BODY_ABORT:
		count(a, &a->ld->st.aborts);
		poll_(a);
		return;
	default:
		break;
	}
	fail(a, "unexpected answer %s", msg_body_name(r->body_case));
}

static void
received(struct simag *a)
{
	nng_msg  *nm = nng_aio_get_msg(a->aio);
	Ocs__Msg *r;
	char      why[200];
	int       rv;

	nng_aio_set_msg(a->aio, NULL);
	rv = msg_decode(nng_msg_body(nm), nng_msg_len(nm), &r, why,
	                sizeof(why));
	nng_msg_free(nm);
	if (rv != 0) {
		fail(a, "bad answer: %s", why);
		return;
	}
	dispatch(a, r);
	msg_free(r);
}

/* Is the load stopping?  Then no agent starts another exchange. */
static int
stopping(struct load *ld)
{
	int v;

	nng_mtx_lock(ld->mtx);
	v = ld->stopping;
	nng_mtx_unlock(ld->mtx);
	return (v);
}

/* One step of an agent's exchange; it ends S_DEAD at most once, and is
 * then no longer counted as busy. */
static void
step(struct simag *a, int rv)
{
	if (rv == NNG_ECANCELED || rv == NNG_ECLOSED) {
		if (a->st == S_SEND) {
			nng_msg_free(nng_aio_get_msg(a->aio));
			nng_aio_set_msg(a->aio, NULL);
		}
		a->st = S_DEAD;
		return;
	}
	switch (a->st) {
	case S_SEND:
		if (rv != 0) {
			nng_msg_free(nng_aio_get_msg(a->aio));
			nng_aio_set_msg(a->aio, NULL);
			fail(a, "send: %s", nng_strerror(rv));
			return;
		}
		a->st = S_RECV;
		nng_ctx_recv(a->ctx, a->aio);
		return;
	case S_RECV:
		if (rv != 0)
			fail(a, "no answer: %s", nng_strerror(rv));
		else if (stopping(a->ld)) {
			nng_msg_free(nng_aio_get_msg(a->aio));
			nng_aio_set_msg(a->aio, NULL);
			a->st = S_DEAD;
		} else
			received(a);
		return;
	case S_SLEEP:
		if (stopping(a->ld))
			a->st = S_DEAD;
		else
			hello(a);
		return;
	default:
		return;
	}
}

static void
cb(void *arg)
{
	struct simag *a = arg;

	step(a, nng_aio_result(a->aio));
	if (a->st == S_DEAD)
		retire(a);
}

/* The answer to a Ready on the barrier link (its fd fired once). */
static void
bar_event(struct simag *a)
{
	struct epoll_event ev = {.events = EPOLLIN | EPOLLONESHOT,
	                         .data.ptr = a};
	Ocs__Msg          *r;
	char               why[200];
	long               n;
	int                rv;

	n = barlink_rx_read(&a->brx, a->bfd);
	while ((rv = barlink_rx_next(&a->brx, &r, why, sizeof(why))) == 1) {
		if (r->has_seq && r->seq == a->seq)
			break;
		msg_free(r); /* an answer to a request given up on */
	}
	if (rv == 0 && (n > 0 || n == -EAGAIN)) {
		if (epoll_ctl(a->ld->bep, EPOLL_CTL_MOD, a->bfd, &ev) == 0)
			return; /* not whole yet */
		snprintf(why, sizeof(why), "epoll: %s", strerror(errno));
		rv = -1;
	}
	if (rv <= 0) {
		fail(a, "barrier link: %s",
		     rv < 0   ? why
		     : n == 0 ? "ocsd closed it"
		              : strerror((int)-n));
	} else if (stopping(a->ld)) {
		a->st = S_DEAD;
		msg_free(r);
	} else {
		a->st = S_NONE;
		dispatch(a, r);
		msg_free(r);
	}
	if (a->st == S_DEAD)
		retire(a);
}

static void
bar_thread(void *arg)
{
	struct load       *ld = arg;
	struct epoll_event ev[64];
	int                k, i;

	for (;;) {
		if ((k = epoll_wait(ld->bep, ev, 64, -1)) < 0 &&
		    errno != EINTR)
			return;
		for (i = 0; i < k; i++) {
			if (ev[i].data.ptr == NULL)
				return; /* load_stop */
			bar_event(ev[i].data.ptr);
		}
	}
}

static int
open_agent(struct load *ld, struct simag *a, uint32_t i, char *err, size_t len)
{
	int rv;

	a->ld = ld;
	a->bfd = -1;
	snprintf(a->host, sizeof(a->host), "%s%0*u", ld->o.prefix, ld->o.width,
	         i);
	if ((rv = nng_req0_open(&a->req)) != 0) {
		snprintf(err, len, "agent %u: nng: %s", i, nng_strerror(rv));
		return (msg_nngerr(rv));
	}
	nng_socket_set_size(a->req, NNG_OPT_RECVMAXSZ, MSG_MAX_BYTES);
	/* Never re-send: Ready is not idempotent (ocs-agent alike). */
	nng_socket_set_ms(a->req, NNG_OPT_REQ_RESENDTIME,
	                  NNG_DURATION_INFINITE);
	nng_socket_set_ms(a->req, NNG_OPT_RECONNMAXT, 1000);
	if ((rv = nng_ctx_open(&a->ctx, a->req)) != 0 ||
	    (rv = nng_aio_alloc(&a->aio, cb, a)) != 0) {
		snprintf(err, len, "agent %u: nng: %s", i, nng_strerror(rv));
		nng_close(a->req);
		return (msg_nngerr(rv));
	}
	if ((rv = link_dial(a->req, ld->o.controller, ld->o.tls_ca,
	                    NNG_FLAG_NONBLOCK, err, len)) != 0) {
		nng_aio_free(a->aio);
		nng_close(a->req);
		return (msg_nngerr(rv));
	}
	return (0);
}

/* The barrier links' thread, woken to stop by bwake. */
static int
bar_start(struct load *ld, char *err, size_t len)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};
	int                rv;

	if ((ld->bep = epoll_create1(EPOLL_CLOEXEC)) < 0 ||
	    (ld->bwake = eventfd(0, EFD_CLOEXEC)) < 0 ||
	    epoll_ctl(ld->bep, EPOLL_CTL_ADD, ld->bwake, &ev) != 0) {
		snprintf(err, len, "epoll: %s", strerror(errno));
		return (-errno);
	}
	if ((rv = nng_thread_create(&ld->bthr, bar_thread, ld)) != 0) {
		snprintf(err, len, "thread: %s", nng_strerror(rv));
		return (msg_nngerr(rv));
	}
	return (0);
}

int
load_start(const struct load_opts *o, struct load **out, char *err, size_t len)
{
	struct load *ld;
	uint32_t     i;
	int          rv = 0;

	*out = NULL;
	if (o->n < 1 || o->n > LOAD_MAX || o->ntrx < 1 || o->ntrx > 8) {
		snprintf(err, len, "agents %u, transceivers %u: 1..%u, 1..8",
		         o->n, o->ntrx, LOAD_MAX);
		return (-EINVAL);
	}
	if ((ld = calloc(1, sizeof(*ld))) == NULL) {
		snprintf(err, len, "out of memory");
		return (-ENOMEM);
	}
	ld->bep = ld->bwake = -1;
	if ((ld->a = calloc(o->n, sizeof(*ld->a))) == NULL ||
	    nng_mtx_alloc(&ld->mtx) != 0 || nng_cv_alloc(&ld->cv, ld->mtx)) {
		snprintf(err, len, "out of memory");
		load_stop(ld);
		return (-ENOMEM);
	}
	ld->o = *o;
	if ((rv = bar_start(ld, err, len)) != 0) {
		load_stop(ld);
		return (rv);
	}
	/* Every connection first, then the storm: the joins race. */
	for (i = 0; i < o->n && rv == 0; i++)
		if ((rv = open_agent(ld, &ld->a[i], i, err, len)) == 0)
			ld->n++;
	if (rv != 0) {
		load_stop(ld);
		return (rv);
	}
	ld->t0 = mono_us();
	ld->busy = ld->n;
	for (i = 0; i < ld->n; i++)
		hello(&ld->a[i]);
	*out = ld;
	return (0);
}

void
load_stats(struct load *ld, struct load_stats *st)
{
	nng_mtx_lock(ld->mtx);
	*st = ld->st;
	nng_mtx_unlock(ld->mtx);
}

/* Wait until done(ld) or timeout_ms: 0 when done. */
static int
wait_for(struct load *ld, int (*done)(const struct load *, uint64_t),
         uint64_t arg, uint32_t timeout_ms)
{
	nng_time until = nng_clock() + timeout_ms;
	int      rv = 0;

	nng_mtx_lock(ld->mtx);
	while (!done(ld, arg) && ld->st.failed == 0 && rv == 0)
		rv = nng_cv_until(ld->cv, until);
	rv = done(ld, arg) ? 0 : -1;
	nng_mtx_unlock(ld->mtx);
	return (rv);
}

static int
all_joined(const struct load *ld, uint64_t arg)
{
	(void)arg;
	return (ld->st.joined == ld->n);
}

static int
finished(const struct load *ld, uint64_t want)
{
	return (ld->st.finished >= want);
}

int
load_wait_joined(struct load *ld, uint32_t timeout_ms)
{
	return (wait_for(ld, all_joined, 0, timeout_ms));
}

int
load_wait_finished(struct load *ld, uint64_t want, uint32_t timeout_ms)
{
	return (wait_for(ld, finished, want, timeout_ms));
}

void
load_stop(struct load *ld)
{
	nng_time until = nng_clock() + LOAD_STOP_MS;
	uint32_t i;

	if (ld == NULL)
		return;
	/*
	 * Each agent ends its exchange first: ocsd answers a held Poll
	 * within a heartbeat.  Only then are the sockets closed, with
	 * nothing under way: nng 1.5 can wait forever closing a REQ
	 * socket whose context has a request out (nng issue 1827), and
	 * stopping the aio first does not avoid it.
	 */
	if (ld->mtx != NULL) {
		nng_mtx_lock(ld->mtx);
		ld->stopping = 1;
		while (ld->busy > 0 && nng_cv_until(ld->cv, until) == 0)
			;
		nng_mtx_unlock(ld->mtx);
	}
	if (ld->bthr != NULL) {
		uint64_t one = 1;

		if (write(ld->bwake, &one, sizeof(one)) == sizeof(one))
			nng_thread_destroy(ld->bthr);
	}
	for (i = 0; i < ld->n; i++)
		nng_close(ld->a[i].req);
	for (i = 0; i < ld->n; i++) {
		nng_aio_free(ld->a[i].aio);
		free(ld->a[i].bar);
		bar_close(&ld->a[i]);
	}
	if (ld->bep >= 0)
		close(ld->bep);
	if (ld->bwake >= 0)
		close(ld->bwake);
	if (ld->cv)
		nng_cv_free(ld->cv);
	if (ld->mtx)
		nng_mtx_free(ld->mtx);
	free(ld->a);
	free(ld);
}

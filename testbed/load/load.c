/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Simulated agents (see load.h).  Each joins on its own nng REQ context
 * (a state machine on one aio, as ocsd's contexts are: no thread per
 * agent), then attaches its agent link, and from then on lives on the
 * links' thread: one epoll set for every agent's link, where each answer
 * is read and the next request written.  The protocol is ocs-agent's
 * (proto/amsg.h); only the waiting differs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <nng/nng.h>
#include <nng/protocol/reqrep0/req.h>
#include <nng/supplemental/util/platform.h>

#include "proto/amsg.h"
#include "proto/base/mono.h"
#include "proto/link.h"
#include "testbed/load/load.h"

/* As ocs-agent: a join is answered at once by a live ocsd. */
#define LOAD_JOIN_MS 10000
/* Stopping waits this long for joins under way to be answered. */
#define LOAD_STOP_MS 5000

/* An agent's state: joining on nng (S_SEND, S_RECV, S_SLEEP), on its
 * link (S_LINK: the links' thread has it), or given up (S_DEAD). */
enum { S_NONE, S_SEND, S_RECV, S_SLEEP, S_LINK, S_DEAD };

struct simag {
	struct load      *ld;
	char              host[AMSG_HOST_MAX];
	nng_socket        req;
	nng_ctx           ctx;
	nng_aio          *aio;
	int               st;
	int               busy; /* an nng exchange is under way (ld->mtx) */
	struct alink_conn link;
	int               have_link;
	int               sent; /* OCS__MSG__BODY_* of the request out */
	int               joined;
	uint64_t          seq, run;
	uint32_t          id;
	uint32_t         *bar, nbar, bi; /* the run's barriers, then #phases */
	struct amsg_out   out;
};

struct load {
	struct load_opts   o;
	struct simag      *a;
	uint32_t           n;
	nng_mtx           *mtx;
	nng_cv            *cv;
	uint64_t           t0;
	struct load_stats  st;
	uint32_t           busy; /* agents with an nng exchange under way */
	int                stopping;
	struct ssl_ctx_st *tls;
	/* The links' thread: one epoll set, woken to stop by bwake. */
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

static void
host_of(const struct simag *a, struct amsg_host *h)
{
	memset(h, 0, sizeof(*h));
	h->host = a->host;
	h->ntrx = a->ld->o.ntrx;
	h->secret = a->ld->o.secret;
	h->slen = a->ld->o.secret_len;
	h->transport = "fibre";
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

/* An nng exchange starts or ends (ld->busy counts them for load_stop). */
static void
busy(struct simag *a, int on)
{
	nng_mtx_lock(a->ld->mtx);
	if (a->busy != on) {
		a->busy = on;
		if (on)
			a->ld->busy++;
		else
			a->ld->busy--;
		nng_cv_wake(a->ld->cv);
	}
	nng_mtx_unlock(a->ld->mtx);
}

static void
link_close(struct simag *a)
{
	if (a->have_link) {
		epoll_ctl(a->ld->bep, EPOLL_CTL_DEL, a->link.io.fd, NULL);
		alink_disconnect(&a->link);
	}
	a->have_link = 0;
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

/* No longer joined (ocsd restarted, or the link closed): join again. */
static void
rejoin(struct simag *a)
{
	link_close(a);
	nng_mtx_lock(a->ld->mtx);
	a->ld->st.joined -= a->joined;
	nng_mtx_unlock(a->ld->mtx);
	a->joined = 0;
	a->run = 0;
	if (stopping(a->ld))
		a->st = S_DEAD;
	else
		hello(a);
}

/* ---- joining, on nng --------------------------------------------------- */

/* Send the message built in a->out; its answer comes back to cb. */
static void
transmit(struct simag *a)
{
	nng_msg *nm;

	if (msg_encode(&a->out.m, &nm) != 0) {
		fail(a, "%s", "cannot encode a request");
		return;
	}
	a->sent = a->out.m.body_case;
	a->st = S_SEND;
	busy(a, 1);
	nng_aio_set_msg(a->aio, nm);
	nng_aio_set_timeout(a->aio, LOAD_JOIN_MS);
	nng_ctx_send(a->ctx, a->aio);
}

static void
hello(struct simag *a)
{
	struct amsg_host h;

	host_of(a, &h);
	amsg_hello(&a->out, ++a->seq, &h);
	transmit(a);
}

/*
 * As ocs-agent does, a join that failed on the way (ocsd's full join
 * table, a request not answered in time, an attach ocsd gave up waiting
 * for in a storm on a busy machine) is tried again shortly, counted with
 * the retries; only a refusal is final.
 */
static void
retry(struct simag *a)
{
	count(a, &a->ld->st.join_retries);
	a->st = S_SLEEP;
	busy(a, 1);
	nng_sleep_aio(5 + (nng_duration)(a->seq % 16), a->aio);
}

/*
 * Joined: attach the link (blocking, on this nng thread: a join storm's
 * attaches run on nng's task threads side by side) and hand the agent to
 * the links' thread, which writes its first Poll when it sees the
 * socket writable: from then on only that thread touches the link.
 */
static void
joined(struct simag *a, const Ocs__Msg *r)
{
	struct load       *ld = a->ld;
	struct amsg_host   h;
	struct amsg_joined j;
	struct epoll_event ev = {.events = EPOLLOUT, .data.ptr = a};
	char               err[300];
	int                rv;

	host_of(a, &h);
	if ((rv = amsg_joined(r, &h, ld->o.controller, &j, err,
	                      sizeof(err))) != 0) {
		fail(a, "%s", err);
		return;
	}
	if ((rv = amsg_attach_link(&a->link, &h, &j, ld->tls, ++a->seq,
	                           LOAD_JOIN_MS, err, sizeof(err))) != 0) {
		retry(a);
		return;
	}
	a->have_link = 1;
	a->id = j.agent_id;
	a->joined = 1;
	nng_mtx_lock(ld->mtx);
	ld->st.joined++;
	ld->st.join_last_us = mono_us() - ld->t0;
	nng_cv_wake(ld->cv);
	nng_mtx_unlock(ld->mtx);
	a->st = S_LINK;
	if (epoll_ctl(ld->bep, EPOLL_CTL_ADD, a->link.io.fd, &ev) != 0)
		fail(a, "epoll: %s", strerror(errno));
}

static void
received(struct simag *a)
{
	nng_msg         *nm = nng_aio_get_msg(a->aio);
	struct amsg_host h;
	Ocs__Msg        *r;
	char             why[200];
	int              rv;

	nng_aio_set_msg(a->aio, NULL);
	rv = msg_decode(nng_msg_body(nm), nng_msg_len(nm), &r, why,
	                sizeof(why));
	nng_msg_free(nm);
	if (rv != 0) {
		fail(a, "bad answer: %s", why);
		return;
	}
	host_of(a, &h);
	if (a->sent == OCS__MSG__BODY_HELLO &&
	    r->body_case == OCS__MSG__BODY_ERROR &&
	    r->error->code == -EAGAIN) {
		retry(a);
	} else if (a->sent == OCS__MSG__BODY_HELLO) {
		if ((rv = amsg_join(&a->out, ++a->seq, &h, r, why,
		                    sizeof(why))) == 0)
			transmit(a);
		else
			fail(a, "%s",
			     r->body_case == OCS__MSG__BODY_ERROR
			         ? r->error->text
			         : why);
	} else
		joined(a, r);
	msg_free(r);
}

/* One step of an agent's join; the exchange is no longer busy after. */
static void
cb(void *arg)
{
	struct simag *a = arg;
	int           rv = nng_aio_result(a->aio);

	busy(a, 0);
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
			retry(a);
			return;
		}
		a->st = S_RECV;
		busy(a, 1);
		nng_ctx_recv(a->ctx, a->aio);
		return;
	case S_RECV:
		if (rv != 0)
			retry(a);
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

/* ---- on the link, on the links' thread -------------------------------- */

static void
link_send(struct simag *a)
{
	char err[300];

	a->sent = a->out.m.body_case;
	if (alink_send(&a->link, &a->out.m, mono_ms() + LOAD_JOIN_MS, err,
	               sizeof(err)) != 0)
		rejoin(a);
}

static void
poll_(struct simag *a)
{
	a->run = 0;
	amsg_poll(&a->out, ++a->seq, a->id, a->ld->o.ntrx, NULL);
	link_send(a);
}

/* Ready for the run's barrier bi, reporting the phases since the last
 * one as done with nothing moved. */
static void
ready(struct simag *a)
{
	struct plan_done d[PLAN_MAX_DONE];
	uint32_t         k = a->bar[a->bi], p0, nd = 0;

	p0 = a->bi > 0 ? a->bar[a->bi - 1] : k;
	memset(d, 0, sizeof(d));
	for (; p0 < k && nd < PLAN_MAX_DONE; p0++)
		d[nd++].phase = p0;
	if (p0 < k || amsg_ready(&a->out, ++a->seq, a->run, a->id, k, d, nd, 0,
	                         0) != 0) {
		fail(a, "%s",
		     "a plan with more phases between barriers than "
		     "a Ready reports");
		return;
	}
	link_send(a);
}

/* A plan: its barriers (phase 0 always is one), then the end. */
static void
start_run(struct simag *a, const Ocs__Msg *r)
{
	const Ocs__Plan *p = r->plan;
	uint32_t         k;

	if (p->agent_id != a->id || p->n_phases == 0 || p->n_phases > 65536) {
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

/* An answer to the request out, or a push. */
static void
answered(struct simag *a, const Ocs__Msg *r)
{
	char why[300];
	int  rv;

	if (!r->has_seq || r->seq != a->seq) {
		/* Pushed: an abort reaches an agent that waits for
		 * nothing; this one always waits, and hears it there. */
		return;
	}
	rv = amsg_answer(r, a->sent, why, sizeof(why));
	switch (rv) {
	case AMSG_IDLE:
		count(a, &a->ld->st.idles);
		poll_(a);
		return;
	case AMSG_PLAN:
		start_run(a, r);
		return;
	case AMSG_RELEASE:
		count(a, &a->ld->st.releases);
		if (++a->bi < a->nbar) {
			ready(a);
			return;
		}
		fail(a, "%s", "released past the run's end");
		return;
	case AMSG_FINISHED:
		count(a, &a->ld->st.finished);
		poll_(a);
		return;
	case AMSG_ABORTED:
		count(a, &a->ld->st.aborts);
		poll_(a);
		return;
	case AMSG_PROBE:
		/* No fibres to probe: ocsctl check says it did not
		 * answer. */
		poll_(a);
		return;
	}
	if (a->sent == OCS__MSG__BODY_READY && rv < 0 && rv != -MSG_EBODY) {
		/* A Ready refused: its run is over. */
		count(a, &a->ld->st.aborts);
		poll_(a);
		return;
	}
	fail(a, "%s", why);
}

static void
link_event(struct simag *a, uint32_t events)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = a};
	Ocs__Msg          *r;
	char               err[300];
	int                rv;

	if (a->st != S_LINK)
		return;
	if (events & EPOLLOUT) {
		/* Handed over: the first Poll, then answers only. */
		epoll_ctl(a->ld->bep, EPOLL_CTL_MOD, a->link.io.fd, &ev);
		poll_(a);
		return;
	}
	/* One read a wakeup (alink_fill), then what it completed; an end
	 * after the last frames comes with the next. */
	if ((rv = alink_fill(&a->link, err, sizeof(err))) < 0) {
		rejoin(a); /* ocsd closed it (it restarted, or lost us) */
		return;
	}
	while (a->st == S_LINK && a->have_link &&
	       (rv = alink_take(&a->link, &r, err, sizeof(err))) != 0) {
		if (rv < 0) {
			rejoin(a);
			return;
		}
		answered(a, r);
		msg_free(r);
	}
}

static void
links_thread(void *arg)
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
			link_event(ev[i].data.ptr, ev[i].events);
		}
	}
}

/* ---- starting and stopping ---------------------------------------------- */

static int
open_agent(struct load *ld, struct simag *a, uint32_t i, char *err, size_t len)
{
	int rv;

	a->ld = ld;
	a->link.io.fd = -1;
	snprintf(a->host, sizeof(a->host), "%s%0*u", ld->o.prefix, ld->o.width,
	         i);
	if ((rv = nng_req0_open(&a->req)) != 0) {
		snprintf(err, len, "agent %u: nng: %s", i, nng_strerror(rv));
		return (msg_nngerr(rv));
	}
	nng_socket_set_size(a->req, NNG_OPT_RECVMAXSZ, MSG_MAX_BYTES);
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

static int
links_start(struct load *ld, char *err, size_t len)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};
	int                rv;

	if (link_is_tls(ld->o.controller) &&
	    (rv = alink_tls_client(ld->o.tls_ca ? ld->o.tls_ca : "", &ld->tls,
	                           err, len)) != 0)
		return (rv);
	if ((ld->bep = epoll_create1(EPOLL_CLOEXEC)) < 0 ||
	    (ld->bwake = eventfd(0, EFD_CLOEXEC)) < 0 ||
	    epoll_ctl(ld->bep, EPOLL_CTL_ADD, ld->bwake, &ev) != 0) {
		snprintf(err, len, "epoll: %s", strerror(errno));
		return (-errno);
	}
	if ((rv = nng_thread_create(&ld->bthr, links_thread, ld)) != 0) {
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
	if (o->n < 1 || o->n > LOAD_MAX || o->ntrx < 1 ||
	    o->ntrx > AMSG_MAX_TRX) {
		snprintf(err, len, "agents %u, transceivers %u: 1..%u, 1..%u",
		         o->n, o->ntrx, LOAD_MAX, AMSG_MAX_TRX);
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
	if ((rv = links_start(ld, err, len)) != 0) {
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
	 * Joins under way end first (ocsd answers them at once); only then
	 * are the sockets closed, with nothing out: nng 1.5 can wait
	 * forever closing a REQ socket whose context has a request out (nng
	 * issue 1827).  The links' thread stops before its links close.
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
		link_close(&ld->a[i]);
	}
	if (ld->bep >= 0)
		close(ld->bep);
	if (ld->bwake >= 0)
		close(ld->bwake);
	alink_tls_free(ld->tls);
	if (ld->cv)
		nng_cv_free(ld->cv);
	if (ld->mtx)
		nng_mtx_free(ld->mtx);
	free(ld->a);
	free(ld);
}

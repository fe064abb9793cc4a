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
#include "ocsd/ctl_plan.h"
#include "ocsd/ev.h"
#include "ocsd/ocsd.h"
#include "ocsd/reply.h"
#include "ocsd/run.h"
#include "ocsd/runs.h"
#include "proto/auth.h"
#include "proto/base/log.h"
#include "proto/base/mono.h"
#include "proto/base/path.h"
#include "proto/link.h"

#define CTL_NWORK 8
#define CTL_CHAL  32 /* outstanding challenges */

/* A run's outcome for the request that started it, set before its aio
 * finishes (run_done). */
struct pending {
	int          rv;
	char         err[768];
	struct reply rep;
};

struct work {
	enum { W_INIT, W_RECV, W_WAIT, W_SEND } state;
	struct ocsd          *d;
	nng_aio              *aio;
	nng_ctx               ctx;
	Ocs__Msg             *req;
	uint64_t              seq;
	char                  peer[128];
	uint32_t              pipe;
	const struct ctl_cmd *cmd;
	struct sw_job         job; /* a switch request's, for the worker */
	struct sw            *sw;  /* the job's switch */
	/* A request for every switch of a fabric: their jobs one after
	 * the other, each switch's outcome in its part of fan. */
	int            all;
	uint32_t       next; /* the switch whose job is out */
	struct reply   fan;
	char           forced[600]; /* the run a --force aborted, said */
	int            refreshed;   /* a run's look at an unconnected switch */
	struct pending pend;        /* a run's outcome and report */
	struct ctl_plan_arg parg;   /* the request, for its plan */
	struct ctl         *c;
};

/*
 * The operations, after iproute2's cmds[]: an answer made at once from
 * the state (reads, run and abort), or a job for the switch worker,
 * either a hold whose target the plan computes or a read-back.
 */
struct ctl_cmd {
	int         op; /* OCS__CTL_REQUEST__OP__* */
	const char *name;
	void (*now)(struct work *);
	enum sw_op swop;
	sw_plan_fn plan; /* set: it changes circuits */
};

static void cmd_show(struct work *);
static void cmd_status(struct work *);
static void cmd_agents(struct work *);
static void cmd_abort(struct work *);
static void cmd_run(struct work *);
static void cmd_evict(struct work *);
static void cmd_runs(struct work *);
static void cmd_watch(struct work *);
static void cmd_probe(struct work *);
static int  run_guard(struct work *);
static int  which_switch(struct work *, char *, size_t);
static void submit_job(struct work *);

static const struct ctl_cmd ctl_cmds[] = {
    {OCS__CTL_REQUEST__OP__SHOW, "show", cmd_show, 0, NULL},
    {OCS__CTL_REQUEST__OP__STATUS, "status", cmd_status, 0, NULL},
    {OCS__CTL_REQUEST__OP__AGENTS, "agents", cmd_agents, 0, NULL},
    {OCS__CTL_REQUEST__OP__ABORT, "abort", cmd_abort, 0, NULL},
    {OCS__CTL_REQUEST__OP__RUN, "run", cmd_run, 0, NULL},
    {OCS__CTL_REQUEST__OP__EVICT, "agents evict", cmd_evict, 0, NULL},
    {OCS__CTL_REQUEST__OP__CONNECT, "connect", NULL, SW_HOLD,
     ctl_plan_connect},
    {OCS__CTL_REQUEST__OP__DISCONNECT, "disconnect", NULL, SW_HOLD,
     ctl_plan_disconnect},
    {OCS__CTL_REQUEST__OP__APPLY, "apply", NULL, SW_HOLD, ctl_plan_apply},
    {OCS__CTL_REQUEST__OP__CLEAR, "clear", NULL, SW_HOLD, ctl_plan_clear},
    {OCS__CTL_REQUEST__OP__MAP_SYNC, "map sync", NULL, SW_HOLD, ctl_plan_sync},
    {OCS__CTL_REQUEST__OP__MAP_DIFF, "map diff", NULL, SW_REFRESH, NULL},
    {OCS__CTL_REQUEST__OP__MAP_ADOPT, "map adopt", NULL, SW_ADOPT,
     ctl_plan_adopt},
    {OCS__CTL_REQUEST__OP__PORTS, "show ports", NULL, SW_PORTS, NULL},
    {OCS__CTL_REQUEST__OP__FAULT, "fault", NULL, SW_FAULT, NULL},
    {OCS__CTL_REQUEST__OP__CAPTURE, "capture", NULL, SW_CAPTURE, NULL},
    {OCS__CTL_REQUEST__OP__RUNS, "runs", cmd_runs, 0, NULL},
    {OCS__CTL_REQUEST__OP__WATCH, "watch", cmd_watch, 0, NULL},
    {OCS__CTL_REQUEST__OP__PROBE, "check", cmd_probe, 0, NULL},
};

/* Challenges are under the daemon's mutex (contexts run in parallel). */
struct ctl {
	nng_socket       sock;
	nng_listener     l;
	struct work      w[CTL_NWORK];
	int              nwork;
	uint8_t          secret[AUTH_SEC_MAX + 1];
	size_t           slen; /* 0: no proof asked */
	struct auth_chal chal[CTL_CHAL];
	/* Refusals strangers cause, said a few a window (under the
	 * daemon's mutex, as the challenges). */
	struct log_limit refused;
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

/* The request is answered (or being answered): let go of it. */
static void
done(struct work *w)
{
	msg_free(w->req);
	w->req = NULL;
	map_free(&w->job.target);
	free(w->job.st);
	w->job.st = NULL;
	free(w->job.cap);
	w->job.cap = NULL;
}

/* Hello: a nonce for this connection's next request. */
static void
on_hello(struct work *w)
{
	struct ctl    *c = w->c;
	const uint8_t *nonce;
	Ocs__Msg       r;
	Ocs__Challenge cm;
	nng_msg       *nm;
	int            rv;

	nng_mtx_lock(w->d->mtx);
	nonce = auth_chal_issue(c->chal, CTL_CHAL, w->pipe, NULL, mono_ms());
	if (nonce == NULL) {
		nng_mtx_unlock(w->d->mtx);
		send_error(w, -EAGAIN, "too many requests at once; try again");
		return;
	}
	msg_init(&r, w->seq);
	ocs__challenge__init(&cm);
	cm.nonce.data = (uint8_t *)(uintptr_t)nonce;
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
	uint8_t                want[AUTH_PROOF];
	char                   label[32];
	int                    ok;

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
	ok = auth_chal_take(c->chal, CTL_CHAL, w->pipe, q->nonce.data,
	                    q->nonce.len, NULL, mono_ms());
	nng_mtx_unlock(w->d->mtx);
	if (!ok) {
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
	nng_msg *m = nng_aio_get_msg(w->aio);
	char     why[300];
	size_t   i;
	int      rv;

	w->cmd = NULL;
	link_peer_name(m, w->peer, sizeof(w->peer));
	w->pipe = nng_pipe_id(nng_msg_get_pipe(m));
	rv = msg_decode(nng_msg_body(m), nng_msg_len(m), &w->req, why,
	                sizeof(why));
	nng_msg_free(m);
	w->seq = w->req && w->req->has_seq ? w->req->seq : 0;
	if (rv == 0)
		rv = ctl_check(w->req, why, sizeof(why));
	if (rv != 0) {
		nng_mtx_lock(w->d->mtx);
		log_warnx_limited(&w->c->refused,
		                  "ctl: rejected a message from %s: %s",
		                  w->peer, why);
		nng_mtx_unlock(w->d->mtx);
		done(w);
		send_error(w, rv, why);
		return;
	}
	if (w->req->body_case == OCS__MSG__BODY_HELLO) {
		done(w);
		on_hello(w);
		return;
	}
	for (i = 0; i < sizeof(ctl_cmds) / sizeof(ctl_cmds[0]); i++)
		if (ctl_cmds[i].op == (int)w->req->ctl->op)
			w->cmd = &ctl_cmds[i];
	if (w->cmd == NULL) { /* ctl_check knows every op: not reached */
		send_error(w, -OCSD_EREQUEST, "unknown operation");
		done(w);
		return;
	}
	if ((rv = proven(w, why, sizeof(why))) != 0) {
		nng_mtx_lock(w->d->mtx);
		log_warnx_limited(&w->c->refused,
		                  "ctl: %s from %s refused: %s", w->cmd->name,
		                  w->peer, why);
		nng_mtx_unlock(w->d->mtx);
		done(w);
		send_error(w, rv, why);
		return;
	}
	nng_mtx_lock(w->d->mtx);
	rv = which_switch(w, why, sizeof(why));
	nng_mtx_unlock(w->d->mtx);
	if (rv != 0) {
		log_info("ctl: %s from %s refused: %s", w->cmd->name, w->peer,
		         why);
		send_error(w, rv, why);
		done(w);
		return;
	}
	if (w->cmd->now != NULL) {
		w->cmd->now(w);
		return;
	}
	if (w->cmd->plan != NULL && run_guard(w) != 0)
		return;
	if (w->all) {
		reply_init(&w->fan);
		w->next = 0;
		w->sw = &w->d->sw[0];
	}
	submit_job(w);
}

/* The request's job, for switch w->sw. */
static void
submit_job(struct work *w)
{
	map_free(&w->job.target);
	memset(&w->job, 0, sizeof(w->job));
	w->job.op = w->cmd->swop;
	w->job.plan = w->cmd->plan;
	w->parg = (struct ctl_plan_arg){w->req->ctl, 0, w->all};
	w->job.arg = w->job.op == SW_FAULT ? (const void *)w->req->ctl->fault
	             : w->job.op == SW_CAPTURE
	                 ? (const void *)&w->req->ctl->run_id
	                 : (const void *)&w->parg;
	w->state = W_WAIT;
	sw_submit(w->sw, &w->job, w->aio);
}

/*
 * The switch a request is for (the lock held): the one it names, the
 * only one, the one its transceivers are cabled to, or in a fabric every
 * switch (w->all) for what makes sense for all.  0 or -OCSD_EREQUEST.
 */
static int
which_switch(struct work *w, char *why, size_t len)
{
	const Ocs__CtlRequest *q = w->req->ctl;
	struct ocsd           *d = w->d;
	const char            *end = NULL;
	const struct conf_trx *t;
	int                    op = w->cmd->op;

	w->all = 0;
	w->sw = NULL;
	if (q->switch_name != NULL) {
		if ((w->sw = sw_find(d, q->switch_name)) != NULL)
			return (0);
		snprintf(why, len, "switch \"%.32s\": no such switch (%s%s)",
		         q->switch_name, d->conf->sw[0].name[0] ? "" : "one, ",
		         d->conf->nsw > 1 ? "see ocsctl status" : "unnamed");
		return (-OCSD_EREQUEST);
	}
	if (d->nsw == 1) {
		w->sw = &d->sw[0];
		return (0);
	}
	if (op == OCS__CTL_REQUEST__OP__CONNECT && q->n_pairs > 0)
		end = conf_trx_find(d->conf, q->pairs[0]->a) ? q->pairs[0]->a
		                                             : q->pairs[0]->b;
	else if (op == OCS__CTL_REQUEST__OP__DISCONNECT && q->n_ports > 0)
		end = q->ports[0];
	if (end != NULL) {
		if ((t = conf_trx_find(d->conf, end)) == NULL) {
			snprintf(why, len,
			         "%s %.64s: port numbers are a switch's own: "
			         "name the switch (ocsctl -S NAME)",
			         w->cmd->name, end);
			return (-OCSD_EREQUEST);
		}
		w->sw = &d->sw[t->sw];
		return (0);
	}
	switch (op) {
	case OCS__CTL_REQUEST__OP__SHOW:
	case OCS__CTL_REQUEST__OP__STATUS:
	case OCS__CTL_REQUEST__OP__MAP_DIFF:
	case OCS__CTL_REQUEST__OP__MAP_SYNC:
	case OCS__CTL_REQUEST__OP__MAP_ADOPT:
	case OCS__CTL_REQUEST__OP__CLEAR:
	case OCS__CTL_REQUEST__OP__APPLY:
		w->all = 1;
		return (0);
	case OCS__CTL_REQUEST__OP__PORTS:
	case OCS__CTL_REQUEST__OP__FAULT:
	case OCS__CTL_REQUEST__OP__CAPTURE:
		snprintf(why, len,
		         "%s: this ocsd drives %u switches: name one (ocsctl "
		         "-S NAME)",
		         w->cmd->name, d->nsw);
		return (-OCSD_EREQUEST);
	default:
		return (0); /* not a switch's: agents, runs, ... */
	}
}

/* The change as it would be made now, made nowhere: 0, or its refusal
 * (with the lock: the maps are read as the worker would). */
static int
dry_run(struct work *w, char *why, size_t len)
{
	struct ctl_plan_arg a = {w->req->ctl, 1, w->all};
	struct sw_target    t;
	uint32_t            i;
	int                 rv = 0;

	for (i = 0; i < w->d->nsw && rv == 0; i++) {
		if (!w->all && w->sw != &w->d->sw[i])
			continue;
		memset(&t, 0, sizeof(t));
		rv = w->cmd->plan(w->d, &w->d->sw[i], &a,
		                  w->cmd->swop == SW_ADOPT ? NULL : &t, why,
		                  len);
		map_free(&t.sw);
		map_free(&t.desired);
	}
	return (rv);
}

/*
 * Circuits do not change under a run: the agents would send into dark
 * fibres, and the run's next reconfiguration would undo the change.  With
 * force the run is aborted first (every agent hears why), and the answer
 * says so.  0 to go on, -OCSD_EBUSY once refused and answered.
 */
static int
run_guard(struct work *w)
{
	uint64_t id;
	uint32_t phase;
	char     why[300];
	int      rv;

	w->forced[0] = '\0';
	nng_mtx_lock(w->d->mtx);
	if (!run_where(w->d, &id, &phase)) {
		nng_mtx_unlock(w->d->mtx);
		return (0);
	}
	if (!w->req->ctl->has_force || !w->req->ctl->force) {
		nng_mtx_unlock(w->d->mtx);
		snprintf(why, sizeof(why),
		         "run %llu in progress, phase %u: %s waits for it to "
		         "end (--force aborts the run first)",
		         (unsigned long long)id, phase, w->cmd->name);
		log_info("ctl: %s from %s refused: %s", w->cmd->name, w->peer,
		         why);
		send_error(w, -OCSD_EBUSY, why);
		done(w);
		return (-OCSD_EBUSY);
	}
	/* The change is checked first: one that would be refused (a name
	 * that is not cabled) must not cost the run. */
	if ((rv = dry_run(w, why, sizeof(why))) != 0) {
		nng_mtx_unlock(w->d->mtx);
		log_info("ctl: %s from %s refused: %s", w->cmd->name, w->peer,
		         why);
		send_error(w, rv, why);
		done(w);
		return (rv);
	}
	run_abort(w->d, "aborted by the operator's %s --force (%s)",
	          w->cmd->name, w->peer);
	snprintf(w->forced, sizeof(w->forced), "%s; ", run_last_abort(w->d));
	nng_mtx_unlock(w->d->mtx);
	return (0);
}

/* Answer a read from the state, under the lock. */
static void
answer(struct work *w,
       void (*fill)(struct reply *, const struct ocsd *, const struct sw *))
{
	struct reply rp;

	reply_init(&rp);
	nng_mtx_lock(w->d->mtx);
	fill(&rp, w->d, w->all ? NULL : w->sw);
	nng_mtx_unlock(w->d->mtx);
	send_reply(w, &rp);
	reply_free(&rp);
	done(w);
}

static void
cmd_show(struct work *w)
{
	answer(w, reply_show);
}

static void
cmd_status(struct work *w)
{
	answer(w, reply_status);
}

static void
cmd_agents(struct work *w)
{
	struct reply       rp;
	struct agent_info *ai = NULL;
	uint32_t           n = 0, cap;

	/* A copy under the lock; the answer is built without it. */
	nng_mtx_lock(w->d->mtx);
	cap = agents_count(w->d);
	if (cap > 0 && (ai = calloc(cap, sizeof(*ai))) != NULL)
		n = agents_snapshot(w->d, ai, cap);
	nng_mtx_unlock(w->d->mtx);
	if (cap > 0 && ai == NULL) {
		send_error(w, -ENOMEM, "agents: out of memory");
		done(w);
		return;
	}
	reply_init(&rp);
	reply_agents(&rp, ai, n);
	free(ai);
	send_reply(w, &rp);
	reply_free(&rp);
	done(w);
}

static void
cmd_abort(struct work *w)
{
	struct reply rp;

	nng_mtx_lock(w->d->mtx);
	if (!run_busy(w->d)) {
		nng_mtx_unlock(w->d->mtx);
		send_error(w, -OCSD_EREQUEST, "no run in progress");
	} else {
		run_abort(w->d, "aborted by the operator (%s)", w->peer);
		reply_init(&rp);
		reply_message(&rp, "%s", run_last_abort(w->d));
		nng_mtx_unlock(w->d->mtx);
		send_reply(w, &rp);
		reply_free(&rp);
	}
	done(w);
}

static void
cmd_evict(struct work *w)
{
	struct reply rp;
	char         msg[200];
	int          rv;

	nng_mtx_lock(w->d->mtx);
	rv = agents_evict(w->d, w->req->ctl->ports[0], msg, sizeof(msg));
	nng_mtx_unlock(w->d->mtx);
	if (rv != 0)
		send_error(w, rv, msg);
	else {
		log_info("ctl: %s (from %s)", msg, w->peer);
		reply_init(&rp);
		reply_message(&rp, "%s", msg);
		send_reply(w, &rp);
		reply_free(&rp);
	}
	done(w);
}

/* The kept runs (runs.jsonl), or one whole: read in the context's own
 * thread, the file being ocsd's alone. */
static void
cmd_runs(struct work *w)
{
	const Ocs__CtlRequest *q = w->req->ctl;
	struct reply           rp;
	json_t                *runs;
	char                   err[400] = "";
	uint64_t               id;
	int                    rv;

	reply_init(&rp);
	id = q->has_run_id ? q->run_id : 0;
	/* Through the index: one line read for a run, not the history. */
	rv = w->d->runs_ix
	         ? runs_index_read(w->d->runs_ix, id, &runs, err, sizeof(err))
	         : runs_read(w->d->runs_path, id, &runs, err, sizeof(err));
	if (rv == 0) {
		rv = reply_runs(&rp, runs, q->has_run_id);
		json_decref(runs);
	}
	if (rv == 0 && q->has_run_id && rp.r.report == NULL) {
		snprintf(err, sizeof(err), "run %llu: its report is damaged",
		         (unsigned long long)q->run_id);
		rv = -EINVAL;
	}
	if (rv != 0)
		send_error(w, rv, err[0] ? err : strerror(-rv));
	else
		send_reply(w, &rp);
	reply_free(&rp);
	done(w);
}

/* A watch's answer: the events after its since, maybe none (its time
 * ran out). */
static void
watch_answer(struct work *w)
{
	const Ocs__CtlRequest *q = w->req->ctl;
	struct ev_rec         *ev;
	struct reply           rp;
	uint64_t               last;
	size_t                 n = 0;
	int                    lost = 0;

	/* The held watch's timeout is not the next receive's. */
	nng_aio_set_timeout(w->aio, NNG_DURATION_DEFAULT);
	if ((ev = calloc(EV_BATCH_MAX, sizeof(*ev))) == NULL) {
		send_error(w, -ENOMEM, "watch: out of memory");
		done(w);
		return;
	}
	nng_mtx_lock(w->d->mtx);
	n = ev_since(w->d->ev, q->has_since ? q->since : 0, ev, EV_BATCH_MAX,
	             &last, &lost);
	nng_mtx_unlock(w->d->mtx);
	reply_init(&rp);
	reply_events(&rp, ev, n, last, lost);
	free(ev);
	send_reply(w, &rp);
	reply_free(&rp);
	done(w);
}

/* Hold the watch until something happens after its since (ev.h). */
static void
cmd_watch(struct work *w)
{
	const Ocs__CtlRequest *q = w->req->ctl;
	int                    rv;

	nng_mtx_lock(w->d->mtx);
	w->state = W_WAIT;
	rv = ev_wait(w->d->ev, w->d->mtx, w->aio, q->has_since ? q->since : 0,
	             q->has_wait_ms ? q->wait_ms : 0);
	nng_mtx_unlock(w->d->mtx);
	if (rv == 0)
		return;
	if (rv == -ECANCELED) { /* closing */
		done(w);
		return;
	}
	if (rv == -EAGAIN) {
		send_error(w, -OCSD_EBUSY,
		           "watch: too many watchers at once; try again");
		done(w);
		return;
	}
	watch_answer(w);
}

/* The probe's time is up: what every transceiver heard. */
static void
probe_answer(struct work *w)
{
	struct reply       rp;
	struct probe_info *pi = NULL;
	uint32_t           n;

	nng_mtx_lock(w->d->mtx);
	if ((n = agents_probe_result(w->d, NULL, 0)) > 0 &&
	    (pi = calloc(n, sizeof(*pi))) != NULL)
		n = agents_probe_result(w->d, pi, n);
	nng_mtx_unlock(w->d->mtx);
	if (n > 0 && pi == NULL) {
		send_error(w, -ENOMEM, "check: out of memory");
		done(w);
		return;
	}
	reply_init(&rp);
	reply_probes(&rp, pi, n);
	free(pi);
	send_reply(w, &rp);
	reply_free(&rp);
	done(w);
}

/* Probes across every idle-patched circuit (agents_probe), answered
 * when the deadline has passed. */
static void
cmd_probe(struct work *w)
{
	const Ocs__CtlRequest *q = w->req->ctl;
	uint32_t wait = q->has_wait_ms ? q->wait_ms : CTL_PROBE_MS;
	int      rv;

	nng_mtx_lock(w->d->mtx);
	rv = agents_probe(w->d, (uint32_t)mono_ns() | 1, wait);
	nng_mtx_unlock(w->d->mtx);
	if (rv != 0) {
		send_error(w, rv,
		           "check: another check's probes are out; try "
		           "again");
		done(w);
		return;
	}
	log_info("ctl: %s from %s: probes out for %u ms", w->cmd->name,
	         w->peer, wait);
	w->state = W_WAIT;
	nng_sleep_aio((nng_duration)wait, w->aio);
}

/* The wire's run request in ocsd's terms (ctl_check made sure of the
 * strings). */
static void
run_req(const Ocs__RunRequest *q, struct run_req *o)
{
	memset(o, 0, sizeof(*o));
	snprintf(o->algo, sizeof(o->algo), "%s", q->algo);
	snprintf(o->reconfig, sizeof(o->reconfig), "%s",
	         q->reconfig ? q->reconfig : "");
	o->bytes = q->bytes;
	o->nodes = q->has_nodes ? q->nodes : 0;
	o->chunk = q->has_chunk ? q->chunk : 0;
	o->bandwidth_bps = q->has_bandwidth_bps ? q->bandwidth_bps : 0;
	o->has_alpha_s = q->has_alpha_s;
	o->alpha_s = q->alpha_s;
	o->has_alpha_h = q->has_alpha_h;
	o->alpha_h = q->alpha_h;
	o->has_delta = q->has_delta;
	o->delta = q->delta;
	o->keep = q->has_keep && q->keep;
	o->radix = q->has_radix ? q->radix : 0;
	snprintf(o->planes, sizeof(o->planes), "%s",
	         q->planes ? q->planes : "");
	if (q->n_matrix > 0) {
		o->matrix = q->matrix;
		for (o->mn = 1; (size_t)o->mn * o->mn < q->n_matrix; o->mn++)
			;
	}
	snprintf(o->matrix_name, sizeof(o->matrix_name), "%s",
	         q->matrix_name ? q->matrix_name
	         : q->n_matrix  ? "(matrix)"
	                        : "");
	snprintf(o->collective, sizeof(o->collective), "%s",
	         q->collective ? q->collective : "");
	o->topology = q->topology;
	o->chunks = q->has_chunks ? q->chunks : 0;
	o->gpus = q->has_gpus_per_server ? q->gpus_per_server : 0;
	o->su_bps = q->has_scaleup_bps ? q->scaleup_bps : 0;
	o->has_su_alpha = q->has_scaleup_alpha;
	o->su_alpha = q->scaleup_alpha;
}

/* The run ended (the lock held): its outcome and report, for on_done. */
static void
run_done(void *arg, int rv, const char *why, const struct run_report *rep)
{
	struct work *w = arg;

	w->pend.rv = rv;
	if (why != NULL)
		snprintf(w->pend.err, sizeof(w->pend.err), "%s", why);
	/* A run that never started (its plan failed, or an abort while it
	 * was planned) has no report. */
	if (rep != NULL)
		reply_run(&w->pend.rep, rep);
}

/* A run answers when it ends: the context waits on its aio meanwhile. */
static void
cmd_run(struct work *w)
{
	struct run_req          q;
	const struct run_waiter waiter = {.arg = w, .done = run_done};
	uint32_t                i;
	int                     rv;

	/* An unconnected switch is looked at again first (the worker
	 * reconnects at once for a job): a fault that cleared during the
	 * backoff must not refuse the run with its stale error. */
	nng_mtx_lock(w->d->mtx);
	for (w->sw = NULL, i = 0; i < w->d->nsw && w->sw == NULL; i++)
		if (!w->d->sw[i].connected)
			w->sw = &w->d->sw[i];
	if (w->sw != NULL && !w->refreshed) {
		nng_mtx_unlock(w->d->mtx);
		w->refreshed = 1;
		memset(&w->job, 0, sizeof(w->job));
		w->job.op = SW_REFRESH;
		w->state = W_WAIT;
		sw_submit(w->sw, &w->job, w->aio);
		return;
	}
	nng_mtx_unlock(w->d->mtx);
	w->refreshed = 0;
	memset(&w->pend, 0, sizeof(w->pend));
	reply_init(&w->pend.rep);
	run_req(w->req->ctl->run, &q);
	w->state = W_WAIT;
	nng_mtx_lock(w->d->mtx);
	rv = run_start(w->d, &q, &waiter, w->aio, w->pend.err,
	               sizeof(w->pend.err));
	nng_mtx_unlock(w->d->mtx);
	if (rv != 0) {
		log_info("ctl: run from %s refused: %s", w->peer, w->pend.err);
		send_error(w, rv, w->pend.err);
		reply_free(&w->pend.rep);
		done(w);
	}
}

/* A switch job's outcome into rp: its part for switch w->sw. */
static void
job_reply(struct work *w, struct reply *rp)
{
	Ocs__CtlReply *r;

	nng_mtx_lock(w->d->mtx);
	r = reply_for(rp, w->d, w->sw);
	if (w->job.op == SW_HOLD && r != NULL) {
		r->has_changed = 1;
		r->changed = w->job.changed;
		if (r != &rp->r) {
			rp->r.has_changed = 1;
			rp->r.changed += w->job.changed;
		}
		log_info("ctl: %s from %s: %s%u patch changes applied",
		         w->cmd->name, w->peer, w->sw->pfx, w->job.changed);
	} else if (w->job.op == SW_PORTS)
		reply_ports(rp, w->d, w->sw, w->job.st, w->job.nst_ports,
		            w->job.nst_egress);
	else if (w->job.op == SW_CAPTURE)
		reply_capture(rp, w->job.cap);
	else if (w->job.op == SW_FAULT) {
		reply_message(rp, "faults now: %s", w->job.note);
		log_warnx("ctl: fault from %s: %sfaults now %s", w->peer,
		          w->sw->pfx, w->job.note);
	} else
		reply_diff(rp, w->d, w->sw);
	nng_mtx_unlock(w->d->mtx);
}

/* A request for every switch: the next switch's job, or 0 once all are
 * done.  On a failure the switches done before it are said with it. */
static int
fan_next(struct work *w)
{
	int rv = w->job.rv;

	if (rv != 0) {
		char   err[sizeof(w->job.err)];
		size_t l;

		snprintf(err, sizeof(err), "%s", w->job.err);
		l = (size_t)snprintf(w->job.err, sizeof(w->job.err),
		                     "switch %s: %s", w->sw->label, err);
		if (w->next > 0 && w->job.op == SW_HOLD &&
		    l < sizeof(w->job.err))
			snprintf(w->job.err + l, sizeof(w->job.err) - l,
			         " (switches before it changed as asked: %u "
			         "patch changes; after it: untouched)",
			         w->fan.r.changed);
		return (0);
	}
	job_reply(w, &w->fan);
	if (++w->next >= w->d->nsw)
		return (0);
	w->sw = &w->d->sw[w->next];
	free(w->job.st);
	w->job.st = NULL;
	submit_job(w);
	return (1);
}

/* The worker or the run finished: answer with its outcome. */
static void
on_done(struct work *w)
{
	struct reply rp;
	int          rv = w->cmd->now ? w->pend.rv : w->job.rv;
	const char  *err = w->cmd->now ? w->pend.err : w->job.err;

	/* A run's look at the switch is done: now the run (which refuses
	 * it, with the fresh error, if the switch is still away). */
	if (w->refreshed) {
		cmd_run(w);
		return;
	}
	if (w->all && w->cmd->now == NULL && fan_next(w))
		return;
	if (rv != 0) {
		log_warnx("ctl: %s from %s failed: %s", w->cmd->name, w->peer,
		          err);
		send_error(w, rv, err[0] ? err : ocsd_strerror(rv));
	} else if (w->cmd->now != NULL)
		send_reply(w, &w->pend.rep);
	else {
		reply_init(&rp);
		if (w->all) {
			reply_free(&rp);
			rp = w->fan;
			reply_init(&w->fan);
		} else
			job_reply(w, &rp);
		if (w->job.op == SW_HOLD)
			reply_message(
			    &rp, "%s%u patch change%s applied and read back",
			    w->forced, rp.r.changed,
			    rp.r.changed == 1 ? "" : "s");
		send_reply(w, &rp);
		reply_free(&rp);
	}
	if (w->all && w->cmd->now == NULL)
		reply_free(&w->fan);
	if (w->cmd->now != NULL)
		reply_free(&w->pend.rep);
	done(w);
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
		if (w->cmd->now == cmd_probe) {
			if (rv == 0)
				probe_answer(w);
			else
				done(w);
			break;
		}
		if (w->cmd->now == cmd_watch) {
			/* An event, or the watch's time is up: answer. */
			if (rv == 0 || rv == NNG_ETIMEDOUT)
				watch_answer(w);
			else
				done(w);
			break;
		}
		if (rv != 0) { /* cancelled at shutdown */
			w->refreshed = 0;
			if (w->cmd->now != NULL)
				reply_free(&w->pend.rep);
			else if (w->all)
				reply_free(&w->fan);
			done(w);
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
	char  dir[PATH_MAX];
	char *p;

	if (strncmp(url, "ipc://", 6) != 0)
		return (0);
	snprintf(dir, sizeof(dir), "%s", url + 6);
	if ((p = strrchr(dir, '/')) == NULL || p == dir)
		return (0);
	*p = '\0';
	return (path_mkdirs(dir, 0750));
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
		map_free(&c->w[i].job.target);
		msg_free(c->w[i].req);
	}
	memset(c->secret, 0, sizeof(c->secret));
	free(c);
}

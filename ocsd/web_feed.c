/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocs-web's live feed: one WATCH held on ocsd at a time (ocsd answers
 * when something changes, ev.h), and for what changed the state asked
 * again as ocsctl -j asks it (a circuit: show and status; an agent:
 * agents; a run: status, and the history when one starts or ends), each
 * sent to every event stream and kept for the streams that come later.
 * ocsd sees one watcher however many pages are open.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocsd/ocsctl.h"
#include "ocsd/web.h"
#include "proto/base/log.h"

static const char *const snap_name[WEB_NSNAP] = {"show", "status", "agents",
                                                 "runs", "ocsd"};

struct wmsg {
	char        *s;
	size_t       len;
	struct wmsg *next;
};

/* "event: NAME\ndata: JSON\n\n" (json compact, its newline dropped). */
static char *
sse(const char *name, const char *json, size_t *len)
{
	size_t jl = strlen(json), n;
	char  *s;

	while (jl > 0 && json[jl - 1] == '\n')
		jl--;
	n = strlen(name) + jl + 17;
	if ((s = malloc(n + 1)) == NULL)
		return (NULL);
	*len = (size_t)snprintf(s, n + 1, "event: %s\ndata: %.*s\n\n", name,
	                        (int)jl, json);
	return (s);
}

/* Send to every stream (and keep, for a snapshot). */
static void
broadcast(struct web *w, const char *name, int snap, const char *json)
{
	struct wmsg *m = calloc(1, sizeof(*m));

	if (m == NULL || (m->s = sse(name, json, &m->len)) == NULL) {
		free(m);
		return;
	}
	nng_mtx_lock(w->mtx);
	if (snap >= 0) {
		free(w->snap[snap]);
		w->snap[snap] = strdup(json);
	}
	if (w->bcast_tail)
		w->bcast_tail->next = m;
	else
		w->bcast = m;
	w->bcast_tail = m;
	nng_mtx_unlock(w->mtx);
	web_wake(w);
}

/* Ask ocsd for op and print it as kind (compact JSON, malloc'd), or NULL
 * with err. */
static char *
ask(struct web *w, int op, enum out_kind kind, uint32_t wait_ms,
    uint64_t since, Ocs__Msg **keep, char *err, size_t len)
{
	const struct out_opts po = {0, 0};
	Ocs__CtlRequest       q;
	Ocs__Msg             *rep;
	struct ctlc           c = w->o->ctl;
	struct out            out;
	char                 *s;

	ocs__ctl_request__init(&q);
	q.op = op;
	if (op == OCS__CTL_REQUEST__OP__WATCH) {
		q.has_since = q.has_wait_ms = 1;
		q.since = since;
		q.wait_ms = wait_ms;
		c.timeout_ms += (int)wait_ms;
	}
	if (ctlc_call(&c, &q, "ocsd", &rep, err, len, NULL) != 0)
		return (NULL);
	out_init(&out, 1, 1);
	ocsctl_print(&out, kind, rep->ctl_reply, &po);
	s = out_dump(&out, 1);
	if (keep)
		*keep = rep;
	else
		msg_free(rep);
	if (s == NULL)
		snprintf(err, len, "out of memory");
	return (s);
}

static int
refresh(struct web *w, int snap, int op, enum out_kind kind)
{
	char err[600], *s;

	if ((s = ask(w, op, kind, 0, 0, NULL, err, sizeof(err))) == NULL)
		return (-1);
	broadcast(w, snap_name[snap], snap, s);
	free(s);
	return (0);
}

/* Keep an event for pages that come later. */
static void
remember(struct web *w, const char *json)
{
	char *c = strdup(json);

	if (c == NULL)
		return;
	nng_mtx_lock(w->mtx);
	free(w->history[w->hist_at]);
	w->history[w->hist_at] = c;
	w->hist_at = (w->hist_at + 1) % WEB_HISTORY;
	if (w->nhist < WEB_HISTORY)
		w->nhist++;
	nng_mtx_unlock(w->mtx);
}

/* Each event of a watch's answer, alone, kept and sent. */
static void
events(struct web *w, const Ocs__CtlReply *r, unsigned *what)
{
	const struct out_opts po = {0, 0};
	Ocs__CtlReply         one = *r;
	Ocs__Event           *ev[1];
	struct out            out;
	size_t                i;
	char                 *s;

	for (i = 0; i < r->n_events; i++) {
		const Ocs__Event *e = r->events[i];

		*what |= strcmp(e->kind, "switch") == 0  ? 1u
		         : strcmp(e->kind, "agent") == 0 ? 2u
		                                         : 4u;
		if (strcmp(e->kind, "run") == 0 && strcmp(e->what, "phase"))
			*what |= 8u; /* started or ended: the history too */
		ev[0] = r->events[i];
		one.events = ev;
		one.n_events = 1;
		out_init(&out, 1, 1);
		ocsctl_print(&out, OUT_EVENTS, &one, &po);
		if ((s = out_dump(&out, 1)) == NULL)
			continue;
		remember(w, s);
		broadcast(w, "events", -1, s);
		free(s);
	}
}

static int
refresh_all(struct web *w, unsigned what)
{
	int rv = 0;

	if (what & 1u)
		rv |= refresh(w, WEB_SNAP_SHOW, OCS__CTL_REQUEST__OP__SHOW,
		              OUT_SHOW);
	if (what & 5u)
		rv |= refresh(w, WEB_SNAP_STATUS, OCS__CTL_REQUEST__OP__STATUS,
		              OUT_STATUS);
	if (what & 2u)
		rv |= refresh(w, WEB_SNAP_AGENTS, OCS__CTL_REQUEST__OP__AGENTS,
		              OUT_AGENTS);
	if (what & 8u)
		rv |= refresh(w, WEB_SNAP_RUNS, OCS__CTL_REQUEST__OP__RUNS,
		              OUT_RUNS);
	return (rv);
}

static int
stopping(struct web *w)
{
	int s;

	nng_mtx_lock(w->mtx);
	s = w->stop;
	nng_mtx_unlock(w->mtx);
	return (s);
}

/* ocsd is away: say so once, try again each second. */
static void
away(struct web *w, const char *err, int *down)
{
	json_t *o;
	char   *s;

	if (!*down) {
		log_warnx("web: ocsd: %s", err);
		web_runs_forget(w);
		if ((o = json_pack("{s:s}", "error", err)) != NULL &&
		    (s = json_dumps(o, JSON_COMPACT)) != NULL) {
			broadcast(w, "ocsd", WEB_SNAP_OCSD, s);
			free(s);
		}
		json_decref(o);
	}
	*down = 1;
	nng_msleep(1000);
}

static void
feed(void *arg)
{
	struct web *w = arg;
	Ocs__Msg   *rep;
	uint64_t    since = 0;
	unsigned    what;
	char        err[600], *s;
	int         down = 1, fresh = 1;

	while (!stopping(w)) {
		s = ask(w, OCS__CTL_REQUEST__OP__WATCH, OUT_EVENTS,
		        fresh ? 0 : 20000, since, &rep, err, sizeof(err));
		if (s == NULL) {
			away(w, err, &down);
			fresh = 1;
			continue;
		}
		free(s);
		what = 0;
		/* The first answer: what ocsd kept is the history. */
		events(w, rep->ctl_reply, &what);
		if (fresh || (rep->ctl_reply->has_events_lost &&
		              rep->ctl_reply->events_lost))
			what = ~0u;
		since = rep->ctl_reply->event_seq;
		msg_free(rep);
		if (refresh_all(w, what) != 0) {
			away(w, "asking for the state failed", &down);
			fresh = 1;
			continue;
		}
		if (down)
			broadcast(w, "ocsd", WEB_SNAP_OCSD, "{\"ok\":true}");
		down = fresh = 0;
		nng_mtx_lock(w->mtx);
		w->feed_seq = since;
		nng_mtx_unlock(w->mtx);
	}
	nng_mtx_lock(w->mtx);
	w->feed_done = 1;
	nng_cv_wake(w->cv);
	nng_mtx_unlock(w->mtx);
}

int
web_feed_start(struct web *w)
{
	return (nng_thread_create(&w->feed, feed, w) == 0 ? 0 : -1);
}

void
web_feed_stop(struct web *w)
{
	struct wmsg *m;
	int          i;

	nng_time until = nng_clock() + 1000;

	/* The feed may be in a watch ocsd holds 20 s: it gets a second,
	 * then the process ends around it. */
	nng_mtx_lock(w->mtx);
	w->stop = 1;
	nng_cv_wake(w->cv);
	while (w->feed && !w->feed_done &&
	       nng_cv_until(w->cv, until) != NNG_ETIMEDOUT)
		;
	if (w->feed && !w->feed_done) {
		nng_mtx_unlock(w->mtx);
		return;
	}
	nng_mtx_unlock(w->mtx);
	if (w->feed)
		nng_thread_destroy(w->feed);
	while ((m = w->bcast) != NULL) {
		w->bcast = m->next;
		free(m->s);
		free(m);
	}
	for (i = 0; i < WEB_NSNAP; i++)
		free(w->snap[i]);
	for (i = 0; i < WEB_HISTORY; i++)
		free(w->history[i]);
}

char *
web_take_bcast(struct web *w, size_t *len)
{
	struct wmsg *m;
	char        *s;

	nng_mtx_lock(w->mtx);
	if ((m = w->bcast) != NULL && (w->bcast = m->next) == NULL)
		w->bcast_tail = NULL;
	nng_mtx_unlock(w->mtx);
	if (m == NULL)
		return (NULL);
	s = m->s;
	*len = m->len;
	free(m);
	return (s);
}

char *
web_stream_start(struct web *w, size_t *len)
{
	char  *all = NULL, *s, *nb;
	size_t n = 0, sl;
	int    i, k;

	nng_mtx_lock(w->mtx);
	/* The history first (oldest first), then the state now. */
	for (k = 0; k < w->nhist + WEB_NSNAP; k++) {
		const char *name = "events", *json;

		if (k < w->nhist) {
			i = (w->hist_at - w->nhist + k + WEB_HISTORY) %
			    WEB_HISTORY;
			json = w->history[i];
		} else {
			name = snap_name[k - w->nhist];
			json = w->snap[k - w->nhist];
		}
		if (json == NULL || (s = sse(name, json, &sl)) == NULL)
			continue;
		if ((nb = realloc(all, n + sl + 1)) == NULL) {
			free(s);
			break;
		}
		all = nb;
		memcpy(all + n, s, sl);
		n += sl;
		free(s);
	}
	nng_mtx_unlock(w->mtx);
	if (all == NULL)
		all = calloc(1, 1);
	*len = n;
	return (all);
}

char *
web_snap_all(struct web *w)
{
	size_t n = 4, at = 1; /* "{", "}", "\n" and the NUL */
	char  *s;
	int    k;

	nng_mtx_lock(w->mtx);
	for (k = 0; k < WEB_NSNAP; k++)
		if (w->snap[k] != NULL)
			n += strlen(snap_name[k]) + strlen(w->snap[k]) + 4;
	if ((s = malloc(n)) != NULL) {
		s[0] = '{';
		for (k = 0; k < WEB_NSNAP; k++) {
			size_t jl;

			if (w->snap[k] == NULL)
				continue;
			/* A snapshot is compact JSON; its newline dropped. */
			jl = strcspn(w->snap[k], "\n");
			at += (size_t)snprintf(s + at, n - at, "%s\"%s\":%.*s",
			                       at > 1 ? "," : "", snap_name[k],
			                       (int)jl, w->snap[k]);
		}
		s[at++] = '}';
		s[at++] = '\n';
		s[at] = '\0';
	}
	nng_mtx_unlock(w->mtx);
	return (s);
}

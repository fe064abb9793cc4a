/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocs-web's endpoints: the page's files, /api/... answered with exactly
 * ocsctl -j's JSON (the request to ocsd is ctlc.c's, the JSON
 * ocsctl_print.c's), and the sweeps and plans given on the command line.
 * Requests to ocsd are jobs for WEB_WORKERS threads, at most WEB_JOBS_MAX
 * waiting (more get a 503): a thousand pages cannot make ocsd answer more
 * than that many at once.  One endpoint is not ocsctl's: /api/timeline/ID,
 * a run's record made smaller for the Runs page (proto/report_tl.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "ocsd/ocsctl.h"
#include "ocsd/web.h"
#include "proto/base/log.h"
#include "proto/report_tl.h"

struct wjob {
	uint64_t conn;
	int      op;   /* OCS__CTL_REQUEST__OP__* */
	int      kind; /* enum out_kind */
	uint64_t run_id;
	int      timeline; /* the run's record in proto/report_tl.h's form */
	char     sw[WEB_SWNAME_MAX]; /* ports: of this switch ("": the
	                                  * lone one) */
	int      keep_alive, head_only;
	char    *resp;
	size_t   len;
	struct wjob *next;
};

int
web_response(int status, const char *type, const char *body, size_t blen,
             int keep_alive, int head_only, const char *cache,
             const char *extra, char **resp, size_t *len)
{
	char   head[1024];
	size_t hl;

	hl = web_head(head, sizeof(head), status, type, blen, keep_alive,
	              cache, extra);
	if (hl == 0 ||
	    (*resp = malloc(hl + (head_only ? 0 : blen) + 1)) == NULL)
		return (-ENOMEM);
	memcpy(*resp, head, hl);
	if (!head_only)
		memcpy(*resp + hl, body, blen);
	*len = hl + (head_only ? 0 : blen);
	return (0);
}

static int
json_response(int status, const char *body, const struct web_req *r,
              char **resp, size_t *len)
{
	return (web_response(status, "application/json", body, strlen(body),
	                     r->keep_alive, r->head, NULL, NULL, resp, len));
}

/* A whole file of at most WEB_FILE_MAX bytes (malloc'd): 0, or -errno. */
static int
read_file(const char *path, char **out, size_t *len)
{
	struct stat st;
	char       *b;
	ssize_t     n;
	size_t      got = 0;
	int         fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return (-errno);
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size > WEB_FILE_MAX) {
		close(fd);
		return (S_ISREG(st.st_mode) ? -EFBIG : -EINVAL);
	}
	if ((b = malloc((size_t)st.st_size + 1)) == NULL) {
		close(fd);
		return (-ENOMEM);
	}
	while (got < (size_t)st.st_size &&
	       (n = read(fd, b + got, (size_t)st.st_size - got)) > 0)
		got += (size_t)n;
	close(fd);
	b[got] = '\0';
	*out = b;
	*len = got;
	return (0);
}

/* /api/sweeps and /api/plans: the names given, with their index. */
static int
list(const char *const *names, int n, const struct web_req *r, char **resp,
     size_t *len)
{
	json_t *a = json_array();
	char   *s;
	int     i, rv;

	for (i = 0; a != NULL && i < n; i++)
		json_array_append_new(
		    a, json_pack("{s:i,s:s}", "n", i, "name", names[i]));
	if (a == NULL || (s = json_dumps(a, JSON_COMPACT)) == NULL) {
		json_decref(a);
		return (503);
	}
	json_decref(a);
	rv = json_response(200, s, r, resp, len);
	free(s);
	return (rv == 0 ? 0 : 503);
}

/* /api/sweep?n=I&file=sweep.csv|meta.json, /api/plan?n=I: a file given
 * on the command line, never a path the browser names. */
static int
given_file(const char *const *names, int n, const struct web_req *r, int sweep,
           char **resp, size_t *len, char *why, size_t wl)
{
	char   idx[8], file[16] = "", path[4200], *b = NULL, *e;
	size_t bl = 0;
	long   i;
	int    rv;

	if ((rv = web_query(r->query, "n", idx, sizeof(idx))) != 0) {
		snprintf(why, wl, "n: %s",
		         rv == -ENOENT ? "missing" : "malformed or too long");
		return (400);
	}
	i = strtol(idx, &e, 10);
	if (idx[0] < '0' || idx[0] > '9' || *e || i >= n) {
		snprintf(why, wl, "n \"%s\": no such %s (%d given)", idx,
		         sweep ? "sweep" : "plan", n);
		return (404);
	}
	if (sweep) {
		if (web_query(r->query, "file", file, sizeof(file)) != 0 ||
		    (strcmp(file, "sweep.csv") != 0 &&
		     strcmp(file, "meta.json") != 0)) {
			snprintf(why, wl,
			         "file: expected sweep.csv or meta.json");
			return (404);
		}
		snprintf(path, sizeof(path), "%s/%s", names[i], file);
	} else
		snprintf(path, sizeof(path), "%s", names[i]);
	if ((rv = read_file(path, &b, &bl)) != 0) {
		snprintf(why, wl, "%s %ld: %s", sweep ? "sweep" : "plan", i,
		         strerror(-rv));
		return (404);
	}
	rv =
	    web_response(200,
	                 sweep && file[0] == 's' ? "text/csv; charset=utf-8"
	                                         : "application/json",
	                 b, bl, r->keep_alive, r->head, NULL, NULL, resp, len);
	free(b);
	return (rv == 0 ? 0 : 503);
}

static const struct {
	const char *path;
	int         op, kind;
} api[] = {
    {"/api/show", OCS__CTL_REQUEST__OP__SHOW, OUT_SHOW},
    {"/api/status", OCS__CTL_REQUEST__OP__STATUS, OUT_STATUS},
    {"/api/agents", OCS__CTL_REQUEST__OP__AGENTS, OUT_AGENTS},
    {"/api/runs", OCS__CTL_REQUEST__OP__RUNS, OUT_RUNS},
    {"/api/ports", OCS__CTL_REQUEST__OP__PORTS, OUT_PORTS},
    {"/api/diff", OCS__CTL_REQUEST__OP__MAP_DIFF, OUT_DIFF},
};

/* A job for the workers (a copy of t): 0 queued, 503 when too many wait. */
static int
queue(struct web *w, const struct wjob *t)
{
	struct wjob *j;

	if ((j = malloc(sizeof(*j))) == NULL)
		return (503);
	*j = *t;
	j->next = NULL;
	nng_mtx_lock(w->mtx);
	if (w->njobs >= WEB_JOBS_MAX) {
		nng_mtx_unlock(w->mtx);
		free(j);
		return (503);
	}
	if (w->jobs_tail)
		w->jobs_tail->next = j;
	else
		w->jobs = j;
	w->jobs_tail = j;
	w->njobs++;
	nng_cv_wake1(w->cv);
	nng_mtx_unlock(w->mtx);
	return (0);
}

/* /api/ports?switch=NAME: a fabric's switches are read one at a time
 * (ocsctl -S NAME show ports).  0, or 400 with why. */
static int
ports_switch(const struct web_req *r, char *sw, char *why, size_t wl)
{
	char v[64];
	int  rv;

	sw[0] = '\0';
	if ((rv = web_query(r->query, "switch", v, sizeof(v))) == -ENOENT)
		return (0);
	if (rv != 0 || !wire_swname_ok(v, strlen(v))) {
		snprintf(why, wl,
		         "switch \"%.40s\": expected a switch's name (a "
		         "letter, then letters, digits, - and _; at most %d)",
		         rv != 0 ? "(malformed or too long)" : v,
		         WEB_SWNAME_MAX);
		return (400);
	}
	snprintf(sw, WEB_SWNAME_MAX, "%s", v);
	return (0);
}

/* A run id in a path ("12"), or 0 when it is none. */
static uint64_t
path_run_id(const char *s)
{
	char    *e;
	uint64_t id;

	if (*s < '0' || *s > '9')
		return (0);
	id = strtoull(s, &e, 10);
	return (*e || id == UINT64_MAX ? 0 : id);
}

int
web_route(struct web *w, uint64_t conn, const struct web_req *r, char **resp,
          size_t *len, char *why, size_t wl)
{
	const char *p = r->path, *e;
	struct wjob t;
	size_t      i;
	int         st;

	*resp = NULL;
	if ((st = web_asset_route(w, r, resp, len)) != 404)
		return (st);
	if (strcmp(p, "/api/snap") == 0) {
		char *snap = web_snap_all(w);

		if (snap == NULL)
			return (503);
		st = json_response(200, snap, r, resp, len);
		free(snap);
		return (st == 0 ? 0 : 503);
	}
	t = (struct wjob){
	    .conn = conn, .keep_alive = r->keep_alive, .head_only = r->head};
	for (i = 0; i < sizeof(api) / sizeof(api[0]); i++)
		if (strcmp(p, api[i].path) == 0) {
			t.op = api[i].op;
			t.kind = api[i].kind;
			if (t.op == OCS__CTL_REQUEST__OP__PORTS &&
			    (st = ports_switch(r, t.sw, why, wl)) != 0)
				return (st);
			return (queue(w, &t));
		}
	t.timeline = strncmp(p, "/api/timeline/", 14) == 0;
	if (t.timeline || strncmp(p, "/api/runs/", 10) == 0) {
		e = p + (t.timeline ? 14 : 10);
		if ((t.run_id = path_run_id(e)) == 0) {
			snprintf(why, wl,
			         "run id \"%.40s\": expected 1, 2, ...", e);
			return (404);
		}
		t.op = OCS__CTL_REQUEST__OP__RUNS;
		t.kind = OUT_REPORT;
		return (queue(w, &t));
	}
	if (strcmp(p, "/api/sweeps") == 0)
		return (list(w->o->sweeps, w->o->nsweeps, r, resp, len));
	if (strcmp(p, "/api/plans") == 0)
		return (list(w->o->plans, w->o->nplans, r, resp, len));
	if (strcmp(p, "/api/sweep") == 0)
		return (given_file(w->o->sweeps, w->o->nsweeps, r, 1, resp,
		                   len, why, wl));
	if (strcmp(p, "/api/plan") == 0)
		return (given_file(w->o->plans, w->o->nplans, r, 0, resp, len,
		                   why, wl));
	return (404);
}

/* /api/timeline/ID's body from ocsd's answer (malloc'd; NULL when out of
 * memory) and its status: 200, or 404 when the answer holds no record. */
static char *
timeline_body(const Ocs__Msg *rep, int *status)
{
	const Ocs__CtlReply *c = rep->ctl_reply;
	size_t               len;

	if (c == NULL || c->report == NULL) {
		*status = 404;
		return (strdup("{\"error\":\"ocsd sent no record of the "
		               "run\"}"));
	}
	*status = 200;
	return (report_timeline_json(c->report, &len));
}

/* Ask ocsd for j and make its answer: ocsctl -j's JSON, or its error
 * ({"error": ...}, 502 when ocsd could not be asked, 404 when it
 * refused a run id, 400 otherwise). */
static void
answer(struct web *w, struct wjob *j)
{
	const struct out_opts po = {0, 0};
	Ocs__CtlRequest       q;
	Ocs__Msg             *rep;
	struct out            out;
	char                  err[1024], *body;
	int                   rv, refused, status = 200;

	if (j->op == OCS__CTL_REQUEST__OP__PORTS &&
	    (body = web_ports_cached(w, j->sw)) != NULL)
		goto respond;
	if (j->run_id &&
	    (body = web_run_cached(w, j->run_id, j->timeline)) != NULL)
		goto respond;
	ocs__ctl_request__init(&q);
	q.op = j->op;
	if (j->sw[0])
		q.switch_name = j->sw;
	if (j->run_id) {
		q.has_run_id = 1;
		q.run_id = j->run_id;
	}
	rv = ctlc_call(&w->o->ctl, &q, "ocsd", &rep, err, sizeof(err),
	               &refused);
	if (rv == 0 && j->timeline) {
		body = timeline_body(rep, &status);
		msg_free(rep);
		if (body != NULL && status == 200)
			web_run_keep(w, j->run_id, 1, body);
		goto respond;
	}
	out_init(&out, 1, 0);
	if (rv == 0) {
		ocsctl_print(&out, (enum out_kind)j->kind, rep->ctl_reply,
		             &po);
		msg_free(rep);
	} else {
		status = !refused ? 502 : j->run_id ? 404 : 400;
		out_str(&out, "error", NULL, err);
	}
	if ((body = out_dump(&out, 1)) == NULL) {
		status = 503;
		body = strdup("{\"error\": \"out of memory\"}\n");
	} else if (rv == 0 && j->op == OCS__CTL_REQUEST__OP__PORTS)
		web_ports_keep(w, j->sw, body);
	else if (rv == 0 && j->run_id)
		web_run_keep(w, j->run_id, 0, body);
respond:
	if (body == NULL ||
	    web_response(status, "application/json", body, strlen(body),
	                 j->keep_alive, j->head_only, NULL, NULL, &j->resp,
	                 &j->len) != 0)
		j->resp = NULL;
	free(body);
}

static void
worker(void *arg)
{
	struct web  *w = arg;
	struct wjob *j;

	nng_mtx_lock(w->mtx);
	while (!w->stop) {
		if ((j = w->jobs) == NULL) {
			nng_cv_wait(w->cv);
			continue;
		}
		if ((w->jobs = j->next) == NULL)
			w->jobs_tail = NULL;
		nng_mtx_unlock(w->mtx);
		answer(w, j);
		nng_mtx_lock(w->mtx);
		w->njobs--;
		j->next = w->done;
		w->done = j;
		web_wake(w);
	}
	nng_mtx_unlock(w->mtx);
}

int
web_workers_start(struct web *w)
{
	int i, rv;

	for (i = 0; i < WEB_WORKERS; i++)
		if ((rv = nng_thread_create(&w->workers[i], worker, w)) != 0)
			return (-1);
	return (0);
}

void
web_workers_stop(struct web *w)
{
	struct wjob *j;
	int          i;

	nng_mtx_lock(w->mtx);
	w->stop = 1;
	nng_cv_wake(w->cv);
	nng_mtx_unlock(w->mtx);
	for (i = 0; i < WEB_WORKERS; i++)
		if (w->workers[i])
			nng_thread_destroy(w->workers[i]);
	while ((j = w->jobs) != NULL) {
		w->jobs = j->next;
		free(j);
	}
	while ((j = w->done) != NULL) {
		w->done = j->next;
		free(j->resp);
		free(j);
	}
	web_cache_free(w);
}

uint64_t
web_take_done(struct web *w, char **resp, size_t *len)
{
	struct wjob *j;
	uint64_t     id = 0;

	nng_mtx_lock(w->mtx);
	if ((j = w->done) != NULL)
		w->done = j->next;
	nng_mtx_unlock(w->mtx);
	if (j == NULL)
		return (0);
	id = j->conn;
	*resp = j->resp;
	*len = j->resp ? j->len : 0;
	if (j->resp == NULL) { /* out of memory: the head alone */
		*resp =
		    strdup("HTTP/1.1 503 Service Unavailable\r\n"
		           "Content-Length: 0\r\nConnection: close\r\n\r\n");
		*len = *resp ? strlen(*resp) : 0;
	}
	free(j);
	return (id);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What ocs-web keeps of ocsd's answers so that pages do not become
 * requests to ocsd: each switch's port reading for WEB_PORTS_MS (a
 * reading of the switch however many pages ask), and the records of
 * ended runs (they never change), in ocsctl's form and the timeline's.
 * Every function takes w->mtx; what it returns is a copy.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocsd/web.h"

char *
web_ports_cached(struct web *w, const char *sw)
{
	char *s = NULL;
	int   i;

	nng_mtx_lock(w->mtx);
	for (i = 0; i < WEB_SWITCHES_MAX; i++)
		if (w->ports[i].body != NULL &&
		    strcmp(w->ports[i].sw, sw) == 0 &&
		    nng_clock() - w->ports[i].at < WEB_PORTS_MS) {
			s = strdup(w->ports[i].body);
			break;
		}
	nng_mtx_unlock(w->mtx);
	return (s);
}

void
web_ports_keep(struct web *w, const char *sw, const char *body)
{
	char *s = strdup(body);
	int   i, old = 0;

	if (s == NULL)
		return;
	nng_mtx_lock(w->mtx);
	/* Its own slot, else a free one, else the oldest reading's. */
	for (i = 0; i < WEB_SWITCHES_MAX; i++) {
		if (w->ports[i].body != NULL &&
		    strcmp(w->ports[i].sw, sw) == 0) {
			old = i;
			break;
		}
		if (w->ports[old].body != NULL &&
		    (w->ports[i].body == NULL ||
		     w->ports[i].at < w->ports[old].at))
			old = i;
	}
	free(w->ports[old].body);
	snprintf(w->ports[old].sw, sizeof(w->ports[old].sw), "%s", sw);
	w->ports[old].body = s;
	w->ports[old].at = nng_clock();
	nng_mtx_unlock(w->mtx);
}

char *
web_run_cached(struct web *w, uint64_t id, int timeline)
{
	char *s = NULL;
	int   i;

	nng_mtx_lock(w->mtx);
	for (i = 0; i < WEB_RUNS_KEEP; i++)
		if (w->runs[i].id == id && w->runs[i].timeline == timeline &&
		    w->runs[i].body != NULL) {
			s = strdup(w->runs[i].body);
			w->runs[i].used = ++w->runs_tick;
			break;
		}
	nng_mtx_unlock(w->mtx);
	return (s);
}

void
web_run_keep(struct web *w, uint64_t id, int timeline, const char *body)
{
	char *s = strdup(body);
	int   i, old = 0;

	if (s == NULL)
		return;
	nng_mtx_lock(w->mtx);
	for (i = 0; i < WEB_RUNS_KEEP; i++) {
		if (w->runs[i].id == id &&
		    w->runs[i].timeline == timeline) { /* two pages at once */
			old = i;
			break;
		}
		if (w->runs[i].used < w->runs[old].used)
			old = i;
	}
	free(w->runs[old].body);
	w->runs[old].id = id;
	w->runs[old].timeline = timeline;
	w->runs[old].body = s;
	w->runs[old].used = ++w->runs_tick;
	nng_mtx_unlock(w->mtx);
}

void
web_runs_forget(struct web *w)
{
	int i;

	nng_mtx_lock(w->mtx);
	for (i = 0; i < WEB_RUNS_KEEP; i++) {
		free(w->runs[i].body);
		w->runs[i].body = NULL;
		w->runs[i].id = 0;
	}
	nng_mtx_unlock(w->mtx);
}

void
web_cache_free(struct web *w)
{
	int i;

	nng_mtx_lock(w->mtx);
	for (i = 0; i < WEB_SWITCHES_MAX; i++) {
		free(w->ports[i].body);
		w->ports[i].body = NULL;
	}
	nng_mtx_unlock(w->mtx);
	web_runs_forget(w);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* ocsd's events for watchers: a ring and the watches held (see ev.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ocsd/ev.h"

struct ev_waiter {
	nng_aio *aio;
	uint64_t since;
};

struct ev {
	struct ev_rec    ring[EV_RING];
	uint64_t         seq; /* the newest event's; 0: none yet */
	struct ev_waiter w[EV_WAITERS];
	nng_mtx         *mtx; /* the caller's, for the cancel */
};

int
ev_open(struct ev **out)
{
	if ((*out = calloc(1, sizeof(**out))) == NULL)
		return (-ENOMEM);
	return (0);
}

void
ev_close(struct ev *e)
{
	free(e);
}

static uint64_t
unix_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ((uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000);
}

void
ev_post(struct ev *e, struct ev_rec *r)
{
	int i;

	if (e == NULL)
		return;
	r->seq = ++e->seq;
	r->unix_ms = unix_ms();
	e->ring[r->seq % EV_RING] = *r;
	/* Every watch held is for an older event: all of them go. */
	for (i = 0; i < EV_WAITERS; i++) {
		nng_aio *aio = e->w[i].aio;

		if (aio == NULL)
			continue;
		e->w[i].aio = NULL;
		nng_aio_finish(aio, 0);
	}
}

void
ev_say(struct ev *e, const char *kind, const char *what, const char *host,
       uint64_t run_id, int64_t phase, const char *fmt, ...)
{
	struct ev_rec r;
	va_list       ap;

	if (e == NULL)
		return;
	memset(&r, 0, sizeof(r));
	snprintf(r.kind, sizeof(r.kind), "%s", kind);
	snprintf(r.what, sizeof(r.what), "%s", what);
	if (host)
		snprintf(r.host, sizeof(r.host), "%s", host);
	r.has_run = run_id != 0;
	r.run_id = run_id;
	r.has_phase = phase >= 0;
	r.phase = phase >= 0 ? (uint32_t)phase : 0;
	va_start(ap, fmt);
	vsnprintf(r.text, sizeof(r.text), fmt, ap);
	va_end(ap);
	ev_post(e, &r);
}

size_t
ev_since(const struct ev *e, uint64_t since, struct ev_rec *out, size_t cap,
         uint64_t *last, int *lost)
{
	uint64_t first, s;
	size_t   n = 0;

	*last = e->seq;
	*lost = 0;
	if (since >= e->seq)
		return (0);
	/* The oldest kept is seq - EV_RING + 1. */
	first = e->seq >= EV_RING ? e->seq - EV_RING + 1 : 1;
	/* Too many to answer at once count as missed too: the watcher
	 * gets the newest and reads the state again. */
	if (e->seq - since > cap && e->seq - cap + 1 > first)
		first = e->seq - cap + 1;
	if (since + 1 < first) {
		*lost = 1;
		since = first - 1;
	}
	for (s = since + 1; s <= e->seq && n < cap; s++)
		out[n++] = e->ring[s % EV_RING];
	return (n);
}

/* The socket closed, or the watch's time is up: let it go. */
static void
cancel(nng_aio *aio, void *arg, int rv)
{
	struct ev *e = arg;
	int        i, found = 0;

	nng_mtx_lock(e->mtx);
	for (i = 0; i < EV_WAITERS; i++)
		if (e->w[i].aio == aio) {
			e->w[i].aio = NULL;
			found = 1;
		}
	nng_mtx_unlock(e->mtx);
	/* Not found: a post finished it already. */
	if (found)
		nng_aio_finish(aio, rv);
}

int
ev_wait(struct ev *e, nng_mtx *mtx, nng_aio *aio, uint64_t since,
        uint32_t wait_ms)
{
	int i;

	if (since < e->seq || wait_ms == 0)
		return (1);
	for (i = 0; i < EV_WAITERS; i++)
		if (e->w[i].aio == NULL)
			break;
	if (i == EV_WAITERS)
		return (-EAGAIN);
	/* A stopped aio (the socket closing) takes nothing more. */
	if (!nng_aio_begin(aio))
		return (-ECANCELED);
	e->mtx = mtx;
	e->w[i].aio = aio;
	e->w[i].since = since;
	nng_aio_set_timeout(
	    aio,
	    (nng_duration)(wait_ms > EV_WAIT_MAX ? EV_WAIT_MAX : wait_ms));
	nng_aio_defer(aio, cancel, e);
	return (0);
}

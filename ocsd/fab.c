/* SPDX-License-Identifier: BSD-2-Clause */
/* Every switch of a fabric changed at once, completed once (fab.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ocsd/fab.h"
#include "ocsd/ocsd.h"

static void fab_cb(void *);

int
fab_init(struct fab_job *f, struct ocsd *d)
{
	uint32_t i;
	int      rv;

	memset(f, 0, sizeof(*f));
	f->d = d;
	for (i = 0; i < d->nsw; i++) {
		f->slot[i] = (struct fab_slot){f, i};
		if ((rv = nng_aio_alloc(&f->aio[i], fab_cb, &f->slot[i])) !=
		    0) {
			fab_fini(f);
			return (-ENOMEM);
		}
	}
	return (0);
}

void
fab_fini(struct fab_job *f)
{
	uint32_t i;

	for (i = 0; i < CONF_SWITCH_MAX; i++) {
		if (f->aio[i] != NULL) {
			nng_aio_stop(f->aio[i]);
			nng_aio_free(f->aio[i]);
			f->aio[i] = NULL;
		}
	}
	fab_reset(f);
}

void
fab_reset(struct fab_job *f)
{
	uint32_t i;

	for (i = 0; i < CONF_SWITCH_MAX; i++) {
		map_free(&f->target[i]);
		map_free(&f->sj[i].target);
	}
	f->transient = 0;
	f->rv = 0;
	f->failed = -1;
	f->changed = 0;
	f->took_ms = 0;
	f->err[0] = '\0';
}

/* Every switch is done (the lock held): one outcome.  A failure names
 * its switch, and says what each of the others holds now. */
static void
conclude(struct fab_job *f)
{
	struct ocsd *d = f->d;
	size_t       l;
	uint32_t     i;

	for (i = 0; i < d->nsw; i++) {
		if (f->target[i].n == 0)
			continue;
		f->changed += f->sj[i].changed;
		if (f->sj[i].took_ms > f->took_ms)
			f->took_ms = f->sj[i].took_ms;
		if (f->sj[i].rv != 0 && f->failed < 0) {
			f->failed = (int)i;
			f->rv = f->sj[i].rv;
		}
	}
	if (f->failed < 0 || d->nsw == 1) {
		if (f->failed >= 0)
			snprintf(f->err, sizeof(f->err), "%s",
			         f->sj[f->failed].err);
		return;
	}
	l = (size_t)snprintf(f->err, sizeof(f->err), "switch %s: %.700s",
	                     d->sw[f->failed].label, f->sj[f->failed].err);
	for (i = 0; i < d->nsw && l < sizeof(f->err); i++) {
		if ((int)i == f->failed || f->target[i].n == 0)
			continue;
		l += (size_t)snprintf(f->err + l, sizeof(f->err) - l,
		                      "; switch %s %s", d->sw[i].label,
		                      f->sj[i].rv == 0
		                          ? "holds the new circuits"
		                          : "failed too (see its status)");
	}
}

static void
fab_cb(void *arg)
{
	struct fab_slot *sl = arg;
	struct fab_job  *f = sl->f;
	nng_aio         *caller;

	nng_mtx_lock(f->d->mtx);
	if (f->one != NULL && f->sj[sl->i].rv == 0)
		f->one(f->one_arg, sl->i);
	if (--f->left > 0) {
		nng_mtx_unlock(f->d->mtx);
		return;
	}
	conclude(f);
	caller = f->caller;
	f->caller = NULL;
	nng_mtx_unlock(f->d->mtx);
	nng_aio_finish(caller, 0);
}

/* The caller's wait ends when its switches' jobs do (sw_stop runs every
 * queued job), so a cancel has nothing to take back. */
static void
fab_cancel(nng_aio *aio, void *arg, int rv)
{
	(void)aio;
	(void)arg;
	(void)rv;
}

void
fab_submit_locked(struct fab_job *f, nng_aio *caller)
{
	struct ocsd *d = f->d;
	uint32_t     i, n = 0;

	if (!nng_aio_begin(caller))
		return;
	f->rv = 0;
	f->failed = -1;
	f->changed = 0;
	f->took_ms = 0;
	f->err[0] = '\0';
	for (i = 0; i < d->nsw; i++)
		n += f->target[i].n != 0;
	if (n == 0) {
		nng_aio_finish(caller, 0);
		return;
	}
	f->caller = caller;
	f->left = n;
	nng_aio_defer(caller, fab_cancel, f);
	for (i = 0; i < d->nsw; i++) {
		struct sw_job *j = &f->sj[i];

		if (f->target[i].n == 0)
			continue;
		map_free(&j->target);
		memset(j, 0, sizeof(*j));
		j->op = SW_HOLD;
		j->transient = f->transient;
		/* The worker reads its target without the lock. */
		if (map_copy(&j->target, &f->target[i]) != 0) {
			j->rv = -ENOMEM;
			snprintf(j->err, sizeof(j->err), "out of memory");
			/* Finished as if run: the count stays right. */
			if (nng_aio_begin(f->aio[i]))
				nng_aio_finish(f->aio[i], 0);
			continue;
		}
		sw_submit_locked(&d->sw[i], j, f->aio[i]);
	}
}

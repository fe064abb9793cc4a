/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --jobs J: model and simulator points computed by J threads, written by
 * the calling thread in the sweep's order (so the CSV, its resuming and
 * an interruption behave as with one job).  Workers run at most WINDOW
 * points ahead of the writer, which bounds the memory whatever the
 * sweep's size.  The collectives library keeps no global state, so
 * points are independent.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testbed/sweep/sweep.h"

#define WINDOW 1024

enum { PENDING, DONE, SKIP, FAIL };

struct slot {
	struct sweep_row r;
	int              state;
	char             err[300];
};

struct jobs {
	const struct sweep          *s;
	const struct sweep_jobs_ops *ops;
	void                        *u;
	volatile sig_atomic_t       *stop;
	size_t                       n, next, written;
	int                          quit;
	struct slot                 *slot; /* WINDOW of them, k % WINDOW */
	pthread_mutex_t              mtx;
	pthread_cond_t               cv;
};

static void *
worker(void *arg)
{
	struct jobs *j = arg;

	for (;;) {
		struct slot *sl;
		size_t       k;
		int          st;

		pthread_mutex_lock(&j->mtx);
		while (!j->quit && j->next < j->n &&
		       j->next >= j->written + WINDOW)
			pthread_cond_wait(&j->cv, &j->mtx);
		if (j->quit || j->next >= j->n || *j->stop) {
			pthread_mutex_unlock(&j->mtx);
			return (NULL);
		}
		k = j->next++;
		pthread_mutex_unlock(&j->mtx);
		sl = &j->slot[k % WINDOW];
		memset(&sl->r, 0, sizeof(sl->r));
		if (j->ops->fill(j->u, k, &sl->r) != 0)
			st = SKIP;
		else
			st = sweep_point(j->s, &sl->r, sl->err,
			                 sizeof(sl->err)) == 0
			         ? DONE
			         : FAIL;
		pthread_mutex_lock(&j->mtx);
		sl->state = st;
		pthread_cond_broadcast(&j->cv);
		pthread_mutex_unlock(&j->mtx);
	}
}

/* The writer: every slot in order as it is done. */
static int
write_all(struct jobs *j, char *err, size_t len)
{
	size_t k;
	int    rv = 0;

	for (k = 0; k < j->n && rv == 0; k++) {
		struct slot *sl = &j->slot[k % WINDOW];

		pthread_mutex_lock(&j->mtx);
		while (sl->state == PENDING && !*j->stop)
			pthread_cond_wait(&j->cv, &j->mtx);
		pthread_mutex_unlock(&j->mtx);
		if (sl->state == PENDING) /* stopped: the CSV ends before k */
			break;
		if (sl->state == FAIL) {
			snprintf(err, len, "%s", sl->err);
			rv = -1;
		} else if (sl->state == DONE &&
		           j->ops->emit(j->u, k, &sl->r) != 0) {
			snprintf(err, len, "writing the CSV failed");
			rv = -1;
		}
		pthread_mutex_lock(&j->mtx);
		sl->state = PENDING;
		j->written = k + 1;
		pthread_cond_broadcast(&j->cv);
		pthread_mutex_unlock(&j->mtx);
	}
	return (rv);
}

/* A signal handler cannot wake a condition variable: the writer looks at
 * the stop flag every tenth of a second. */
static void *
watch(void *arg)
{
	struct jobs *j = arg;

	for (;;) {
		struct timespec ts = {0, 100000000};
		int             quit;

		nanosleep(&ts, NULL);
		pthread_mutex_lock(&j->mtx);
		quit = j->quit;
		if (*j->stop)
			pthread_cond_broadcast(&j->cv);
		pthread_mutex_unlock(&j->mtx);
		if (quit)
			return (NULL);
	}
}

int
sweep_jobs_run(const struct sweep *s, unsigned njobs, size_t n,
               const struct sweep_jobs_ops *ops, void *u,
               volatile sig_atomic_t *stop, char *err, size_t len)
{
	struct jobs j = {s,
	                 ops,
	                 u,
	                 stop,
	                 n,
	                 0,
	                 0,
	                 0,
	                 NULL,
	                 PTHREAD_MUTEX_INITIALIZER,
	                 PTHREAD_COND_INITIALIZER};
	pthread_t   th[SWEEP_MAX_JOBS], w;
	unsigned    i, started = 0;
	int         rv, watching;

	if ((j.slot = calloc(WINDOW, sizeof(*j.slot))) == NULL) {
		snprintf(err, len, "out of memory");
		return (-ENOMEM);
	}
	for (i = 0; i < njobs && i < SWEEP_MAX_JOBS; i++)
		if (pthread_create(&th[i], NULL, worker, &j) == 0)
			started++;
	watching = started > 0 && pthread_create(&w, NULL, watch, &j) == 0;
	if (watching)
		rv = write_all(&j, err, len);
	else {
		snprintf(err, len, "cannot start threads");
		rv = -EAGAIN;
	}
	/* Every thread told to quit, then joined, on either way out. */
	pthread_mutex_lock(&j.mtx);
	j.quit = 1;
	pthread_cond_broadcast(&j.cv);
	pthread_mutex_unlock(&j.mtx);
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	if (watching)
		pthread_join(w, NULL);
	free(j.slot);
	return (rv);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What ocsd's state did, as a numbered stream of events for watchers
 * (ocsctl watch, ocs-web's live feed): a circuit changed, an agent joined,
 * was lost or went dark, a run started, advanced a phase or ended.  An
 * event says what changed, not the new state, which a watcher asks for
 * as ocsctl does.  The last EV_RING events are kept; a watcher that fell
 * further behind is told so and reads the whole state again.
 *
 * Threads and locks: everything is called with d->mtx held, by whoever
 * changed the state (the switch worker, the agents' threads, the
 * runner), except ev_open and ev_close.  A watcher's request is held on
 * its control context's aio (ev_wait) and finished, never called back
 * into, so posting never waits.
 */
#ifndef OCS_EV_H
#define OCS_EV_H

#include <stddef.h>
#include <stdint.h>

#include <nng/nng.h>
#include <nng/supplemental/util/platform.h>

#define EV_RING      1024  /* events kept */
#define EV_WAITERS   4     /* watches held at once (contexts are few) */
#define EV_WAIT_MAX  30000 /* ms a watch is held at most */
#define EV_BATCH_MAX 256   /* events in one answer */

struct ev_rec {
	uint64_t seq, unix_ms, run_id;
	uint32_t phase;
	int      has_run, has_phase;
	char     kind[8];  /* switch | agent | run */
	char     what[12]; /* see proto/ocs.proto's Event */
	char     host[64];
	char     text[200];
};

struct ev;
struct ocsd;

/* 0 or -ENOMEM. */
int ev_open(struct ev **);
/* After every watcher's context is closed (ctl_close). */
void ev_close(struct ev *);

/* Record e (its seq and unix_ms are set here) and finish the watches
 * waiting for it.  A NULL ev (ocsd's tests without one) takes nothing. */
void ev_post(struct ev *, struct ev_rec *e);
/* The same from parts; fmt makes the text. */
void ev_say(struct ev *, const char *kind, const char *what, const char *host,
            uint64_t run_id, int64_t phase, const char *fmt, ...)
    __attribute__((__format__(printf, 7, 8)));

/* The events after since into out[0..cap), oldest first; their count.
 * *last is the newest event's number, *lost whether some after since
 * are not among them (no longer kept, or more than cap: the newest cap
 * are given). */
size_t ev_since(const struct ev *, uint64_t since, struct ev_rec *out,
                size_t cap, uint64_t *last, int *lost);

/*
 * Hold aio until an event after since is posted (finished with 0), or
 * wait_ms pass (NNG_ETIMEDOUT), or it is cancelled (the socket closes).
 * The caller then reads ev_since.  0, 1 when there are events already
 * or wait_ms is 0 (nothing held: answer at once), -ECANCELED when the
 * aio is stopped, or -EAGAIN when EV_WAITERS watches are held already.
 * mtx is the lock every call here is made under (the cancel takes it).
 */
int ev_wait(struct ev *, nng_mtx *mtx, nng_aio *aio, uint64_t since,
            uint32_t wait_ms);

#endif

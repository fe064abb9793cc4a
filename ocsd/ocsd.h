/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocsd's shared state.  One mutex guards it; it is never held across
 * driver I/O or a send.  The switch worker (sw.c) owns the driver and is
 * the only writer of the live and desired maps; control contexts (ctl.c)
 * read them under the lock and hand everything that touches the switch
 * to the worker as a job, completed through the context's nng aio.
 */
#ifndef OCS_OCSD_H
#define OCS_OCSD_H

#include <limits.h>
#include <stdint.h>

#include <nng/nng.h>
#include <nng/supplemental/util/platform.h>

#include "ocs-drivers/drv.h"
#include "ocsd/conf.h"
#include "ocsd/map.h"
#include "proto/msg.h"

enum ocsd_err {
	OCSD_EBASE = 7168,
	OCSD_ESWITCH,   /* the switch is unreachable */
	OCSD_EMISMATCH, /* the read-back differs from what was applied */
	OCSD_EREQUEST,  /* the request cannot be carried out */
	OCSD_ESTATE,    /* the desired map could not be saved */
	OCSD_EABORT,    /* the collective run was aborted */
	OCSD_EBUSY,     /* a run is in progress */
	OCSD_EMAX
};

/* Any code of ours or of the modules below, or strerror. */
const char *ocsd_strerror(int rv);

/* A reply under construction: the protobuf struct and everything it
 * points to, freed together. */
struct reply {
	Ocs__CtlReply r;
	void        **blk;
	size_t        nblk, cap;
};

enum job_kind {
	JOB_CTL,    /* an operator request */
	JOB_RELOAD, /* swap in a new configuration */
	JOB_RECONF, /* a run's reconfiguration: make the switch hold target */
};

struct job {
	enum job_kind          kind;
	const Ocs__CtlRequest *req;     /* JOB_CTL */
	struct conf           *newconf; /* JOB_RELOAD: the worker takes it */
	struct map             target;  /* JOB_RECONF */
	double                 took_ms; /* JOB_RECONF: apply + read-back */
	int                    rv;      /* result */
	char                   err[768];
	struct reply           rep;
	nng_aio               *aio; /* finished when done (NULL: none) */
	int                    started;
	struct job            *next;
};

struct ocsd {
	nng_mtx     *mtx;
	nng_cv      *cv;
	struct conf *conf;
	uint64_t     start_ms;

	/* The switch, as last seen by the worker. */
	int        connected;
	uint32_t   nports;
	char       sw_err[512];
	char       sw_warn[256];
	int        interrupted; /* a batch failed with its outcome unknown */
	double     last_op_ms;
	struct map live;
	int        have_live;
	uint64_t   live_ms;
	struct map desired;
	int        have_desired;
	char       desired_path[PATH_MAX];

	/* Agents and the collective run (agents.c, run.c). */
	struct agents *ag;
	struct run    *run;
	uint64_t       last_run_id;
	char           last_abort[512]; /* why the last run ended early */
	nng_aio       *run_reconf;      /* one run at a time: its aio */
	struct job     rjob;
	int            reconf_busy;

	/* The worker. */
	struct job *qhead, *qtail;
	int         stop;
	nng_thread *thr;
	struct drv *drv;
	uint64_t    next_try_ms, next_poll_ms;
	uint32_t    backoff_ms;
};

uint64_t ocsd_now_ms(void);
void     ocsd_sleep_ms(uint32_t ms);
uint64_t ocsd_now_us(void);

/* sw.c: start and stop the worker; queue a job.  sw_submit finishes the
 * job's aio (nng_aio_begin/defer/finish), so a context waits without a
 * thread.  A job still queued when its aio is cancelled is dropped. */
int  sw_start(struct ocsd *);
void sw_stop(struct ocsd *);
void sw_submit(struct ocsd *, struct job *, nng_aio *);
void sw_submit_reload(struct ocsd *, struct conf *);
/* Queue a run's reconfiguration (job->target); finishes aio.  The
 * caller holds d->mtx. */
void sw_submit_reconf(struct ocsd *, struct job *, nng_aio *);

/* ctl.c: the operator socket. */
struct ctl;
int  ctl_open(struct ocsd *, const char *url, struct ctl **);
void ctl_close(struct ctl *);

/* reply.c: building replies (lock held by the caller where it reads d). */
void  reply_init(struct reply *);
void  reply_free(struct reply *);
void *reply_alloc(struct reply *, size_t);
char *reply_str(struct reply *, const char *);
void  reply_switch(struct reply *, const struct ocsd *);
void  reply_show(struct reply *, const struct ocsd *);
void  reply_status(struct reply *, const struct ocsd *);
void  reply_diff(struct reply *, const struct ocsd *);
void  reply_message(struct reply *, const char *fmt, ...)
    __attribute__((__format__(printf, 2, 3)));

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Operator requests as switch targets: each turns a checked CtlRequest
 * (ctl_check.c) into the map the switch must hold and the desired map
 * after it, through the cabling (xc.c).  They are sw_plan_fn, run by the
 * switch's worker when the request's turn comes, with the lock held;
 * arg is a ctl_plan_arg.
 * A change is refused while a run is in progress, except in a dry run:
 * the request checked before --force aborts a run for it (a change that
 * would be refused must not cost the run).
 */
#ifndef OCS_CTL_PLAN_H
#define OCS_CTL_PLAN_H

#include "ocsd/sw.h"
#include "proto/ocs.pb-c.h"

struct ctl_plan_arg {
	const Ocs__CtlRequest *q;
	int                    dry;   /* check only, whatever runs */
	int                    split; /* apply to every switch: each its
	                               * own pairs (by the first end) */
};

/* connect A B: A and B's patches added to both maps. */
int ctl_plan_connect(const struct ocsd *, const struct sw *, const void *req,
                     struct sw_target *, char *err, size_t len);
/* disconnect A...: their patches removed from both maps. */
int ctl_plan_disconnect(const struct ocsd *, const struct sw *,
                        const void *req, struct sw_target *, char *err,
                        size_t len);
/* apply: the whole map from the request's pairs. */
int ctl_plan_apply(const struct ocsd *, const struct sw *, const void *req,
                   struct sw_target *, char *err, size_t len);
/* clear: no patches at all. */
int ctl_plan_clear(const struct ocsd *, const struct sw *, const void *req,
                   struct sw_target *, char *err, size_t len);
/* map sync: the desired map pushed to the switch. */
int ctl_plan_sync(const struct ocsd *, const struct sw *, const void *req,
                  struct sw_target *, char *err, size_t len);
/* map adopt: no target (t NULL: the worker reads the switch back and
 * keeps that); only refused during a run. */
int ctl_plan_adopt(const struct ocsd *, const struct sw *, const void *req,
                   struct sw_target *, char *err, size_t len);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Operator replies (ocs.CtlReply) built from ocsd's state: the one place
 * in ocsd besides the sockets' dispatch (ctl.c, agents.c) that names
 * protobuf types.  Everything a reply points to is allocated with it and
 * freed with it.
 */
#ifndef OCS_REPLY_H
#define OCS_REPLY_H

#include <stddef.h>

#include "proto/msg.h"

struct ocsd;
struct run_report;

/* A reply under construction: the protobuf struct and everything it
 * points to, freed together. */
struct reply {
	Ocs__CtlReply r;
	void        **blk;
	size_t        nblk, cap;
};

/* An operator request waiting for a run's report: the outcome and the
 * reply, set before its aio finishes. */
struct pending {
	int          rv;
	char         err[768];
	struct reply rep;
};

/* reply.c: building replies (lock held by the caller where it reads d). */
void  reply_init(struct reply *);
void  reply_free(struct reply *);
void *reply_alloc(struct reply *, size_t);
char *reply_str(struct reply *, const char *);
void  reply_show(struct reply *, const struct ocsd *);
void  reply_status(struct reply *, const struct ocsd *);
void  reply_diff(struct reply *, const struct ocsd *);
void  reply_run(struct reply *, const struct run_report *);
void  reply_message(struct reply *, const char *fmt, ...)
    __attribute__((__format__(printf, 2, 3)));

#endif

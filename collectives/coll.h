/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Error codes shared by the collectives library.  Functions return 0 or a
 * negative code: a negated errno where errno names the condition, else a
 * negated coll_err.  coll_strerror() renders both.
 */
#ifndef COLL_COLL_H
#define COLL_COLL_H

#include "proto/base/errbase.h"

enum coll_err {
	COLL_EBASE = ERR_BASE_COLL,
	COLL_EPORT,    /* port limit: bad port, or one port in two circuits */
	COLL_EDARK,    /* a hop on a transceiver with no circuit */
	COLL_ENOTHELD, /* a node sends a block it does not hold */
	COLL_EUNDELIVERED, /* at the end a block is not where it must be */
	COLL_EPATH,        /* a path that does not lead from src to dst */
	COLL_EBYTES,       /* a transfer's bytes disagree with its blocks */
	COLL_ENOCFG,       /* the first phase has no circuit configuration */
	COLL_EUNREACH,     /* the peer is not on any cycle of the config */
	COLL_ETOOBIG,      /* too large to materialise */
	COLL_ENONUM,       /* not a number */
	COLL_ERANGE,       /* value out of range */
	COLL_EALGO,        /* unknown algorithm */
	COLL_ETOPO,        /* a malformed topology */
	COLL_ELINK,        /* a link used more than its capacity */
	COLL_EREDUCE,      /* a reduction counts a contribution twice */
	COLL_ENODES,       /* more nodes than the planner takes */
	COLL_EPLANE,       /* a phase's planes disagree with its circuits */
	COLL_EMAX
};

/* Text for a negative code from this library or the unit parsers
 * (proto/base/units.h), or strerror(-rv). */
const char *coll_strerror(int rv);

#endif

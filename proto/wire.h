/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What ocsd and its clients (ocsctl, scripts, agents) agree on besides
 * the messages themselves: the limits of an operator's request, and the
 * codes of ocsd's refusals (an Error's code, negated), which clients act
 * on (ocsctl exits 2 on a usage error).  ocsd_strerror (ocsd/err.h)
 * names them.
 */
#ifndef OCS_WIRE_H
#define OCS_WIRE_H

#include <stddef.h>

#include "proto/base/errbase.h"

/* Entries of one apply at most: far more than any switch has ports. */
#define CTL_MAX_PAIRS 65536
/* A run's topology text and chunks per node (synthesised collectives). */
#define CTL_MAX_TOPOLOGY (1u << 20)
#define CTL_MAX_CHUNKS   64
/* A switch's name in ocsd.conf ([switch NAME], the cabling), in ocsctl's
 * requests and in ocs-web's ?switch=: its length and NUL at most. */
#define WIRE_SWNAME_MAX 32

/* Is s[0..len) a switch's name: a letter, then letters, digits, - and
 * _, shorter than WIRE_SWNAME_MAX?  1 or 0. */
int wire_swname_ok(const char *s, size_t len);
/* A character of any name ocsd.conf gives (switch, host, server):
 * letters, digits, - and _.  1 or 0. */
int wire_name_char(int c);

enum ocsd_err {
	OCSD_EBASE = ERR_BASE_OCSD,
	OCSD_ESWITCH,   /* the switch is unreachable */
	OCSD_EMISMATCH, /* the read-back differs from what was applied */
	OCSD_EREQUEST,  /* the request cannot be carried out */
	OCSD_ESTATE,    /* the desired map could not be saved */
	OCSD_EABORT,    /* the collective run was aborted */
	OCSD_EBUSY,     /* a run is in progress */
	OCSD_EUSAGE,    /* an argument of the request is invalid */
	OCSD_EMAX
};

#endif

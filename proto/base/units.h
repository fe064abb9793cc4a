/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Parsing and printing of sizes, times and rates as users type them:
 *
 *   SIZE  a whole number of bytes: B (or none), KB MB GB TB (decimal),
 *         KiB MiB GiB TiB (binary)                       "1MiB", "1.5KB"
 *   TIME  ns us ms s; a unit is required except for 0    "1.7us", "25ms"
 *   RATE  bits: bps Kbps Mbps Gbps Tbps (decimal);
 *         bytes: Bps KBps MBps GBps (decimal), KiBps MiBps GiBps
 *                                                        "400Gbps"
 *
 * Numbers are plain decimals (digits, one optional point): no sign, no
 * exponent, no hex, no "inf".  Units are case-sensitive (b is a bit, B a
 * byte).  Functions return 0 or -UNIT_ENONUM, -UNIT_EUNIT,
 * -UNIT_ENOUNIT, -UNIT_EFRAC, -UNIT_ERANGE.
 */
#ifndef OCS_UNITS_H
#define OCS_UNITS_H

#include <stddef.h>
#include <stdint.h>

#include "proto/base/errbase.h"

enum unit_err {
	UNIT_EBASE = ERR_BASE_UNIT,
	UNIT_EUNIT,   /* unknown unit suffix */
	UNIT_ENONUM,  /* not a number */
	UNIT_ENOUNIT, /* a non-zero time without a unit */
	UNIT_EFRAC,   /* not a whole number of bytes */
	UNIT_ERANGE,  /* value out of range */
	UNIT_EMAX
};

/* Text for a code of this range, else NULL. */
const char *unit_strerror(int rv);

#define UNIT_MAX_SIZE ((uint64_t)1 << 50) /* 1 PiB */
#define UNIT_MAX_TIME 1e6                 /* s */

int unit_parse_size(const char *, uint64_t *bytes);
int unit_parse_time(const char *, double *seconds);
/* Rate in bits per second, > 0. */
int unit_parse_rate(const char *, double *bps);

/* Human-readable forms: "1.7 us", "1 MiB", "400 Gbps". */
const char *unit_fmt_time(double seconds, char *buf, size_t len);
const char *unit_fmt_size(uint64_t bytes, char *buf, size_t len);
const char *unit_fmt_rate(double bps, char *buf, size_t len);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The value lists of ocs-sweep: comma-separated values and geometric
 * ranges, in the units of ocs-plan.
 *
 *	1KiB,64KiB,1MiB        values
 *	1KiB..256MiB*4         1 KiB, 4 KiB, ... up to 256 MiB (x4 steps)
 *	1us..100ms*10          times the same way
 *	3..81*3                counts
 *
 * A range ends at its last step not past the end (within 1e-9).
 */
#ifndef OCS_SWEEP_LIST_H
#define OCS_SWEEP_LIST_H

#include <stddef.h>

enum sweep_kind { SWEEP_SIZE, SWEEP_TIME, SWEEP_COUNT };

#define SWEEP_LIST_MAX 10000 /* values in one list */

/* Parse spec; *v (malloc'd, sorted, no duplicates) and *n.  0, or -1
 * with the bad item named in err. */
int sweep_list_parse(const char *spec, enum sweep_kind, double **v, size_t *n,
                     char *err, size_t len);

#endif

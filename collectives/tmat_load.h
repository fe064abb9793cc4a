/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A traffic matrix as the tools take it (ocs-plan --matrix, ocsctl run
 * --matrix): a generator's spec, scaled by bytes, or a file.  Tool side:
 * it reads files, which the library under it does not.
 */
#ifndef COLL_TMAT_LOAD_H
#define COLL_TMAT_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include "collectives/tmat.h"

/* 0, or a negative code with one line in err naming the file or field. */
int tmat_load(const char *spec, uint64_t bytes, struct tmat *, char *err,
              size_t errlen);

#endif

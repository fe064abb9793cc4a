/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The one-line reason that goes with an error code: every parser and
 * checker in the tree writes "field: \"value\": why" into a caller's
 * buffer and returns its code in one statement, return (errf(...)).
 */
#ifndef OCS_ERRF_H
#define OCS_ERRF_H

#include <stddef.h>

/* Format into err (nothing when err is NULL or len is 0); returns rv. */
int errf(int rv, char *err, size_t len, const char *fmt, ...)
    __attribute__((__format__(printf, 4, 5)));

#endif

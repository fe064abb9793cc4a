/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Reading a run's report as ocsctl -j prints it (its "report" object),
 * for the tests that check what a run did plane by plane.
 */
#ifndef OCS_TEST_RJSON_H
#define OCS_TEST_RJSON_H

#include <stddef.h>

#include <jansson.h>

/* The element of array arr whose string member key is val, or NULL
 * (also when arr is not an array or an element lacks key). */
json_t *rjson_find(json_t *arr, const char *key, const char *val);
/* Phase k's plane named name in report rep ("phases"[k]."planes"), or
 * NULL. */
json_t *rjson_plane(json_t *rep, size_t k, const char *name);

#endif

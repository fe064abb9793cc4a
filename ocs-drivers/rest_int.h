/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What rest.c and rest_state.c share: jansson helpers with the codec's
 * limits and messages.  Not for the codec's users.
 */
#ifndef OCS_REST_INT_H
#define OCS_REST_INT_H

#include <jansson.h>

#include "ocs-drivers/rest.h"

/* The body as JSON within REST_BODY_MAX and the nesting limit. */
int rest_load(const char *body, size_t len, json_t **out, char *err,
              size_t errlen);
/* A string field; NULL with err filled if absent or not a string. */
const char *rest_str_field(json_t *o, const char *ctx, size_t i,
                           const char *key, char *err, size_t errlen);
/* A port of the switch in a string field. */
int rest_port_field(json_t *o, const char *ctx, size_t i, const char *key,
                    const struct rest_names *, uint32_t *p, char *err,
                    size_t errlen);

/* One element of a top-level array: o is element i, out its slot. */
typedef int (*rest_item_fn)(json_t *o, size_t i, const struct rest_names *t,
                            void *out, char *err, size_t errlen);
/*
 * Parse a body that is an array of objects (or, with one_ok, a single
 * object standing for an array of one) into a malloc'd array of elsize
 * elements, one item() call each.  ctx names the array in messages.
 */
int rest_walk(const char *body, size_t len, const char *ctx, int one_ok,
              size_t elsize, rest_item_fn item, const struct rest_names *,
              void **out, size_t *n, char *err, size_t errlen);

/* Compact JSON text of j (consumed), malloc'd, or NULL. */
char   *rest_dump(json_t *j);
json_t *rest_port_json(const struct rest_names *, uint32_t p);
json_t *rest_conn_json(const struct rest_names *, const struct rest_xc *);

#endif

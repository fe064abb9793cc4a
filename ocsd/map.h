/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A cross-connect map of an N x N switch: out[in] = egress port or 0 for
 * in = 1..N.  The desired map is persisted (atomic write, fsync) so that a
 * controller restart never forgets what the operator asked for; batches
 * that turn one map into another are computed here.
 */
#ifndef OCS_MAP_H
#define OCS_MAP_H

#include <stddef.h>
#include <stdint.h>

#include "ocs-drivers/drv.h"

struct map {
	uint32_t  n;
	uint16_t *out; /* n + 1 entries, out[0] unused */
};

int      map_init(struct map *, uint32_t n);
void     map_free(struct map *);
int      map_copy(struct map *dst, const struct map *src);
int      map_equal(const struct map *, const struct map *);
uint32_t map_count(const struct map *);
/* Ingress patched to egress `out`, or 0. */
uint32_t map_in_of(const struct map *, uint32_t out);

/* Load "ports N" then "IN OUT" lines.  0, -ENOENT, or -EINVAL with the
 * line and reason in err. */
int map_load(const char *path, struct map *, char *err, size_t errlen);
/* Write atomically: temp file, fsync, rename, fsync the directory. */
int map_save(const char *path, const struct map *);

/*
 * The batch turning `from` into `to` (same n): disconnect every ingress
 * whose patch changes or goes, connect every patch that is new.  The
 * arrays are allocated here; map_batch_free() them.
 */
struct map_batch {
	struct drv_batch  b;
	uint16_t         *disc;
	struct drv_patch *conn;
};
int  map_batch(const struct map *from, const struct map *to,
               struct map_batch *);
void map_batch_free(struct map_batch *);

#endif

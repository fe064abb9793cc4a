/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A fixed-size map from non-zero 32-bit ids to pointers (linear probing,
 * deletion by backward shift, so no tombstones), for lookups that run on
 * every message: ocsd finds the agent of an nng pipe this way instead of
 * searching every agent.  Not thread-safe; the caller locks.
 */
#ifndef OCS_IDMAP_H
#define OCS_IDMAP_H

#include <stdint.h>

struct idmap {
	uint32_t *key;
	void    **val; /* NULL: the slot is free */
	uint32_t  mask, n;
};

/* Room for at least cap entries.  0 or -ENOMEM. */
int  idmap_init(struct idmap *, uint32_t cap);
void idmap_fini(struct idmap *);
/* Map id to v (not NULL), replacing what it mapped to.  0, -EINVAL (id
 * 0 or v NULL) or -ENOSPC. */
int idmap_put(struct idmap *, uint32_t id, void *v);
/* What id maps to, or NULL. */
void *idmap_get(const struct idmap *, uint32_t id);
/* Forget id if it maps to v (any value when v is NULL). */
void idmap_del(struct idmap *, uint32_t id, const void *v);

#endif

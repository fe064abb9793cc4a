/* SPDX-License-Identifier: BSD-2-Clause */
/* Ids to pointers (see idmap.h). */
#include <errno.h>
#include <stdlib.h>

#include "proto/base/idmap.h"

/* Fibonacci hashing: nng's pipe ids are sequential, so spread them. */
static uint32_t
slot(const struct idmap *m, uint32_t id)
{
	return ((uint32_t)(id * 2654435769u) & m->mask);
}

int
idmap_init(struct idmap *m, uint32_t cap)
{
	uint32_t size = 8;

	/* At most half full: short probe runs. */
	while (size < 2 * (uint64_t)cap && size < (1u << 30))
		size *= 2;
	m->key = calloc(size, sizeof(*m->key));
	m->val = calloc(size, sizeof(*m->val));
	m->mask = size - 1;
	m->n = 0;
	if (m->key == NULL || m->val == NULL) {
		idmap_fini(m);
		return (-ENOMEM);
	}
	return (0);
}

void
idmap_fini(struct idmap *m)
{
	free(m->key);
	free(m->val);
	m->key = NULL;
	m->val = NULL;
	m->mask = m->n = 0;
}

/* The slot holding id, or the free slot where it would go. */
static uint32_t
find(const struct idmap *m, uint32_t id)
{
	uint32_t i = slot(m, id);

	while (m->val[i] != NULL && m->key[i] != id)
		i = (i + 1) & m->mask;
	return (i);
}

int
idmap_put(struct idmap *m, uint32_t id, void *v)
{
	uint32_t i;

	if (id == 0 || v == NULL)
		return (-EINVAL);
	i = find(m, id);
	if (m->val[i] == NULL) {
		/* One slot always stays free, so that find() ends. */
		if (m->n + 1 > m->mask)
			return (-ENOSPC);
		m->n++;
	}
	m->key[i] = id;
	m->val[i] = v;
	return (0);
}

void *
idmap_get(const struct idmap *m, uint32_t id)
{
	return (id == 0 || m->val == NULL ? NULL : m->val[find(m, id)]);
}

void
idmap_del(struct idmap *m, uint32_t id, const void *v)
{
	uint32_t i, j, h;

	if (id == 0 || m->val == NULL)
		return;
	i = find(m, id);
	if (m->val[i] == NULL || (v != NULL && m->val[i] != v))
		return;
	m->val[i] = NULL;
	m->n--;
	/* Pull back every later entry of the run that may no longer be
	 * reached past the hole at i. */
	for (j = (i + 1) & m->mask; m->val[j] != NULL; j = (j + 1) & m->mask) {
		h = slot(m, m->key[j]);
		/* Stays if its home h is cyclically in (i, j]. */
		if (i <= j ? (h > i && h <= j) : (h > i || h <= j))
			continue;
		m->key[i] = m->key[j];
		m->val[i] = m->val[j];
		m->val[j] = NULL;
		i = j;
	}
}

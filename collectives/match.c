/* SPDX-License-Identifier: BSD-2-Clause */
/* Bipartite matchings: Kuhn's augmenting paths and the Hungarian method. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/match.h"

/* Forget every pair. */
static void match_clear(struct match *);

int
match_init(struct match *m, uint32_t n)
{
	size_t k = (size_t)n + 1;

	memset(m, 0, sizeof(*m));
	m->n = n;
	m->r2c = malloc(k * sizeof(*m->r2c));
	m->c2r = malloc(k * sizeof(*m->c2r));
	m->seen = calloc(k, sizeof(*m->seen));
	m->u = malloc(k * sizeof(*m->u));
	m->v = malloc(k * sizeof(*m->v));
	m->minv = malloc(k * sizeof(*m->minv));
	m->p = malloc(k * sizeof(*m->p));
	m->way = malloc(k * sizeof(*m->way));
	m->used = malloc(k);
	if (!m->r2c || !m->c2r || !m->seen || !m->u || !m->v || !m->minv ||
	    !m->p || !m->way || !m->used) {
		match_fini(m);
		return (-ENOMEM);
	}
	match_clear(m);
	return (0);
}

void
match_fini(struct match *m)
{
	free(m->r2c);
	free(m->c2r);
	free(m->seen);
	free(m->u);
	free(m->v);
	free(m->minv);
	free(m->p);
	free(m->way);
	free(m->used);
	memset(m, 0, sizeof(*m));
}

static void
match_clear(struct match *m)
{
	uint32_t i;

	for (i = 0; i < m->n; i++)
		m->r2c[i] = m->c2r[i] = MATCH_NONE;
	m->size = 0;
}

void
match_drop(struct match *m, uint32_t i)
{
	if (m->r2c[i] == MATCH_NONE)
		return;
	m->c2r[m->r2c[i]] = MATCH_NONE;
	m->r2c[i] = MATCH_NONE;
	m->size--;
}

/* An augmenting path from row i (depth at most n: one column a level). */
static int
augment(struct match *m, const uint64_t *w, uint64_t thr, uint32_t i)
{
	const uint64_t *row = w + (size_t)i * m->n;
	uint32_t        j;

	for (j = 0; j < m->n; j++) {
		if (row[j] < thr || m->seen[j] == m->stamp)
			continue;
		m->seen[j] = m->stamp;
		if (m->c2r[j] == MATCH_NONE || augment(m, w, thr, m->c2r[j])) {
			m->c2r[j] = i;
			m->r2c[i] = j;
			return (1);
		}
	}
	return (0);
}

uint32_t
match_grow(struct match *m, const uint64_t *w, uint64_t thr)
{
	uint32_t i;

	for (i = 0; i < m->n; i++) {
		if (m->r2c[i] != MATCH_NONE)
			continue;
		if (++m->stamp == 0) {
			memset(m->seen, 0, m->n * sizeof(*m->seen));
			m->stamp = 1;
		}
		if (augment(m, w, thr, i))
			m->size++;
	}
	return (m->size);
}

/*
 * The O(n^3) Hungarian method with potentials (rows 1..n, columns 1..n,
 * column 0 the virtual start), minimising -w.
 */
int64_t
match_max_weight(struct match *m, const int64_t *w)
{
	uint32_t  n = m->n, i, j, j0, j1;
	int64_t   total = 0, delta, cur;
	int64_t  *u = m->u, *v = m->v, *minv = m->minv;
	uint32_t *p = m->p, *way = m->way;

	memset(u, 0, (n + 1) * sizeof(*u));
	memset(v, 0, (n + 1) * sizeof(*v));
	memset(p, 0, (n + 1) * sizeof(*p));
	for (i = 1; i <= n; i++) {
		p[0] = i;
		j0 = 0;
		for (j = 0; j <= n; j++) {
			minv[j] = INT64_MAX;
			m->used[j] = 0;
		}
		do {
			uint32_t i0 = p[j0];

			m->used[j0] = 1;
			delta = INT64_MAX;
			j1 = 0;
			for (j = 1; j <= n; j++) {
				if (m->used[j])
					continue;
				cur = -w[(size_t)(i0 - 1) * n + j - 1] -
				      u[i0] - v[j];
				if (cur < minv[j]) {
					minv[j] = cur;
					way[j] = j0;
				}
				if (minv[j] < delta) {
					delta = minv[j];
					j1 = j;
				}
			}
			for (j = 0; j <= n; j++) {
				if (m->used[j]) {
					u[p[j]] += delta;
					v[j] -= delta;
				} else
					minv[j] -= delta;
			}
			j0 = j1;
		} while (p[j0] != 0);
		do {
			j1 = way[j0];
			p[j0] = p[j1];
			j0 = j1;
		} while (j0 != 0);
	}
	match_clear(m);
	for (j = 1; j <= n; j++) {
		i = p[j] - 1;
		if (w[(size_t)i * n + j - 1] <= 0)
			continue;
		m->r2c[i] = j - 1;
		m->c2r[j - 1] = i;
		m->size++;
		total += w[(size_t)i * n + j - 1];
	}
	return (total);
}

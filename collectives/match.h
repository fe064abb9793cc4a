/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Bipartite matchings on dense n x n weight matrices (rows = senders,
 * columns = receivers), for the skewed All-to-All planners: perfect
 * matchings on the entries at or above a threshold (kept between calls,
 * so a decomposition repairs rather than recomputes), and a maximum
 * weight assignment (Hungarian method).
 */
#ifndef COLL_MATCH_H
#define COLL_MATCH_H

#include <stdint.h>

#define MATCH_NONE UINT32_MAX

struct match {
	uint32_t  n;
	uint32_t *r2c, *c2r; /* the matching, MATCH_NONE where free */
	uint32_t *seen, stamp;
	uint32_t  size;
	/* Hungarian workspace. */
	int64_t  *u, *v, *minv;
	uint32_t *p, *way;
	uint8_t  *used;
};

int  match_init(struct match *, uint32_t n);
void match_fini(struct match *);
/* Drop row i's pair, if any. */
void match_drop(struct match *, uint32_t i);

/*
 * Grow the matching over edges w[i * n + j] >= thr (thr >= 1) by augmenting
 * paths from every free row; pairs already held stay usable only while
 * their edge still qualifies (the caller drops the others).  Returns the
 * size of the matching: n when perfect.
 */
uint32_t match_grow(struct match *, const uint64_t *w, uint64_t thr);

/*
 * Maximum weight assignment of w (n * n, >= 0): r2c gets each row's
 * column, MATCH_NONE for rows whose edge weighs 0.  Returns the total.
 */
int64_t match_max_weight(struct match *, const int64_t *w);

#endif

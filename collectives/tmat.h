/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Traffic matrices for skewed All-to-All (spec/skewed-alltoall.md): n x n
 * byte counts, row i = what node i sends, read from CSV or JSON text or
 * made by a seeded generator.  The diagonal is what a node keeps: it is
 * carried in the matrix but never scheduled onto the network.
 */
#ifndef COLL_TMAT_H
#define COLL_TMAT_H

#include <stddef.h>
#include <stdint.h>

#define TMAT_MAX_N     1024
#define TMAT_MAX_ENTRY ((uint64_t)1 << 50) /* 1 PiB, as a --bytes */

struct tmat {
	uint32_t  n;
	uint64_t *b; /* n * n, b[i * n + j]: bytes from i to j */
};

static inline uint64_t
tmat_at(const struct tmat *m, uint32_t i, uint32_t j)
{
	return (m->b[(size_t)i * m->n + j]);
}

/* An n x n zero matrix.  0, -EINVAL (n < 2 or > TMAT_MAX_N), -ENOMEM. */
int  tmat_alloc(struct tmat *, uint32_t n);
void tmat_free(struct tmat *);

/*
 * Parse CSV (n lines of n comma-separated byte counts, `#` starts a
 * comment, blank lines skipped; a count may carry a size unit) or JSON
 * ({"bytes": [[...], ...]}, chosen when the text starts with `{`).
 * 0, or -EINVAL with one line in err naming the row and column.
 */
int tmat_parse(const char *text, size_t len, struct tmat *, char *err,
               size_t errlen);

/*
 * A generator: uniform:N:BYTES (every pair BYTES), zipf:N:S:SEED[:MAX]
 * (i.i.d. Zipf(s) over 1..MAX, default 100), moe:N:EXPERTS:TOPK:TOKENS:SEED
 * (tokens routed to their top-k experts, popularity Zipf(0.8)),
 * hotspot:N:K:FACTOR (K hot receivers get FACTOR times the rest).  All
 * but uniform are scaled so that a node sends `bytes` on average.
 * Returns 1 if spec is not a generator's name (a file then), 0, or
 * -EINVAL with err filled.
 */
int tmat_generate(const char *spec, uint64_t bytes, struct tmat *, char *err,
                  size_t errlen);

/* Row and column sums without the diagonal, and the largest of them. */
uint64_t tmat_row(const struct tmat *, uint32_t i);
uint64_t tmat_col(const struct tmat *, uint32_t j);
uint64_t tmat_rho(const struct tmat *);
/* Off-diagonal entries that are not zero in row i / column j. */
uint32_t tmat_row_nnz(const struct tmat *, uint32_t i);
uint32_t tmat_col_nnz(const struct tmat *, uint32_t j);

#endif

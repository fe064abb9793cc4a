/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Traffic matrix generators: seeded, so a matrix is named by its spec and
 * the same spec gives the same bytes on every machine (splitmix64, no
 * libc rand).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/tmat.h"
#include "proto/base/errf.h"
#include "proto/base/units.h"

#define GEN_MAX_FIELDS 6

static uint64_t
rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return (z ^ (z >> 31));
}

/* Uniform in [0, 1). */
static double
rng_unit(uint64_t *s)
{
	return ((double)(rng_next(s) >> 11) * 0x1.0p-53);
}

/* Cumulative Zipf(s) weights over 1..max, normalised to 1. */
static double *
zipf_cdf(double s, uint32_t max)
{
	double  *c = malloc(max * sizeof(*c)), sum = 0;
	uint32_t k;

	if (c == NULL)
		return (NULL);
	for (k = 0; k < max; k++)
		c[k] = (sum += pow((double)(k + 1), -s));
	for (k = 0; k < max; k++)
		c[k] /= sum;
	return (c);
}

/* Index of the first CDF entry above u. */
static uint32_t
zipf_draw(const double *c, uint32_t max, double u)
{
	uint32_t lo = 0, hi = max - 1;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (c[mid] > u)
			hi = mid;
		else
			lo = mid + 1;
	}
	return (lo);
}

/* Scale weights w (n*n, diagonal included) to `bytes` per node on
 * average, rounding each entry to whole bytes. */
static void
scale(struct tmat *m, const double *w, uint64_t bytes)
{
	double   tot = 0, f;
	uint32_t n = m->n;
	size_t   i;

	for (i = 0; i < (size_t)n * n; i++)
		tot += w[i];
	f = tot > 0 ? (double)bytes * n / tot : 0;
	for (i = 0; i < (size_t)n * n; i++)
		m->b[i] = (uint64_t)llround(w[i] * f);
}

static int
gen_zipf(struct tmat *m, double s, uint64_t seed, uint32_t max, uint64_t bytes,
         double *w)
{
	double  *c = zipf_cdf(s, max);
	uint32_t i, j, n = m->n;

	if (c == NULL)
		return (-ENOMEM);
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			w[i * n + j] =
			    i == j ? 0
			           : 1 + zipf_draw(c, max, rng_unit(&seed));
	free(c);
	scale(m, w, bytes);
	return (0);
}

/*
 * Expert e lives on node e % n; each token of each node picks topk
 * distinct experts, drawn by popularity (Zipf(0.8) over a seeded ranking
 * of the experts), and sends itself to each.
 */
static int
gen_moe(struct tmat *m, uint32_t experts, uint32_t topk, uint32_t tokens,
        uint64_t seed, uint64_t bytes, double *w)
{
	uint32_t *rank = malloc(experts * sizeof(*rank)), i, t, k, e, n = m->n;
	uint8_t  *used = calloc(experts, 1);
	double   *c = zipf_cdf(0.8, experts);
	int       rv = -ENOMEM;

	if (rank == NULL || used == NULL || c == NULL)
		goto out;
	for (e = 0; e < experts; e++)
		rank[e] = e;
	for (e = experts - 1; e > 0; e--) {
		uint32_t r = (uint32_t)(rng_next(&seed) % (e + 1)),
		         x = rank[e];

		rank[e] = rank[r];
		rank[r] = x;
	}
	memset(w, 0, (size_t)n * n * sizeof(*w));
	for (i = 0; i < n; i++)
		for (t = 0; t < tokens; t++) {
			for (k = 0; k < topk;) {
				e = rank[zipf_draw(c, experts,
				                   rng_unit(&seed))];
				if (used[e])
					continue;
				used[e] = 1;
				w[i * n + e % n] += 1;
				k++;
			}
			memset(used, 0, experts);
		}
	scale(m, w, bytes);
	rv = 0;
out:
	free(rank);
	free(used);
	free(c);
	return (rv);
}

static void
gen_hotspot(struct tmat *m, uint32_t hot, double factor, uint64_t bytes,
            double *w)
{
	uint32_t i, j, n = m->n;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			w[i * n + j] = i == j ? 0 : j < hot ? factor : 1;
	scale(m, w, bytes);
}

static int
num(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *e;

	if (*s < '0' || *s > '9')
		return (-1);
	errno = 0;
	*out = strtoull(s, &e, 10);
	return (errno || *e != '\0' || *out < lo || *out > hi ? -1 : 0);
}

static int
real(const char *s, double lo, double hi, double *out)
{
	char *e;

	if ((*s < '0' || *s > '9') && *s != '.')
		return (-1);
	*out = strtod(s, &e);
	return (*e != '\0' || !(*out >= lo && *out <= hi) ? -1 : 0);
}

struct gen_args {
	char    *f[GEN_MAX_FIELDS + 1];
	int      nf;
	uint64_t v[GEN_MAX_FIELDS + 1];
	double   x;
};

#define BAD(i, what)                                                          \
	errf(-EINVAL, err, errlen, "matrix %s: field %d \"%s\": %s", spec,    \
	     (i), a->f[i], what)

/* Fields of a generator spec, checked; the node count first. */
static int
gen_check(const char *spec, const char *kind, struct gen_args *a, char *err,
          size_t errlen)
{
	if (strcmp(kind, "uniform") == 0) {
		if (a->nf != 3)
			return (errf(-EINVAL, err, errlen,
			             "matrix %s: want uniform:N:BYTES", spec));
		if (unit_parse_size(a->f[2], &a->v[2]) != 0 ||
		    a->v[2] > TMAT_MAX_ENTRY)
			return (BAD(2, "not a size"));
	} else if (strcmp(kind, "zipf") == 0) {
		if (a->nf != 4 && a->nf != 5)
			return (errf(-EINVAL, err, errlen,
			             "matrix %s: want zipf:N:S:SEED[:MAX]",
			             spec));
		if (real(a->f[2], 0, 10, &a->x) != 0)
			return (BAD(2, "exponent must be 0..10"));
		if (num(a->f[3], 0, UINT64_MAX, &a->v[3]) != 0)
			return (BAD(3, "not a seed"));
		a->v[4] = 100;
		if (a->nf == 5 && num(a->f[4], 1, 1u << 20, &a->v[4]) != 0)
			return (BAD(4, "MAX must be 1..1048576"));
	} else if (strcmp(kind, "moe") == 0) {
		if (a->nf != 6)
			return (errf(-EINVAL, err, errlen,
			             "matrix %s: want "
			             "moe:N:EXPERTS:TOPK:TOKENS:SEED",
			             spec));
		if (num(a->f[2], 1, 1u << 16, &a->v[2]) != 0)
			return (BAD(2, "experts must be 1..65536"));
		if (num(a->f[3], 1, a->v[2], &a->v[3]) != 0)
			return (BAD(3, "top-k must be 1..EXPERTS"));
		if (num(a->f[4], 1, 1u << 20, &a->v[4]) != 0)
			return (BAD(4, "tokens must be 1..1048576"));
		if (num(a->f[5], 0, UINT64_MAX, &a->v[5]) != 0)
			return (BAD(5, "not a seed"));
	} else {
		if (a->nf != 4)
			return (errf(-EINVAL, err, errlen,
			             "matrix %s: want hotspot:N:K:FACTOR",
			             spec));
		if (num(a->f[2], 1, a->v[1], &a->v[2]) != 0)
			return (BAD(2, "K must be 1..N"));
		if (real(a->f[3], 1e-6, 1e6, &a->x) != 0)
			return (BAD(3, "factor must be 1e-6..1e6"));
	}
	return (0);
}

static int
gen_fill(const char *kind, struct gen_args *a, uint64_t bytes, struct tmat *m)
{
	double  *w;
	uint32_t i, j, n = m->n;
	int      rv = 0;

	if (strcmp(kind, "uniform") == 0) {
		for (i = 0; i < n; i++)
			for (j = 0; j < n; j++)
				m->b[i * n + j] = i == j ? 0 : a->v[2];
		return (0);
	}
	if ((w = malloc((size_t)n * n * sizeof(*w))) == NULL)
		return (-ENOMEM);
	if (strcmp(kind, "zipf") == 0)
		rv = gen_zipf(m, a->x, a->v[3], (uint32_t)a->v[4], bytes, w);
	else if (strcmp(kind, "moe") == 0)
		rv = gen_moe(m, (uint32_t)a->v[2], (uint32_t)a->v[3],
		             (uint32_t)a->v[4], a->v[5], bytes, w);
	else
		gen_hotspot(m, (uint32_t)a->v[2], a->x, bytes, w);
	free(w);
	return (rv);
}

int
tmat_generate(const char *spec, uint64_t bytes, struct tmat *m, char *err,
              size_t errlen)
{
	static const char *const kinds[] = {"uniform", "zipf", "moe",
	                                    "hotspot"};
	struct gen_args          a;
	char                     buf[256], *p;
	size_t                   k;
	int                      rv;

	m->n = 0;
	m->b = NULL;
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		if (strncmp(spec, kinds[k], strlen(kinds[k])) == 0 &&
		    spec[strlen(kinds[k])] == ':')
			break;
	if (k == sizeof(kinds) / sizeof(kinds[0]))
		return (1);
	if (strlen(spec) >= sizeof(buf))
		return (
		    errf(-EINVAL, err, errlen, "matrix: generator too long"));
	memset(&a, 0, sizeof(a));
	strcpy(buf, spec);
	for (p = buf; a.nf <= GEN_MAX_FIELDS; p = NULL)
		if ((a.f[a.nf] = strtok(p, ":")) == NULL)
			break;
		else
			a.nf++;
	if (a.nf > GEN_MAX_FIELDS || strstr(spec, "::") != NULL ||
	    spec[strlen(spec) - 1] == ':')
		return (errf(-EINVAL, err, errlen,
		             "matrix %s: empty or extra "
		             "fields",
		             spec));
	if (a.nf < 2 || num(a.f[1], 2, TMAT_MAX_N, &a.v[1]) != 0)
		return (errf(-EINVAL, err, errlen,
		             "matrix %s: N must be 2..%u", spec, TMAT_MAX_N));
	if ((rv = gen_check(spec, kinds[k], &a, err, errlen)) != 0)
		return (rv);
	if (bytes > TMAT_MAX_ENTRY)
		return (errf(-EINVAL, err, errlen,
		             "matrix %s: bytes too large", spec));
	if ((rv = tmat_alloc(m, (uint32_t)a.v[1])) != 0 ||
	    (rv = gen_fill(kinds[k], &a, bytes, m)) != 0) {
		tmat_free(m);
		return (
		    errf(rv, err, errlen, "matrix %s: out of memory", spec));
	}
	return (0);
}

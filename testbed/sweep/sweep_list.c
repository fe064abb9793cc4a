/* SPDX-License-Identifier: BSD-2-Clause */
/* ocs-sweep's value lists (see sweep_list.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/base/units.h"
#include "testbed/sweep/sweep_list.h"

static int
one(const char *s, enum sweep_kind k, double *v)
{
	uint64_t b;
	char    *end;
	long     c;

	switch (k) {
	case SWEEP_SIZE:
		if (unit_parse_size(s, &b) != 0 || b == 0)
			return (-1);
		*v = (double)b;
		return (0);
	case SWEEP_TIME:
		return (unit_parse_time(s, v) != 0 || *v > 3600 ? -1 : 0);
	case SWEEP_COUNT:
		c = strtol(s, &end, 10);
		if (*s < '0' || *s > '9' || *end || c < 1 || c > 100000)
			return (-1);
		*v = (double)c;
		return (0);
	}
	return (-1);
}

static int
add(double **v, size_t *n, size_t *cap, double x)
{
	double *nv;

	if (*n == SWEEP_LIST_MAX)
		return (-1);
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		if ((nv = realloc(*v, *cap * sizeof(*nv))) == NULL)
			return (-1);
		*v = nv;
	}
	(*v)[(*n)++] = x;
	return (0);
}

/* "A..B*F" into v; 0, or -1. */
static int
range(char *item, enum sweep_kind k, double **v, size_t *n, size_t *cap)
{
	char  *dots = strstr(item, ".."), *star, *end;
	double a, b, f, x;

	if (dots == NULL || (star = strchr(dots, '*')) == NULL)
		return (-1);
	*dots = *star = '\0';
	f = strtod(star + 1, &end);
	if (star[1] == '\0' || *end || !(f > 1) || f > 1e6 ||
	    one(item, k, &a) != 0 || one(dots + 2, k, &b) != 0 || a > b ||
	    (k != SWEEP_TIME && a <= 0) || (k == SWEEP_TIME && a <= 0))
		return (-1);
	for (x = a; x <= b * (1 + 1e-9); x *= f)
		if (add(v, n, cap, k == SWEEP_TIME ? x : floor(x + 0.5)) != 0)
			return (-1);
	return (0);
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x < y ? -1 : x > y);
}

int
sweep_list_parse(const char *spec, enum sweep_kind k, double **v, size_t *n,
                 char *err, size_t len)
{
	char  *copy, *item, *save = NULL;
	size_t cap = 0, i, w;
	double x;
	int    rv = 0;

	*v = NULL;
	*n = 0;
	if (spec == NULL || *spec == '\0' || (copy = strdup(spec)) == NULL) {
		snprintf(err, len, "empty list");
		return (-1);
	}
	for (item = strtok_r(copy, ",", &save); item && rv == 0;
	     item = strtok_r(NULL, ",", &save)) {
		char shown[64];

		snprintf(shown, sizeof(shown), "%s", item);
		if (strstr(item, "..")
		        ? range(item, k, v, n, &cap) != 0
		        : one(item, k, &x) != 0 || add(v, n, &cap, x) != 0) {
			snprintf(err, len,
			         "\"%s\": expected a %s or FROM..TO*FACTOR "
			         "(factor > 1; %d values at most)",
			         shown,
			         k == SWEEP_SIZE   ? "size (1KiB)"
			         : k == SWEEP_TIME ? "time (10us, up to 1h)"
			                           : "count (1..100000)",
			         SWEEP_LIST_MAX);
			rv = -1;
		}
	}
	free(copy);
	if (rv == 0 && *n == 0) {
		snprintf(err, len, "empty list");
		rv = -1;
	}
	if (rv != 0) {
		free(*v);
		*v = NULL;
		*n = 0;
		return (rv);
	}
	qsort(*v, *n, sizeof(**v), cmp);
	for (w = 0, i = 0; i < *n; i++)
		if (w == 0 || (*v)[i] != (*v)[w - 1])
			(*v)[w++] = (*v)[i];
	*n = w;
	return (0);
}

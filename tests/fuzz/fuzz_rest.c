/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: the CALIENT REST codec on bytes from a switch (or a
 * client of ocs-emu).  The first byte picks the parser; every refusal
 * must say why, every acceptance must stay within the switch, and what
 * is accepted must survive a round trip through our own formatter.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ocs-drivers/rest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

#define N 64

static void
check_xcs(const struct rest_xc *x, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (x[i].a < 1 || x[i].a > N || x[i].b < 1 || x[i].b > N ||
		    (x[i].bi && x[i].a == x[i].b))
			abort();
}

static void
roundtrip_add(const struct rest_names *t, const struct rest_add *a, size_t n)
{
	struct rest_xc  *x = calloc(n + 1, sizeof(*x));
	struct rest_add *y;
	size_t           m, i;
	char             err[256], *s;

	if (x == NULL)
		return;
	for (i = 0; i < n; i++)
		x[i] = a[i].x;
	check_xcs(x, n);
	if ((s = rest_badd_fmt(t, x, n)) != NULL) {
		if (rest_badd_parse(s, strlen(s), t, &y, &m, err,
		                    sizeof(err)) != 0 ||
		    m != n)
			abort();
		for (i = 0; i < n; i++)
			if (memcmp(&y[i].x, &x[i], sizeof(x[i])) != 0)
				abort();
		free(y);
	}
	free(s);
	free(x);
}

/* Every accepted summary numbers its ports 1..n in key order, and its
 * names parse back to their numbers. */
static void
check_names(const struct rest_names *t)
{
	uint32_t p, q;

	if (t->n < 1 || t->n > REST_PORTS_MAX)
		abort();
	for (p = 1; p <= t->n; p++) {
		if (rest_port_parse(t, t->name[p - 1], &q) != 0 || q != p)
			abort();
		if (p > 1 && t->key[p - 1] <= t->key[p - 2])
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static struct rest_names t;
	struct rest_xc          *x = NULL;
	struct rest_add         *ad = NULL, one;
	struct rest_ref         *rf = NULL;
	struct rest_result      *r = NULL;
	struct rest_port         pt, *rows = NULL;
	struct rest_names        got;
	const char              *b = (const char *)data + 1;
	char                     err[256], q[64], *uri;
	size_t                   n = 0, bl;
	int                      rv = 0;

	if (t.n == 0 && rest_names_default(&t, N) != 0)
		return (0);
	if (len < 1)
		return (0);
	bl = len - 1;
	err[0] = '\0';
	switch (data[0] % 8) {
	case 0:
		rv = rest_list_parse(b, bl, &t, &x, &n, err, sizeof(err));
		if (rv == 0)
			check_xcs(x, n);
		break;
	case 1:
		rv = rest_badd_parse(b, bl, &t, &ad, &n, err, sizeof(err));
		if (rv == 0)
			roundtrip_add(&t, ad, n);
		break;
	case 2:
		rv = rest_bdel_parse(b, bl, &t, &rf, &n, err, sizeof(err));
		break;
	case 3:
		rv = rest_result_parse(b, bl, 0, &r, &n, err, sizeof(err));
		if (rv == 0 && n == 0)
			abort();
		break;
	case 4:
		rv = rest_ports_parse(b, bl, &got, &rows, err, sizeof(err));
		if (rv == 0) {
			check_names(&got);
			rest_names_free(&got);
		}
		break;
	case 5:
		rv = rest_detail_parse(b, bl, &t, &pt, err, sizeof(err));
		break;
	case 6:
		rv = rest_add_form_parse(b, bl, &t, &one, err, sizeof(err));
		if (rv == 0)
			roundtrip_add(&t, &one, 1);
		break;
	case 7:
		if ((uri = malloc(bl + 1)) == NULL)
			return (0);
		memcpy(uri, b, bl);
		uri[bl] = '\0';
		if (rest_query_get(uri, "id", q, sizeof(q)) == 0 &&
		    strlen(q) >= sizeof(q))
			abort();
		free(uri);
		return (0);
	}
	if (rv != 0 && rv != -12 /* ENOMEM */ && err[0] == '\0')
		abort();
	free(x);
	free(ad);
	free(rf);
	free(r);
	free(rows);
	return (0);
}

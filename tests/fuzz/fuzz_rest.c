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
roundtrip(const struct rest_xc *x, size_t n, int del)
{
	struct rest_xc *y;
	size_t          m;
	char            err[256], *s;

	s = del ? rest_bdel_fmt(x, n) : rest_badd_fmt(x, n);
	if (s == NULL)
		return;
	if ((del ? rest_bdel_parse(s, strlen(s), N, &y, &m, err, sizeof(err))
	         : rest_badd_parse(s, strlen(s), N, &y, &m, err,
	                           sizeof(err))) != 0 ||
	    m != n || (n && memcmp(x, y, n * sizeof(*x)) != 0))
		abort();
	free(y);
	free(s);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct rest_xc     *x = NULL;
	struct rest_result *r = NULL;
	struct rest_port    pt, *rows = NULL;
	const char         *b = (const char *)data + 1;
	char                err[256], q[64], *uri;
	uint32_t            np;
	size_t              n = 0, bl;
	int                 rv = 0;

	if (len < 1)
		return (0);
	bl = len - 1;
	err[0] = '\0';
	switch (data[0] % 7) {
	case 0:
		rv = rest_list_parse(b, bl, N, &x, &n, err, sizeof(err));
		if (rv == 0)
			check_xcs(x, n);
		break;
	case 1:
		rv = rest_badd_parse(b, bl, N, &x, &n, err, sizeof(err));
		if (rv == 0) {
			check_xcs(x, n);
			roundtrip(x, n, 0);
		}
		break;
	case 2:
		rv = rest_bdel_parse(b, bl, N, &x, &n, err, sizeof(err));
		if (rv == 0) {
			check_xcs(x, n);
			roundtrip(x, n, 1);
		}
		break;
	case 3:
		rv = rest_result_parse(b, bl, 0, &r, &n, err, sizeof(err));
		if (rv == 0 && n == 0)
			abort();
		break;
	case 4:
		rv = rest_ports_parse(b, bl, &np, &rows, err, sizeof(err));
		if (rv == 0 &&
		    (np < 1 || np > 4096 || rows[np - 1].port != np))
			abort();
		break;
	case 5:
		rv = rest_detail_parse(b, bl, &pt, err, sizeof(err));
		break;
	case 6:
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
	free(r);
	free(rows);
	return (0);
}

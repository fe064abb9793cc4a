/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: what the calient-tl1 driver reads from a switch.
 * Bytes are TL1 messages (tl1.c); every data line goes through the
 * CALIENT line parsers (cal_tl1.c) of a switch with ports on shelves 1,
 * 3 and 6.  A refusal must say why; an accepted connection must be of
 * this switch's ports.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ocs-drivers/cal_tl1.h"
#include "ocs-drivers/tl1.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

static void
lines(const struct rest_names *t, const struct tl1_resp *r)
{
	struct cal_tl1_crs k;
	char               nm[REST_NAME_MAX], err[256];
	uint32_t           p;
	double             in, out;
	size_t             i;
	int                fail;

	for (i = 0; i < r->nlines; i++) {
		err[0] = '\0';
		if (cal_tl1_crs(r->lines[i], t, &k, err, sizeof(err)) == 0) {
			if (k.x.a < 1 || k.x.a > t->n || k.x.b < 1 ||
			    k.x.b > t->n || (k.x.bi && k.x.a == k.x.b) ||
			    !rest_cname_ok(k.name) || !rest_cname_ok(k.group))
				abort();
		} else if (err[0] == '\0')
			abort();
		err[0] = '\0';
		if (cal_tl1_sum(r->lines[i], t, &p, &in, &out, err,
		                sizeof(err)) == 0) {
			if (p < 1 || p > t->n || in < -200 || out > 50)
				abort();
		} else if (err[0] == '\0')
			abort();
		err[0] = '\0';
		if (cal_tl1_port(r->lines[i], nm, sizeof(nm), &fail, err,
		                 sizeof(err)) != 0 &&
		    err[0] == '\0')
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static const char names[][REST_NAME_MAX] = {"1.1.1", "1.1.2", "1.2.1",
	                                            "3.3.1", "3.3.2", "6.1.1"};
	static struct rest_names t;
	struct tl1_resp          r;
	char                     err[256];
	size_t                   off = 0;
	ssize_t                  n;

	if (t.n == 0 && rest_names_set(&t, names, 6, err, sizeof(err)) != 0)
		abort();
	while (off < len) {
		n = tl1_resp_parse((const char *)data + off, len - off, &r);
		if (n <= 0)
			break;
		lines(&t, &r);
		tl1_resp_free(&r);
		off += (size_t)n;
	}
	return (0);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* libFuzzer target: the size, time and rate parsers on arbitrary text. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto/base/units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	char    *s = malloc(len + 1);
	uint64_t b;
	double   t, r;

	if (s == NULL)
		return (0);
	memcpy(s, data, len);
	s[len] = '\0';
	if (unit_parse_size(s, &b) == 0 && b > UNIT_MAX_SIZE)
		abort();
	if (unit_parse_time(s, &t) == 0 && !(t >= 0 && t <= UNIT_MAX_TIME))
		abort();
	if (unit_parse_rate(s, &r) == 0 && !(r > 0 && isfinite(r)))
		abort();
	free(s);
	return (0);
}

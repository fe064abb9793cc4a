/* SPDX-License-Identifier: BSD-2-Clause */
/* Sizes, times and rates: strict parsing and short printing. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/base/units.h"

struct unit {
	const char *name;
	double      mult;
};

static const struct unit size_units[] = {
    {"", 1},
    {"B", 1},
    {"KB", 1e3},
    {"MB", 1e6},
    {"GB", 1e9},
    {"TB", 1e12},
    {"KiB", 1024.0},
    {"MiB", 1024.0 * 1024},
    {"GiB", 1024.0 * 1024 * 1024},
    {"TiB", 1024.0 * 1024 * 1024 * 1024},
    {NULL, 0},
};

static const struct unit time_units[] = {
    {"ns", 1e-9}, {"us", 1e-6}, {"\xc2\xb5s", 1e-6}, /* µs */
    {"ms", 1e-3}, {"s", 1},     {NULL, 0},
};

static const struct unit rate_units[] = {
    {"bps", 1},
    {"Kbps", 1e3},
    {"Mbps", 1e6},
    {"Gbps", 1e9},
    {"Tbps", 1e12},
    {"Bps", 8},
    {"KBps", 8e3},
    {"MBps", 8e6},
    {"GBps", 8e9},
    {"KiBps", 8.0 * 1024},
    {"MiBps", 8.0 * 1024 * 1024},
    {"GiBps", 8.0 * 1024 * 1024 * 1024},
    {NULL, 0},
};

/*
 * Split "<decimal><unit>" and return the number and the unit's multiplier.
 * The number is checked by hand first so that strtod never sees signs,
 * exponents, hex or inf/nan.
 */
static int
parse(const char *s, const struct unit *tab, double *num, double *mult,
      int *has_unit)
{
	const char *p = s;
	char        tmp[64];
	size_t      nd = 0, np = 0, len;
	size_t      i;

	while (isdigit((unsigned char)*p) || *p == '.') {
		if (*p == '.')
			np++;
		else
			nd++;
		p++;
	}
	len = (size_t)(p - s);
	if (nd == 0 || np > 1 || len >= sizeof(tmp))
		return (-UNIT_ENONUM);
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	*num = strtod(tmp, NULL);
	*has_unit = *p != '\0';
	for (i = 0; tab[i].name != NULL; i++) {
		if (strcmp(tab[i].name, p) == 0) {
			*mult = tab[i].mult;
			return (0);
		}
	}
	return (*p == '\0' ? -UNIT_ENOUNIT : -UNIT_EUNIT);
}

int
unit_parse_size(const char *s, uint64_t *bytes)
{
	double num, mult, v;
	int    u, rv;

	if ((rv = parse(s, size_units, &num, &mult, &u)) != 0)
		return (rv);
	v = num * mult;
	if (!(v <= (double)UNIT_MAX_SIZE))
		return (-UNIT_ERANGE);
	if (fabs(v - nearbyint(v)) > 1e-6)
		return (-UNIT_EFRAC);
	*bytes = (uint64_t)nearbyint(v);
	return (0);
}

int
unit_parse_time(const char *s, double *seconds)
{
	double num, mult;
	int    u, rv;

	rv = parse(s, time_units, &num, &mult, &u);
	if (rv == -UNIT_ENOUNIT && num == 0) {
		*seconds = 0;
		return (0);
	}
	if (rv != 0)
		return (rv);
	if (!(num * mult <= UNIT_MAX_TIME))
		return (-UNIT_ERANGE);
	*seconds = num * mult;
	return (0);
}

int
unit_parse_rate(const char *s, double *bps)
{
	double num, mult;
	int    u, rv;

	if ((rv = parse(s, rate_units, &num, &mult, &u)) != 0)
		return (rv);
	if (!(num * mult > 0) || num * mult > 1e18)
		return (-UNIT_ERANGE);
	*bps = num * mult;
	return (0);
}

const char *
unit_fmt_time(double t, char *buf, size_t len)
{
	if (t == 0)
		snprintf(buf, len, "0 s");
	else if (t < 1e-6)
		snprintf(buf, len, "%.4g ns", t * 1e9);
	else if (t < 1e-3)
		snprintf(buf, len, "%.4g us", t * 1e6);
	else if (t < 1)
		snprintf(buf, len, "%.4g ms", t * 1e3);
	else
		snprintf(buf, len, "%.4g s", t);
	return (buf);
}

const char *
unit_fmt_size(uint64_t b, char *buf, size_t len)
{
	static const char *const bin[] = {"B",   "KiB", "MiB",
	                                  "GiB", "TiB", "PiB"};
	double                   v = (double)b;
	int                      i = 0;

	while (v >= 1024 && i < 5 && fmod(v, 1024) == 0) {
		v /= 1024;
		i++;
	}
	/* Exact while it reads well ("1536 B", "3 MiB"); a long number of
	 * a small unit is rounded in a larger one ("2.668 MiB"). */
	if (v < 10000) {
		snprintf(buf, len, "%.6g %s", v, bin[i]);
		return (buf);
	}
	while (v >= 1024 && i < 5) {
		v /= 1024;
		i++;
	}
	snprintf(buf, len, "%.4g %s", v, bin[i]);
	return (buf);
}

const char *
unit_fmt_rate(double bps, char *buf, size_t len)
{
	if (bps >= 1e12)
		snprintf(buf, len, "%.4g Tbps", bps / 1e12);
	else if (bps >= 1e9)
		snprintf(buf, len, "%.4g Gbps", bps / 1e9);
	else if (bps >= 1e6)
		snprintf(buf, len, "%.4g Mbps", bps / 1e6);
	else if (bps >= 1e3)
		snprintf(buf, len, "%.4g Kbps", bps / 1e3);
	else
		snprintf(buf, len, "%.4g bps", bps);
	return (buf);
}

const char *
unit_strerror(int rv)
{
	static const char *const tab[] = {
	    [UNIT_EUNIT - UNIT_EBASE] = "unknown unit",
	    [UNIT_ENONUM - UNIT_EBASE] = "not a number",
	    [UNIT_ENOUNIT - UNIT_EBASE] = "missing unit",
	    [UNIT_EFRAC - UNIT_EBASE] = "not a whole number",
	    [UNIT_ERANGE - UNIT_EBASE] = "out of range",
	};
	int e = -rv;

	if (e > UNIT_EBASE && e < UNIT_EMAX)
		return (tab[e - UNIT_EBASE]);
	return (NULL);
}

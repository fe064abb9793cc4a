/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The line ocs-emu answers RTRV-EMU-CAPTURE with, read strictly:
 *
 *	FRAMES=<n>,UNLIT=<n>[,DROPS=<n>][,FIRST=<phase>/<node>]
 *	    [,GAPS=<k>:<ms>[&<k>:<ms>]...]
 *
 * (DROPS, the frames the capture's own buffers lost, is absent from an
 * older emulator's answer.)
 *
 * Anything else is named in err: a device's answer is outside input.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocs-drivers/drv.h"
#include "ocs-drivers/tl1.h"

static int
bad(char *err, size_t len, const char *line, const char *at)
{
	snprintf(err, len, "RTRV-EMU-CAPTURE: cannot read \"%.60s\" at %zu",
	         line, (size_t)(at - line) + 1);
	return (-EINVAL);
}

static int
num(const char **p, unsigned long long max, unsigned long long *v)
{
	char *end;

	if (**p < '0' || **p > '9')
		return (-1);
	errno = 0;
	*v = strtoull(*p, &end, 10);
	if (errno || *v > max)
		return (-1);
	*p = end;
	return (0);
}

static int
gaps(const char **p, struct drv_capture *c)
{
	unsigned long long k;
	char              *end;
	double             ms;

	do {
		if (c->ngaps == DRV_CAP_GAPS || num(p, UINT32_MAX, &k) != 0 ||
		    **p != ':' || (*p)[1] < '0' || (*p)[1] > '9')
			return (-1);
		ms = strtod(*p + 1, &end);
		if (!isfinite(ms) || ms < 0 || ms > 1e9 || end == *p + 1)
			return (-1);
		*p = end;
		c->gap[c->ngaps].phase = (uint32_t)k;
		c->gap[c->ngaps++].ms = ms;
	} while (**p == '&' && (*p)++);
	return (0);
}

int
tl1_capture_parse(const char *line, struct drv_capture *c, char *err,
                  size_t len)
{
	const char        *p = line;
	unsigned long long a, b;

	memset(c, 0, sizeof(*c));
	if (strncmp(p, "FRAMES=", 7) != 0)
		return (bad(err, len, line, p));
	p += 7;
	if (num(&p, UINT64_MAX, &a) != 0 || strncmp(p, ",UNLIT=", 7) != 0)
		return (bad(err, len, line, p));
	c->frames = a;
	p += 7;
	if (num(&p, UINT64_MAX, &a) != 0)
		return (bad(err, len, line, p));
	c->unlit = a;
	if (strncmp(p, ",DROPS=", 7) == 0) {
		p += 7;
		if (num(&p, UINT64_MAX, &a) != 0)
			return (bad(err, len, line, p));
		c->has_drops = 1;
		c->drops = a;
	}
	if (strncmp(p, ",FIRST=", 7) == 0) {
		p += 7;
		if (num(&p, UINT32_MAX, &a) != 0 || *p++ != '/' ||
		    num(&p, UINT32_MAX, &b) != 0)
			return (bad(err, len, line, p));
		c->has_first = 1;
		c->first_phase = (uint32_t)a;
		c->first_node = (uint32_t)b;
	}
	if (strncmp(p, ",GAPS=", 6) == 0) {
		p += 6;
		if (gaps(&p, c) != 0)
			return (bad(err, len, line, p));
	}
	if (*p != '\0')
		return (bad(err, len, line, p));
	return (0);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Links as real optics have them: a host transceiver's link is up only
 * while light reaches its receiver, and only after a retrain time once
 * the light has returned (auto-negotiation, FEC and CDR lock: tens of
 * microseconds on research optics, milliseconds to seconds on commodity
 * 100G/400G NICs).  The times are ocs-emu's --link-up, per duplex port
 * (the transceiver cabled there); both datapaths ask here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/base/units.h"
#include "testbed/ocs-emu/emu.h"

/* Retrain times past this are no link at all. */
#define LINK_MAX_S 60.0

/* One item, "TIME" or "PORT=TIME", into ns[]. */
static int
link_item(const char *it, uint32_t nports, uint64_t *ns, char *err, size_t len)
{
	const char   *eq = strchr(it, '=');
	char         *end;
	double        t;
	unsigned long p = 0;
	uint32_t      k;

	if (eq != NULL) {
		p = strtoul(it, &end, 10);
		if (end != eq || it[0] < '0' || it[0] > '9' || p < 1 ||
		    p > nports) {
			snprintf(err, len,
			         "\"%s\": PORT=TIME with a duplex port of "
			         "1..%u",
			         it, nports);
			return (-EINVAL);
		}
		it = eq + 1;
	}
	if (unit_parse_time(it, &t) != 0 || t > LINK_MAX_S) {
		snprintf(err, len, "\"%s\": a time up to 60s (0: at once)",
		         it);
		return (-EINVAL);
	}
	for (k = p ? (uint32_t)p : 1; k <= (p ? p : nports); k++)
		ns[k] = (uint64_t)(t * 1e9 + 0.5);
	return (0);
}

int
emu_link_parse(const char *spec, uint32_t nports, uint64_t *ns, char *err,
               size_t len)
{
	char  *s, *it, *save = NULL;
	size_t n = strlen(spec);
	int    rv = 0;

	memset(ns, 0, (nports + 1) * sizeof(*ns));
	if (n == 0 || spec[n - 1] == ',' || spec[0] == ',' ||
	    strstr(spec, ",,") != NULL) {
		snprintf(err, len,
		         "\"%s\": TIME or PORT=TIME, comma-separated", spec);
		return (-EINVAL);
	}
	if ((s = strdup(spec)) == NULL)
		return (-ENOMEM);
	for (it = strtok_r(s, ",", &save); it != NULL && rv == 0;
	     it = strtok_r(NULL, ",", &save))
		rv = link_item(it, nports, ns, err, len);
	free(s);
	return (rv);
}

int
emu_link_up(const struct emu *e, uint32_t k, uint64_t now)
{
	const struct oxc *x = &e->x;
	uint32_t          in;

	if (k < 1 || k > x->n || (in = x->in_of[x->n + k]) == 0 ||
	    !oxc_lit(x, in, now))
		return (0);
	/* The light came back when the mirrors settled. */
	return (e->link_ns == NULL || now >= x->settle[in] + e->link_ns[k]);
}

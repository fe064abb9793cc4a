/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The model file ocs-sweep reads (--model FILE), INI:
 *
 *	[model]
 *	name = lab-a            the CSV's model column (no blanks or commas)
 *	bandwidth = 10Gbps      per link
 *	alpha_s = 20us          per phase
 *	alpha_h = 5us           per hop
 *
 * Keys left out keep their values; an unknown section or key, or a bad
 * value, is named with its line.
 */
#include <errno.h>
#include <ini.h>
#include <stdio.h>
#include <string.h>

#include "proto/base/units.h"
#include "testbed/sweep/sweep.h"

struct mctx {
	struct sweep_model *m;
	char                err[300];
};

static int
model_kv(void *u, const char *sec, const char *k, const char *v)
{
	struct mctx *c = u;
	double       x;
	int          ok;

	if (strcmp(sec, "model") != 0) {
		snprintf(c->err, sizeof(c->err), "section [%s]: only [model]",
		         sec);
		return (0);
	}
	if (strcmp(k, "name") == 0) {
		ok = *v && strlen(v) < sizeof(c->m->name) &&
		     strpbrk(v, ", \t\"") == NULL;
		if (ok)
			snprintf(c->m->name, sizeof(c->m->name), "%s", v);
	} else if (strcmp(k, "bandwidth") == 0)
		ok = unit_parse_rate(v, &c->m->bps) == 0;
	else if (strcmp(k, "alpha_s") == 0 || strcmp(k, "alpha_h") == 0) {
		ok = unit_parse_time(v, &x) == 0 && x < 1;
		if (ok)
			*(k[6] == 's' ? &c->m->alpha_s : &c->m->alpha_h) = x;
	} else {
		snprintf(c->err, sizeof(c->err), "unknown key \"%s\"", k);
		return (0);
	}
	if (!ok)
		snprintf(c->err, sizeof(c->err), "%s \"%s\": bad value", k, v);
	return (ok);
}

int
sweep_model_load(struct sweep_model *m, const char *path, char *err,
                 size_t len)
{
	struct mctx c = {m, ""};
	int         rv = ini_parse(path, model_kv, &c);

	if (rv < 0) {
		snprintf(err, len, "%s: %s", path, strerror(errno));
		return (-1);
	}
	/* inih answers the line of the first error. */
	if (rv > 0 || c.err[0]) {
		snprintf(err, len, "%s:%d: %s", path, rv,
		         c.err[0] ? c.err : "cannot read the line");
		return (-1);
	}
	return (0);
}

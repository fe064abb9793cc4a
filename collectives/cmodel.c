/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The model file (see cmodel.h), read with inih and written with stdio;
 * the units are ocs-plan's (proto/base/units.h), so what a calibration
 * writes reads back exactly to the printed precision.
 */
#include <errno.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collectives/cmodel.h"
#include "proto/base/path.h"
#include "proto/base/units.h"

struct mctx {
	struct cmodel *m;
	char           err[300];
};

/* [conditions]: what a calibration saw. */
static int
cond_kv(struct mctx *c, const char *k, const char *v)
{
	struct cmodel_cond *d = &c->m->cond;
	double              x;
	char               *end;
	int                 ok;

	if (strcmp(k, "rate") == 0)
		ok = unit_parse_rate(v, &d->rate_bps) == 0 && d->rate_bps > 0;
	else if (strcmp(k, "nodes") == 0 || strcmp(k, "cores") == 0) {
		unsigned long u = strtoul(v, &end, 10);

		ok = *v >= '0' && *v <= '9' && *end == '\0' && u >= 1 &&
		     u <= 65536;
		if (ok)
			*(k[0] == 'n' ? &d->nodes : &d->cores) = (uint32_t)u;
	} else if (strcmp(k, "cpu_max") == 0 || strcmp(k, "cpu_sum") == 0 ||
	           strcmp(k, "cpu_host") == 0 ||
	           strcmp(k, "residual_max") == 0) {
		x = strtod(v, &end);
		ok = *v && *end == '\0' && x >= 0 && x <= 65536;
		if (ok)
			*(k[0] == 'r'   ? &d->residual_max
			  : k[4] == 'm' ? &d->cpu_max
			  : k[4] == 's' ? &d->cpu_sum
			                : &d->cpu_host) = x;
	} else {
		snprintf(c->err, sizeof(c->err),
		         "[conditions]: unknown key \"%.60s\"", k);
		return (0);
	}
	if (!ok)
		snprintf(c->err, sizeof(c->err), "%s \"%.60s\": bad value", k,
		         v);
	return (ok);
}

static int
model_kv(void *u, const char *sec, const char *k, const char *v)
{
	struct mctx *c = u;
	double       x;
	int          ok;

	if (strcmp(sec, "conditions") == 0)
		return (cond_kv(c, k, v));
	if (strcmp(sec, "model") != 0) {
		snprintf(c->err, sizeof(c->err),
		         "section [%s]: only [model] and [conditions]", sec);
		return (0);
	}
	if (strcmp(k, "name") == 0) {
		ok = *v && strlen(v) < sizeof(c->m->name) &&
		     strpbrk(v, ", \t\"") == NULL;
		if (ok)
			snprintf(c->m->name, sizeof(c->m->name), "%s", v);
	} else if (strcmp(k, "frame") == 0) {
		uint64_t sz;

		ok = unit_parse_size(v, &sz) == 0 && sz <= (1u << 30);
		if (ok)
			c->m->frame = (double)sz;
	} else if (strcmp(k, "bandwidth") == 0)
		ok = unit_parse_rate(v, &c->m->bps) == 0 && c->m->bps > 0;
	else if (strcmp(k, "scaleup_bandwidth") == 0)
		ok =
		    unit_parse_rate(v, &c->m->su_bps) == 0 && c->m->su_bps > 0;
	else if (strcmp(k, "scaleup_alpha") == 0)
		ok = unit_parse_time(v, &c->m->su_alpha) == 0 &&
		     c->m->su_alpha < 1;
	else if (strcmp(k, "alpha_s") == 0 || strcmp(k, "alpha_h") == 0 ||
	         strcmp(k, "reconf_overhead") == 0) {
		ok = unit_parse_time(v, &x) == 0 && x < 1;
		if (ok)
			*(k[0] == 'r'   ? &c->m->reconf_s
			  : k[6] == 's' ? &c->m->alpha_s
			                : &c->m->alpha_h) = x;
	} else {
		snprintf(c->err, sizeof(c->err), "unknown key \"%.60s\"", k);
		return (0);
	}
	if (!ok)
		snprintf(c->err, sizeof(c->err), "%s \"%.60s\": bad value", k,
		         v);
	return (ok);
}

static int
finish(struct mctx *c, int rv, const char *name, char *err, size_t len)
{
	/* inih answers the line of the first error. */
	if (rv > 0 || c->err[0]) {
		snprintf(err, len, "%s:%d: %s", name, rv,
		         c->err[0] ? c->err : "cannot read the line");
		return (-1);
	}
	return (0);
}

int
cmodel_load(struct cmodel *m, const char *path, char *err, size_t len)
{
	char  *text;
	size_t n;
	int    rv;

	/* Bounded, and a file: --model /dev/urandom never returned. */
	if (path_read(path, CMODEL_MAX_BYTES, &text, &n, err, len) != 0)
		return (-1);
	if (strlen(text) != n) {
		snprintf(err, len, "%s: contains a NUL byte", path);
		free(text);
		return (-1);
	}
	rv = cmodel_parse(m, text, path, err, len);
	free(text);
	return (rv);
}

int
cmodel_parse(struct cmodel *m, const char *text, const char *name, char *err,
             size_t len)
{
	struct mctx c = {m, ""};

	return (
	    finish(&c, ini_parse_string(text, model_kv, &c), name, err, len));
}

int
cmodel_write(const struct cmodel *m, const char *path, const char *comment)
{
	const char *l, *e;
	char       *buf = NULL;
	size_t      len = 0;
	FILE       *f;
	int         rv;

	if ((f = open_memstream(&buf, &len)) == NULL)
		return (-ENOMEM);
	for (l = comment; l && *l; l = *e ? e + 1 : e) {
		e = l + strcspn(l, "\n");
		fprintf(f, "; %.*s\n", (int)(e - l), l);
	}
	/* Rates in bits a second and times in nanoseconds: exact enough
	 * to read back, and every reader takes the units. */
	fprintf(f,
	        "[model]\nname = %s\nbandwidth = %.0fbps\nalpha_s = "
	        "%.0fns\nalpha_h = %.0fns\nreconf_overhead = %.0fns\n"
	        "frame = %.0fB\n",
	        m->name, m->bps, m->alpha_s * 1e9, m->alpha_h * 1e9,
	        m->reconf_s * 1e9, m->frame);
	if (m->su_bps > 0)
		fprintf(
		    f, "scaleup_bandwidth = %.0fbps\nscaleup_alpha = %.0fns\n",
		    m->su_bps, m->su_alpha * 1e9);
	if (m->cond.rate_bps > 0)
		fprintf(f,
		        "[conditions]\nrate = %.0fbps\nnodes = %u\ncores = "
		        "%u\ncpu_max = %.3f\ncpu_sum = %.3f\ncpu_host = "
		        "%.3f\nresidual_max = %.4f\n",
		        m->cond.rate_bps, m->cond.nodes,
		        m->cond.cores ? m->cond.cores : 1, m->cond.cpu_max,
		        m->cond.cpu_sum, m->cond.cpu_host,
		        m->cond.residual_max);
	rv =
	    fclose(f) == 0 ? path_write_atomic(path, buf, len, 0644) : -ENOMEM;
	free(buf);
	return (rv);
}

void
cmodel_params(const struct cmodel *m, double delta, struct cost_params *cp)
{
	memset(cp, 0, sizeof(*cp));
	cp->alpha_s = m->alpha_s;
	cp->alpha_h = m->alpha_h;
	cp->beta = 8.0 / m->bps;
	cp->delta = delta + m->reconf_s;
	cp->sf_bytes = m->frame;
}

void
cmodel_hash(const struct cmodel *m, const char *extra, char hex[17])
{
	char     buf[512];
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
	size_t   i, n;

	/* Ten digits of each parameter: models that differ predict
	 * differently, and a model file written and read back (whole
	 * nanoseconds and bits a second) hashes as it did. */
	n = (size_t)snprintf(buf, sizeof(buf),
	                     "%s|%.10g|%.10g|%.10g|%.10g|%.10g|%s", m->name,
	                     m->bps, m->alpha_s, m->alpha_h, m->reconf_s,
	                     m->frame, extra ? extra : "");
	for (i = 0; i < n && i < sizeof(buf); i++) {
		h ^= (unsigned char)buf[i];
		h *= 0x100000001b3ull;
	}
	snprintf(hex, 17, "%016llx", (unsigned long long)h);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* ocs-sweep's CSV (see sweep_csv.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testbed/sweep/sweep_csv.h"

static int
cell(char *b, size_t len, double v)
{
	return (isnan(v) ? snprintf(b, len, ",")
	                 : snprintf(b, len, ",%.9g", v));
}

int
sweep_row_fmt(const struct sweep_row *r, char *buf, size_t len)
{
	const double num[] = {r->predicted_s,    r->simulated_s,
	                      r->packet_s,       r->measured_s,
	                      r->measured_min_s, r->measured_max_s};
	const double cpu[] = {r->cpu_max, r->cpu_sum, r->cpu_host};
	size_t       o, i;

	o = (size_t)snprintf(buf, len, "%s,%u,%llu,%.9g,%u,%s", r->algo,
	                     r->nodes, (unsigned long long)r->bytes,
	                     r->delta_s, r->reconfs, r->before);
	for (i = 0; i < sizeof(num) / sizeof(num[0]) && o < len; i++)
		o += (size_t)cell(buf + o, len - o, num[i]);
	if (o < len)
		o += (size_t)snprintf(buf + o, len - o, ",%u,%llu", r->repeats,
		                      (unsigned long long)r->verified);
	for (i = 0; i < sizeof(cpu) / sizeof(cpu[0]) && o < len; i++)
		o += (size_t)cell(buf + o, len - o, cpu[i]);
	if (o < len)
		o += (size_t)snprintf(buf + o, len - o, ",%s,%s,%s\n",
		                      r->cpu_bound, r->model, r->hash);
	return (o < len ? (int)o : -1);
}

static const char *const cols[] = {"algo",
                                   "nodes",
                                   "bytes",
                                   "delta_s",
                                   "reconfigurations",
                                   "reconfigure_before",
                                   "predicted_s",
                                   "simulated_s",
                                   "packet_s",
                                   "measured_s",
                                   "measured_min_s",
                                   "measured_max_s",
                                   "repeats",
                                   "verified_blocks",
                                   "cpu_max",
                                   "cpu_sum",
                                   "cpu_host",
                                   "cpu_bound",
                                   "model",
                                   "model_hash"};
#define NCOLS (sizeof(cols) / sizeof(cols[0]))

/* A number cell: empty is NAN when allowed. */
static int
num(const char *s, double *v, int empty_ok)
{
	char *end;

	if (*s == '\0') {
		*v = NAN;
		return (empty_ok ? 0 : -1);
	}
	*v = strtod(s, &end);
	return (*end || !isfinite(*v) || *v < 0 ? -1 : 0);
}

/* A text cell of printable characters but the CSV's own; 0 or -1. */
static int
text(const char *s, char *dst, size_t cap, int empty_ok, const char *extra)
{
	size_t i;

	if ((*s == '\0' && !empty_ok) || strlen(s) >= cap)
		return (-1);
	for (i = 0; s[i]; i++)
		if (s[i] < 0x20 || s[i] > 0x7e || s[i] == '"' ||
		    (extra && strchr(extra, s[i])))
			return (-1);
	snprintf(dst, cap, "%s", s);
	return (0);
}

static int
hexhash(const char *s, char *dst, size_t cap)
{
	if (strlen(s) != 16 || strspn(s, "0123456789abcdef") != 16)
		return (-1);
	snprintf(dst, cap, "%s", s);
	return (0);
}

/* A whole-number cell. */
static int
whole(struct sweep_row *r, int i, const char *s)
{
	double v;

	if (num(s, &v, 0) != 0 || v != floor(v) || v > 1.8e19)
		return (-1);
	if (i == 1)
		r->nodes = (uint32_t)v;
	else if (i == 2)
		r->bytes = (uint64_t)v;
	else if (i == 4)
		r->reconfs = (uint32_t)v;
	else if (i == 12)
		r->repeats = (uint32_t)v;
	else
		r->verified = (uint64_t)v;
	return (v > (i == 2 || i == 13 ? 1.8e19 : 4.0e9) ? -1 : 0);
}

static int
fill(struct sweep_row *r, int i, const char *s)
{
	double *d[] = {[6] = &r->predicted_s,     [7] = &r->simulated_s,
	               [8] = &r->packet_s,        [9] = &r->measured_s,
	               [10] = &r->measured_min_s, [11] = &r->measured_max_s,
	               [14] = &r->cpu_max,        [15] = &r->cpu_sum,
	               [16] = &r->cpu_host};

	switch (i) {
	case 0:
		return (text(s, r->algo, sizeof(r->algo), 0, " "));
	case 3:
		return (num(s, &r->delta_s, 0));
	case 5:
		return (strlen(s) >= sizeof(r->before) ||
		                strspn(s, "0123456789;") != strlen(s)
		            ? -1
		            : (snprintf(r->before, sizeof(r->before), "%s", s),
		               0));
	case 17:
		return (text(s, r->cpu_bound, sizeof(r->cpu_bound), 1, NULL));
	case 18:
		return (text(s, r->model, sizeof(r->model), 0, " \t"));
	case 19:
		return (hexhash(s, r->hash, sizeof(r->hash)));
	case 1:
	case 2:
	case 4:
	case 12:
	case 13:
		return (whole(r, i, s));
	}
	return (num(s, d[i], 1));
}

int
sweep_row_parse(const char *line, struct sweep_row *r, char *err, size_t len)
{
	char   buf[1024], *p, *c;
	size_t i;

	memset(r, 0, sizeof(*r));
	if (strlen(line) >= sizeof(buf)) {
		snprintf(err, len, "line too long");
		return (-1);
	}
	snprintf(buf, sizeof(buf), "%s", line);
	for (p = buf, i = 0; i < NCOLS; i++) {
		c = p;
		p = strchr(p, ',');
		if ((p == NULL) != (i == NCOLS - 1)) {
			snprintf(err, len, "%s columns, expected %zu",
			         p == NULL ? "fewer" : "more", NCOLS);
			return (-1);
		}
		if (p != NULL)
			*p++ = '\0';
		if (fill(r, (int)i, c) != 0) {
			snprintf(err, len, "column %s: \"%.40s\"", cols[i], c);
			return (-1);
		}
	}
	return (0);
}

void
sweep_row_key(const struct sweep_row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s,%u,%llu,%.9g,%s", r->algo, r->nodes,
	         (unsigned long long)r->bytes, r->delta_s, r->hash);
}

static int
cmp(const void *a, const void *b)
{
	return (strcmp(*(char *const *)a, *(char *const *)b));
}

static int
add_key(struct sweep_done *d, const char *k)
{
	char **nk;

	if (d->n == d->cap) {
		d->cap = d->cap ? 2 * d->cap : 64;
		if ((nk = realloc(d->key, d->cap * sizeof(*nk))) == NULL)
			return (-1);
		d->key = nk;
	}
	return ((d->key[d->n] = strdup(k)) == NULL ? -1 : (d->n++, 0));
}

/* Cut a torn last line off the file; the bytes kept. */
static long
keep_whole_lines(FILE *f, const char *path)
{
	long end, last = 0, pos = 0;
	int  c;

	fseek(f, 0, SEEK_END);
	end = ftell(f);
	rewind(f);
	while ((c = fgetc(f)) != EOF) {
		pos++;
		if (c == '\n')
			last = pos;
	}
	rewind(f);
	if (last != end && truncate(path, last) != 0)
		return (-1);
	return (last);
}

int
sweep_done_load(struct sweep_done *d, const char *path, char *err, size_t len)
{
	struct sweep_row r;
	char             line[1100], key[200], why[160];
	unsigned         lineno = 0;
	long             keep;
	FILE            *f;

	memset(d, 0, sizeof(*d));
	if ((f = fopen(path, "re")) == NULL) {
		if (errno == ENOENT)
			return (0);
		snprintf(err, len, "%s: %s", path, strerror(errno));
		return (-1);
	}
	if ((keep = keep_whole_lines(f, path)) < 0) {
		snprintf(err, len, "%s: %s", path, strerror(errno));
		fclose(f);
		return (-1);
	}
	while (ftell(f) < keep && fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\r\n")] = '\0';
		if (lineno++ == 0) {
			if (strcmp(line, SWEEP_CSV_HEADER) == 0)
				continue;
			if (strcmp(line, SWEEP_CSV_HEADER_V1) == 0) {
				snprintf(err, len,
				         "%s: written by an older ocs-sweep "
				         "(rows not keyed by the model's "
				         "hash): give another --out",
				         path);
				goto fail;
			}
			snprintf(err, len,
			         "%s:1: not a sweep's CSV (its header is not "
			         "ours)",
			         path);
			goto fail;
		}
		if (sweep_row_parse(line, &r, why, sizeof(why)) != 0) {
			snprintf(err, len, "%s:%u: %s", path, lineno, why);
			goto fail;
		}
		sweep_row_key(&r, key, sizeof(key));
		if (add_key(d, key) != 0) {
			snprintf(err, len, "out of memory");
			goto fail;
		}
	}
	fclose(f);
	qsort(d->key, d->n, sizeof(*d->key), cmp);
	return (0);
fail:
	fclose(f);
	sweep_done_free(d);
	return (-1);
}

int
sweep_done_has(const struct sweep_done *d, const char *key)
{
	return (d->n && bsearch(&key, d->key, d->n, sizeof(*d->key), cmp));
}

void
sweep_done_free(struct sweep_done *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		free(d->key[i]);
	free(d->key);
	memset(d, 0, sizeof(*d));
}

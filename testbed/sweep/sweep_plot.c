/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocs-sweep's plots, drawn by gnuplot from data files written here:
 *   heat-A-NA-vs-B-NB.png  speedup time(B)/time(A) over delta x size, each
 *                          cell labelled with A's R* (the paper's figures);
 *   time-SIZE.png          completion time against delta, a line per
 *                          algorithm and node count;
 *   heat-...-measured.png  the same from the measured times, where
 *                          both of a cell's points were measured;
 *   ratio.png              with measured points: measured / model against
 *                          the size, a line per algorithm, nodes and delta
 *                          (the span of the repeats as error bars).
 * The .dat and .gp files stay beside the PNGs, so a plot can be redrawn
 * or restyled by hand.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "proto/base/units.h"
#include "testbed/sweep/sweep.h"

#define PLOT_MAX_SIZES 6

static int
cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x < y ? -1 : x > y);
}

/* The distinct values of a column among rows, sorted; count. */
static size_t
distinct(const struct sweep_row *r, size_t n, int bytes, double *out)
{
	size_t i, j, k = 0;

	for (i = 0; i < n; i++) {
		double v = bytes ? (double)r[i].bytes : r[i].delta_s;

		for (j = 0; j < k && out[j] != v; j++)
			;
		if (j == k)
			out[k++] = v;
	}
	qsort(out, k, sizeof(*out), cmp_d);
	return (k);
}

static const struct sweep_row *
find(const struct sweep_row *r, size_t n, const char *algo, uint32_t nodes,
     uint64_t bytes, double delta)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (r[i].nodes == nodes && r[i].bytes == bytes &&
		    r[i].delta_s == delta && strcmp(r[i].algo, algo) == 0 &&
		    !isnan(r[i].predicted_s))
			return (&r[i]);
	return (NULL);
}

static void
tics(FILE *gp, const char *axis, const double *v, size_t n, int bytes)
{
	char   b[32];
	size_t i;

	fprintf(gp, "set %stics (", axis);
	for (i = 0; i < n; i++)
		fprintf(gp, "%s\"%s\" %zu", i ? ", " : "",
		        bytes ? unit_fmt_size((uint64_t)v[i], b, sizeof(b))
		              : unit_fmt_time(v[i], b, sizeof(b)),
		        i);
	fprintf(gp, ")%s\n", bytes ? "" : " rotate by 45 right");
}

/* Seven labelled steps over a logarithmic colour scale, 1 among them. */
static void
cbtics(FILE *gp, double lo, double hi)
{
	int i;

	fprintf(gp, "set cbtics (\"1\" 1");
	for (i = 0; i <= 6; i++) {
		double v = lo * pow(hi / lo, i / 6.0);

		if (fabs(log(v)) > 0.05)
			fprintf(gp, ", \"%.3g\" %.6g", v, v);
	}
	fprintf(gp, ")\n");
}

static int
gnuplot(const char *dir, const char *script, char *err, size_t len)
{
	char cmd[1200];
	int  st;

	snprintf(cmd, sizeof(cmd), "cd '%s' && gnuplot '%s' 2>&1", dir,
	         script);
	st = system(cmd);
	if (st != 0) {
		snprintf(err, len, "gnuplot %s/%s failed (exit %d)%s", dir,
		         script, WIFEXITED(st) ? WEXITSTATUS(st) : -1,
		         WIFEXITED(st) && WEXITSTATUS(st) == 127
		             ? ": is gnuplot installed (make deps)?"
		             : "");
		return (-1);
	}
	return (0);
}

static void
model_line(const struct sweep *s, char *buf, size_t len)
{
	char a[32], b[32], c[32];

	snprintf(buf, len, "model %s: %s, alpha-s %s, alpha-h %s", s->m.name,
	         unit_fmt_rate(s->m.bps, a, sizeof(a)),
	         unit_fmt_time(s->m.alpha_s, b, sizeof(b)),
	         unit_fmt_time(s->m.alpha_h, c, sizeof(c)));
}

/* The time a heatmap compares: the model's, or the mean measured. */
static double
t_of(const struct sweep_row *r, int measured)
{
	return (measured ? r->measured_s : r->predicted_s);
}

/* One heatmap of the model's times or, with measured, of the measured
 * ones (heat-...-measured.png; cells without both measured are left
 * out); 0 (nothing to draw is not an error), or -1. */
static int
heat(const struct sweep *s, const struct sweep_pair *p,
     const struct sweep_row *r, size_t n, double *xs, double *ys, int measured,
     char *err, size_t len)
{
	char   base[128], path[700], ml[200];
	size_t nx = distinct(r, n, 0, xs), ny = distinct(r, n, 1, ys), i, j;
	size_t cells = 0;
	double lo = INFINITY, hi = 0;
	FILE  *d, *gp;

	snprintf(base, sizeof(base), "heat-%s-%u-vs-%s-%u%s", p->a, p->na,
	         p->b, p->nb, measured ? "-measured" : "");
	snprintf(path, sizeof(path), "%s/%s.dat", s->out, base);
	if ((d = fopen(path, "we")) == NULL)
		goto io;
	for (i = 0; i < nx; i++)
		for (j = 0; j < ny; j++) {
			const struct sweep_row *ra, *rb;

			ra = find(r, n, p->a, p->na, (uint64_t)ys[j], xs[i]);
			rb = find(r, n, p->b, p->nb, (uint64_t)ys[j], xs[i]);
			if (!ra || !rb || !(t_of(ra, measured) > 0) ||
			    !(t_of(rb, measured) > 0))
				continue;
			fprintf(d, "%zu %zu %.6g %u\n", i, j,
			        t_of(rb, measured) / t_of(ra, measured),
			        ra->reconfs);
			lo = fmin(lo, t_of(rb, measured) / t_of(ra, measured));
			hi = fmax(hi, t_of(rb, measured) / t_of(ra, measured));
			cells++;
		}
	if (fclose(d) != 0)
		goto io;
	if (cells == 0)
		return (0);
	snprintf(path, sizeof(path), "%s/%s.gp", s->out, base);
	if ((gp = fopen(path, "we")) == NULL)
		goto io;
	model_line(s, ml, sizeof(ml));
	if (measured)
		snprintf(ml, sizeof(ml),
		         "measured on the testbed (the mean of "
		         "each point's runs)");
	/* Symmetric about 1, and never empty (every cell 1: a tie). */
	lo = fmin(lo, 1 / fmax(hi, 1));
	hi = fmax(hi, 1 / fmax(lo, 1e-9));
	if (hi / lo < 1.02) {
		lo /= 1.05;
		hi *= 1.05;
	}
	fprintf(gp,
	        "set terminal pngcairo size 1000,760 font \",10\"\n"
	        "set output '%s.png'\n"
	        "set title \"%speedup of %s (n=%u) over %s (n=%u): "
	        "time(%s) / time(%s); R* of %s in each cell\\n%s\"\n"
	        "set xlabel \"reconfiguration delay {/Symbol d}\"\n"
	        "set ylabel \"bytes per node\"\n"
	        "set cblabel \"speedup (x; > 1: %s faster)\"\n"
	        "set logscale cb\nset cbrange [%.6g:%.6g]\n"
	        "set palette defined (0 \"#3060c0\", 1 \"white\", 2 "
	        "\"#c03020\")\n"
	        "set xrange [-0.5:%zu.5]\nset yrange [-0.5:%zu.5]\n",
	        base, measured ? "Measured s" : "S", p->a, p->na, p->b, p->nb,
	        p->b, p->a, p->a, ml, p->a, lo, hi, nx - 1, ny - 1);
	tics(gp, "x", xs, nx, 0);
	tics(gp, "y", ys, ny, 1);
	cbtics(gp, lo, hi);
	fprintf(gp,
	        "plot '%s.dat' using 1:2:3 with image notitle, \\\n"
	        "     '' using 1:2:(sprintf(\"%%d\", $4)) with labels "
	        "font \",8\" notitle\n",
	        base);
	if (fclose(gp) != 0)
		goto io;
	snprintf(path, sizeof(path), "%s.gp", base);
	return (gnuplot(s->out, path, err, len));
io:
	snprintf(err, len, "%s: %s", path, strerror(errno));
	return (-1);
}

/* Completion time against delta at one size, a line per (algo, n). */
static int
times(const struct sweep *s, const struct sweep_row *r, size_t n,
      uint64_t bytes, char *err, size_t len)
{
	char   base[64], path[700], ml[200], sz[32];
	size_t i, j, k, lines = 0;
	FILE  *d, *gp;

	unit_fmt_size(bytes, sz, sizeof(sz));
	snprintf(base, sizeof(base), "time-%llu", (unsigned long long)bytes);
	snprintf(path, sizeof(path), "%s/%s.dat", s->out, base);
	if ((d = fopen(path, "we")) == NULL)
		goto io;
	/* One gnuplot data block per (algo, n), in the CSV's order. */
	for (i = 0; i < s->nalgo; i++)
		for (j = 0; j < s->nnodes; j++) {
			size_t got = 0;

			for (k = 0; k < n; k++)
				if (r[k].bytes == bytes &&
				    r[k].nodes == (uint32_t)s->nodes[j] &&
				    strcmp(r[k].algo, s->algo[i]) == 0 &&
				    !isnan(r[k].predicted_s)) {
					if (got++ == 0)
						fprintf(d, "\"%s n=%u\"\n",
						        s->algo[i],
						        r[k].nodes);
					fprintf(d, "%.9g %.9g\n", r[k].delta_s,
					        r[k].predicted_s);
				}
			if (got) {
				fprintf(d, "\n\n");
				lines++;
			}
		}
	if (fclose(d) != 0)
		goto io;
	if (lines == 0)
		return (0);
	snprintf(path, sizeof(path), "%s/%s.gp", s->out, base);
	if ((gp = fopen(path, "we")) == NULL)
		goto io;
	model_line(s, ml, sizeof(ml));
	fprintf(gp,
	        "set terminal pngcairo size 900,600 font \",10\"\n"
	        "set output '%s.png'\n"
	        "set title \"All-to-All of %s per node: completion time "
	        "against the reconfiguration delay\\n%s\"\n"
	        "set logscale xy\nset xlabel \"reconfiguration delay "
	        "{/Symbol d} (s)\"\nset ylabel \"completion time (s)\"\n"
	        "set key top left\nset grid\n"
	        "plot for [i=0:%zu] '%s.dat' index i using 1:2 with "
	        "linespoints title columnheader(1)\n",
	        base, sz, ml, lines - 1, base);
	if (fclose(gp) != 0)
		goto io;
	snprintf(path, sizeof(path), "%s.gp", base);
	return (gnuplot(s->out, path, err, len));
io:
	snprintf(err, len, "%s: %s", path, strerror(errno));
	return (-1);
}

/* Measured / model per point; 0 (nothing measured: no plot) or -1. */
static int
ratios(const struct sweep *s, const struct sweep_row *r, size_t n, char *err,
       size_t len)
{
	char   path[700], ml[200], done[SWEEP_MAX_ALGOS * 64][48];
	size_t i, k, lines = 0, nd = 0;
	FILE  *d, *gp;

	snprintf(path, sizeof(path), "%s/ratio.dat", s->out);
	if ((d = fopen(path, "we")) == NULL)
		goto io;
	/* One data block per (algo, nodes, delta), points by size. */
	for (i = 0; i < n; i++) {
		char key[48];

		if (isnan(r[i].measured_s) || !(r[i].predicted_s > 0))
			continue;
		snprintf(key, sizeof(key), "%s n=%u d=%g", r[i].algo,
		         r[i].nodes, r[i].delta_s);
		for (k = 0; k < nd && strcmp(done[k], key); k++)
			;
		if (k < nd || nd == sizeof(done) / sizeof(done[0]))
			continue;
		snprintf(done[nd++], sizeof(done[0]), "%s", key);
		fprintf(d, "\"%s n=%u, {/Symbol d} %s\"\n", r[i].algo,
		        r[i].nodes,
		        unit_fmt_time(r[i].delta_s, key, sizeof(key)));
		for (k = i; k < n; k++)
			if (!isnan(r[k].measured_s) && r[k].predicted_s > 0 &&
			    r[k].nodes == r[i].nodes &&
			    r[k].delta_s == r[i].delta_s &&
			    strcmp(r[k].algo, r[i].algo) == 0)
				fprintf(d, "%llu %.6g %.6g %.6g\n",
				        (unsigned long long)r[k].bytes,
				        r[k].measured_s / r[k].predicted_s,
				        r[k].measured_min_s / r[k].predicted_s,
				        r[k].measured_max_s /
				            r[k].predicted_s);
		fprintf(d, "\n\n");
		lines++;
	}
	if (fclose(d) != 0)
		goto io;
	if (lines == 0)
		return (0);
	snprintf(path, sizeof(path), "%s/ratio.gp", s->out);
	if ((gp = fopen(path, "we")) == NULL)
		goto io;
	model_line(s, ml, sizeof(ml));
	fprintf(gp,
	        "set terminal pngcairo size 900,600 font \",10\"\n"
	        "set output 'ratio.png'\n"
	        "set title \"Measured completion time over the model's "
	        "prediction\\n%s\"\n"
	        "set logscale x 2\nset format x \"%%.0b%%BB\"\n"
	        "set xlabel \"bytes per node\"\n"
	        "set ylabel \"measured / predicted\"\n"
	        "set yrange [0:*]\nset grid\nset key outside right\n"
	        "set arrow from graph 0, first 1 to graph 1, first 1 "
	        "nohead dt 2\n"
	        "plot for [i=0:%zu] 'ratio.dat' index i using 1:2:3:4 with "
	        "yerrorlines title columnheader(1)\n",
	        ml, lines - 1);
	if (fclose(gp) != 0)
		goto io;
	return (gnuplot(s->out, "ratio.gp", err, len));
io:
	snprintf(err, len, "%s: %s", path, strerror(errno));
	return (-1);
}

int
sweep_plots(const struct sweep *s, const struct sweep_row *r, size_t n,
            char *err, size_t len)
{
	double *xs = calloc(n + 1, sizeof(double));
	double *ys = calloc(n + 1, sizeof(double));
	size_t  i, ns, step;
	int     rv = 0;

	if (xs == NULL || ys == NULL) {
		free(xs);
		free(ys);
		snprintf(err, len, "out of memory");
		return (-1);
	}
	for (i = 0; i < s->npair && rv == 0; i++)
		if ((rv = heat(s, &s->pair[i], r, n, xs, ys, 0, err, len)) ==
		    0)
			rv = heat(s, &s->pair[i], r, n, xs, ys, 1, err, len);
	/* At most PLOT_MAX_SIZES sizes, spread over the sweep's. */
	ns = distinct(r, n, 1, ys);
	step = ns > PLOT_MAX_SIZES ? (ns + PLOT_MAX_SIZES - 1) / PLOT_MAX_SIZES
	                           : 1;
	for (i = 0; i < ns && rv == 0; i += step)
		rv = times(s, r, n, (uint64_t)ys[i], err, len);
	if (rv == 0)
		rv = ratios(s, r, n, err, len);
	free(xs);
	free(ys);
	return (rv);
}

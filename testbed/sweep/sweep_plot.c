/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocs-sweep's plots, drawn by gnuplot from data files written here:
 *   heat-A-NA-vs-B-NB.png  speedup time(B)/time(A) over delta x size, each
 *                          cell labelled with A's R* (the paper's figures);
 *                          columns placed at delta's value on a log axis
 *                          (delta = 0 apart, left of a break);
 *   heat-...-measured.png  the same from the measured times, where both
 *                          of a cell's points were measured, on the very
 *                          colour scale of the model's heatmap;
 *   time-SIZE.png          completion time against delta, one panel per
 *                          algorithm, a line per node count, measured
 *                          means with min-max bars and ns-3's times as
 *                          points where the sweep has them;
 *   ratio.png              with measured points: measured / model against
 *                          the size, the +-15% band shaded, CPU-bound
 *                          points ringed (they measure the CPU).
 * Ticks are in units (1 us, 16 MiB), colour bars in 1-2-5 steps.  The .dat
 * and .gp files stay beside the PNGs, so a plot can be redrawn or
 * restyled by hand.
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
/* Eight colours told apart in print and by most colour-blind readers
 * (Dark2), in place of gnuplot's default (whose fifth is yellow). */
#define LINETYPES                                                             \
	"set linetype 1 lc rgb \"#1b9e77\" lw 1.5\n"                          \
	"set linetype 2 lc rgb \"#d95f02\" lw 1.5\n"                          \
	"set linetype 3 lc rgb \"#7570b3\" lw 1.5\n"                          \
	"set linetype 4 lc rgb \"#e7298a\" lw 1.5\n"                          \
	"set linetype 5 lc rgb \"#66a61e\" lw 1.5\n"                          \
	"set linetype 6 lc rgb \"#a6761d\" lw 1.5\n"                          \
	"set linetype 7 lc rgb \"#666666\" lw 1.5\n"                          \
	"set linetype 8 lc rgb \"#e6ab02\" lw 1.5\n"                          \
	"set linetype cycle 8\n"

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

/* A time as a tick label: "1 µs", "10 ms", "0". */
static void
tlabel(double t, char *b, size_t len)
{
	char  u[32], *p;
	float v;

	unit_fmt_time(t, u, sizeof(u));
	if (t == 0) {
		snprintf(b, len, "0");
		return;
	}
	p = strchr(u, ' ');
	if (p && strcmp(p, " us") == 0 && sscanf(u, "%g", &v) == 1)
		snprintf(b, len, "%g µs", v);
	else
		snprintf(b, len, "%s", u);
}

/* Where delta sits on the log axis: 0 a decade and a half left of the
 * smallest other delta (a point apart, past a break), the rest as is. */
static double
xpos(double d, double zero_at)
{
	return (d > 0 ? d : zero_at);
}

static double
zero_place(const double *xs, size_t nx)
{
	size_t i;

	for (i = 0; i < nx && xs[i] <= 0; i++)
		;
	if (i == nx || i == 0)
		return (0); /* no 0, or nothing but 0 */
	return (xs[i] / pow(10, 1.5));
}

/* Ticks with unit labels over [lo, hi], decades (1, 2 and 5 of each
 * when the range is under three decades), and "0" at zero_at. */
static void
time_tics(FILE *gp, const char *axis, double lo, double hi, double zero_at)
{
	static const double step[] = {1, 2, 5};
	char                b[32];
	double              e;
	/* 1-2-5 on a short y axis; delta's axis keeps decades (its labels
	 * would run into each other) */
	int first = 1, k, ns = hi / lo < 1000 && *axis == 'y' ? 3 : 1;

	fprintf(gp, "set %stics (", axis);
	if (zero_at > 0) {
		fprintf(gp, "\"0\" %.9g", zero_at);
		first = 0;
	}
	for (e = floor(log10(lo)); e <= ceil(log10(hi)) + 1e-9; e++)
		for (k = 0; k < ns; k++) {
			double v = step[k] * pow(10, e);

			if (v < lo / 1.0001 || v > hi * 1.0001)
				continue;
			tlabel(v, b, sizeof(b));
			fprintf(gp, "%s\"%s\" %.9g", first ? "" : ", ", b, v);
			first = 0;
		}
	fprintf(gp, ")\n");
}

/* A break between delta = 0 and the rest: a dashed rule. */
static void
zero_break(FILE *gp, double zero_at, double next)
{
	if (zero_at > 0)
		fprintf(gp,
		        "set arrow from %.9g, graph 0 to %.9g, graph 1 nohead "
		        "dt 3 lc rgb \"#808080\" front\n",
		        sqrt(zero_at * next), sqrt(zero_at * next));
}

static void
size_tics(FILE *gp, const char *axis, const double *v, size_t n, int index)
{
	char   b[32];
	size_t i;

	fprintf(gp, "set %stics (", axis);
	for (i = 0; i < n; i++)
		fprintf(gp, "%s\"%s\" %.9g", i ? ", " : "",
		        unit_fmt_size((uint64_t)v[i], b, sizeof(b)),
		        index ? (double)i : v[i]);
	fprintf(gp, ")\n");
}

/* The ticks of one set of round steps a decade over [lo, hi] into gp (or
 * only counted, gp NULL); how many. */
static int
cbtics_with(FILE *gp, double lo, double hi, const double *step, int ns)
{
	double e;
	int    n = 0, k;

	for (e = floor(log10(lo)); e <= ceil(log10(hi)); e++)
		for (k = 0; k < ns; k++) {
			double v = step[k] * pow(10, e);

			if (v < lo * 0.999 || v > hi * 1.001)
				continue;
			if (gp)
				fprintf(gp, "%s\"%g\" %.9g", n ? ", " : "", v,
				        v);
			n++;
		}
	return (n);
}

/* Round steps over a logarithmic colour scale: 1, 2, 5 a decade, or
 * finer ones (1, 1.5, 2, 3, 5, 7; then 1.2, 1.5, ...) when a narrow
 * scale would show fewer than three. */
static void
cbtics(FILE *gp, double lo, double hi)
{
	static const double s3[] = {1, 2, 5}, s6[] = {1, 1.5, 2, 3, 5, 7};
	static const double s11[] = {1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8};
	const double       *step = s3;
	int                 ns = 3;

	if (cbtics_with(NULL, lo, hi, step, ns) < 3) {
		step = s6;
		ns = 6;
	}
	if (cbtics_with(NULL, lo, hi, step, ns) < 3) {
		step = s11;
		ns = 11;
	}
	fprintf(gp, "set cbtics (");
	cbtics_with(gp, lo, hi, step, ns);
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

	snprintf(buf, len, "model %s: %s, {/Symbol a}_s %s, {/Symbol a}_h %s",
	         s->m.name, unit_fmt_rate(s->m.bps, a, sizeof(a)),
	         unit_fmt_time(s->m.alpha_s, b, sizeof(b)),
	         unit_fmt_time(s->m.alpha_h, c, sizeof(c)));
}

/* The time a heatmap compares: the model's, or the mean measured. */
static double
t_of(const struct sweep_row *r, int measured)
{
	return (measured ? r->measured_s : r->predicted_s);
}

/* A heatmap's cells: x, y, the cell's x span, speedup, R*. */
struct cell {
	double   x, x0, x1, v;
	size_t   j;
	uint32_t rstar;
};

struct grid {
	const struct sweep_row *r;
	size_t                  n, nx, ny;
	double                 *xs, *ys, zero_at;
};

/* The cells of one pair, model or measured; their count. */
static size_t
cells(const struct grid *g, const struct sweep_pair *p, int measured,
      struct cell *c)
{
	size_t i, j, k = 0;

	for (i = 0; i < g->nx; i++) {
		double x = xpos(g->xs[i], g->zero_at), lo, hi;

		lo = i ? sqrt(x * xpos(g->xs[i - 1], g->zero_at)) : 0;
		hi = i + 1 < g->nx ? sqrt(x * xpos(g->xs[i + 1], g->zero_at))
		                   : 0;
		if (lo == 0)
			lo = hi ? x * x / hi : x / 2;
		if (hi == 0)
			hi = x * x / lo;
		for (j = 0; j < g->ny; j++) {
			const struct sweep_row *ra, *rb;

			ra = find(g->r, g->n, p->a, p->na, (uint64_t)g->ys[j],
			          g->xs[i]);
			rb = find(g->r, g->n, p->b, p->nb, (uint64_t)g->ys[j],
			          g->xs[i]);
			if (!ra || !rb || !(t_of(ra, measured) > 0) ||
			    !(t_of(rb, measured) > 0))
				continue;
			c[k++] = (struct cell){
			    x,  lo,
			    hi, t_of(rb, measured) / t_of(ra, measured),
			    j,  ra->reconfs};
		}
	}
	return (k);
}

static int
heat_write(const struct sweep *s, const struct grid *g,
           const struct sweep_pair *p, const struct cell *c, size_t k,
           int measured, double lo, double hi, char *err, size_t len)
{
	char   base[128], path[700], ml[200];
	size_t i;
	FILE  *d, *gp;

	snprintf(base, sizeof(base), "heat-%s-%u-vs-%s-%u%s", p->a, p->na,
	         p->b, p->nb, measured ? "-measured" : "");
	snprintf(path, sizeof(path), "%s/%s.dat", s->out, base);
	if ((d = fopen(path, "we")) == NULL)
		goto io;
	for (i = 0; i < k; i++)
		fprintf(d, "%.9g %zu %.9g %.9g %.6g %u\n", c[i].x, c[i].j,
		        c[i].x0, c[i].x1, c[i].v, c[i].rstar);
	if (fclose(d) != 0)
		goto io;
	snprintf(path, sizeof(path), "%s/%s.gp", s->out, base);
	if ((gp = fopen(path, "we")) == NULL)
		goto io;
	model_line(s, ml, sizeof(ml));
	if (measured)
		snprintf(ml, sizeof(ml),
		         "measured on the testbed (the mean of each point's "
		         "runs); the model's colour scale");
	fprintf(gp,
	        "set terminal pngcairo size 1000,760 font \",10\"\n"
	        "set output '%s.png'\n"
	        "set title \"%speedup of %s (n=%u) over %s (n=%u): "
	        "time(%s) / time(%s); R* of %s in each cell\\n%s\"\n"
	        "set xlabel \"reconfiguration delay {/Symbol d}\"\n"
	        "set ylabel \"bytes per node\"\n"
	        "set cblabel \"speedup (x; > 1: %s faster)\" offset 1.5,0\n"
	        "set logscale x\nset logscale cb\nset cbrange [%.6g:%.6g]\n"
	        "set palette defined (0 \"#3060c0\", 1 \"white\", 2 "
	        "\"#c03020\")\n"
	        "set xrange [%.9g:%.9g]\nset yrange [-0.5:%zu.5]\n"
	        "set tics out\nunset key\n",
	        base, measured ? "Measured s" : "S", p->a, p->na, p->b, p->nb,
	        p->b, p->a, p->a, ml, p->a, lo, hi,
	        c[0].x0 < g->xs[0] || g->zero_at > 0
	            ? fmin(c[0].x0, xpos(g->xs[0], g->zero_at) / 2)
	            : c[0].x0,
	        c[k - 1].x1, g->ny - 1);
	time_tics(gp, "x", g->xs[g->zero_at > 0 ? 1 : 0], g->xs[g->nx - 1],
	          g->zero_at);
	if (g->zero_at > 0)
		zero_break(gp, g->zero_at, g->xs[1]);
	size_tics(gp, "y", g->ys, g->ny, 1);
	cbtics(gp, lo, hi);
	fprintf(gp,
	        "plot '%s.dat' using 1:2:3:4:($2-0.5):($2+0.5):5 with "
	        "boxxyerror fc palette fs solid 1.0 noborder, \\\n"
	        "     '' using 1:2:(sprintf(\"%%d\", $6)) with labels "
	        "font \",8\"\n",
	        base);
	if (fclose(gp) != 0)
		goto io;
	snprintf(path, sizeof(path), "%s.gp", base);
	return (gnuplot(s->out, path, err, len));
io:
	snprintf(err, len, "%s: %s", path, strerror(errno));
	return (-1);
}

/* A pair's heatmaps, the model's and (where measured) the measured one,
 * on one colour scale; 0 (nothing to draw is not an error), or -1. */
static int
heat(const struct sweep *s, const struct sweep_pair *p, struct grid *g,
     char *err, size_t len)
{
	struct cell *cm = calloc(g->nx * g->ny + 1, sizeof(*cm));
	struct cell *cx = calloc(g->nx * g->ny + 1, sizeof(*cx));
	size_t       km, kx, i;
	double       lo = INFINITY, hi = 0;
	int          rv = 0;

	if (cm == NULL || cx == NULL) {
		free(cm);
		free(cx);
		snprintf(err, len, "out of memory");
		return (-1);
	}
	km = cells(g, p, 0, cm);
	kx = cells(g, p, 1, cx);
	for (i = 0; i < km + kx; i++) {
		double v = i < km ? cm[i].v : cx[i - km].v;

		lo = fmin(lo, v);
		hi = fmax(hi, v);
	}
	/* Symmetric about 1, and never empty (every cell 1: a tie). */
	lo = fmin(lo, 1 / fmax(hi, 1));
	hi = fmax(hi, 1 / fmax(lo, 1e-9));
	if (hi / lo < 1.02) {
		lo /= 1.05;
		hi *= 1.05;
	}
	if (km)
		rv = heat_write(s, g, p, cm, km, 0, lo, hi, err, len);
	if (rv == 0 && kx)
		rv = heat_write(s, g, p, cx, kx, 1, lo, hi, err, len);
	free(cm);
	free(cx);
	return (rv);
}

/* One data block a node count: delta, model, measured mean, least,
 * greatest, ns-3 (NaN where absent); how many blocks. */
static int
cmp_delta(const void *a, const void *b)
{
	const struct sweep_row *x = *(const struct sweep_row *const *)a;
	const struct sweep_row *y = *(const struct sweep_row *const *)b;

	return (x->delta_s < y->delta_s ? -1 : x->delta_s > y->delta_s);
}

static size_t
time_data(const struct sweep *s, const struct sweep_row *r, size_t n,
          const char *algo, uint64_t bytes, double zero_at, FILE *d, int *meas,
          int *pk, const struct sweep_row **sel)
{
	size_t j, k, blocks = 0;

	for (j = 0; j < s->nnodes; j++) {
		size_t got = 0, i;

		for (k = 0; k < n; k++)
			if (r[k].bytes == bytes &&
			    r[k].nodes == (uint32_t)s->nodes[j] &&
			    strcmp(r[k].algo, algo) == 0 &&
			    !isnan(r[k].predicted_s))
				sel[got++] = &r[k];
		qsort(sel, got, sizeof(*sel), cmp_delta);
		for (i = 0; i < got; i++) {
			const struct sweep_row *x = sel[i];

			if (i == 0)
				fprintf(d, "\"n=%u\"\n", x->nodes);
			fprintf(d, "%.9g %.9g %.9g %.9g %.9g %.9g\n",
			        xpos(x->delta_s, zero_at), x->predicted_s,
			        x->measured_s, x->measured_min_s,
			        x->measured_max_s, x->packet_s);
			/* the line breaks where the axis does */
			if (x->delta_s == 0 && zero_at > 0)
				fputc('\n', d);
			*meas |= !isnan(x->measured_s);
			*pk |= !isnan(x->packet_s);
		}
		/* an empty block keeps block i at node count i */
		if (got == 0)
			fprintf(d, "\"n=%u\"\nNaN NaN NaN NaN NaN NaN\n",
			        (uint32_t)s->nodes[j]);
		fprintf(d, "\n\n");
		blocks++;
	}
	return (blocks);
}

/* Completion time against delta at one size, one panel per algorithm. */
/* The times drawn for one size: predicted and measured, *lo to *hi. */
static void
time_range(const struct sweep_row *r, size_t n, uint64_t bytes, double *lo,
           double *hi)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (r[i].bytes == bytes && r[i].predicted_s > 0) {
			*lo = fmin(*lo, r[i].predicted_s);
			*hi = fmax(*hi, r[i].predicted_s);
			if (r[i].measured_min_s > 0)
				*lo = fmin(*lo, r[i].measured_min_s);
			*hi = fmax(*hi, isnan(r[i].measured_max_s)
			                    ? 0
			                    : r[i].measured_max_s);
		}
}

static int
times(const struct sweep *s, const struct sweep_row *r, size_t n,
      const struct grid *g, uint64_t bytes, char *err, size_t len)
{
	char                     base[64], path[700], ml[200], sz[32];
	size_t                   a, blocks = 0;
	double                   tlo = INFINITY, thi = 0;
	int                      meas = 0, pk = 0, cols;
	FILE                    *d, *gp;
	const struct sweep_row **sel;

	time_range(r, n, bytes, &tlo, &thi);
	if (!(thi > 0))
		return (0);
	unit_fmt_size(bytes, sz, sizeof(sz));
	snprintf(base, sizeof(base), "time-%llu", (unsigned long long)bytes);
	if ((sel = calloc(n + 1, sizeof(*sel))) == NULL) {
		snprintf(err, len, "out of memory");
		return (-1);
	}
	for (a = 0; a < s->nalgo; a++) {
		snprintf(path, sizeof(path), "%s/%s-%s.dat", s->out, base,
		         s->algo[a]);
		if ((d = fopen(path, "we")) == NULL) {
			free(sel);
			goto io;
		}
		blocks = time_data(s, r, n, s->algo[a], bytes, g->zero_at, d,
		                   &meas, &pk, sel);
		if (fclose(d) != 0) {
			free(sel);
			goto io;
		}
	}
	free(sel);
	snprintf(path, sizeof(path), "%s/%s.gp", s->out, base);
	if ((gp = fopen(path, "we")) == NULL)
		goto io;
	model_line(s, ml, sizeof(ml));
	cols = s->nalgo > 3 ? 2 : (int)s->nalgo;
	fprintf(gp,
	        "set terminal pngcairo size %d,%d font \",10\"\n"
	        "set output '%s.png'\n"
	        "set datafile missing \"NaN\"\n"
	        "set multiplot layout %d,%d title \"All-to-All of %s per "
	        "node: completion time against the reconfiguration delay\\n"
	        "%s\"\n"
	        "set logscale xy\nset grid\nset tics out\n"
	        "set xlabel \"reconfiguration delay {/Symbol d}\"\n"
	        "set ylabel \"completion time\"\n"
	        "set key top left opaque box font \",9\"\n"
	        "%s"
	        "set xrange [%.9g:%.9g]\nset yrange [%.9g:%.9g]\n",
	        420 * cols + 80, s->nalgo > 3 ? 900 : 520, base,
	        (int)((s->nalgo + (size_t)cols - 1) / (size_t)cols), cols, sz,
	        ml, LINETYPES, xpos(g->xs[0], g->zero_at) / 2,
	        g->xs[g->nx - 1] * 2, tlo / 1.5, thi * 1.5);
	time_tics(gp, "x", g->xs[g->zero_at > 0 ? 1 : 0], g->xs[g->nx - 1],
	          g->zero_at);
	time_tics(gp, "y", tlo / 1.5, thi * 1.5, 0);
	if (g->zero_at > 0)
		zero_break(gp, g->zero_at, g->xs[1]);
	for (a = 0; a < s->nalgo; a++) {
		fprintf(gp,
		        "set title \"%s\"\n"
		        "plot for [i=0:%zu] '%s-%s.dat' index i using 1:2 "
		        "with linespoints lc i+1 pt 7 ps 0.6 title "
		        "columnheader(1)",
		        s->algo[a], blocks - 1, base, s->algo[a]);
		if (meas)
			fprintf(
			    gp,
			    ", \\\n  for [i=0:%zu] '%s-%s.dat' index i "
			    "using 1:3:4:5 with yerrorbars lc i+1 pt 6 "
			    "ps 1.2 title (i == 0 ? \"measured (min-max)\" "
			    ": \"\")",
			    blocks - 1, base, s->algo[a]);
		if (pk)
			fprintf(gp,
			        ", \\\n  for [i=0:%zu] '%s-%s.dat' index i "
			        "using 1:6 with points lc i+1 pt 2 ps 1 "
			        "title (i == 0 ? \"ns-3\" : \"\")",
			        blocks - 1, base, s->algo[a]);
		fprintf(gp, "\n");
	}
	fprintf(gp, "unset multiplot\n");
	if (fclose(gp) != 0)
		goto io;
	snprintf(path, sizeof(path), "%s.gp", base);
	return (gnuplot(s->out, path, err, len));
io:
	snprintf(err, len, "%s: %s", path, strerror(errno));
	return (-1);
}

/* Measured / model of one algorithm: a block a (nodes, delta) with its
 * style (colour by node count, dashes by delta), and the CPU-bound
 * points again in cpu; the plot clauses in cl.  Blocks written. */
static size_t
ratio_algo(const struct sweep *s, const struct sweep_row *r, size_t n,
           const struct grid *g, const char *algo, const char *file, FILE *d,
           FILE *cpu, char *cl, size_t cll)
{
	size_t i, j, k, blocks = 0, o = 0;
	char   t[32];

	cl[0] = '\0';
	for (j = 0; j < s->nnodes; j++)
		for (i = 0; i < g->nx; i++) {
			size_t got = 0;

			for (k = 0; k < n; k++) {
				const struct sweep_row *x = &r[k];

				if (isnan(x->measured_s) ||
				    !(x->predicted_s > 0) ||
				    x->nodes != (uint32_t)s->nodes[j] ||
				    x->delta_s != g->xs[i] ||
				    strcmp(x->algo, algo) != 0)
					continue;
				if (got++ == 0)
					fprintf(d, "# n=%u delta=%g\n",
					        x->nodes, x->delta_s);
				fprintf(d, "%llu %.6g %.6g %.6g\n",
				        (unsigned long long)x->bytes,
				        x->measured_s / x->predicted_s,
				        x->measured_min_s / x->predicted_s,
				        x->measured_max_s / x->predicted_s);
				if (x->cpu_bound[0])
					fprintf(cpu, "%llu %.6g\n",
					        (unsigned long long)x->bytes,
					        x->measured_s /
					            x->predicted_s);
			}
			if (got == 0)
				continue;
			fprintf(d, "\n\n");
			tlabel(g->xs[i], t, sizeof(t));
			if (o < cll)
				o += (size_t)snprintf(
				    cl + o, cll - o,
				    "%s'%s' index %zu using 1:2:3:4 with "
				    "yerrorlines lc %zu dt %zu pt %zu title "
				    "\"n=%u, {/Symbol d} %s\"",
				    blocks ? ", \\\n  " : "", file, blocks,
				    j + 1, i + 1, j + 4, (uint32_t)s->nodes[j],
				    t);
			blocks++;
		}
	return (blocks);
}

/* ratio.png: one panel per algorithm; 0 (nothing measured) or -1. */
static int
ratios(const struct sweep *s, const struct sweep_row *r, size_t n,
       const struct grid *g, char *err, size_t len)
{
	char   path[700], ml[200], file[64], cl[4096];
	size_t a, blocks, any = 0;
	int    cols = s->nalgo > 3 ? 2 : (int)s->nalgo;
	long   ncpu;
	FILE  *d, *cpu, *gp;

	snprintf(path, sizeof(path), "%s/ratio.gp", s->out);
	if ((gp = fopen(path, "we")) == NULL)
		goto io;
	model_line(s, ml, sizeof(ml));
	fprintf(gp,
	        "set terminal pngcairo size %d,%d font \",10\"\n"
	        "set output 'ratio.png'\n"
	        "set multiplot layout %d,%d title \"Measured completion time "
	        "over the model's prediction (shaded: within 15%%; ringed: "
	        "CPU-bound, not a measurement of the links)\\n%s\"\n"
	        "set logscale x 2\nset xrange [%.9g:%.9g]\n"
	        "set xlabel \"bytes per node\"\n"
	        "set ylabel \"measured / predicted\"\n"
	        "set yrange [0:*]\nset grid\nset tics out\n"
	        "set key top right opaque box font \",8\"\n" LINETYPES
	        "set object 1 rect from graph 0, first 0.85 to graph 1, "
	        "first 1.15 fc rgb \"#d8efd8\" fs solid 1.0 noborder behind\n"
	        "set arrow from graph 0, first 1 to graph 1, first 1 "
	        "nohead dt 2\n",
	        420 * cols + 80, s->nalgo > 3 ? 900 : 560,
	        (int)((s->nalgo + (size_t)cols - 1) / (size_t)cols), cols, ml,
	        g->ys[0] / 1.5, g->ys[g->ny - 1] * 1.5);
	size_tics(gp, "x", g->ys, g->ny, 0);
	for (a = 0; a < s->nalgo; a++) {
		snprintf(file, sizeof(file), "ratio-%s.dat", s->algo[a]);
		snprintf(path, sizeof(path), "%s/%s", s->out, file);
		if ((d = fopen(path, "we")) == NULL)
			goto io_gp;
		snprintf(path, sizeof(path), "%s/ratio-%s-cpu.dat", s->out,
		         s->algo[a]);
		if ((cpu = fopen(path, "we")) == NULL) {
			fclose(d);
			goto io_gp;
		}
		blocks = ratio_algo(s, r, n, g, s->algo[a], file, d, cpu, cl,
		                    sizeof(cl));
		ncpu = ftell(cpu);
		if (fclose(d) != 0 || fclose(cpu) != 0)
			goto io_gp;
		any += blocks;
		fprintf(gp, "set title \"%s\"\n", s->algo[a]);
		if (blocks == 0) {
			fprintf(gp, "set label 1 \"not measured\" at graph "
			            "0.5, graph 0.5 center\nplot 1 notitle lc "
			            "rgb \"white\"\nunset label 1\n");
			continue;
		}
		fprintf(gp, "plot %s", cl);
		if (ncpu > 0)
			fprintf(gp,
			        ", \\\n  'ratio-%s-cpu.dat' using 1:2 with "
			        "points pt 6 ps 2.5 lw 2 lc rgb \"#d02020\" "
			        "title \"CPU-bound\"",
			        s->algo[a]);
		fprintf(gp, "\n");
	}
	fprintf(gp, "unset multiplot\n");
	if (fclose(gp) != 0)
		goto io;
	if (any == 0)
		return (0);
	return (gnuplot(s->out, "ratio.gp", err, len));
io_gp:
	fclose(gp);
io:
	snprintf(err, len, "%s: %s", path, strerror(errno));
	return (-1);
}

int
sweep_plots(const struct sweep *s, const struct sweep_row *r, size_t n,
            char *err, size_t len)
{
	struct grid g = {r, n, 0, 0, NULL, NULL, 0};
	size_t      i, k;
	int         rv = 0;

	g.xs = calloc(n + 1, sizeof(double));
	g.ys = calloc(n + 1, sizeof(double));
	if (g.xs == NULL || g.ys == NULL) {
		free(g.xs);
		free(g.ys);
		snprintf(err, len, "out of memory");
		return (-1);
	}
	g.nx = distinct(r, n, 0, g.xs);
	g.ny = distinct(r, n, 1, g.ys);
	g.zero_at = zero_place(g.xs, g.nx);
	if (g.nx == 0 || (g.nx == 1 && g.xs[0] == 0))
		goto out; /* nothing, or delta 0 alone: no axis */
	for (i = 0; i < s->npair && rv == 0; i++)
		rv = heat(s, &s->pair[i], &g, err, len);
	/* At most PLOT_MAX_SIZES sizes, spread evenly over the sweep's,
	 * the smallest and the largest among them. */
	k = g.ny < PLOT_MAX_SIZES ? g.ny : PLOT_MAX_SIZES;
	for (i = 0; i < k && rv == 0; i++)
		rv =
		    times(s, r, n, &g,
		          (uint64_t)g.ys[k > 1 ? i * (g.ny - 1) / (k - 1) : 0],
		          err, len);
	if (rv == 0)
		rv = ratios(s, r, n, &g, err, len);
out:
	free(g.xs);
	free(g.ys);
	return (rv);
}

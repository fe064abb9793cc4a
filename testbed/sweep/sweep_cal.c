/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocs-sweep --calibrate: the model's parameters measured on a testbed,
 * with how sure the measurement is.  Verified runs at several sizes of
 * five plans that set the terms apart (static on its ring: one phase of
 * many hops; ReTri and Bridge reconfiguring before every phase: one hop a
 * phase, a reconfiguration each; and both on reused circuits: several
 * hops, none), each repeated, and for each run what the collectives
 * library says it carries (from the same IR ocsd ran):
 *
 *   P phases, H = sum of the phases' longest paths, L = sum of the
 *   busiest links' bytes, S = sum of (hops - 1) * min(frame, the largest
 *   transfer) (what relays hold before they forward), R reconfigurations
 *
 * and a least-squares fit of every run's time less R delta to
 *
 *   alpha_s P + alpha_h H + beta L + gamma S + reconf_overhead R
 *
 * weighted by 1 / the run's time (its relative error is minimised: the
 * fit is judged in %, and a run's noise grows with its length;
 * sweep_fit.c: no parameter negative, each with its 95% confidence
 * interval).  The bandwidth is 8 / beta; the store-and-forward term is
 * the model's frame, frame * gamma / beta.  A fit that misses any of its
 * own runs by more than CAL_MAX_RESIDUAL, or whose runs the CPU bounded,
 * is refused: the model goes to FILE.rejected with why, not to FILE.  The
 * model file keeps the runs, the fit and its conditions (rate, nodes,
 * CPU, the worst residual).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collectives/a2a.h"
#include "collectives/cost.h"
#include "proto/base/units.h"
#include "testbed/sweep/sweep.h"
#include "testbed/sweep/sweep_fit.h"

#define CAL_MAX_RUNS  160
#define CAL_MAX_PH    32
#define CAL_MAX_SIZES 4
/* The agents' frame payload: ocsd's default chunk, which the runs use. */
#define CAL_FRAME 65536.0
/* A fit is believed when every run is within this of it. */
#define CAL_MAX_RESIDUAL 0.10

enum { X_P, X_H, X_L, X_S, X_R, NX };
static const char *const xname[NX] = {"alpha_s", "alpha_h", "beta", "gamma",
                                      "reconf_overhead"};

/* The five plans: which terms each one moves. */
static const struct {
	const char *algo, *reconfig;
} plans[] = {{"static", "none"},
             {"retri", "all"},
             {"bridge", "all"},
             {"retri", "none"},
             {"bridge", "none"}};
#define NPLANS (sizeof(plans) / sizeof(plans[0]))

struct cal_run {
	char           algo[16];
	const char    *reconfig;
	uint64_t       bytes;
	uint32_t       nph;
	double         total;
	int            reconfigured[CAL_MAX_PH];
	double         x[NX];
	struct cpu_use cpu;
};

/* The run's regressors from the plan it ran (see the top). */
static int
regressors(struct cal_run *c, uint32_t n, char *err, size_t len)
{
	struct cost_params cp = {.beta = 1};
	struct cost_phase  ph[CAL_MAX_PH];
	struct sched       sc;
	struct a2a         a;
	uint8_t            before[CAL_MAX_PH] = {0};
	double             tot;
	uint32_t           k;
	int                rv;

	if ((rv = a2a_init(&a, c->algo, n)) != 0 ||
	    a2a_nphases(&a) != c->nph) {
		snprintf(err, len, "%s on %u nodes: %s", c->algo, n,
		         rv ? coll_strerror(rv) : "phases differ from ocsd's");
		if (rv == 0)
			a2a_fini(&a);
		return (-1);
	}
	for (k = 1; k < c->nph; k++)
		before[k] = (uint8_t)c->reconfigured[k];
	rv = a2a_build(&a, c->bytes, before, UINT64_MAX, &sc);
	a2a_fini(&a);
	if (rv == 0) {
		rv = cost_sched(&sc, &cp, &tot, ph);
		sched_free(&sc);
	}
	if (rv != 0) {
		snprintf(err, len, "%s: %s", c->algo, coll_strerror(rv));
		return (-1);
	}
	memset(c->x, 0, sizeof(c->x));
	for (k = 0; k < c->nph; k++) {
		c->x[X_P] += 1;
		c->x[X_H] += ph[k].hops;
		c->x[X_L] += ph[k].link_bytes;
		if (ph[k].hops > 1)
			c->x[X_S] += (ph[k].hops - 1) *
			             fmin(CAL_FRAME, ph[k].dir_bytes);
		c->x[X_R] += k > 0 && c->reconfigured[k];
	}
	return (0);
}

/* One calibration run, its report into c. */
static int
cal_run(const struct sweep_bed *b, uint32_t n, struct cal_run *c, char *err,
        size_t len)
{
	struct sweep_row r;
	json_t          *rep, *ph;
	size_t           k;

	memset(&r, 0, sizeof(r));
	snprintf(r.algo, sizeof(r.algo), "%s", c->algo);
	r.nodes = n;
	r.bytes = c->bytes;
	if (sweep_run_once(b, &r, c->reconfig, &rep, &c->cpu, err, len) != 0)
		return (-1);
	ph = json_object_get(rep, "phases");
	c->total = json_real_value(json_object_get(rep, "total_s"));
	c->nph = (uint32_t)json_array_size(ph);
	for (k = 0; k < c->nph && k < CAL_MAX_PH; k++)
		c->reconfigured[k] =
		    k > 0 && json_is_true(json_object_get(
		                 json_array_get(ph, k), "reconfigured"));
	json_decref(rep);
	if (c->nph == 0 || c->nph > CAL_MAX_PH) {
		snprintf(err, len, "%s: %u phases in the report", c->algo,
		         c->nph);
		return (-1);
	}
	return (regressors(c, n, err, len));
}

/* The fit and the model from it; 0, or -1 if the runs say nothing about
 * the bandwidth. */
static int
cal_fit(const struct cal_run *c, size_t nc, double delta, struct fit *f,
        struct cmodel *m)
{
	double X[CAL_MAX_RUNS * NX], y[CAL_MAX_RUNS];
	size_t i;

	/* Relative errors, not absolute ones: a fit is judged by how far
	 * (in %) it misses each run, and the runs' noise grows with their
	 * time; unweighted, the 16 MiB runs set every parameter and a
	 * per-reconfiguration term bent to them missed 1 MiB by 40%. */
	for (i = 0; i < nc; i++) {
		double w = c[i].total > 0 ? 1 / c[i].total : 1;
		int    k;

		for (k = 0; k < NX; k++)
			X[i * NX + k] = c[i].x[k] * w;
		y[i] = (c[i].total - c[i].x[X_R] * delta) * w;
	}
	if (fit_ols(X, y, nc, NX, f) != 0 || !(f->theta[X_L] > 0))
		return (-1);
	m->bps = 8 / f->theta[X_L];
	m->alpha_s = f->theta[X_P];
	m->alpha_h = f->theta[X_H];
	m->reconf_s = f->theta[X_R];
	/* gamma as the frame the cost model's term holds (cost.h). */
	m->frame = round(CAL_FRAME * f->theta[X_S] / f->theta[X_L]);
	return (0);
}

static double
predicted(const struct fit *f, const struct cal_run *c, double delta)
{
	return (fit_predict(f, c->x) + c->x[X_R] * delta);
}

/* Units for the table: seconds, or bits a second for beta's inverse. */
static void
param_line(const struct fit *f, int i, char *buf, size_t len)
{
	char a[32], b[32];

	if (f->held[i]) {
		snprintf(buf, len, "%-16s held at 0 (%s)\n", xname[i],
		         "negative or not told apart by these runs");
		return;
	}
	if (i == X_L || i == X_S) {
		double v = 8 / f->theta[i],
		       lo = 8 / (f->theta[i] + f->half[i]);

		snprintf(buf, len, "%-16s %s a link (%s), 95%%: +-%.1f%%\n",
		         i == X_L ? "bandwidth" : "gamma (as a rate)",
		         unit_fmt_rate(v, a, sizeof(a)),
		         unit_fmt_rate(lo, b, sizeof(b)),
		         100 * f->half[i] / f->theta[i]);
		return;
	}
	snprintf(buf, len, "%-16s %s, 95%%: +-%s\n", xname[i],
	         unit_fmt_time(f->theta[i], a, sizeof(a)),
	         unit_fmt_time(f->half[i], b, sizeof(b)));
}

/* The table (stderr and the file's comments); the worst residual. */
static double
report(const struct cal_run *c, size_t nc, const struct fit *f,
       const struct cmodel *m, double delta, const char *where, char *buf,
       size_t len)
{
	char   a[32], l[200];
	size_t i, o;
	int    k;
	time_t now = time(NULL);
	double worst = 0;

	o = (size_t)snprintf(buf, len,
	                     "calibrated by ocs-sweep on %s, switch delay %s, "
	                     "%s%zu runs, %d degrees of freedom; the fit, "
	                     "each with its 95%% confidence interval:\n",
	                     where, unit_fmt_time(delta, a, sizeof(a)),
	                     ctime(&now), nc, f->dof);
	for (k = 0; k < NX && o < len; k++) {
		param_line(f, k, l, sizeof(l));
		o += (size_t)snprintf(buf + o, len - o, "  %s", l);
	}
	if (o < len)
		o += (size_t)snprintf(
		    buf + o, len - o,
		    "  frame (store-and-forward) %.0f B\n"
		    "run                          measured    "
		    "fitted  measured/fitted  cpu_max\n",
		    m->frame);
	for (i = 0; i < nc && o < len; i++) {
		double p = predicted(f, &c[i], delta), q = c[i].total / p;

		worst = fmax(worst, fabs(q - 1));
		o += (size_t)snprintf(
		    buf + o, len - o,
		    "%-7s %-5s %-10s %10.4f s %8.4f s   %.3f%s    %.2f\n",
		    c[i].algo, c[i].reconfig,
		    unit_fmt_size(c[i].bytes, a, sizeof(a)), c[i].total, p, q,
		    fabs(q - 1) > CAL_MAX_RESIDUAL ? " !" : "  ",
		    c[i].cpu.max);
	}
	if (o < len)
		snprintf(buf + o, len - o,
		         "worst residual %.1f%% (refused above %.0f%%)\n",
		         100 * worst, 100 * CAL_MAX_RESIDUAL);
	return (worst);
}

/* Bring up (or attach to) the bed; n agents to calibrate on. */
static int
cal_bed(struct sweep *s, struct sweep_bed *b, uint32_t *n, char *where,
        size_t wl)
{
	char          err[1200];
	struct cmodel m = s->m;
	int           rv;

	if (s->local) {
		snprintf(m.name, sizeof(m.name), "guess");
		unit_parse_rate(s->rate, &m.bps);
		rv = bed_up(b, *n, s->ndelay ? s->delay[0] : 1e-3, &m, err,
		            sizeof(err));
		snprintf(where, wl,
		         "a local testbed (%u agents, fibres at %s)", *n,
		         s->rate);
	} else {
		rv = bed_attach(b, s->ocsd, err, sizeof(err));
		*n = *n ? *n : b->nagents;
		snprintf(where, wl, "ocsd at %s (%u agents)", s->ocsd, *n);
	}
	if (rv != 0 || *n < 3 || *n > b->nagents) {
		if (rv == 0)
			snprintf(err, sizeof(err),
			         "%u agents to calibrate on, %u idle", *n,
			         b->nagents);
		fprintf(stderr, "ocs-sweep: --calibrate: %s\n", err);
		bed_down(b);
		return (-1);
	}
	return (0);
}

/* Every run of the design: sizes x plans x repeats; their number. */
static size_t
cal_runs(const struct sweep *s, const struct sweep_bed *b, uint32_t n,
         struct cal_run *c)
{
	uint64_t sizes[CAL_MAX_SIZES] = {1u << 20, 4u << 20, 16u << 20};
	size_t   ns = 3, i, j, k, nc = 0, reps = s->repeat > 1 ? s->repeat : 2;
	size_t   total;
	char     err[1200], sz[32];

	for (i = 0; i < s->nbytes && i < CAL_MAX_SIZES; i++)
		sizes[i] = (uint64_t)s->bytes[i];
	ns = s->nbytes ? i : ns;
	total = ns * NPLANS * reps;
	if (total > CAL_MAX_RUNS)
		reps = CAL_MAX_RUNS / (ns * NPLANS);
	total = ns * NPLANS * reps;
	/* Repeats interleaved (every plan and size once, then again), so a
	 * slow minute of the machine does not fall on one point alone. */
	for (k = 0; k < reps; k++)
		for (j = 0; j < ns; j++)
			for (i = 0; i < NPLANS; i++, nc++) {
				memset(&c[nc], 0, sizeof(c[nc]));
				snprintf(c[nc].algo, sizeof(c[nc].algo), "%s",
				         plans[i].algo);
				c[nc].reconfig = plans[i].reconfig;
				c[nc].bytes = sizes[j];
				fprintf(
				    stderr,
				    "ocs-sweep: calibrating: %s --reconfig "
				    "%s, %u nodes, %s a node (%zu/%zu)\n",
				    plans[i].algo, plans[i].reconfig, n,
				    unit_fmt_size(sizes[j], sz, sizeof(sz)),
				    nc + 1, total);
				if (cal_run(b, n, &c[nc], err, sizeof(err)) !=
				    0) {
					fprintf(stderr,
					        "ocs-sweep: --calibrate: %s\n",
					        err);
					return (0);
				}
			}
	return (nc);
}

/* The conditions, and whether the CPU bounded a run (why in buf). */
static int
conditions(const struct cal_run *c, size_t nc, const struct sweep *s,
           uint32_t n, double worst, struct cmodel *m, char *why, size_t len)
{
	struct cpu_use u = {0};
	size_t         i;
	double         bps = 0;

	for (i = 0; i < nc; i++)
		cpu_worst(&u, &c[i].cpu);
	if (s->local)
		unit_parse_rate(s->rate, &bps);
	m->cond = (struct cmodel_cond){.rate_bps = bps,
	                               .nodes = n,
	                               .cores = u.cores,
	                               .cpu_max = u.max,
	                               .cpu_sum = u.sum,
	                               .cpu_host = u.host,
	                               .residual_max = worst};
	if (!s->local)
		m->cond.rate_bps = m->bps; /* unknown: the fitted one */
	/* The testbed's own CPU: a calibration of this machine's CPU is
	 * no model of the links.  The machine busy with others' work is
	 * said, not refused: nothing here can make it quiet. */
	why[0] = '\0';
	if (u.max >= CPU_BOUND_SHARE ||
	    u.sum >= CPU_BOUND_SHARE * (u.cores ? u.cores : 1))
		return (cpu_bound(&u, why, len), 1);
	if (cpu_bound(&u, why, len))
		fprintf(stderr, "ocs-sweep: --calibrate: warning: %s\n", why);
	why[0] = '\0';
	return (0);
}

/* Write the model, or FILE.rejected with why; exit status. */
static int
cal_write(const struct sweep *s, const struct cmodel *m, const char *table,
          const char *why)
{
	char path[600], *txt = NULL;
	int  rv;

	if (why[0] == '\0') {
		if ((rv = cmodel_write(m, s->cal_out, table)) != 0) {
			fprintf(stderr, "ocs-sweep: %s: %s\n", s->cal_out,
			        strerror(-rv));
			return (1);
		}
		fprintf(stderr, "ocs-sweep: the model is in %s\n", s->cal_out);
		return (0);
	}
	snprintf(path, sizeof(path), "%s.rejected", s->cal_out);
	if (asprintf(&txt, "REJECTED: %s\n%s", why, table) < 0)
		txt = NULL;
	rv = cmodel_write(m, path, txt ? txt : table);
	free(txt);
	fprintf(stderr,
	        "ocs-sweep: --calibrate: refused: %s; the fit is in %s, "
	        "%s is not written\n",
	        why, rv == 0 ? path : "(nowhere: cannot write)", s->cal_out);
	return (1);
}

int
sweep_calibrate(struct sweep *s, struct sweep_bed *b)
{
	static struct cal_run c[CAL_MAX_RUNS]; /* ~60 KiB: not the stack */
	struct cmodel         m = s->m;
	struct fit            f;
	char                  where[600], why[300], *table;
	uint32_t              n;
	size_t                nc;
	double                worst;
	int                   rv;

	n = s->nnodes ? (uint32_t)s->nodes[0] : s->local ? 9 : 0;
	if (cal_bed(s, b, &n, where, sizeof(where)) != 0)
		return (1);
	nc = cal_runs(s, b, n, c);
	bed_down(b);
	if (nc == 0)
		return (1);
	snprintf(m.name, sizeof(m.name), "calibrated");
	if (cal_fit(c, nc, b->switch_s, &f, &m) != 0) {
		fprintf(stderr, "ocs-sweep: --calibrate: the runs show no "
		                "bandwidth to fit\n");
		return (1);
	}
	if ((table = malloc(32768)) == NULL)
		return (1);
	worst = report(c, nc, &f, &m, b->switch_s, where, table, 32768);
	fputs(table, stderr);
	if (conditions(c, nc, s, n, worst, &m, why, sizeof(why)) == 0 &&
	    worst > CAL_MAX_RESIDUAL)
		snprintf(why, sizeof(why),
		         "the fit misses a run by %.1f%% (over %.0f%%: these "
		         "runs are not this model's)",
		         100 * worst, 100 * CAL_MAX_RESIDUAL);
	else if (why[0])
		snprintf(why + strlen(why), sizeof(why) - strlen(why),
		         " in a calibration run: the CPU, not the links");
	rv = cal_write(s, &m, table, why);
	free(table);
	return (rv);
}

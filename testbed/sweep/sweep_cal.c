/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocs-sweep --calibrate: the model's parameters measured on a testbed.
 * A few verified runs (static without reconfiguration, ReTri and Bridge
 * reconfiguring before every phase, at two sizes) and, for each phase,
 * what the collectives library says it carries (the longest path h and
 * the busiest link's bytes L, from the same IR ocsd ran), then:
 *
 *   data time of a phase = alpha_h * h + beta * (L + (h - 1) * F)
 *                                  least squares over every phase, F the
 *                                  frame a relay holds whole (cost.h)
 *   alpha_s = (total - data - reconfigurations) / phases   what is left:
 *                                                    barriers, wake-ups
 *   reconf_overhead = reconfiguration time - delta   per reconfiguration
 *
 * and the model file (collectives/cmodel.h) with the runs, their times
 * and the fitted model's predictions in its comments.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collectives/a2a.h"
#include "collectives/cost.h"
#include "proto/base/units.h"
#include "testbed/sweep/sweep.h"

#define CAL_MAX_RUNS 16
#define CAL_MAX_PH   32
/* The agents' frame payload: ocsd's default chunk, which the runs use. */
#define CAL_FRAME 65536.0

struct cal_run {
	char     algo[16];
	uint64_t bytes;
	uint32_t nph;
	double   total;
	double   data[CAL_MAX_PH], reconf[CAL_MAX_PH];
	int      reconfigured[CAL_MAX_PH];
	uint32_t hops[CAL_MAX_PH];
	double   link[CAL_MAX_PH]; /* bytes, with store-and-forward */
};

/* The plan's phases as the model sees them (hops, busiest link). */
static int
plan_phases(struct cal_run *c, uint32_t n, char *err, size_t len)
{
	/* beta 1 and no latencies: a phase's cost is its bytes, the
	 * store-and-forward term's included. */
	struct cost_params cp = {0, 0, 1, 0, NULL, 0, CAL_FRAME};
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
	for (k = 0; k < c->nph; k++) {
		c->hops[k] = ph[k].hops;
		c->link[k] = ph[k].total;
	}
	return (0);
}

/* One calibration run, its report into c. */
static int
cal_run(const struct sweep_bed *b, uint32_t n, struct cal_run *c,
        const char *reconfig, char *err, size_t len)
{
	struct sweep_row r;
	json_t          *rep, *ph;
	size_t           k;

	memset(&r, 0, sizeof(r));
	snprintf(r.algo, sizeof(r.algo), "%s", c->algo);
	r.nodes = n;
	r.bytes = c->bytes;
	if (sweep_run_once(b, &r, reconfig, &rep, NULL, err, len) != 0)
		return (-1);
	ph = json_object_get(rep, "phases");
	c->total = json_real_value(json_object_get(rep, "total_s"));
	c->nph = (uint32_t)json_array_size(ph);
	for (k = 0; k < c->nph && k < CAL_MAX_PH; k++) {
		json_t *p = json_array_get(ph, k);

		c->data[k] = json_real_value(json_object_get(p, "data_s"));
		c->reconf[k] = json_real_value(json_object_get(p, "reconf_s"));
		c->reconfigured[k] =
		    k > 0 && json_is_true(json_object_get(p, "reconfigured"));
	}
	json_decref(rep);
	if (c->nph == 0 || c->nph > CAL_MAX_PH) {
		snprintf(err, len, "%s: %u phases in the report", c->algo,
		         c->nph);
		return (-1);
	}
	return (plan_phases(c, n, err, len));
}

/* The fit (see the top of the file); 0, or -1 if the runs say nothing
 * about the bandwidth. */
static int
fit(const struct cal_run *c, size_t nc, double delta, struct cmodel *m)
{
	double   shh = 0, shl = 0, sll = 0, shd = 0, sld = 0, det;
	double   left = 0, over = 0, ah, beta;
	uint32_t k, nph = 0, nrc = 0;
	size_t   i;

	for (i = 0; i < nc; i++)
		for (k = 0; k < c[i].nph; k++) {
			double h = c[i].hops[k], l = c[i].link[k];

			shh += h * h;
			shl += h * l;
			sll += l * l;
			shd += h * c[i].data[k];
			sld += l * c[i].data[k];
		}
	det = shh * sll - shl * shl;
	ah = det > 0 ? (shd * sll - sld * shl) / det : -1;
	beta = det > 0 ? (sld * shh - shd * shl) / det : -1;
	if (det <= 0) { /* no latency to see: the bytes alone */
		ah = 0;
		beta = sld / sll;
	} else if (ah < 0)
		/* Less than nothing a hop: a metered relay's bucket, full
		 * after the barrier, lets its depth through at once each
		 * phase.  The slope is still the line's rate; a fit through
		 * the origin would give it that burst as bandwidth. */
		ah = 0;
	if (!(beta > 0))
		return (-1);
	for (i = 0; i < nc; i++) {
		left += c[i].total;
		for (k = 0; k < c[i].nph; k++) {
			left -= c[i].data[k];
			if (k > 0 && c[i].reconfigured[k]) {
				left -= c[i].reconf[k];
				over += c[i].reconf[k] - delta;
				nrc++;
			}
		}
		nph += c[i].nph;
	}
	m->bps = 8 / beta;
	m->alpha_h = ah;
	m->alpha_s = fmax(0, left / nph);
	m->reconf_s = nrc ? fmax(0, over / nrc) : 0;
	return (0);
}

static double
predict(const struct cal_run *c, const struct cmodel *m, double delta)
{
	double   t = 0;
	uint32_t k;

	for (k = 0; k < c->nph; k++)
		t += m->alpha_s + m->alpha_h * c->hops[k] +
		     8 / m->bps * c->link[k] +
		     (k > 0 && c->reconfigured[k] ? delta + m->reconf_s : 0);
	return (t);
}

/* The table (stderr and the file's comments). */
static void
report(const struct cal_run *c, size_t nc, const struct cmodel *m,
       double delta, const char *where, char *buf, size_t len)
{
	char   a[32], b2[32], d[32], e[32], f[32];
	size_t i, o;
	time_t now = time(NULL);

	o = (size_t)snprintf(
	    buf, len,
	    "calibrated by ocs-sweep on %s, switch delay %s, %s"
	    "model: %s a link, alpha_s %s, alpha_h %s, reconf_overhead %s\n"
	    "run                  measured    model   measured/model\n",
	    where, unit_fmt_time(delta, a, sizeof(a)), ctime(&now),
	    unit_fmt_rate(m->bps, b2, sizeof(b2)),
	    unit_fmt_time(m->alpha_s, d, sizeof(d)),
	    unit_fmt_time(m->alpha_h, e, sizeof(e)),
	    unit_fmt_time(m->reconf_s, f, sizeof(f)));
	for (i = 0; i < nc && o < len; i++) {
		double p = predict(&c[i], m, delta);

		o += (size_t)snprintf(
		    buf + o, len - o, "%-7s %-10s %10.4f s %8.4f s   %.3f\n",
		    c[i].algo, unit_fmt_size(c[i].bytes, a, sizeof(a)),
		    c[i].total, p, c[i].total / p);
	}
}

int
sweep_calibrate(struct sweep *s, struct sweep_bed *b)
{
	static const char *const algo[] = {"static", "retri", "bridge"};
	struct cal_run           c[CAL_MAX_RUNS];
	struct cmodel            m = s->m;
	char                     err[1200], where[600], table[4096];
	uint64_t                 sizes[4] = {1u << 20, 16u << 20};
	uint32_t                 n;
	size_t                   i, j, nc = 0, ns = 2;
	int                      rv;

	n = s->nnodes ? (uint32_t)s->nodes[0] : s->local ? 9 : 0;
	for (i = 0; i < s->nbytes && i < 4; i++)
		sizes[i] = (uint64_t)s->bytes[i];
	ns = s->nbytes ? i : ns;
	if (s->local) {
		snprintf(m.name, sizeof(m.name), "guess");
		unit_parse_rate(s->rate, &m.bps);
		rv = bed_up(b, n, s->ndelay ? s->delay[0] : 1e-3, &m, err,
		            sizeof(err));
		snprintf(where, sizeof(where),
		         "a local testbed (%u agents, fibres at %s)", n,
		         s->rate);
	} else {
		rv = bed_attach(b, s->ocsd, err, sizeof(err));
		n = n ? n : b->nagents;
		snprintf(where, sizeof(where), "ocsd at %s (%u agents)",
		         s->ocsd, n);
	}
	if (rv != 0 || n < 3 || n > b->nagents) {
		if (rv == 0)
			snprintf(err, sizeof(err),
			         "%u agents to calibrate on, %u idle", n,
			         b->nagents);
		fprintf(stderr, "ocs-sweep: --calibrate: %s\n", err);
		bed_down(b);
		return (1);
	}
	for (i = 0; i < 3; i++)
		for (j = 0; j < ns; j++, nc++) {
			char sz[32];

			memset(&c[nc], 0, sizeof(c[nc]));
			snprintf(c[nc].algo, sizeof(c[nc].algo), "%s",
			         algo[i]);
			c[nc].bytes = sizes[j];
			fprintf(stderr,
			        "ocs-sweep: calibrating: %s, %u nodes, "
			        "%s a node (%zu/%zu)\n",
			        algo[i], n,
			        unit_fmt_size(sizes[j], sz, sizeof(sz)),
			        nc + 1, 3 * ns);
			if (cal_run(b, n, &c[nc], i ? "all" : "none", err,
			            sizeof(err)) != 0) {
				fprintf(stderr, "ocs-sweep: --calibrate: %s\n",
				        err);
				bed_down(b);
				return (1);
			}
		}
	bed_down(b);
	snprintf(m.name, sizeof(m.name), "calibrated");
	m.frame = CAL_FRAME;
	if (fit(c, nc, b->switch_s, &m) != 0) {
		fprintf(stderr, "ocs-sweep: --calibrate: the runs show no "
		                "bandwidth to fit\n");
		return (1);
	}
	report(c, nc, &m, b->switch_s, where, table, sizeof(table));
	fputs(table, stderr);
	if ((rv = cmodel_write(&m, s->cal_out, table)) != 0) {
		fprintf(stderr, "ocs-sweep: %s: %s\n", s->cal_out,
		        strerror(-rv));
		return (1);
	}
	fprintf(stderr, "ocs-sweep: the model is in %s\n", s->cal_out);
	return (0);
}

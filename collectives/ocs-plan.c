/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocs-plan: plan an All-to-All on a reconfigurable ring network offline.
 * Prints the optimal reconfiguration placement, the predicted time for
 * every number of reconfigurations, and optionally the phases, a
 * validation of the materialised schedule and a link-level simulation.
 * Exit 0 on success, 1 when the schedule fails validation or a runtime
 * limit is hit, 2 on bad usage.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "proto/base/version.h"
#include "collectives/a2a.h"
#include "collectives/plan_cli.h"
#include "collectives/sim.h"
#include "collectives/msccl.h"
#include "proto/chakra.h"
#include "collectives/skplan.h"
#include "collectives/tplan.h"
#include "proto/base/units.h"

/* Materialising beyond this many block ids (4 bytes each) is refused. */
#define PLAN_MAX_BLOCKS ((uint64_t)1 << 26)

struct plan {
	struct plan_opts     o;
	struct a2a           a;
	struct cost_params   cp;
	double               delta_k[PLAN_MAX_PHASES + 1];
	struct reconf_result res;
	uint8_t              before[PLAN_MAX_PHASES + 1];
	uint32_t             nph, r;
	double               predicted;
	/* With --validate / --phases / --simulate: */
	struct sched       s;
	int                built, valid;
	struct sched_verr  verr;
	struct cost_phase *pc;
	double             ir_cost, sim_cost, chunk;
	/* --planes: q planes of the rings' transceivers each (1: one a
	 * transceiver), the model both ways, and which was kept. */
	uint32_t pq, pn;
	double   ptogether, papart;
	int      pchosen;
};

static void
placement_str(const uint8_t *before, uint32_t nph, char *buf, size_t len)
{
	size_t   off = 0;
	uint32_t k;

	buf[0] = '\0';
	for (k = 1; k < nph && off + 12 < len; k++)
		if (before[k])
			off += (size_t)snprintf(buf + off, len - off, "%s%u",
			                        off ? "," : "", k);
	if (off == 0)
		snprintf(buf, len, "-");
}

static json_t *
placement_json(const uint8_t *before, uint32_t nph)
{
	json_t  *a = json_array();
	uint32_t k;

	for (k = 1; k < nph; k++)
		if (before[k])
			json_array_append_new(a, json_integer(k));
	return (a);
}

/* Order of a phase's transfers by source node (stable): index array. */
static uint32_t *
by_source(const struct sched *s, const struct sched_phase *ph)
{
	uint32_t *idx = malloc((ph->nxfer ? ph->nxfer : 1) * sizeof(*idx));
	uint32_t *cnt = calloc(s->n + 1, sizeof(*cnt));
	uint32_t  i;

	if (idx == NULL || cnt == NULL) {
		free(idx);
		free(cnt);
		return (NULL);
	}
	for (i = 0; i < ph->nxfer; i++)
		cnt[s->xf[ph->xfer_off + i].src + 1]++;
	for (i = 0; i < s->n; i++)
		cnt[i + 1] += cnt[i];
	for (i = 0; i < ph->nxfer; i++)
		idx[cnt[s->xf[ph->xfer_off + i].src]++] = i;
	free(cnt);
	return (idx);
}

/* R and L of ring 0; R2, L2 ... of the further rings (ports 2r, 2r+1:
 * ReTri of a larger radix, two-port Bruck). */
static const char *
port_name(uint16_t port, char *buf, size_t len)
{
	if (port == SCHED_PORT_R || port == SCHED_PORT_L)
		return (port == SCHED_PORT_R ? "R" : "L");
	snprintf(buf, len, "%c%u", port % 2 ? 'L' : 'R', port / 2u + 1);
	return (buf);
}

static int
print_phases_text(const struct plan *pl)
{
	const struct sched *s = &pl->s;
	char                t[32], pn[16];
	uint32_t            p, i, from = 0;

	for (p = 0; p < s->nph; p++) {
		const struct sched_phase *ph = &s->ph[p];
		const struct cost_phase  *c = &pl->pc[p];
		int32_t                   cfg = sched_cfg_of(s, p);
		uint32_t                 *idx;

		if (ph->cfg >= 0) {
			from = p;
			printf("phase %u: circuits set: rings of stride %u "
			       "(%u circuits)",
			       p, s->cfg[cfg].stride, s->cfg[cfg].ncirc);
		} else
			printf("phase %u: reuse circuits of phase %u (rings "
			       "of stride %u)",
			       p, from, s->cfg[cfg].stride);
		printf("; %u hop%s; %.0f B per direction; busiest link "
		       "%.0f B; %s\n",
		       c->hops, c->hops == 1 ? "" : "s", c->dir_bytes,
		       c->link_bytes, unit_fmt_time(c->total, t, sizeof(t)));
		if ((idx = by_source(s, ph)) == NULL)
			return (-ENOMEM);
		printf("  %6s %6s %4s %5s %12s\n", "node", "peer", "port",
		       "hops", "bytes");
		for (i = 0; i < ph->nxfer; i++) {
			const struct sched_xfer *x =
			    &s->xf[ph->xfer_off + idx[i]];

			printf(
			    "  %6u %6u %4s %5u %12llu\n", x->src, x->dst,
			    port_name(s->seg[x->seg_off].port, pn, sizeof(pn)),
			    sched_xfer_hops(s, x),
			    (unsigned long long)x->bytes);
		}
		free(idx);
	}
	return (0);
}

static json_t *
phases_json(const struct plan *pl)
{
	const struct sched *s = &pl->s;
	json_t             *arr = json_array();
	uint32_t            p, i;

	for (p = 0; p < s->nph; p++) {
		const struct sched_phase *ph = &s->ph[p];
		int32_t                   cfg = sched_cfg_of(s, p);
		json_t   *o = json_object(), *xs = json_array();
		uint32_t *idx = by_source(s, ph);

		if (idx == NULL) {
			json_decref(o);
			json_decref(xs);
			json_decref(arr);
			return (NULL);
		}
		json_object_set_new(o, "phase", json_integer(p));
		json_object_set_new(
		    o, "circuits",
		    json_string(ph->cfg >= 0 ? "set" : "reuse"));
		json_object_set_new(o, "stride",
		                    json_integer(s->cfg[cfg].stride));
		json_object_set_new(o, "hops", json_integer(pl->pc[p].hops));
		json_object_set_new(o, "link_bytes",
		                    json_real(pl->pc[p].link_bytes));
		json_object_set_new(o, "predicted_s",
		                    json_real(pl->pc[p].total));
		for (i = 0; i < ph->nxfer; i++) {
			const struct sched_xfer *x =
			    &s->xf[ph->xfer_off + idx[i]];
			json_t *t = json_object();
			char    pn[16];

			json_object_set_new(t, "src", json_integer(x->src));
			json_object_set_new(t, "dst", json_integer(x->dst));
			json_object_set_new(
			    t, "port",
			    json_string(port_name(s->seg[x->seg_off].port, pn,
			                          sizeof(pn))));
			json_object_set_new(
			    t, "hops", json_integer(sched_xfer_hops(s, x)));
			json_object_set_new(t, "blocks",
			                    json_integer(x->nblk));
			json_object_set_new(
			    t, "bytes", json_integer((json_int_t)x->bytes));
			json_array_append_new(xs, t);
		}
		free(idx);
		json_object_set_new(o, "transfers", xs);
		json_array_append_new(arr, o);
	}
	return (arr);
}

static int
print_json(const struct plan *pl)
{
	json_t  *o = json_object(), *byr = json_array();
	char    *txt;
	uint32_t R;

	json_object_set_new(o, "algo", json_string(pl->o.algo));
	json_object_set_new(
	    o, "radix",
	    json_integer(pl->a.radix ? pl->a.radix : pl->a.ops->radix));
	json_object_set_new(o, "transceivers",
	                    json_integer(2 * a2a_rings(&pl->a)));
	json_object_set_new(o, "nodes", json_integer(pl->o.nodes));
	json_object_set_new(o, "bytes", json_integer((json_int_t)pl->o.bytes));
	json_object_set_new(o, "phases", json_integer(pl->nph));
	json_object_set_new(o, "reconfigurations", json_integer(pl->r));
	json_object_set_new(o, "reconfigure_before",
	                    placement_json(pl->before, pl->nph));
	json_object_set_new(o, "predicted_s", json_real(pl->predicted));
	for (R = 0; R < pl->nph; R++) {
		json_t *e = json_object();

		if (!isfinite(pl->res.by_r[R])) {
			json_decref(e);
			continue;
		}
		json_object_set_new(e, "r", json_integer(R));
		json_object_set_new(e, "predicted_s",
		                    json_real(pl->res.by_r[R]));
		json_object_set_new(
		    e, "reconfigure_before",
		    placement_json(pl->res.place + (size_t)R * pl->nph,
		                   pl->nph));
		json_array_append_new(byr, e);
	}
	json_object_set_new(o, "by_r", byr);
	if (pl->o.validate) {
		json_object_set_new(o, "valid", json_boolean(pl->valid));
		if (!pl->valid)
			json_object_set_new(o, "error",
			                    json_string(pl->verr.msg));
	}
	if (pl->o.planes_mode)
		json_object_set_new(
		    o, "planes",
		    json_pack(
		        "{s:s, s:s, s:i, s:i, s:f, s:f}", "asked",
		        planes_name(pl->o.planes_mode), "kept",
		        pl->pchosen ? "apart" : "together", "planes",
		        (json_int_t)pl->pn, "transceivers_a_plane",
		        (json_int_t)(pl->pq >= 2 ? 2 * a2a_rings(&pl->a) : 1),
		        "together_s", pl->ptogether, "apart_s", pl->papart));
	if (pl->o.simulate) {
		json_object_set_new(o, "simulated_s", json_real(pl->sim_cost));
		json_object_set_new(o, "chunk_bytes", json_real(pl->chunk));
	}
	if (pl->o.phases) {
		json_t *ph = phases_json(pl);

		if (ph == NULL) {
			json_decref(o);
			return (-ENOMEM);
		}
		json_object_set_new(o, "phase_list", ph);
	}
	txt = json_dumps(o, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
	json_decref(o);
	if (txt == NULL)
		return (-ENOMEM);
	printf("%s\n", txt);
	free(txt);
	return (0);
}

static int
print_text(const struct plan *pl)
{
	char     a[32], b[32], c[32], d[32], place[256];
	uint32_t R;

	printf("%s: %u nodes, %u phase%s, %s per node\n", pl->o.algo,
	       pl->o.nodes, pl->nph, pl->nph == 1 ? "" : "s",
	       unit_fmt_size(pl->o.bytes, a, sizeof(a)));
	printf("model: %s, alpha-s %s, alpha-h %s, delta %s%s\n",
	       unit_fmt_rate(pl->o.rate, a, sizeof(a)),
	       unit_fmt_time(pl->o.alpha_s, b, sizeof(b)),
	       unit_fmt_time(pl->o.alpha_h, c, sizeof(c)),
	       pl->o.ndelay > 1 ? pl->o.delay_arg
	                        : unit_fmt_time(pl->o.delay[0], d, sizeof(d)),
	       pl->o.ndelay > 1 ? " (per boundary)" : "");
	if (pl->o.frame > 0)
		printf("relays store and forward %s frames\n",
		       unit_fmt_size((uint64_t)pl->o.frame, a, sizeof(a)));
	placement_str(pl->before, pl->nph, place, sizeof(place));
	printf("reconfigure before phases: %s (R = %u, %s)\n", place, pl->r,
	       pl->o.reconf == PLAN_RECONF_AUTO ? "optimal" : "as requested");
	printf("predicted: %s\n", unit_fmt_time(pl->predicted, a, sizeof(a)));
	if (pl->o.planes_mode)
		printf("planes: %u of %u transceivers each, together %s, "
		       "apart %s (%.2fx): %s\n",
		       pl->pn, pl->pq >= 2 ? 2 * a2a_rings(&pl->a) : 1,
		       unit_fmt_time(pl->ptogether, b, sizeof(b)),
		       unit_fmt_time(pl->papart, c, sizeof(c)),
		       pl->papart / pl->ptogether,
		       pl->pchosen ? "apart" : "together");
	if (pl->o.simulate)
		printf("simulated: %s (chunks of %.0f B)\n",
		       unit_fmt_time(pl->sim_cost, a, sizeof(a)), pl->chunk);
	if (pl->o.validate)
		printf("valid: %s\n", pl->valid ? "yes, every block delivered"
		                                : pl->verr.msg);
	printf("\n  %3s %14s  %s\n", "R", "best predicted",
	       "reconfigure before");
	for (R = 0; R < pl->nph; R++) {
		if (!isfinite(pl->res.by_r[R]))
			continue;
		placement_str(pl->res.place + (size_t)R * pl->nph, pl->nph,
		              place, sizeof(place));
		printf("%c %3u %14s  %s\n", R == pl->res.rstar ? '*' : ' ', R,
		       unit_fmt_time(pl->res.by_r[R], a, sizeof(a)), place);
	}
	if (pl->o.phases) {
		printf("\n");
		return (print_phases_text(pl));
	}
	return (0);
}

/* Materialise, validate, cost and simulate the chosen placement. */
static int
materialise(struct plan *pl)
{
	struct sim_params sp;
	uint64_t          nb = a2a_ir_blocks(&pl->a);
	int               rv;

	if (nb > PLAN_MAX_BLOCKS) {
		fprintf(
		    stderr,
		    "ocs-plan: --nodes \"%u\": %s would move %llu block ids, "
		    "more than the %llu this tool materialises for "
		    "--validate/--phases/--simulate\n",
		    pl->o.nodes, pl->o.algo, (unsigned long long)nb,
		    (unsigned long long)PLAN_MAX_BLOCKS);
		return (-COLL_ETOOBIG);
	}
	rv = a2a_build(&pl->a, pl->o.bytes, pl->before, PLAN_MAX_BLOCKS,
	               &pl->s);
	if (rv != 0) {
		fprintf(stderr, "ocs-plan: building the schedule: %s\n",
		        coll_strerror(rv));
		return (rv);
	}
	pl->built = 1;
	pl->valid = sched_validate(&pl->s, &pl->verr) == 0;
	if (!pl->valid) {
		fprintf(stderr, "ocs-plan: invalid schedule: %s\n",
		        pl->verr.msg);
		return (0);
	}
	if ((pl->pc = calloc(pl->nph, sizeof(*pl->pc))) == NULL)
		return (-ENOMEM);
	if ((rv = cost_sched(&pl->s, &pl->cp, &pl->ir_cost, pl->pc)) != 0) {
		fprintf(stderr, "ocs-plan: costing the schedule: %s\n",
		        coll_strerror(rv));
		return (rv);
	}
	/* The profile and the IR are two computations of one model. */
	if (fabs(pl->ir_cost - pl->predicted) >
	    1e-9 * fmax(1e-12, pl->predicted)) {
		fprintf(
		    stderr,
		    "ocs-plan: internal error: schedule costs %.12g s, the "
		    "model predicted %.12g s\n",
		    pl->ir_cost, pl->predicted);
		return (-EPROTO);
	}
	if (pl->o.simulate) {
		sp.cost = pl->cp;
		pl->chunk = pl->o.chunk ? (double)pl->o.chunk
		                        : fmax(64.0, pl->o.bytes / 256.0);
		sp.chunk_bytes = pl->chunk;
		if ((rv = sim_run(&pl->s, &sp, &pl->sim_cost, NULL)) != 0) {
			fprintf(stderr, "ocs-plan: simulation: %s\n",
			        coll_strerror(rv));
			return (rv);
		}
	}
	return (0);
}

/* --export msccl FILE: the validated schedule as MSCCL XML; --export
 * chakra PREFIX: as Chakra traces, reconfigurations lasting delta. */
static int export(struct plan *pl)
{
	struct msccl_opts mo;
	char              err[512];

	if (strcmp(pl->o.export_fmt, "chakra") == 0) {
		if (chakra_export(&pl->s, pl->cp.delta, pl->o.export_file, err,
		                  sizeof(err)) != 0) {
			fprintf(stderr, "ocs-plan: --export chakra: %s\n",
			        err);
			return (1);
		}
		return (0);
	}
	plan_msccl_opts(&pl->o, &mo);
	if (msccl_write(&pl->s, pl->o.bytes, &mo, pl->o.export_file, err,
	                sizeof(err)) != 0) {
		fprintf(stderr, "ocs-plan: --export %s\n", err);
		return (1);
	}
	return (0);
}

/*
 * --planes: T transceivers (--transceivers, default the rings') as q
 * planes of the rings' P each, the schedule spread over them (q >= 2),
 * or, q = 1, every transceiver its own plane (a fabric with one switch
 * a transceiver: ReTri's ring directions apart).  Priced both ways.
 */
static int
plan_planes(struct plan *pl)
{
	uint32_t     P = 2 * a2a_rings(&pl->a), T = pl->o.planes, t;
	uint8_t      plane[SCHED_MAX_PLANES];
	struct sched out;
	int          rv;

	if (T == 0)
		T = P;
	if (T % P != 0 || T > SCHED_MAX_PLANES) {
		fprintf(stderr,
		        "ocs-plan: --transceivers %u: a multiple of the %u "
		        "the algorithm's rings use, at most %d\n",
		        T, P, SCHED_MAX_PLANES);
		return (2);
	}
	if (!pl->built && materialise(pl) != 0)
		return (1);
	pl->pq = T / P;
	if (pl->pq >= 2) {
		rv = planes_spread_choose(&pl->s, pl->pq, &pl->cp,
		                          pl->o.planes_mode, &out,
		                          &pl->ptogether, &pl->papart);
		sched_free(&out);
		pl->pn = pl->pq;
	} else {
		for (t = 0; t < P; t++)
			plane[t] = (uint8_t)t;
		pl->pn = P;
		rv = sched_set_planes(&pl->s, P, plane);
		if (rv == 0)
			rv = planes_choose(&pl->s, &pl->cp, pl->o.planes_mode,
			                   &pl->ptogether, &pl->papart);
	}
	if (rv < 0) {
		fprintf(stderr, "ocs-plan: --planes: %s\n", coll_strerror(rv));
		return (1);
	}
	pl->pchosen = rv;
	return (0);
}

static int
plan_run(struct plan *pl)
{
	char     err[512];
	uint32_t k;
	int      rv;

	if ((rv = a2a_init_radix(&pl->a, pl->o.algo, pl->o.nodes,
	                         pl->o.radix)) != 0) {
		fprintf(stderr, "ocs-plan: %s with %u nodes: %s\n", pl->o.algo,
		        pl->o.nodes, coll_strerror(rv));
		return (1);
	}
	pl->nph = a2a_nphases(&pl->a);
	if (plan_check(&pl->o, pl->nph, err, sizeof(err)) != 0) {
		fprintf(stderr, "ocs-plan: %s\n", err);
		return (2);
	}
	pl->cp.alpha_s = pl->o.alpha_s;
	pl->cp.alpha_h = pl->o.alpha_h;
	pl->cp.beta = 8.0 / pl->o.rate;
	pl->cp.delta = pl->o.delay[0];
	pl->cp.sf_bytes = pl->o.frame;
	if (pl->o.ndelay > 1) {
		for (k = 1; k < pl->nph; k++)
			pl->delta_k[k] = pl->o.delay[k - 1];
		pl->cp.delta_k = pl->delta_k;
		pl->cp.ndelta_k = pl->nph;
	}
	if ((rv = a2a_optimise(&pl->a, pl->o.bytes, &pl->cp, &pl->res)) != 0) {
		fprintf(stderr, "ocs-plan: optimising: %s\n",
		        coll_strerror(rv));
		return (1);
	}
	switch (pl->o.reconf) {
	case PLAN_RECONF_AUTO:
		memcpy(pl->before,
		       pl->res.place + (size_t)pl->res.rstar * pl->nph,
		       pl->nph);
		break;
	case PLAN_RECONF_NONE:
		break;
	case PLAN_RECONF_ALL:
		memset(pl->before + 1, 1, pl->nph - 1);
		break;
	case PLAN_RECONF_LIST:
		for (k = 0; k < pl->o.nrlist; k++)
			pl->before[pl->o.rlist[k]] = 1;
		break;
	}
	pl->r = reconf_count(pl->nph, pl->before);
	if ((rv = a2a_predict(&pl->a, pl->o.bytes, &pl->cp, pl->before,
	                      &pl->predicted)) != 0) {
		fprintf(stderr, "ocs-plan: predicting: %s\n",
		        coll_strerror(rv));
		return (1);
	}
	if (pl->o.planes_mode && (rv = plan_planes(pl)) != 0)
		return (rv);
	if (!pl->built && (pl->o.validate || pl->o.phases || pl->o.simulate ||
	                   pl->o.export_fmt)) {
		if (materialise(pl) != 0)
			return (1);
		if (!pl->valid) {
			pl->o.phases = pl->o.simulate = 0;
			if (pl->o.json)
				print_json(pl);
			return (1);
		}
	}
	rv = pl->o.json ? print_json(pl) : print_text(pl);
	if (rv != 0 || fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "ocs-plan: writing output failed\n");
		return (1);
	}
	return (pl->o.export_fmt ? export(pl) : 0);
}

int
main(int argc, char **argv)
{
	struct plan *pl;
	char         err[512];
	int          ex;

	if (argc == 2 && strcmp(argv[1], "--version") == 0) {
		printf("ocs-plan %s\n", OCS_VERSION);
		return (0);
	}
	if ((pl = calloc(1, sizeof(*pl))) == NULL) {
		fprintf(stderr, "ocs-plan: out of memory\n");
		return (1);
	}
	if (plan_parse(argc, argv, &pl->o, err, sizeof(err)) != 0) {
		fprintf(stderr, "ocs-plan: %s\n", err);
		free(pl);
		return (2);
	}
	if (pl->o.help) {
		fputs(plan_usage(), stdout);
		free(pl);
		return (0);
	}
	pl->o.chakra = chakra_export;
	if (pl->o.matrix != NULL) {
		ex = skplan_run(&pl->o);
		free(pl);
		return (ex);
	}
	if (pl->o.topology != NULL) {
		ex = tplan_run(&pl->o);
		free(pl);
		return (ex);
	}
	ex = plan_run(pl);
	reconf_free(&pl->res);
	sched_free(&pl->s);
	a2a_fini(&pl->a);
	free(pl->pc);
	free(pl);
	return (ex);
}

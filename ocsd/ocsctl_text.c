/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocsctl's text output (see ocsctl.h): tables for people, sorted the way
 * people read them (hosts and transceivers in natural order, h2 before
 * h10), and with -br one line per object, for grep and awk.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ocsd/ocsctl.h"
#include "proto/base/units.h"

/* A sorted copy of n pointers (free it); NULL when out of memory, and the
 * caller prints them in the order they came. */
static void *
sorted(void *const *v, size_t n, int (*cmp)(const void *, const void *))
{
	void **c = n ? malloc(n * sizeof(*c)) : NULL;

	if (c == NULL)
		return (NULL);
	memcpy(c, v, n * sizeof(*c));
	qsort(c, n, sizeof(*c), cmp);
	return (c);
}

static int
by_host(const void *a, const void *b)
{
	return (strverscmp((*(Ocs__AgentInfo *const *)a)->host,
	                   (*(Ocs__AgentInfo *const *)b)->host));
}

static int
by_circuit(const void *a, const void *b)
{
	return (strverscmp((*(Ocs__Circuit *const *)a)->a,
	                   (*(Ocs__Circuit *const *)b)->a));
}

static int
by_trx(const void *a, const void *b)
{
	return (strverscmp((*(Ocs__Transceiver *const *)a)->name,
	                   (*(Ocs__Transceiver *const *)b)->name));
}

static void
t_switch(const Ocs__SwitchInfo *s)
{
	printf("switch %s %s: %s", s->driver, s->address,
	       s->connected ? "connected" : "NOT CONNECTED");
	if (s->has_ports)
		printf(", %ux%u", s->ports,
		       s->has_egress ? s->egress : s->ports);
	if (s->has_switch_ms)
		printf(", switching time %u ms", s->switch_ms);
	if (s->has_last_op_ms && s->last_op_ms > 0)
		printf(", last operation %.2f ms", s->last_op_ms);
	printf("\n");
	if (s->last_error)
		printf("last error: %s\n", s->last_error);
	if (s->warning)
		printf("warning: %s\n", s->warning);
}

static void
t_patches(const char *title, Ocs__Patch **p, size_t n, int brief)
{
	size_t i;

	if (!brief)
		printf("%s (%zu):\n", title, n);
	if (n && !brief)
		printf("  %5s %5s  %-16s %-16s\n", "in", "out", "from (TX)",
		       "to (RX)");
	for (i = 0; i < n; i++)
		printf(brief ? "%u %u %s %s\n" : "  %5u %5u  %-16s %-16s\n",
		       p[i]->in, p[i]->out, p[i]->from ? p[i]->from : "-",
		       p[i]->to ? p[i]->to : "-");
}

static void
t_sync(const Ocs__CtlReply *r)
{
	if (!r->has_in_sync && r->sw && !r->sw->connected)
		printf("map: unknown while the switch is not connected\n");
	if (!r->has_in_sync)
		return;
	if (r->in_sync)
		printf("map: switch matches the desired map");
	else
		printf("map: DIVERGED from the desired map ('ocsctl map "
		       "diff')");
	if (r->has_live_age_ms)
		printf(" (read back %.1f s ago)", r->live_age_ms / 1000.0);
	printf("\n");
}

static void
t_circuits(const Ocs__CtlReply *r, int brief)
{
	Ocs__Circuit **c =
	    sorted((void *const *)r->circuits, r->n_circuits, by_circuit);
	Ocs__Circuit **v = c ? c : r->circuits;
	size_t         i;

	if (!brief)
		printf("circuits (%zu):\n", r->n_circuits);
	for (i = 0; i < r->n_circuits; i++)
		printf(brief ? "%s %s %s\n" : "  %-16s %s %s\n", v[i]->a,
		       v[i]->complete ? "<->" : " ->", v[i]->b);
	free(c);
}

static void
t_cabling(const Ocs__CtlReply *r, int brief)
{
	Ocs__Transceiver **c =
	    sorted((void *const *)r->cabling, r->n_cabling, by_trx);
	Ocs__Transceiver **v = c ? c : r->cabling;
	size_t             i;

	if (!brief)
		printf("transceivers (%zu):\n", r->n_cabling);
	for (i = 0; i < r->n_cabling; i++)
		printf(brief ? "%s %u %u\n"
		             : "  %-16s TX ingress %u, RX egress %u\n",
		       v[i]->name, v[i]->in, v[i]->out);
	free(c);
}

static int
t_show(const Ocs__CtlReply *r, const struct out_opts *po)
{
	unsigned m = po->show ? po->show : ~0u;

	/* Brief without a part named: the circuits, one a line. */
	if (po->brief && !po->show)
		m = SHOW_CIRCUITS;
	if ((m & SHOW_SWITCH) && r->sw && !po->brief)
		t_switch(r->sw);
	if ((m & SHOW_SWITCH) && !po->brief)
		t_sync(r);
	if (m & SHOW_CIRCUITS)
		t_circuits(r, po->brief);
	if (m & SHOW_PATCHES)
		t_patches("patches on the switch", r->live, r->n_live,
		          po->brief);
	if (m & SHOW_CABLING)
		t_cabling(r, po->brief);
	return (0);
}

static int
t_status(const Ocs__CtlReply *r, const struct out_opts *po)
{
	if (po->brief) {
		printf("%s %s",
		       r->sw && r->sw->connected ? "connected" : "down",
		       !r->has_in_sync ? "unknown"
		       : r->in_sync    ? "in-sync"
		                       : "diverged");
		if (r->message)
			printf(" %s", r->message);
		printf("\n");
		return (0);
	}
	if (r->sw)
		t_switch(r->sw);
	t_sync(r);
	if (r->has_uptime_s)
		printf("ocsd up %llu s\n", (unsigned long long)r->uptime_s);
	if (r->message)
		printf("%s\n", r->message);
	return (0);
}

static int
t_diff(const Ocs__CtlReply *r, const struct out_opts *po)
{
	if (!po->brief)
		t_sync(r);
	t_patches("only on the switch", r->only_live, r->n_only_live,
	          po->brief);
	t_patches("only in the desired map", r->only_desired,
	          r->n_only_desired, po->brief);
	return (0);
}

static int
t_agents(const Ocs__CtlReply *r, const struct out_opts *po)
{
	Ocs__AgentInfo **c =
	    sorted((void *const *)r->agents, r->n_agents, by_host);
	Ocs__AgentInfo **v = c ? c : r->agents;
	size_t           i;

	if (!po->brief)
		printf("%6s  %-20s %5s  %-8s %6s %10s  %s\n", "agent", "host",
		       "trx", "state", "fibres", "memory", "seen");
	for (i = 0; i < r->n_agents; i++) {
		const Ocs__AgentInfo *a = v[i];
		char                  fib[24], mem[32];

		snprintf(fib, sizeof(fib), "%u/%u",
		         a->has_fibres_up ? a->fibres_up : 0, a->transceivers);
		if (a->has_mem_limit)
			unit_fmt_size(a->mem_limit, mem, sizeof(mem));
		else
			snprintf(mem, sizeof(mem), "-");
		if (po->brief)
			printf("%s %s %s\n", a->host, a->state, fib);
		else
			printf("%6u  %-20s %5u  %-8s %6s %10s  %.1f s "
			       "ago%s%s%s%s%s%s%s\n",
			       a->agent_id, a->host, a->transceivers, a->state,
			       fib, mem, a->seen_ms_ago / 1000.0,
			       a->transport ? "  " : "",
			       a->transport ? a->transport : "",
			       a->ifaces ? " " : "",
			       a->ifaces ? a->ifaces : "",
			       a->has_link && !a->link &&
			               strcmp(a->state, "lost") != 0
			           ? "  not attached"
			           : "",
			       a->link_peer && a->link ? "  link from " : "",
			       a->link_peer && a->link ? a->link_peer : "");
		if (!po->brief && a->has_attach_refused)
			printf("%6s  %s: %llu attach%s refused while its link "
			       "was up\n",
			       "", a->host,
			       (unsigned long long)a->attach_refused,
			       a->attach_refused == 1 ? "" : "es");
		if (!po->brief && a->down)
			printf("%6s  %s: %s\n", "", a->host, a->down);
	}
	free(c);
	return (0);
}

static int
t_message(const Ocs__CtlReply *r, const struct out_opts *po)
{
	(void)po;
	if (r->message)
		printf("%s\n", r->message);
	return (0);
}

/* Every port: power, failed, peer, transceiver; -br: lit ones only. */
static int
t_ports(const Ocs__CtlReply *r, const struct out_opts *po)
{
	size_t i;
	char   dbm[16], peer[16];

	if (!po->brief)
		printf("%5s %-7s %9s %-6s %5s  %s\n", "port", "side", "dBm",
		       "state", "peer", "transceiver");
	for (i = 0; i < r->n_ports; i++) {
		const Ocs__PortInfo *p = r->ports[i];

		if (p->has_dbm)
			snprintf(dbm, sizeof(dbm), "%.1f", p->dbm);
		else
			snprintf(dbm, sizeof(dbm), "-");
		snprintf(peer, sizeof(peer), p->has_peer ? "%u" : "-",
		         p->peer);
		if (po->brief) {
			if (p->failed || (p->has_dbm && p->dbm > -40))
				printf("%u %s %s%s\n", p->port, dbm, peer,
				       p->failed ? " FAILED" : "");
			continue;
		}
		printf("%5u %-7s %9s %-6s %5s  %s\n", p->port,
		       p->ingress ? "ingress" : "egress", dbm,
		       p->failed ? "FAILED" : "ok", peer,
		       p->trx ? p->trx : "-");
	}
	return (0);
}

/* The measured phases beside the model's prediction. */
static void
t_phases(const Ocs__RunReport *rr)
{
	char   a[32], b[32], c[32], d[32], e[32];
	size_t i;

	printf("%5s  %12s %12s %12s %12s %12s\n", "phase", "reconf", "data",
	       "barrier", "bytes", "predicted");
	for (i = 0; i < rr->n_phases; i++) {
		const Ocs__PhaseReport *p = rr->phases[i];

		printf(
		    "%5u  %11s%c %12s %12s %12s %12s\n", p->phase,
		    p->reconfigured ? unit_fmt_time(p->reconf_s, a, sizeof(a))
		                    : "-",
		    p->reconfigured && p->phase == 0 ? '*' : ' ',
		    unit_fmt_time(p->data_s, b, sizeof(b)),
		    p->reconfigured ? unit_fmt_time(p->barrier_s, c, sizeof(c))
		                    : "-",
		    unit_fmt_size(p->bytes, d, sizeof(d)),
		    unit_fmt_time(p->predicted_s, e, sizeof(e)));
	}
}

/* Where the time outside the phases went: the slowest setup and
 * teardown, and which host was slowest moving data. */
static void
t_timeline(const Ocs__RunReport *rr)
{
	const Ocs__AgentTimeline *su = NULL, *td = NULL, *dt = NULL;
	double                    data_max = -1;
	char                      a[32], b[32], c[32];
	size_t                    i, k;

	for (i = 0; i < rr->n_timeline; i++) {
		const Ocs__AgentTimeline *t = rr->timeline[i];
		double                    data = 0;

		if (su == NULL || t->setup_s > su->setup_s)
			su = t;
		if (td == NULL || t->teardown_s > td->teardown_s)
			td = t;
		for (k = 0; k < t->n_phases; k++)
			data += t->phases[k]->data_s;
		if (data > data_max) {
			data_max = data;
			dt = t;
		}
	}
	if (su == NULL)
		return;
	printf("agents: setup up to %s (%s), teardown up to %s (%s), most "
	       "time in data %s (%s)\n",
	       unit_fmt_time(su->setup_s, a, sizeof(a)), su->host,
	       unit_fmt_time(td->teardown_s, b, sizeof(b)), td->host,
	       unit_fmt_time(data_max, c, sizeof(c)), dt->host);
}

/* Was the switch reconfigured before phase k? */
static int
reconfigured(const Ocs__RunReport *rr, uint32_t k)
{
	size_t i;

	for (i = 0; i < rr->n_reconfigure_before; i++)
		if (rr->reconfigure_before[i] == k)
			return (1);
	return (0);
}

/* What libpcap on the switch's ports saw (run --capture). */
static void
t_capture(const Ocs__CaptureReport *c, const Ocs__RunReport *rr)
{
	size_t i;
	char   a[32];

	if (c == NULL)
		return;
	printf("capture: %llu frames on the switch's ports, unlit-circuit "
	       "frames: %llu",
	       (unsigned long long)c->frames, (unsigned long long)c->unlit);
	if (c->unlit && c->has_first_unlit_phase)
		printf(" (the first in phase %u, from node %u)",
		       c->first_unlit_phase, c->first_unlit_node);
	for (i = 0; i < c->n_gaps; i++)
		printf("%s%u%s: %s",
		       i ? ", "
		         : "\nno light between phases, the shortest over "
		           "ports (* reconfigured): ",
		       c->gaps[i]->phase,
		       reconfigured(rr, c->gaps[i]->phase) ? "*" : "",
		       unit_fmt_time(c->gaps[i]->seconds, a, sizeof(a)));
	printf("\n");
}

static int
t_report(const Ocs__CtlReply *r, const struct out_opts *po)
{
	const Ocs__RunReport *rr = r->report;
	char                  a[32], b[32], c[32], d[32];
	size_t                i;

	if (rr == NULL)
		return (t_message(r, po));
	if (po->brief) {
		printf("%llu %s %u %llu %.6f %.6f %llu %llu\n",
		       (unsigned long long)rr->run_id, rr->algo, rr->nodes,
		       (unsigned long long)rr->bytes, rr->total_s,
		       rr->predicted_s,
		       (unsigned long long)rr->blocks_verified,
		       (unsigned long long)rr->errors);
		return (0);
	}
	if (rr->matrix)
		printf("run %llu: %s on %s, %u nodes, up to %s per node, "
		       "reconfigure before",
		       (unsigned long long)rr->run_id, rr->algo, rr->matrix,
		       rr->nodes, unit_fmt_size(rr->bytes, a, sizeof(a)));
	else if (rr->topology)
		printf("run %llu: %s on %s, %u nodes, %s output per node, "
		       "reconfigure before",
		       (unsigned long long)rr->run_id, rr->algo, rr->topology,
		       rr->nodes, unit_fmt_size(rr->bytes, a, sizeof(a)));
	else
		printf("run %llu: %s, %u nodes, %s per node, reconfigure "
		       "before",
		       (unsigned long long)rr->run_id, rr->algo, rr->nodes,
		       unit_fmt_size(rr->bytes, a, sizeof(a)));
	if (rr->n_reconfigure_before == 0)
		printf(" -");
	for (i = 0; i < rr->n_reconfigure_before; i++)
		printf("%s%u", i ? "," : " ", rr->reconfigure_before[i]);
	printf("\nmodel: %s, alpha-s %s, alpha-h %s, delta %s\n",
	       unit_fmt_rate(rr->bandwidth_bps, a, sizeof(a)),
	       unit_fmt_time(rr->alpha_s, b, sizeof(b)),
	       unit_fmt_time(rr->alpha_h, c, sizeof(c)),
	       unit_fmt_time(rr->delta_s, d, sizeof(d)));
	t_phases(rr);
	printf("total  %s (model %s); * phase 0's circuits are set up before "
	       "the collective\n",
	       unit_fmt_time(rr->total_s, a, sizeof(a)),
	       unit_fmt_time(rr->predicted_s, b, sizeof(b)));
	if (rr->has_wall_s)
		printf("end to end %s (plans, buffers, the switch put back)\n",
		       unit_fmt_time(rr->wall_s, a, sizeof(a)));
	t_timeline(rr);
	if (rr->aborted)
		printf("aborted: %s\n", rr->aborted);
	t_capture(r->capture, rr);
	printf("verified: %llu blocks, %llu errors\n",
	       (unsigned long long)rr->blocks_verified,
	       (unsigned long long)rr->errors);
	return (0);
}

/* The runs kept, one a line. */
static int
t_runs(const Ocs__CtlReply *r, const struct out_opts *po)
{
	char   when[32], a[32], b[32], c[32];
	size_t i;

	if (!po->brief)
		printf("%-20s %-19s %-7s %5s %10s %12s %12s  %s\n", "run",
		       "started", "algo", "nodes", "bytes", "total", "model",
		       "outcome");
	for (i = 0; i < r->n_runs; i++) {
		const Ocs__RunReport *rr = r->runs[i];
		time_t                t = (time_t)(rr->started_unix_ms / 1000);
		struct tm             tm;

		if (rr->has_started_unix_ms && localtime_r(&t, &tm))
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
		else
			snprintf(when, sizeof(when), "-");
		if (po->brief) {
			printf("%llu %s %u %llu %s\n",
			       (unsigned long long)rr->run_id, rr->algo,
			       rr->nodes, (unsigned long long)rr->bytes,
			       rr->aborted  ? "aborted"
			       : rr->errors ? "errors"
			                    : "verified");
			continue;
		}
		printf("%-20llu %-19s %-7s %5u %10s %12s %12s  %s\n",
		       (unsigned long long)rr->run_id, when, rr->algo,
		       rr->nodes, unit_fmt_size(rr->bytes, a, sizeof(a)),
		       unit_fmt_time(rr->total_s, b, sizeof(b)),
		       unit_fmt_time(rr->predicted_s, c, sizeof(c)),
		       rr->aborted  ? rr->aborted
		       : rr->errors ? "ERRORS"
		                    : "verified");
	}
	return (0);
}

static void
t_error(const char *msg)
{
	fprintf(stderr, "ocsctl: %s\n", msg);
}

const struct output output_text = {
    .error = t_error,
    .print =
        {
            [OUT_SHOW] = t_show,
            [OUT_STATUS] = t_status,
            [OUT_DIFF] = t_diff,
            [OUT_AGENTS] = t_agents,
            [OUT_MESSAGE] = t_message,
            [OUT_REPORT] = t_report,
            [OUT_PORTS] = t_ports,
            [OUT_RUNS] = t_runs,
        },
};

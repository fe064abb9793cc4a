/* SPDX-License-Identifier: BSD-2-Clause */
/* ocsctl's text tables (see ocsctl.h). */
#include <stdio.h>

#include "ocsd/ocsctl.h"
#include "proto/base/units.h"

static void
t_switch(const Ocs__SwitchInfo *s)
{
	printf("switch %s %s: %s", s->driver, s->address,
	       s->connected ? "connected" : "NOT CONNECTED");
	if (s->has_ports)
		printf(", %ux%u", s->ports, s->ports);
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
t_patches(const char *title, Ocs__Patch **p, size_t n)
{
	size_t i;

	printf("%s (%zu):\n", title, n);
	if (n)
		printf("  %5s %5s  %-16s %-16s\n", "in", "out", "from (TX)",
		       "to (RX)");
	for (i = 0; i < n; i++)
		printf("  %5u %5u  %-16s %-16s\n", p[i]->in, p[i]->out,
		       p[i]->from ? p[i]->from : "-",
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

static int
t_show(const Ocs__CtlReply *r)
{
	size_t i;

	if (r->sw)
		t_switch(r->sw);
	t_sync(r);
	printf("circuits (%zu):\n", r->n_circuits);
	for (i = 0; i < r->n_circuits; i++)
		printf("  %-16s %s %s\n", r->circuits[i]->a,
		       r->circuits[i]->complete ? "<->" : " ->",
		       r->circuits[i]->b);
	t_patches("patches on the switch", r->live, r->n_live);
	printf("transceivers (%zu):\n", r->n_cabling);
	for (i = 0; i < r->n_cabling; i++)
		printf("  %-16s TX ingress %u, RX egress %u\n",
		       r->cabling[i]->name, r->cabling[i]->in,
		       r->cabling[i]->out);
	return (0);
}

static int
t_status(const Ocs__CtlReply *r)
{
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
t_diff(const Ocs__CtlReply *r)
{
	t_sync(r);
	t_patches("only on the switch", r->only_live, r->n_only_live);
	t_patches("only in the desired map", r->only_desired,
	          r->n_only_desired);
	return (0);
}

static int
t_agents(const Ocs__CtlReply *r)
{
	size_t i;

	printf("%6s  %-20s %5s  %-8s %6s  %s\n", "agent", "host", "trx",
	       "state", "fibres", "seen");
	for (i = 0; i < r->n_agents; i++) {
		const Ocs__AgentInfo *a = r->agents[i];
		char                  fib[24];

		snprintf(fib, sizeof(fib), "%u/%u",
		         a->has_fibres_up ? a->fibres_up : 0, a->transceivers);
		printf("%6u  %-20s %5u  %-8s %6s  %.1f s ago\n", a->agent_id,
		       a->host, a->transceivers, a->state, fib,
		       a->seen_ms_ago / 1000.0);
	}
	return (0);
}

static int
t_message(const Ocs__CtlReply *r)
{
	if (r->message)
		printf("%s\n", r->message);
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

static int
t_report(const Ocs__CtlReply *r)
{
	const Ocs__RunReport *rr = r->report;
	char                  a[32], b[32], c[32], d[32];
	size_t                i;

	if (rr == NULL)
		return (t_message(r));
	printf("run %llu: %s, %u nodes, %s per node, reconfigure before",
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
	printf("verified: %llu blocks, %llu errors\n",
	       (unsigned long long)rr->blocks_verified,
	       (unsigned long long)rr->errors);
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
        },
};

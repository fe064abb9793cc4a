/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocsctl's answers, each field written once (ocsctl_out.h): tables for
 * people, sorted the way people read them (hosts and transceivers in
 * natural order, h2 before h10), with -br one line per object for grep
 * and awk, and with -j every part of the reply under one stable key
 * each.  A run's report is the one schema of ocsctl -j, ocsctl runs -j
 * and STATE/runs.jsonl (proto/report.c writes it); its text is here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ocsd/ocsctl.h"
#include "proto/base/units.h"
#include "proto/report.h"

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

/* ---- the switch and its maps ---------------------------------------- */

static void
p_switch(struct out *o, const Ocs__SwitchInfo *s)
{
	out_obj(o, "switch");
	if (s->name != NULL) {
		out_str(o, "name", "switch %s:", s->name);
		out_str(o, "driver", " %s", s->driver);
	} else
		out_str(o, "driver", "switch %s", s->driver);
	out_str(o, "address", " %s", s->address);
	out_bool(o, "connected", ": %s", s->connected, "connected",
	         "NOT CONNECTED");
	if (s->has_ports) {
		out_u64(o, "ports", ", %llux", s->ports);
		out_u64(o, s->has_egress ? "egress" : NULL, "%llu",
		        s->has_egress ? s->egress : s->ports);
	}
	if (s->has_switch_ms)
		out_u64(o, "switch_ms", ", switching time %llu ms",
		        s->switch_ms);
	if (s->has_last_op_ms)
		out_dbl(o, "last_op_ms",
		        s->last_op_ms > 0 ? ", last operation %.2f ms" : NULL,
		        s->last_op_ms);
	if (s->has_poll_ms)
		out_u64(o, "poll_ms", NULL, s->poll_ms);
	out_text(o, "\n");
	if (s->last_error)
		out_str(o, "last_error", "last error: %s\n", s->last_error);
	if (s->warning)
		out_str(o, "warning", "warning: %s\n", s->warning);
	out_end(o);
}

static void
p_patches(struct out *o, const char *key, const char *title, Ocs__Patch **p,
          size_t n)
{
	const char *row = o->brief ? "%llu" : "  %5llu";
	size_t      i;

	out_text(o, o->brief ? NULL : "%s (%zu):\n", title, n);
	if (n && !o->brief)
		out_text(o, "  %5s %5s  %-16s %-16s\n", "in", "out",
		         "from (TX)", "to (RX)");
	out_arr(o, key);
	for (i = 0; i < n; i++) {
		out_obj(o, NULL);
		out_u64(o, "in", row, p[i]->in);
		out_u64(o, "out", o->brief ? " %llu" : " %5llu", p[i]->out);
		out_str(o, p[i]->from ? "from" : NULL,
		        o->brief ? " %s" : "  %-16s", p[i]->from);
		out_str(o, p[i]->to ? "to" : NULL,
		        o->brief ? " %s\n" : " %-16s\n", p[i]->to);
		out_end(o);
	}
	out_end(o);
}

/* A read-back older than the probe interval and half again, and a
 * second for the read itself: the probe is overdue (the switch is slow
 * to answer, or ocsd's worker busy), so the map above may no longer hold. */
static int
stale(const Ocs__CtlReply *r)
{
	const Ocs__SwitchInfo *s = r->sw;

	return (r->has_live_age_ms && s && s->has_poll_ms && s->poll_ms &&
	        r->live_age_ms > s->poll_ms * 3ull / 2 + 1000);
}

static void
p_sync(struct out *o, const Ocs__CtlReply *r)
{
	if (!r->has_in_sync && r->sw && !r->sw->connected)
		out_text(o,
		         "map: unknown while the switch is not connected\n");
	if (!r->has_in_sync)
		return;
	out_bool(o, "in_sync", "map: %s", r->in_sync,
	         "switch matches the desired map",
	         "DIVERGED from the desired map ('ocsctl map diff')");
	if (r->has_live_age_ms)
		out_dbl(o, NULL, " (read back %.1f s ago)",
		        r->live_age_ms / 1000.0);
	out_text(o, "\n");
	if (stale(r)) {
		out_time(
		    o, NULL,
		    "warning: overdue: the switch is read back every %s\n",
		    r->sw->poll_ms / 1000.0);
		out_bool(o, "overdue", NULL, 1, NULL, NULL);
	}
}

static void
p_circuits(struct out *o, const Ocs__CtlReply *r)
{
	Ocs__Circuit **c =
	    sorted((void *const *)r->circuits, r->n_circuits, by_circuit);
	Ocs__Circuit **v = c ? c : r->circuits;
	size_t         i;

	out_text(o, o->brief ? NULL : "circuits (%zu):\n", r->n_circuits);
	out_arr(o, "circuits");
	for (i = 0; i < r->n_circuits; i++) {
		out_obj(o, NULL);
		out_str(o, "a", o->brief ? "%s" : "  %-16s", v[i]->a);
		out_bool(o, NULL, " %s", v[i]->complete, "<->", " ->");
		out_str(o, "b", " %s\n", v[i]->b);
		out_bool(o, "complete", NULL, v[i]->complete, "", "");
		out_end(o);
	}
	out_end(o);
	free(c);
}

static void
p_cabling(struct out *o, const Ocs__CtlReply *r)
{
	Ocs__Transceiver **c =
	    sorted((void *const *)r->cabling, r->n_cabling, by_trx);
	Ocs__Transceiver **v = c ? c : r->cabling;
	size_t             i;

	out_text(o, o->brief ? NULL : "transceivers (%zu):\n", r->n_cabling);
	out_arr(o, "cabling");
	for (i = 0; i < r->n_cabling; i++) {
		out_obj(o, NULL);
		out_str(o, "name", o->brief ? "%s" : "  %-16s", v[i]->name);
		out_u64(o, "in", o->brief ? " %llu" : " TX ingress %llu",
		        v[i]->in);
		out_u64(o, "out", o->brief ? " %llu\n" : ", RX egress %llu\n",
		        v[i]->out);
		out_end(o);
	}
	out_end(o);
	free(c);
}

/* ---- the agents -------------------------------------------------------- */

/* Each transceiver's link, in ocsd's word: up, dark, no carrier, down,
 * unplugged. */
static void
p_links(struct out *o, const Ocs__AgentInfo *a)
{
	size_t i;

	if (a->n_links == 0)
		return;
	out_str(o, NULL, o->brief ? NULL : "%6s  ", "");
	out_str(o, NULL, o->brief ? NULL : "%s: links", a->host);
	out_arr(o, "links");
	for (i = 0; i < a->n_links; i++) {
		const Ocs__TrxLink *l = a->links[i];

		out_obj(o, NULL);
		out_u64(o, "trx", l->iface || o->brief ? NULL : " %llu",
		        l->trx);
		if (l->iface)
			out_str(o, "iface", o->brief ? NULL : " %s", l->iface);
		out_str(o, "state", o->brief ? NULL : " %s",
		        l->shown ? l->shown : "unknown");
		if (l->has_mtu)
			out_u64(o, "mtu", o->brief ? NULL : " (mtu %llu)",
			        l->mtu);
		if (l->has_carrier_ups)
			out_u64(o, "carrier_ups", NULL, l->carrier_ups);
		out_text(o, o->brief || i + 1 == a->n_links ? NULL : ",");
		out_end(o);
	}
	out_end(o);
	out_text(o, o->brief ? NULL : "\n");
}

static void
p_agent(struct out *o, const Ocs__AgentInfo *a)
{
	char fib[24], mem[32], ago[32];

	snprintf(fib, sizeof(fib), "%u/%u",
	         a->has_fibres_up ? a->fibres_up : 0, a->transceivers);
	if (a->has_mem_limit)
		unit_fmt_size(a->mem_limit, mem, sizeof(mem));
	else
		snprintf(mem, sizeof(mem), "-");
	snprintf(ago, sizeof(ago), "%.1f s ago", a->seen_ms_ago / 1000.0);
	out_obj(o, NULL);
	out_u64(o, "agent_id", o->brief ? NULL : "%6llu", a->agent_id);
	out_str(o, "host", o->brief ? "%s" : "  %-20s", a->host);
	out_u64(o, "transceivers", o->brief ? NULL : " %5llu",
	        a->transceivers);
	out_str(o, "state", o->brief ? " %s" : "  %-8s", a->state);
	if (a->has_fibres_up)
		out_u64(o, "fibres_up", NULL, a->fibres_up);
	out_str(o, NULL, o->brief ? " %s\n" : " %6s", fib);
	out_str(o, NULL, o->brief ? NULL : " %10s", mem);
	if (a->has_mem_limit)
		out_u64(o, "mem_limit", NULL, a->mem_limit);
	if (a->has_seen_ms_ago)
		out_u64(o, "seen_ms_ago", NULL, a->seen_ms_ago);
	out_str(o, NULL, o->brief ? NULL : "  %s", ago);
	if (a->transport)
		out_str(o, "transport", o->brief ? NULL : "  %s",
		        a->transport);
	if (a->ifaces)
		out_str(o, "ifaces", o->brief ? NULL : " %s", a->ifaces);
	if (a->has_link)
		out_bool(o, "link",
		         o->brief || strcmp(a->state, "lost") == 0 ? NULL
		                                                   : "%s",
		         a->link, "", "  not attached");
	if (a->link_peer)
		out_str(o, "link_peer",
		        o->brief || !a->link ? NULL : "  link from %s",
		        a->link_peer);
	out_text(o, o->brief ? NULL : "\n");
	if (a->has_attach_refused) {
		out_str(o, NULL, o->brief ? NULL : "%6s  ", "");
		out_str(o, NULL, o->brief ? NULL : "%s: ", a->host);
		out_u64(o, "attach_refused",
		        o->brief ? NULL
		        : a->attach_refused == 1
		            ? "%llu attach refused while its link "
		              "was up\n"
		            : "%llu attaches refused while its "
		              "link was up\n",
		        a->attach_refused);
	}
	if (a->has_readys)
		out_u64(o, "readys", NULL, a->readys);
	p_links(o, a);
	if (a->down) {
		out_str(o, NULL, o->brief ? NULL : "%6s  ", "");
		out_str(o, NULL, o->brief ? NULL : "%s: ", a->host);
		out_str(o, "down", o->brief ? NULL : "%s\n", a->down);
	}
	out_end(o);
}

static void
p_agents(struct out *o, const Ocs__CtlReply *r)
{
	Ocs__AgentInfo **c =
	    sorted((void *const *)r->agents, r->n_agents, by_host);
	Ocs__AgentInfo **v = c ? c : r->agents;
	size_t           i;

	if (!o->brief)
		out_text(o, "%6s  %-20s %5s  %-8s %6s %10s  %s\n", "agent",
		         "host", "trx", "state", "fibres", "memory", "seen");
	out_arr(o, "agents");
	for (i = 0; i < r->n_agents; i++)
		p_agent(o, v[i]);
	out_end(o);
	free(c);
}

/* ---- ports ------------------------------------------------------------- */

static void
p_port(struct out *o, const Ocs__PortInfo *p)
{
	char dbm[16], peer[16];
	int  lit = p->failed || (p->has_dbm && p->dbm > -40);

	if (p->has_dbm)
		snprintf(dbm, sizeof(dbm), "%.1f", p->dbm);
	else
		snprintf(dbm, sizeof(dbm), "-");
	snprintf(peer, sizeof(peer), p->has_peer ? "%u" : "-", p->peer);
	/* -br: the lit or failed ones only. */
	o->mute = o->brief && !lit;
	out_obj(o, NULL);
	out_u64(o, "port", o->brief ? "%llu" : "%5llu", p->port);
	out_str(o, "side", o->brief ? NULL : " %-7s",
	        p->ingress ? "ingress" : "egress");
	if (p->has_dbm)
		out_dbl(o, "dbm", NULL, p->dbm);
	else
		out_null(o, "dbm");
	out_str(o, NULL, o->brief ? " %s" : " %9s", dbm);
	out_bool(o, "failed", o->brief ? NULL : " %-6s", p->failed, "FAILED",
	         "ok");
	if (p->has_peer)
		out_u64(o, "peer", NULL, p->peer);
	out_str(o, NULL, o->brief ? " %s" : " %5s", peer);
	out_text(o, o->brief && p->failed ? " FAILED" : "");
	if (p->trx)
		out_str(o, "transceiver", o->brief ? NULL : "  %s", p->trx);
	else
		out_text(o, o->brief ? "" : "  -");
	out_text(o, "\n");
	out_end(o);
	o->mute = 0;
}

static void
p_ports(struct out *o, const Ocs__CtlReply *r)
{
	size_t i;

	if (!o->brief)
		out_text(o, "%5s %-7s %9s %-6s %5s  %s\n", "port", "side",
		         "dBm", "state", "peer", "transceiver");
	out_arr(o, "ports");
	for (i = 0; i < r->n_ports; i++)
		p_port(o, r->ports[i]);
	out_end(o);
}

/* ---- a run ------------------------------------------------------------- */

/* Planes apart: each plane's switch and its release after the barrier's
 * last Ready (a plane released early carries data while another is
 * dark: the overlap). */
static void
p_planes(struct out *o, const Ocs__PhaseReport *p)
{
	char   a[32], b[32];
	size_t i;

	for (i = 0; i < p->n_planes; i++) {
		const Ocs__PlaneTime *t = p->planes[i];

		out_text(o, "%5s  plane %s: %s%s, released after %s\n", "",
		         t->name, t->reconfigured ? "reconf " : "kept",
		         t->reconfigured && t->has_reconf_s
		             ? unit_fmt_time(t->reconf_s, a, sizeof(a))
		             : "",
		         t->has_release_s
		             ? unit_fmt_time(t->release_s, b, sizeof(b))
		             : "-");
	}
}

/* The measured phases beside the model's prediction (text: -j has them
 * in the report). */
static void
p_phases(struct out *o, const Ocs__RunReport *rr)
{
	char   a[32], b[32], c[32], d[32], e[32], f[32];
	size_t i;

	out_text(o, "%5s  %12s %12s %12s %12s %12s %12s%s\n", "phase",
	         "reconf", "link-up", "data", "barrier", "bytes", "predicted",
	         rr->has_gpus_per_server ? "  planned (local)" : "");
	for (i = 0; i < rr->n_phases; i++) {
		const Ocs__PhaseReport *p = rr->phases[i];
		char                    g[32], h[32], srv[80] = "";

		/* Servers: what the plan moves, and of it locally. */
		if (p->has_planned_bytes && p->has_local_bytes)
			snprintf(srv, sizeof(srv), "  %s (%s)",
			         unit_fmt_size(p->planned_bytes, g, sizeof(g)),
			         unit_fmt_size(p->local_bytes, h, sizeof(h)));
		out_text(
		    o, "%5u  %11s%c %12s %12s %12s %12s %12s%s\n", p->phase,
		    p->reconfigured ? unit_fmt_time(p->reconf_s, a, sizeof(a))
		                    : "-",
		    p->reconfigured && p->phase == 0 ? '*' : ' ',
		    p->has_link_s ? unit_fmt_time(p->link_s, f, sizeof(f))
		                  : "-",
		    unit_fmt_time(p->data_s, b, sizeof(b)),
		    p->reconfigured ? unit_fmt_time(p->barrier_s, c, sizeof(c))
		                    : "-",
		    unit_fmt_size(p->bytes, d, sizeof(d)),
		    unit_fmt_time(p->predicted_s, e, sizeof(e)), srv);
		p_planes(o, p);
	}
}

/* Where the time outside the phases went: the slowest setup and
 * teardown, and which host was slowest moving data. */
static void
p_timeline(struct out *o, const Ocs__RunReport *rr)
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
	out_text(o,
	         "agents: setup up to %s (%s), teardown up to %s (%s), most "
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

	for (i = 0; rr != NULL && i < rr->n_reconfigure_before; i++)
		if (rr->reconfigure_before[i] == k)
			return (1);
	return (0);
}

/* What libpcap on the switch's ports saw (run --capture). */
static void
p_capture(struct out *o, const Ocs__CaptureReport *c, const Ocs__RunReport *rr)
{
	size_t i;

	out_obj(o, "capture");
	out_u64(o, "frames", "capture: %llu frames on the switch's ports, ",
	        c->frames);
	out_u64(o, "unlit_frames", "unlit-circuit frames: %llu", c->unlit);
	if (c->has_first_unlit_phase) {
		out_u64(o, "first_unlit_phase",
		        c->unlit ? " (the first in phase %llu" : NULL,
		        c->first_unlit_phase);
		out_u64(o, "first_unlit_node",
		        c->unlit ? ", from node %llu)" : NULL,
		        c->first_unlit_node);
	}
	/* The capture's own losses: the counts are short by as many. */
	if (c->has_drops)
		out_u64(o, "capture_drops", "; capture drops: %llu", c->drops);
	out_arr(o, "gaps");
	for (i = 0; i < c->n_gaps; i++) {
		out_text(o, "%s",
		         i ? ", "
		           : "\nno light between phases, the "
		             "shortest over ports (* reconfigured): ");
		out_obj(o, NULL);
		out_u64(o, "phase", "%llu", c->gaps[i]->phase);
		out_text(o, "%s",
		         reconfigured(rr, c->gaps[i]->phase) ? "*" : "");
		out_time(o, "seconds", ": %s", c->gaps[i]->seconds);
		out_end(o);
	}
	out_end(o);
	out_text(o, "\n");
	out_end(o);
}

static void
p_report_head(struct out *o, const Ocs__RunReport *rr)
{
	char   a[32], b[32], c[32], d[32];
	size_t i;

	if (rr->matrix)
		out_text(o,
		         "run %llu: %s on %s, %u nodes, up to %s per node, "
		         "reconfigure before",
		         (unsigned long long)rr->run_id, rr->algo, rr->matrix,
		         rr->nodes, unit_fmt_size(rr->bytes, a, sizeof(a)));
	else if (rr->topology)
		out_text(o,
		         "run %llu: %s on %s, %u nodes, %s output per node, "
		         "reconfigure before",
		         (unsigned long long)rr->run_id, rr->algo,
		         rr->topology, rr->nodes,
		         unit_fmt_size(rr->bytes, a, sizeof(a)));
	else
		out_text(o,
		         "run %llu: %s, %u nodes, %s per node, reconfigure "
		         "before",
		         (unsigned long long)rr->run_id, rr->algo, rr->nodes,
		         unit_fmt_size(rr->bytes, a, sizeof(a)));
	if (rr->n_reconfigure_before == 0)
		out_text(o, " -");
	for (i = 0; i < rr->n_reconfigure_before; i++)
		out_text(o, "%s%u", i ? "," : " ", rr->reconfigure_before[i]);
	if (rr->left_out)
		out_text(o, "; %u of %u joined agents (left out: %s)",
		         rr->nodes, rr->joined, rr->left_out);
	out_text(o, "\nmodel: %s, alpha-s %s, alpha-h %s, delta %s",
	         unit_fmt_rate(rr->bandwidth_bps, a, sizeof(a)),
	         unit_fmt_time(rr->alpha_s, b, sizeof(b)),
	         unit_fmt_time(rr->alpha_h, c, sizeof(c)),
	         unit_fmt_time(rr->delta_s, d, sizeof(d)));
	/* On real optics delta is the switch and the links' retraining. */
	if (rr->has_switch_s && rr->has_link_up_s)
		out_text(o, " (switch %s + link-up %s + overhead)",
		         unit_fmt_time(rr->switch_s, a, sizeof(a)),
		         unit_fmt_time(rr->link_up_s, b, sizeof(b)));
	if (rr->planes)
		out_text(o, "\nplanes %s (model: together %s, apart %s)",
		         rr->planes,
		         unit_fmt_time(rr->predicted_together_s, a, sizeof(a)),
		         unit_fmt_time(rr->predicted_apart_s, b, sizeof(b)));
	out_text(o, "\n");
}

/* A run's report: the record's JSON (proto/report.c), or its text. */
static void
p_report(struct out *o, const Ocs__CtlReply *r)
{
	const Ocs__RunReport *rr = r->report;
	char                  a[32], b[32];

	if (o->json)
		out_json(o, "report", report_to_json(rr));
	if (o->brief)
		out_text(o, "%llu %s %u %llu %.6f %.6f %llu %llu\n",
		         (unsigned long long)rr->run_id, rr->algo, rr->nodes,
		         (unsigned long long)rr->bytes, rr->total_s,
		         rr->predicted_s,
		         (unsigned long long)rr->blocks_verified,
		         (unsigned long long)rr->errors);
	if (o->json || o->brief)
		return;
	p_report_head(o, rr);
	p_phases(o, rr);
	out_text(
	    o,
	    "total  %s (model %s); * phase 0's circuits are set up before "
	    "the collective\n",
	    unit_fmt_time(rr->total_s, a, sizeof(a)),
	    unit_fmt_time(rr->predicted_s, b, sizeof(b)));
	/* Only a run that ended well waited for the switch to be put
	 * back (an aborted one may have lost it). */
	if (rr->has_wall_s)
		out_text(o, "end to end %s%s\n",
		         unit_fmt_time(rr->wall_s, a, sizeof(a)),
		         rr->aborted
		             ? ""
		             : " (plans, buffers, the switch put back)");
	p_timeline(o, rr);
	if (rr->aborted)
		out_str(o, NULL, "aborted: %s\n", rr->aborted);
}

/* The runs kept, one a line. */
static void
p_runs(struct out *o, const Ocs__CtlReply *r)
{
	char   when[32], a[32], b[32], c[32];
	size_t i;

	if (!o->brief)
		out_text(o, "%-20s %-19s %-7s %5s %10s %12s %12s  %s\n", "run",
		         "started", "algo", "nodes", "bytes", "total", "model",
		         "outcome");
	out_arr(o, "runs");
	for (i = 0; i < r->n_runs; i++) {
		const Ocs__RunReport *rr = r->runs[i];
		time_t                t = (time_t)(rr->started_unix_ms / 1000);
		struct tm             tm;

		if (o->json) {
			out_json(o, NULL, report_to_json(rr));
			continue;
		}
		if (rr->has_started_unix_ms && localtime_r(&t, &tm))
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
		else
			snprintf(when, sizeof(when), "-");
		if (o->brief)
			out_text(o, "%llu %s %u %llu %s\n",
			         (unsigned long long)rr->run_id, rr->algo,
			         rr->nodes, (unsigned long long)rr->bytes,
			         rr->aborted  ? "aborted"
			         : rr->errors ? "errors"
			                      : "verified");
		else
			out_text(o, "%-20llu %-19s %-7s %5u %10s %12s %12s  ",
			         (unsigned long long)rr->run_id, when,
			         rr->algo, rr->nodes,
			         unit_fmt_size(rr->bytes, a, sizeof(a)),
			         unit_fmt_time(rr->total_s, b, sizeof(b)),
			         unit_fmt_time(rr->predicted_s, c, sizeof(c)));
		if (!o->brief)
			out_str(o, NULL, "%s\n",
			        rr->aborted  ? rr->aborted
			        : rr->errors ? "ERRORS"
			                     : "verified");
	}
	out_end(o);
}

/* ---- events (watch) ---------------------------------------------------- */

static void
p_event(struct out *o, const Ocs__Event *e)
{
	time_t    t = (time_t)(e->unix_ms / 1000);
	struct tm tm;
	char      when[48];

	if (localtime_r(&t, &tm))
		strftime(when, sizeof(when), "%H:%M:%S", &tm);
	else
		snprintf(when, sizeof(when), "-");
	out_obj(o, NULL);
	out_u64(o, "seq", NULL, e->seq);
	out_u64(o, "unix_ms", NULL, e->unix_ms);
	out_str(o, NULL, "%s", when);
	out_u64(o, NULL, ".%03llu", e->unix_ms % 1000);
	out_str(o, "kind", " %-6s", e->kind);
	out_str(o, "what", " %-9s", e->what);
	if (e->host)
		out_str(o, "host", NULL, e->host);
	if (e->has_run_id)
		out_u64(o, "run_id", NULL, e->run_id);
	if (e->has_phase)
		out_u64(o, "phase", NULL, e->phase);
	out_str(o, e->text ? "text" : NULL, " %s", e->text ? e->text : "");
	out_text(o, "\n");
	out_end(o);
}

static void
p_events(struct out *o, const Ocs__CtlReply *r)
{
	size_t i;

	if (r->has_event_seq)
		out_u64(o, "event_seq", NULL, r->event_seq);
	if (r->has_events_lost && r->events_lost)
		out_bool(o, "events_lost",
		         "(some events were missed: read the state again)\n",
		         1, "", "");
	out_arr(o, "events");
	for (i = 0; i < r->n_events; i++)
		p_event(o, r->events[i]);
	out_end(o);
}

/* ---- what each command shows --------------------------------------------- */

/* Text mutes what the command does not show; JSON has every part. */
static void
muted(struct out *o, int mute)
{
	o->mute = mute;
}

static void
p_show_parts(struct out *o, const Ocs__CtlReply *r, unsigned m)
{
	muted(o, !(m & SHOW_SWITCH) || o->brief);
	if (r->sw)
		p_switch(o, r->sw);
	p_sync(o, r);
	muted(o, !(m & SHOW_CIRCUITS));
	if (r->n_circuits || !o->json)
		p_circuits(o, r);
	muted(o, !(m & SHOW_PATCHES));
	if (r->n_live || r->sw || !o->json)
		p_patches(o, "live", "patches on the switch", r->live,
		          r->n_live);
	muted(o, 1);
	if (r->n_desired)
		p_patches(o, "desired", "desired map", r->desired,
		          r->n_desired);
	muted(o, !(m & SHOW_CABLING));
	if (r->n_cabling || !o->json)
		p_cabling(o, r);
	muted(o, 0);
}

/* Every other part of a reply, for -j (text shows none of them). */
static void
p_rest(struct out *o, enum out_kind kind, const Ocs__CtlReply *r)
{
	muted(o, 1);
	if (r->has_uptime_s && kind != OUT_STATUS)
		out_u64(o, "uptime_s", NULL, r->uptime_s);
	if (r->has_live_age_ms)
		out_u64(o, "live_age_ms", NULL, r->live_age_ms);
	if (r->has_changed)
		out_u64(o, "changed", NULL, r->changed);
	if (kind != OUT_SHOW) {
		if (r->n_circuits)
			p_circuits(o, r);
		if (r->n_live || r->sw)
			p_patches(o, "live", "", r->live, r->n_live);
		if (r->n_desired)
			p_patches(o, "desired", "", r->desired, r->n_desired);
		if (r->n_cabling)
			p_cabling(o, r);
	}
	if (kind != OUT_DIFF &&
	    (r->n_only_live || r->n_only_desired || r->has_in_sync)) {
		p_patches(o, "only_live", "", r->only_live, r->n_only_live);
		p_patches(o, "only_desired", "", r->only_desired,
		          r->n_only_desired);
	}
	if (kind != OUT_AGENTS && r->n_agents)
		p_agents(o, r);
	if (kind != OUT_PORTS && r->n_ports)
		p_ports(o, r);
	if (kind != OUT_RUNS && r->n_runs)
		p_runs(o, r);
	muted(o, 0);
}

static void
p_status(struct out *o, const Ocs__CtlReply *r)
{
	if (o->brief) {
		if (r->sw && r->sw->name)
			out_text(o, "%s ", r->sw->name);
		out_text(o, "%s %s",
		         r->sw && r->sw->connected ? "connected" : "down",
		         !r->has_in_sync ? "unknown"
		         : r->in_sync    ? "in-sync"
		                         : "diverged");
		if (r->message)
			out_str(o, NULL, " %s", r->message);
		out_text(o, "\n");
		muted(o, 1);
	}
	if (r->sw)
		p_switch(o, r->sw);
	p_sync(o, r);
	if (r->has_uptime_s)
		out_u64(o, "uptime_s", "ocsd up %llu s\n", r->uptime_s);
	muted(o, 0);
}

static void
p_diff(struct out *o, const Ocs__CtlReply *r)
{
	muted(o, 1);
	if (r->sw)
		p_switch(o, r->sw);
	muted(o, o->brief);
	p_sync(o, r);
	muted(o, 0);
	if (r->n_only_live || r->n_only_desired || r->has_in_sync ||
	    !o->json) {
		p_patches(o, "only_live", "only on the switch", r->only_live,
		          r->n_only_live);
		p_patches(o, "only_desired", "only in the desired map",
		          r->only_desired, r->n_only_desired);
	}
}

static int print_one(struct out *, enum out_kind, const Ocs__CtlReply *,
                     const struct out_opts *);

/*
 * A fabric's reply: each switch's part under its name (JSON: "switches":
 * {"A": {...}, "B": {...}}), then what is the daemon's (uptime, a run in
 * progress, the changes in all).
 */
static int
p_fabric(struct out *o, enum out_kind kind, const Ocs__CtlReply *r,
         const struct out_opts *po)
{
	/* Show and status name each switch on their switch line; diff and
	 * ports under a heading; a change's message is the whole's. */
	int each = kind == OUT_SHOW || kind == OUT_STATUS ||
	           kind == OUT_DIFF || kind == OUT_PORTS;
	size_t i;

	out_obj(o, "switches");
	for (i = 0; i < r->n_switches; i++) {
		const Ocs__CtlReply *sub = r->switches[i];
		const char          *name =
                    sub->sw && sub->sw->name ? sub->sw->name : "switch";

		out_obj(o, name);
		muted(o, !each);
		if (i > 0 && !o->brief)
			out_text(o, "\n");
		if ((kind == OUT_DIFF || kind == OUT_PORTS) && !o->brief)
			out_text(o, "switch %s:\n", name);
		print_one(o, kind, sub, po);
		muted(o, 0);
		out_end(o);
	}
	out_end(o);
	if (each && !o->brief)
		out_text(o, "\n");
	if (r->has_uptime_s)
		out_u64(o, "uptime_s",
		        kind == OUT_STATUS && !o->brief ? "ocsd up %llu s\n"
		                                        : NULL,
		        r->uptime_s);
	if (r->has_changed)
		out_u64(o, "changed", NULL, r->changed);
	if (r->message)
		out_str(o, "message", "%s\n", r->message);
	return (0);
}

int
ocsctl_print(struct out *o, enum out_kind kind, const Ocs__CtlReply *r,
             const struct out_opts *po)
{
	if (r->n_switches > 0)
		return (p_fabric(o, kind, r, po));
	return (print_one(o, kind, r, po));
}

static int
print_one(struct out *o, enum out_kind kind, const Ocs__CtlReply *r,
          const struct out_opts *po)
{
	unsigned m = po->show ? po->show : ~0u;

	/* Brief without a part named: the circuits, one a line. */
	if (po->brief && !po->show)
		m = SHOW_CIRCUITS;
	if (kind == OUT_SHOW)
		p_show_parts(o, r, m);
	else if (kind == OUT_STATUS)
		p_status(o, r);
	else if (kind == OUT_DIFF)
		p_diff(o, r);
	else {
		/* The others show what they are about (and JSON the rest). */
		muted(o, 1);
		if (r->sw)
			p_switch(o, r->sw);
		p_sync(o, r);
		muted(o, 0);
	}
	if (kind == OUT_AGENTS)
		p_agents(o, r);
	else if (kind == OUT_PORTS)
		p_ports(o, r);
	else if (kind == OUT_RUNS)
		p_runs(o, r);
	else if (kind == OUT_EVENTS)
		p_events(o, r);
	if (r->message)
		out_str(o, "message",
		        kind == OUT_STATUS && o->brief ? NULL : "%s\n",
		        r->message);
	if (r->report)
		p_report(o, r);
	if (r->capture) {
		muted(o, o->brief);
		p_capture(o, r->capture, r->report);
		muted(o, 0);
	}
	if (r->report && !o->json && !o->brief)
		out_text(o, "verified: %llu blocks, %llu errors\n",
		         (unsigned long long)r->report->blocks_verified,
		         (unsigned long long)r->report->errors);
	p_rest(o, kind, r);
	return (0);
}

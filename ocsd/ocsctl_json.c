/* SPDX-License-Identifier: BSD-2-Clause */
/* ocsctl -j: every reply as one JSON object (see ocsctl.h). */
#include <stdio.h>
#include <stdlib.h>

#include <jansson.h>

#include "ocsd/ocsctl.h"
#include "proto/report.h"

/* run --capture: frames, unlit_frames, and gaps [{phase, seconds}]. */
static json_t *
j_capture(const Ocs__CaptureReport *c)
{
	json_t *o = json_object(), *g = json_array();
	size_t  i;

	json_object_set_new(o, "frames", json_integer((json_int_t)c->frames));
	json_object_set_new(o, "unlit_frames",
	                    json_integer((json_int_t)c->unlit));
	if (c->has_first_unlit_phase) {
		json_object_set_new(o, "first_unlit_phase",
		                    json_integer(c->first_unlit_phase));
		json_object_set_new(o, "first_unlit_node",
		                    json_integer(c->first_unlit_node));
	}
	for (i = 0; i < c->n_gaps; i++) {
		json_t *e = json_object();

		json_object_set_new(e, "phase",
		                    json_integer(c->gaps[i]->phase));
		json_object_set_new(e, "seconds",
		                    json_real(c->gaps[i]->seconds));
		json_array_append_new(g, e);
	}
	json_object_set_new(o, "gaps", g);
	return (o);
}

static json_t *
j_patches(Ocs__Patch **p, size_t n)
{
	json_t *a = json_array();
	size_t  i;

	for (i = 0; i < n; i++) {
		json_t *o = json_object();

		json_object_set_new(o, "in", json_integer(p[i]->in));
		json_object_set_new(o, "out", json_integer(p[i]->out));
		if (p[i]->from)
			json_object_set_new(o, "from",
			                    json_string(p[i]->from));
		if (p[i]->to)
			json_object_set_new(o, "to", json_string(p[i]->to));
		json_array_append_new(a, o);
	}
	return (a);
}

static json_t *
j_switch(const Ocs__SwitchInfo *sw)
{
	json_t *s = json_object();

	json_object_set_new(s, "driver", json_string(sw->driver));
	json_object_set_new(s, "address", json_string(sw->address));
	json_object_set_new(s, "connected", json_boolean(sw->connected));
	if (sw->has_ports)
		json_object_set_new(s, "ports", json_integer(sw->ports));
	if (sw->has_egress)
		json_object_set_new(s, "egress", json_integer(sw->egress));
	if (sw->has_switch_ms)
		json_object_set_new(s, "switch_ms",
		                    json_integer(sw->switch_ms));
	if (sw->last_error)
		json_object_set_new(s, "last_error",
		                    json_string(sw->last_error));
	if (sw->warning)
		json_object_set_new(s, "warning", json_string(sw->warning));
	if (sw->has_last_op_ms)
		json_object_set_new(s, "last_op_ms",
		                    json_real(sw->last_op_ms));
	return (s);
}

static json_t *
j_circuits(Ocs__Circuit **c, size_t n)
{
	json_t *a = json_array();
	size_t  i;

	for (i = 0; i < n; i++) {
		json_t *o = json_object();

		json_object_set_new(o, "a", json_string(c[i]->a));
		json_object_set_new(o, "b", json_string(c[i]->b));
		json_object_set_new(o, "complete",
		                    json_boolean(c[i]->complete));
		json_array_append_new(a, o);
	}
	return (a);
}

static json_t *
j_agents(Ocs__AgentInfo **ag, size_t n)
{
	json_t *a = json_array();
	size_t  i;

	for (i = 0; i < n; i++) {
		json_t *t = json_object();

		json_object_set_new(t, "agent_id",
		                    json_integer(ag[i]->agent_id));
		json_object_set_new(t, "host", json_string(ag[i]->host));
		json_object_set_new(t, "transceivers",
		                    json_integer(ag[i]->transceivers));
		json_object_set_new(t, "state", json_string(ag[i]->state));
		if (ag[i]->has_fibres_up)
			json_object_set_new(t, "fibres_up",
			                    json_integer(ag[i]->fibres_up));
		if (ag[i]->transport)
			json_object_set_new(t, "transport",
			                    json_string(ag[i]->transport));
		if (ag[i]->has_link)
			json_object_set_new(t, "link",
			                    json_boolean(ag[i]->link));
		if (ag[i]->link_peer)
			json_object_set_new(t, "link_peer",
			                    json_string(ag[i]->link_peer));
		if (ag[i]->has_attach_refused)
			json_object_set_new(
			    t, "attach_refused",
			    json_integer((json_int_t)ag[i]->attach_refused));
		if (ag[i]->has_readys)
			json_object_set_new(
			    t, "readys",
			    json_integer((json_int_t)ag[i]->readys));
		if (ag[i]->ifaces)
			json_object_set_new(t, "ifaces",
			                    json_string(ag[i]->ifaces));
		if (ag[i]->down)
			json_object_set_new(t, "down",
			                    json_string(ag[i]->down));
		if (ag[i]->has_mem_limit)
			json_object_set_new(
			    t, "mem_limit",
			    json_integer((json_int_t)ag[i]->mem_limit));
		if (ag[i]->has_seen_ms_ago)
			json_object_set_new(
			    t, "seen_ms_ago",
			    json_integer((json_int_t)ag[i]->seen_ms_ago));
		json_array_append_new(a, t);
	}
	return (a);
}

static json_t *
j_cabling(Ocs__Transceiver **c, size_t n)
{
	json_t *a = json_array();
	size_t  i;

	for (i = 0; i < n; i++) {
		json_t *t = json_object();

		json_object_set_new(t, "name", json_string(c[i]->name));
		json_object_set_new(t, "in", json_integer(c[i]->in));
		json_object_set_new(t, "out", json_integer(c[i]->out));
		json_array_append_new(a, t);
	}
	return (a);
}

static json_t *
j_ports(Ocs__PortInfo **p, size_t n)
{
	json_t *a = json_array();
	size_t  i;

	for (i = 0; i < n; i++) {
		json_t *t = json_object();

		json_object_set_new(t, "port", json_integer(p[i]->port));
		json_object_set_new(
		    t, "side",
		    json_string(p[i]->ingress ? "ingress" : "egress"));
		json_object_set_new(t, "dbm",
		                    p[i]->has_dbm ? json_real(p[i]->dbm)
		                                  : json_null());
		json_object_set_new(t, "failed", json_boolean(p[i]->failed));
		if (p[i]->has_peer)
			json_object_set_new(t, "peer",
			                    json_integer(p[i]->peer));
		if (p[i]->trx)
			json_object_set_new(t, "transceiver",
			                    json_string(p[i]->trx));
		json_array_append_new(a, t);
	}
	return (a);
}

/* Every part the reply has, under one stable key each. */
static json_t *
j_reply(const Ocs__CtlReply *r)
{
	json_t *o = json_object();

	if (r->sw)
		json_object_set_new(o, "switch", j_switch(r->sw));
	if (r->has_in_sync)
		json_object_set_new(o, "in_sync", json_boolean(r->in_sync));
	if (r->has_live_age_ms)
		json_object_set_new(o, "live_age_ms",
		                    json_integer((json_int_t)r->live_age_ms));
	if (r->has_uptime_s)
		json_object_set_new(o, "uptime_s",
		                    json_integer((json_int_t)r->uptime_s));
	if (r->has_changed)
		json_object_set_new(o, "changed", json_integer(r->changed));
	if (r->message)
		json_object_set_new(o, "message", json_string(r->message));
	if (r->n_circuits)
		json_object_set_new(o, "circuits",
		                    j_circuits(r->circuits, r->n_circuits));
	if (r->n_live || r->sw)
		json_object_set_new(o, "live", j_patches(r->live, r->n_live));
	if (r->n_desired)
		json_object_set_new(o, "desired",
		                    j_patches(r->desired, r->n_desired));
	if (r->n_only_live || r->n_only_desired || r->has_in_sync) {
		json_object_set_new(o, "only_live",
		                    j_patches(r->only_live, r->n_only_live));
		json_object_set_new(
		    o, "only_desired",
		    j_patches(r->only_desired, r->n_only_desired));
	}
	if (r->n_agents)
		json_object_set_new(o, "agents",
		                    j_agents(r->agents, r->n_agents));
	if (r->report)
		json_object_set_new(o, "report", report_to_json(r->report));
	if (r->capture)
		json_object_set_new(o, "capture", j_capture(r->capture));
	if (r->n_ports)
		json_object_set_new(o, "ports", j_ports(r->ports, r->n_ports));
	if (r->n_runs) {
		json_t *a = json_array();
		size_t  i;

		for (i = 0; i < r->n_runs; i++)
			json_array_append_new(a, report_to_json(r->runs[i]));
		json_object_set_new(o, "runs", a);
	}
	if (r->n_cabling)
		json_object_set_new(o, "cabling",
		                    j_cabling(r->cabling, r->n_cabling));
	return (o);
}

/* The reply, with key (if given) present even when its list is empty:
 * a script reading "agents" or "runs" finds an array either way. */
static int
print_with(const Ocs__CtlReply *r, const struct out_opts *po, const char *key)
{
	json_t *o = j_reply(r);
	char   *s;

	if (key && json_object_get(o, key) == NULL)
		json_object_set_new(o, key, json_array());

	/* -br with -j: the same keys on one line. */
	s = json_dumps(o, (po->brief ? JSON_COMPACT : JSON_INDENT(2)) |
	                      JSON_REAL_PRECISION(6));
	json_decref(o);
	if (s == NULL)
		return (ocsctl_fail("out of memory"));
	printf("%s\n", s);
	free(s);
	return (0);
}

static int
print_json(const Ocs__CtlReply *r, const struct out_opts *po)
{
	return (print_with(r, po, NULL));
}

static int
print_agents(const Ocs__CtlReply *r, const struct out_opts *po)
{
	return (print_with(r, po, "agents"));
}

static int
print_runs(const Ocs__CtlReply *r, const struct out_opts *po)
{
	return (print_with(r, po, "runs"));
}

/* {"error": "..."} on stdout, for scripts that read only it. */
static void
j_error(const char *msg)
{
	json_t *o = json_object();
	char   *s;

	json_object_set_new(o, "error", json_string(msg));
	if ((s = json_dumps(o, JSON_INDENT(2))) != NULL)
		printf("%s\n", s);
	free(s);
	json_decref(o);
	fflush(stdout);
	fprintf(stderr, "ocsctl: %s\n", msg);
}

const struct output output_json = {
    .error = j_error,
    .print =
        {
            [OUT_SHOW] = print_json,
            [OUT_STATUS] = print_json,
            [OUT_DIFF] = print_json,
            [OUT_AGENTS] = print_agents,
            [OUT_MESSAGE] = print_json,
            [OUT_REPORT] = print_json,
            [OUT_PORTS] = print_json,
            [OUT_RUNS] = print_runs,
        },
};

/* SPDX-License-Identifier: BSD-2-Clause */
/* ocsctl -j: every reply as one JSON object (see ocsctl.h). */
#include <stdio.h>
#include <stdlib.h>

#include <jansson.h>

#include "ocsd/ocsctl.h"

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
j_report(const Ocs__RunReport *rr)
{
	json_t *o = json_object(), *ph = json_array(), *rb = json_array(),
	       *h = json_array();
	size_t i;

	json_object_set_new(o, "run_id", json_integer((json_int_t)rr->run_id));
	json_object_set_new(o, "algo", json_string(rr->algo));
	json_object_set_new(o, "nodes", json_integer(rr->nodes));
	json_object_set_new(o, "bytes", json_integer((json_int_t)rr->bytes));
	for (i = 0; i < rr->n_reconfigure_before; i++)
		json_array_append_new(rb,
		                      json_integer(rr->reconfigure_before[i]));
	json_object_set_new(o, "reconfigure_before", rb);
	for (i = 0; i < rr->n_phases; i++) {
		const Ocs__PhaseReport *p = rr->phases[i];
		json_t                 *e = json_object();

		json_object_set_new(e, "phase", json_integer(p->phase));
		json_object_set_new(e, "reconfigured",
		                    json_boolean(p->reconfigured));
		json_object_set_new(e, "reconf_s", json_real(p->reconf_s));
		json_object_set_new(e, "data_s", json_real(p->data_s));
		json_object_set_new(e, "barrier_s", json_real(p->barrier_s));
		json_object_set_new(e, "bytes",
		                    json_integer((json_int_t)p->bytes));
		json_object_set_new(e, "predicted_s",
		                    json_real(p->predicted_s));
		if (p->has_control_s)
			json_object_set_new(e, "control_s",
			                    json_real(p->control_s));
		json_array_append_new(ph, e);
	}
	json_object_set_new(o, "phases", ph);
	json_object_set_new(o, "total_s", json_real(rr->total_s));
	json_object_set_new(o, "predicted_s", json_real(rr->predicted_s));
	json_object_set_new(o, "blocks_verified",
	                    json_integer((json_int_t)rr->blocks_verified));
	json_object_set_new(o, "errors", json_integer((json_int_t)rr->errors));
	json_object_set_new(o, "verified",
	                    json_boolean(rr->errors == 0 && !rr->aborted));
	json_object_set_new(o, "delta_s", json_real(rr->delta_s));
	json_object_set_new(o, "bandwidth_bps", json_real(rr->bandwidth_bps));
	json_object_set_new(o, "alpha_s", json_real(rr->alpha_s));
	json_object_set_new(o, "alpha_h", json_real(rr->alpha_h));
	for (i = 0; i < rr->n_hosts; i++)
		json_array_append_new(h, json_string(rr->hosts[i]));
	json_object_set_new(o, "hosts", h);
	return (o);
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
		json_object_set_new(o, "report", j_report(r->report));
	if (r->n_cabling)
		json_object_set_new(o, "cabling",
		                    j_cabling(r->cabling, r->n_cabling));
	return (o);
}

static int
print_json(const Ocs__CtlReply *r)
{
	json_t *o = j_reply(r);
	char   *s = json_dumps(o, JSON_INDENT(2) | JSON_REAL_PRECISION(6));

	json_decref(o);
	if (s == NULL)
		return (ocsctl_fail("out of memory"));
	printf("%s\n", s);
	free(s);
	return (0);
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
            [OUT_AGENTS] = print_json,
            [OUT_MESSAGE] = print_json,
            [OUT_REPORT] = print_json,
        },
};

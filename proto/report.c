/* SPDX-License-Identifier: BSD-2-Clause */
/* A run's report as JSON and back (see report.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/msg.h"
#include "proto/report.h"

#define SET(o, k, v) json_object_set_new((o), (k), (v))

static json_t *
planes_json(const Ocs__PhaseReport *p)
{
	json_t *a = json_array();
	size_t  i;

	for (i = 0; i < p->n_planes; i++) {
		const Ocs__PlaneTime *t = p->planes[i];
		json_t               *e = json_object();

		SET(e, "name", json_string(t->name));
		SET(e, "reconfigured", json_boolean(t->reconfigured));
		if (t->has_reconf_s)
			SET(e, "reconf_s", json_real(t->reconf_s));
		if (t->has_release_s)
			SET(e, "release_s", json_real(t->release_s));
		json_array_append_new(a, e);
	}
	return (a);
}

static json_t *
phases_json(const Ocs__RunReport *rr)
{
	json_t *ph = json_array();
	size_t  i;

	for (i = 0; i < rr->n_phases; i++) {
		const Ocs__PhaseReport *p = rr->phases[i];
		json_t                 *e = json_object();

		SET(e, "phase", json_integer(p->phase));
		SET(e, "reconfigured", json_boolean(p->reconfigured));
		SET(e, "reconf_s", json_real(p->reconf_s));
		SET(e, "data_s", json_real(p->data_s));
		SET(e, "barrier_s", json_real(p->barrier_s));
		SET(e, "bytes", json_integer((json_int_t)p->bytes));
		SET(e, "predicted_s", json_real(p->predicted_s));
		if (p->has_control_s)
			SET(e, "control_s", json_real(p->control_s));
		if (p->has_link_s)
			SET(e, "link_s", json_real(p->link_s));
		if (p->has_planned_bytes)
			SET(e, "planned_bytes",
			    json_integer((json_int_t)p->planned_bytes));
		if (p->has_local_bytes)
			SET(e, "local_bytes",
			    json_integer((json_int_t)p->local_bytes));
		if (p->n_planes)
			SET(e, "planes", planes_json(p));
		json_array_append_new(ph, e);
	}
	return (ph);
}

static json_t *
timeline_json(const Ocs__RunReport *rr)
{
	json_t *tl = json_array();
	size_t  i, k;

	for (i = 0; i < rr->n_timeline; i++) {
		const Ocs__AgentTimeline *t = rr->timeline[i];
		json_t *o = json_object(), *ph = json_array();

		SET(o, "host", json_string(t->host));
		SET(o, "node", json_integer(t->node));
		if (t->has_setup_s)
			SET(o, "setup_s", json_real(t->setup_s));
		if (t->has_teardown_s)
			SET(o, "teardown_s", json_real(t->teardown_s));
		for (k = 0; k < t->n_phases; k++) {
			json_t *e = json_object();

			SET(e, "phase", json_integer(t->phases[k]->phase));
			SET(e, "data_s", json_real(t->phases[k]->data_s));
			SET(e, "verify_s", json_real(t->phases[k]->verify_s));
			SET(e, "wait_s", json_real(t->phases[k]->wait_s));
			json_array_append_new(ph, e);
		}
		SET(o, "phases", ph);
		json_array_append_new(tl, o);
	}
	return (tl);
}

json_t *
report_to_json(const Ocs__RunReport *rr)
{
	json_t *o = json_object(), *rb = json_array(), *h = json_array();
	size_t  i;

	SET(o, "run_id", json_integer((json_int_t)rr->run_id));
	SET(o, "algo", json_string(rr->algo));
	SET(o, "nodes", json_integer(rr->nodes));
	SET(o, "bytes", json_integer((json_int_t)rr->bytes));
	if (rr->matrix)
		SET(o, "matrix", json_string(rr->matrix));
	if (rr->topology)
		SET(o, "topology", json_string(rr->topology));
	if (rr->has_joined)
		SET(o, "joined", json_integer(rr->joined));
	if (rr->left_out)
		SET(o, "left_out", json_string(rr->left_out));
	if (rr->has_started_unix_ms)
		SET(o, "started_unix_ms",
		    json_integer((json_int_t)rr->started_unix_ms));
	for (i = 0; i < rr->n_reconfigure_before; i++)
		json_array_append_new(rb,
		                      json_integer(rr->reconfigure_before[i]));
	SET(o, "reconfigure_before", rb);
	SET(o, "phases", phases_json(rr));
	SET(o, "total_s", json_real(rr->total_s));
	if (rr->has_wall_s)
		SET(o, "wall_s", json_real(rr->wall_s));
	SET(o, "predicted_s", json_real(rr->predicted_s));
	SET(o, "blocks_verified",
	    json_integer((json_int_t)rr->blocks_verified));
	SET(o, "errors", json_integer((json_int_t)rr->errors));
	SET(o, "verified", json_boolean(rr->errors == 0 && !rr->aborted));
	if (rr->aborted)
		SET(o, "aborted", json_string(rr->aborted));
	SET(o, "delta_s", json_real(rr->delta_s));
	if (rr->has_switch_s)
		SET(o, "switch_s", json_real(rr->switch_s));
	if (rr->has_link_up_s)
		SET(o, "link_up_s", json_real(rr->link_up_s));
	if (rr->has_gpus_per_server)
		SET(o, "gpus_per_server", json_integer(rr->gpus_per_server));
	if (rr->has_scaleup_bps)
		SET(o, "scaleup_bps", json_real(rr->scaleup_bps));
	if (rr->planes) {
		SET(o, "planes", json_string(rr->planes));
		SET(o, "predicted_together_s",
		    json_real(rr->predicted_together_s));
		SET(o, "predicted_apart_s", json_real(rr->predicted_apart_s));
	}
	SET(o, "bandwidth_bps", json_real(rr->bandwidth_bps));
	SET(o, "alpha_s", json_real(rr->alpha_s));
	SET(o, "alpha_h", json_real(rr->alpha_h));
	for (i = 0; i < rr->n_hosts; i++)
		json_array_append_new(h, json_string(rr->hosts[i]));
	SET(o, "hosts", h);
	if (rr->n_timeline)
		SET(o, "timeline", timeline_json(rr));
	return (o);
}

/* ---- back from JSON --------------------------------------------------------
 * Every value is checked for its type and range; the first bad one is
 * named.  Allocation is plain malloc, so protobuf-c's free_unpacked (with
 * the default allocator) frees the result. */

struct jr {
	char  *err;
	size_t len;
	int    rv;
};

__attribute__((__format__(printf, 2, 3))) static void
bad(struct jr *c, const char *fmt, ...)
{
	va_list ap;

	if (c->rv != 0)
		return;
	va_start(ap, fmt);
	vsnprintf(c->err, c->len, fmt, ap);
	va_end(ap);
	c->rv = -MSG_EFIELD;
}

static double
num(struct jr *c, const json_t *o, const char *k, int need, int *has)
{
	const json_t *v = json_object_get(o, k);

	if (has)
		*has = v != NULL;
	if (v == NULL) {
		if (need)
			bad(c, "%s: missing", k);
		return (0);
	}
	if (!json_is_number(v) || json_number_value(v) < 0) {
		bad(c, "%s: expected a number >= 0", k);
		return (0);
	}
	return (json_number_value(v));
}

static uint64_t
unum(struct jr *c, const json_t *o, const char *k, int need, int *has)
{
	const json_t *v = json_object_get(o, k);

	if (has)
		*has = v != NULL;
	if (v == NULL) {
		if (need)
			bad(c, "%s: missing", k);
		return (0);
	}
	if (!json_is_integer(v) || json_integer_value(v) < 0) {
		bad(c, "%s: expected an integer >= 0", k);
		return (0);
	}
	return ((uint64_t)json_integer_value(v));
}

#define REPORT_MAX_TEXT 4096

/* Printable, not empty, at most REPORT_MAX_TEXT characters. */
static int
text_ok(const char *s)
{
	size_t i;

	if (s == NULL || s[0] == '\0')
		return (0);
	for (i = 0; s[i]; i++)
		if (i == REPORT_MAX_TEXT || (unsigned char)s[i] < 0x20 ||
		    s[i] == 0x7f)
			return (0);
	return (1);
}

static char *
str(struct jr *c, const json_t *o, const char *k, int need)
{
	const json_t *v = json_object_get(o, k);
	char         *s;

	if (v == NULL) {
		if (need)
			bad(c, "%s: missing", k);
		return (NULL);
	}
	/* Free text (why a run was aborted, who was left out) runs past a
	 * name's 256 characters: a record must not vanish for it. */
	if (!json_is_string(v) || !text_ok(json_string_value(v))) {
		bad(c, "%s: expected a printable string", k);
		return (NULL);
	}
	if ((s = strdup(json_string_value(v))) == NULL && c->rv == 0)
		c->rv = -ENOMEM;
	return (s);
}

/* An array under k of at most max elements: its size, 0 if absent. */
static size_t
arr(struct jr *c, const json_t *o, const char *k, size_t max, void **v,
    size_t el)
{
	const json_t *a = json_object_get(o, k);
	size_t        n;

	*v = NULL;
	if (a == NULL)
		return (0);
	if (!json_is_array(a) || (n = json_array_size(a)) > max) {
		bad(c, "%s: expected an array of at most %zu", k, max);
		return (0);
	}
	if (n && (*v = calloc(n, el)) == NULL) {
		c->rv = -ENOMEM;
		return (0);
	}
	return (n);
}

/* Phase i's planes (a run with planes apart). */
static void
planes_from(struct jr *c, const json_t *e, Ocs__PhaseReport *p, size_t i)
{
	const json_t *a = json_object_get(e, "planes");
	size_t        k, n = arr(c, e, "planes", 8, (void **)&p->planes,
	                         sizeof(*p->planes));
	int           has;

	for (k = 0; k < n && c->rv == 0; k++) {
		const json_t   *q = json_array_get(a, k);
		Ocs__PlaneTime *t = calloc(1, sizeof(*t));

		if (t == NULL) {
			c->rv = -ENOMEM;
			break;
		}
		ocs__plane_time__init(t);
		p->planes[p->n_planes++] = t;
		if (!json_is_object(q)) {
			bad(c, "phases[%zu].planes[%zu]: expected an object",
			    i, k);
			break;
		}
		t->name = str(c, q, "name", 1);
		t->reconfigured =
		    json_is_true(json_object_get(q, "reconfigured"));
		t->reconf_s = num(c, q, "reconf_s", 0, &has);
		t->has_reconf_s = has;
		t->release_s = num(c, q, "release_s", 0, &has);
		t->has_release_s = has;
	}
}

static void
phases_from(struct jr *c, const json_t *o, Ocs__RunReport *r)
{
	const json_t *a = json_object_get(o, "phases");
	size_t        i, n = arr(c, o, "phases", 4096, (void **)&r->phases,
	                         sizeof(*r->phases));

	for (i = 0; i < n && c->rv == 0; i++) {
		const json_t     *e = json_array_get(a, i);
		Ocs__PhaseReport *p = calloc(1, sizeof(*p));
		int               has;

		if (p == NULL) {
			c->rv = -ENOMEM;
			break;
		}
		ocs__phase_report__init(p);
		r->phases[r->n_phases++] = p;
		if (!json_is_object(e)) {
			bad(c, "phases[%zu]: expected an object", i);
			break;
		}
		p->phase = (uint32_t)unum(c, e, "phase", 1, NULL);
		p->reconfigured =
		    json_is_true(json_object_get(e, "reconfigured"));
		p->reconf_s = num(c, e, "reconf_s", 1, NULL);
		p->data_s = num(c, e, "data_s", 1, NULL);
		p->barrier_s = num(c, e, "barrier_s", 1, NULL);
		p->bytes = unum(c, e, "bytes", 1, NULL);
		p->predicted_s = num(c, e, "predicted_s", 1, NULL);
		p->control_s = num(c, e, "control_s", 0, &has);
		p->has_control_s = has;
		p->link_s = num(c, e, "link_s", 0, &has);
		p->has_link_s = has;
		p->planned_bytes = unum(c, e, "planned_bytes", 0, &has);
		p->has_planned_bytes = has;
		p->local_bytes = unum(c, e, "local_bytes", 0, &has);
		p->has_local_bytes = has;
		planes_from(c, e, p, i);
	}
}

static void
timeline_from(struct jr *c, const json_t *o, Ocs__RunReport *r)
{
	const json_t *a = json_object_get(o, "timeline");
	size_t        i, k, np,
	    n = arr(c, o, "timeline", 65536, (void **)&r->timeline,
	            sizeof(*r->timeline));

	for (i = 0; i < n && c->rv == 0; i++) {
		const json_t       *e = json_array_get(a, i), *pa;
		Ocs__AgentTimeline *t = calloc(1, sizeof(*t));
		int                 has;

		if (t == NULL) {
			c->rv = -ENOMEM;
			break;
		}
		ocs__agent_timeline__init(t);
		r->timeline[r->n_timeline++] = t;
		if (!json_is_object(e)) {
			bad(c, "timeline[%zu]: expected an object", i);
			break;
		}
		t->host = str(c, e, "host", 1);
		t->node = (uint32_t)unum(c, e, "node", 1, NULL);
		t->setup_s = num(c, e, "setup_s", 0, &has);
		t->has_setup_s = has;
		t->teardown_s = num(c, e, "teardown_s", 0, &has);
		t->has_teardown_s = has;
		pa = json_object_get(e, "phases");
		np = arr(c, e, "phases", 4096, (void **)&t->phases,
		         sizeof(*t->phases));
		for (k = 0; k < np && c->rv == 0; k++) {
			const json_t   *q = json_array_get(pa, k);
			Ocs__PhaseTime *p = calloc(1, sizeof(*p));

			if (p == NULL) {
				c->rv = -ENOMEM;
				break;
			}
			ocs__phase_time__init(p);
			t->phases[t->n_phases++] = p;
			if (!json_is_object(q)) {
				bad(c,
				    "timeline[%zu].phases[%zu]: expected "
				    "an object",
				    i, k);
				break;
			}
			p->phase = (uint32_t)unum(c, q, "phase", 1, NULL);
			p->data_s = num(c, q, "data_s", 1, NULL);
			p->verify_s = num(c, q, "verify_s", 1, NULL);
			p->wait_s = num(c, q, "wait_s", 1, NULL);
		}
	}
}

static void
lists_from(struct jr *c, const json_t *o, Ocs__RunReport *r)
{
	const json_t *a;
	size_t        i, n;

	a = json_object_get(o, "reconfigure_before");
	n = arr(c, o, "reconfigure_before", 4096,
	        (void **)&r->reconfigure_before,
	        sizeof(*r->reconfigure_before));
	for (i = 0; i < n && c->rv == 0; i++) {
		const json_t *v = json_array_get(a, i);

		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    json_integer_value(v) > UINT32_MAX)
			bad(c, "reconfigure_before[%zu]: expected a phase", i);
		else
			r->reconfigure_before[r->n_reconfigure_before++] =
			    (uint32_t)json_integer_value(v);
	}
	a = json_object_get(o, "hosts");
	n = arr(c, o, "hosts", 65536, (void **)&r->hosts, sizeof(*r->hosts));
	for (i = 0; i < n && c->rv == 0; i++) {
		const json_t *v = json_array_get(a, i);

		if (!json_is_string(v) || !msg_str_ok(json_string_value(v)))
			bad(c, "hosts[%zu]: expected a host name", i);
		else if ((r->hosts[r->n_hosts++] =
		              strdup(json_string_value(v))) == NULL)
			c->rv = -ENOMEM;
	}
}

int
report_from_json(const json_t *o, Ocs__RunReport **out, char *err, size_t len)
{
	struct jr       c = {err, len, 0};
	Ocs__RunReport *r;
	int             has;

	*out = NULL;
	if (!json_is_object(o)) {
		snprintf(err, len, "a report: expected an object");
		return (-MSG_EFIELD);
	}
	if ((r = calloc(1, sizeof(*r))) == NULL)
		return (-ENOMEM);
	ocs__run_report__init(r);
	r->run_id = unum(&c, o, "run_id", 1, NULL);
	r->algo = str(&c, o, "algo", 1);
	r->nodes = (uint32_t)unum(&c, o, "nodes", 1, NULL);
	r->bytes = unum(&c, o, "bytes", 1, NULL);
	r->matrix = str(&c, o, "matrix", 0);
	r->topology = str(&c, o, "topology", 0);
	r->joined = (uint32_t)unum(&c, o, "joined", 0, &has);
	r->has_joined = has;
	r->left_out = str(&c, o, "left_out", 0);
	r->started_unix_ms = unum(&c, o, "started_unix_ms", 0, &has);
	r->has_started_unix_ms = has;
	r->total_s = num(&c, o, "total_s", 1, NULL);
	r->wall_s = num(&c, o, "wall_s", 0, &has);
	r->has_wall_s = has;
	r->predicted_s = num(&c, o, "predicted_s", 1, NULL);
	r->blocks_verified = unum(&c, o, "blocks_verified", 1, NULL);
	r->errors = unum(&c, o, "errors", 1, NULL);
	r->aborted = str(&c, o, "aborted", 0);
	r->delta_s = num(&c, o, "delta_s", 1, NULL);
	r->switch_s = num(&c, o, "switch_s", 0, &has);
	r->has_switch_s = has;
	r->link_up_s = num(&c, o, "link_up_s", 0, &has);
	r->has_link_up_s = has;
	r->gpus_per_server = (uint32_t)unum(&c, o, "gpus_per_server", 0, &has);
	r->has_gpus_per_server = has;
	r->scaleup_bps = num(&c, o, "scaleup_bps", 0, &has);
	r->has_scaleup_bps = has;
	if ((r->planes = str(&c, o, "planes", 0)) != NULL) {
		r->predicted_together_s =
		    num(&c, o, "predicted_together_s", 0, &has);
		r->has_predicted_together_s = has;
		r->predicted_apart_s =
		    num(&c, o, "predicted_apart_s", 0, &has);
		r->has_predicted_apart_s = has;
	}
	r->bandwidth_bps = num(&c, o, "bandwidth_bps", 1, NULL);
	r->alpha_s = num(&c, o, "alpha_s", 1, NULL);
	r->alpha_h = num(&c, o, "alpha_h", 1, NULL);
	lists_from(&c, o, r);
	phases_from(&c, o, r);
	timeline_from(&c, o, r);
	if (c.rv == 0 && r->algo == NULL)
		bad(&c, "algo: missing");
	if (c.rv != 0) {
		report_free(r);
		if (c.rv == -ENOMEM)
			snprintf(err, len, "out of memory");
		return (c.rv);
	}
	*out = r;
	return (0);
}

void
report_free(Ocs__RunReport *r)
{
	if (r != NULL)
		ocs__run_report__free_unpacked(r, NULL);
}

void
report_strip(Ocs__RunReport *r)
{
	size_t i;

	for (i = 0; i < r->n_phases; i++)
		ocs__phase_report__free_unpacked(r->phases[i], NULL);
	free(r->phases);
	r->phases = NULL;
	r->n_phases = 0;
	for (i = 0; i < r->n_timeline; i++)
		ocs__agent_timeline__free_unpacked(r->timeline[i], NULL);
	free(r->timeline);
	r->timeline = NULL;
	r->n_timeline = 0;
}

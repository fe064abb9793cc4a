/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocs-emu's CALIENT REST resources: /rest/crossconnects (list, detail,
 * add as JSON or as a form, badd, bdel, delete, activate, deactivate,
 * deleteall), /rest/ports (summary, detail, config) and the identity
 * labvault reads (/rest/info, /rest/node).  Connections are emu_conn.c's
 * and keep their owner's name and group; a uni A>B runs through A's in
 * half and B's out half.  What real switches are known to answer, and
 * what is inferred, is in PROTOCOLS.md.
 */
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ocs-drivers/rest.h"
#include "proto/base/mono.h"
#include "proto/base/version.h"
#include "testbed/ocs-emu/emu_rest_int.h"

void
emu_rest_results(struct answer *a, const struct rest_result *res, size_t n,
                 int bulk)
{
	a->status = 200;
	a->body = rest_result_fmt(res, n, bulk);
}

void
emu_rest_fail(struct answer *a, const char *fmt, ...)
{
	struct rest_result res = {.ok = 0};
	va_list            ap;

	va_start(ap, fmt);
	vsnprintf(res.text, sizeof(res.text), fmt, ap);
	va_end(ap);
	emu_rest_results(a, &res, 1, 0);
}

static void
forbidden(struct answer *a)
{
	a->status = 403;
	a->body = strdup("[{\"status\":\"0\",\"msg\":\"Forbidden\","
	                 "\"description\":\"Read-only user\"}]");
}

static double
pw(const struct emu *e, uint32_t port, uint64_t now)
{
	double v = oxc_power(&e->x, port, now);

	return (v <= OXC_NO_LIGHT + 1 ? -90 : v);
}

/* A connection by its ports, as incircuit/outcircuit show it. */
static void
ports_of(const struct emu *e, const struct emu_conn *c, char *buf, size_t len)
{
	struct rest_xc x = {c->a, c->b, c->bi};

	rest_conn_fmt(&e->names, &x, buf, len);
}

static void
port_row(struct emu *e, uint32_t p, uint64_t now, struct rest_port *o)
{
	uint32_t         n = e->x.n;
	struct emu_conn *in = emu_conn_at(e, p, 0),
	                *out = emu_conn_at(e, p, 1);

	memset(o, 0, sizeof(*o));
	o->port = p;
	o->inpower = pw(e, p, now);
	o->outpower = pw(e, n + p, now);
	o->fail = e->x.failed[p] || e->x.failed[n + p];
	o->inoos = e->x.closed[p];
	o->outoos = e->x.closed[n + p];
	if (in != NULL)
		ports_of(e, in, o->inconn, sizeof(o->inconn));
	if (out != NULL)
		ports_of(e, out, o->outconn, sizeof(o->outconn));
	snprintf(o->inalias, sizeof(o->inalias), "%s", e->port[p].label);
	snprintf(o->outalias, sizeof(o->outalias), "%s", e->port[n + p].label);
}

/* ---- /rest/ports ---------------------------------------------------------- */

/* One item of ?id=config: aliases and admin states of a port. */
static int
config_item(struct emu *e, json_t *o, struct rest_result *r)
{
	static const char *const keys[] = {"inalias", "outalias", "inas",
	                                   "outas"};
	const char *port = json_string_value(json_object_get(o, "port"));
	const char *v[4];
	uint32_t    p, n = e->x.n;
	int         k;

	if (port == NULL || rest_port_parse(&e->names, port, &p) != 0)
		return (snprintf(r->text, sizeof(r->text),
		                 "Invalid port %.40s",
		                 port ? port : "(none)"));
	for (k = 0; k < 4; k++) {
		json_t *j = json_object_get(o, keys[k]);

		v[k] = json_string_value(j);
		if (j != NULL &&
		    (v[k] == NULL || (k < 2 && !emu_label_ok(v[k])) ||
		     (k >= 2 && strcmp(v[k], "IS") && strcmp(v[k], "OOS"))))
			return (snprintf(r->text, sizeof(r->text),
			                 "Invalid value for %s of %s", keys[k],
			                 port));
	}
	for (k = 0; k < 2; k++)
		if (v[k] != NULL)
			snprintf(e->port[k ? n + p : p].label,
			         sizeof(e->port[0].label), "%s", v[k]);
	for (k = 2; k < 4; k++)
		if (v[k] != NULL)
			e->x.closed[k == 3 ? n + p : p] =
			    strcmp(v[k], "OOS") == 0;
	r->ok = 1;
	return (0);
}

static void
ports_config(struct emu *e, const struct rest_req *q, struct answer *a)
{
	struct rest_result *res;
	json_t             *j = json_loadb(q->body, q->len, 0, NULL), *o;
	size_t              i, n;
	int                 bulk = json_is_array(j);

	n = bulk ? json_array_size(j) : 1;
	if ((!bulk && !json_is_object(j)) || n == 0 || n > e->x.n) {
		json_decref(j);
		emu_rest_fail(a, "Bad request: expected {\"port\":..} or an "
		                 "array of them");
		return;
	}
	if ((res = calloc(n, sizeof(*res))) != NULL) {
		for (i = 0; i < n; i++) {
			o = bulk ? json_array_get(j, i) : j;
			if (json_is_object(o))
				(void)config_item(e, o, &res[i]);
			else
				snprintf(
				    res[i].text, sizeof(res[i].text),
				    "Bad request: item %zu is not an object",
				    i);
		}
		emu_rest_results(a, res, n, bulk);
		e->x.gen++; /* aliases and states are kept */
	}
	free(res);
	json_decref(j);
}

void
emu_rest_ports(struct emu *e, const struct rest_req *q, struct answer *a)
{
	struct rest_port *rows, one;
	char              id[32], port[REST_NAME_MAX];
	uint64_t          now = mono_ns();
	uint32_t          p;

	if (rest_query_get(q->uri, "id", id, sizeof(id)) != 0)
		snprintf(id, sizeof(id), "summary");
	if (strcmp(q->method, "GET") != 0) {
		if (q->ro)
			forbidden(a);
		else if (strcmp(id, "config") == 0)
			ports_config(e, q, a);
		else
			emu_rest_fail(a, "Unknown id %s", id);
		return;
	}
	emu_conn_sync(e);
	a->status = 200;
	if (strcmp(id, "summary") == 0) {
		if ((rows = calloc(e->x.n, sizeof(*rows))) == NULL)
			return;
		for (p = 1; p <= e->x.n; p++)
			port_row(e, p, now, &rows[p - 1]);
		a->body = rest_ports_fmt(&e->names, rows, e->x.n);
		free(rows);
	} else if (strcmp(id, "detail") == 0) {
		if (rest_query_get(q->uri, "port", port, sizeof(port)) != 0 ||
		    rest_port_parse(&e->names, port, &p) != 0) {
			emu_rest_fail(a, "Invalid port %.40s", port);
			return;
		}
		port_row(e, p, now, &one);
		a->body = rest_detail_fmt(&e->names, &one);
	} else
		emu_rest_fail(a, "Unknown id %s", id);
}

/* ---- /rest/crossconnects -------------------------------------------------- */

static void
row_of(struct emu *e, const struct emu_conn *c, uint64_t now,
       struct rest_row *r)
{
	uint32_t n = e->x.n;
	int      k;

	memset(r, 0, sizeof(*r));
	r->x = (struct rest_xc){c->a, c->b, c->bi};
	memcpy(r->name, c->name, sizeof(r->name));
	memcpy(r->group, c->group, sizeof(r->group));
	r->active = c->active;
	for (k = 0; k < 1 + c->bi; k++) {
		uint32_t in = k ? c->b : c->a, out = n + (k ? c->a : c->b);

		r->h[k].inp = pw(e, in, now);
		r->h[k].outp = pw(e, out, now);
		r->h[k].fail = e->x.failed[in] || e->x.failed[out];
	}
}

static void
list(struct emu *e, struct answer *a)
{
	struct rest_row *r = calloc(e->conns.n + 1, sizeof(*r));
	uint64_t         now = mono_ns();
	size_t           i;

	a->status = 200;
	if (r == NULL)
		return;
	for (i = 0; i < e->conns.n; i++)
		row_of(e, &e->conns.v[i], now, &r[i]);
	a->body = rest_list_fmt(&e->names, r, e->conns.n);
	free(r);
}

/* The connection a query names: name= (if given), else conn=. */
static struct emu_conn *
query_conn(struct emu *e, const struct rest_req *q, struct answer *a)
{
	struct emu_conn *c;
	char             v[REST_CONN_MAX];

	if ((rest_query_get(q->uri, "name", v, sizeof(v)) != 0 || !v[0]) &&
	    rest_query_get(q->uri, "conn", v, sizeof(v)) != 0) {
		emu_rest_fail(a, "Bad request: conn= or name= expected");
		return (NULL);
	}
	if ((c = emu_conn_find(e, v)) == NULL)
		emu_rest_fail(a, "Connection %s does not exist", v);
	return (c);
}

static void
detail(struct emu *e, const struct rest_req *q, struct answer *a)
{
	struct emu_conn *c = query_conn(e, q, a);
	struct rest_row  r;

	if (c == NULL)
		return;
	row_of(e, c, mono_ns(), &r);
	a->status = 200;
	a->body = rest_list_fmt(&e->names, &r, 1);
}

static void
add_one(struct emu *e, const struct rest_add *x, int refuse,
        struct rest_result *r)
{
	struct emu_conn c = {.a = x->x.a, .b = x->x.b, .bi = x->x.bi};

	if (refuse) {
		snprintf(r->text, sizeof(r->text),
		         "Equipment fault: bulk add stopped half way");
		return;
	}
	memcpy(c.name, x->name, sizeof(c.name));
	memcpy(c.group, x->group, sizeof(c.group));
	r->ok =
	    emu_conn_add(e, &c, 1, mono_ns(), r->text, sizeof(r->text)) == 0;
}

/* add (JSON or form) and badd: one by one, as a switch does. */
static void
add(struct emu *e, const struct rest_req *q, int bulk, struct answer *a)
{
	struct rest_add    *x = NULL, one;
	struct rest_result *res;
	char                err[300];
	size_t              n = 1, i, stop;
	int                 rv;

	if (!bulk && (q->form || q->len == 0 ||
	              (q->body[0] != '{' && q->body[0] != '[')))
		rv = rest_add_form_parse(q->body, q->len, &e->names, &one, err,
		                         sizeof(err));
	else
		rv = rest_badd_parse(q->body, q->len, &e->names, &x, &n, err,
		                     sizeof(err));
	if (rv == 0 && (n == 0 || (!bulk && n != 1))) {
		snprintf(err, sizeof(err), "%s",
		         n ? "one connection expected" : "no connections");
		rv = -REST_EVALUE;
	}
	if (rv != 0) {
		free(x);
		emu_rest_fail(a, "Bad request: %s", err);
		return;
	}
	if ((res = calloc(n, sizeof(*res))) != NULL) {
		stop = e->fault.deny_half && n > 1 ? n / 2 : n;
		for (i = 0; i < n; i++)
			add_one(e, x ? &x[i] : &one, i >= stop, &res[i]);
		emu_rest_results(a, res, n, bulk);
	}
	free(res);
	free(x);
}

static void
bdel(struct emu *e, const struct rest_req *q, struct answer *a)
{
	struct rest_ref    *x;
	struct rest_result *res;
	struct emu_conn    *c;
	char                err[300];
	size_t              n, i;

	if (rest_bdel_parse(q->body, q->len, &e->names, &x, &n, err,
	                    sizeof(err)) != 0) {
		emu_rest_fail(a, "Bad request: %s", err);
		return;
	}
	if ((res = calloc(n ? n : 1, sizeof(*res))) != NULL) {
		for (i = 0; i < n; i++) {
			if ((c = emu_conn_find(e, x[i].text)) == NULL) {
				snprintf(res[i].text, sizeof(res[i].text),
				         "Connection %s does not exist",
				         x[i].text);
				continue;
			}
			emu_conn_delete(e, c, mono_ns());
			res[i].ok = 1;
		}
		emu_rest_results(a, res, n, 1);
	}
	free(res);
	free(x);
}

/* delete, activate, deactivate: one connection named in the query. */
static void
one_conn(struct emu *e, const struct rest_req *q, const char *id,
         struct answer *a)
{
	struct rest_result r = {.ok = 1};
	struct emu_conn   *c = query_conn(e, q, a);

	if (c == NULL)
		return;
	if (strcmp(id, "delete") == 0)
		emu_conn_delete(e, c, mono_ns());
	else if (strcmp(id, "deactivate") == 0)
		emu_conn_deactivate(e, c, mono_ns());
	else
		r.ok = emu_conn_activate(e, c, mono_ns(), r.text,
		                         sizeof(r.text)) == 0;
	emu_rest_results(a, &r, 1, 0);
}

/* The request's id: in the query, else in a form body, else by method. */
static void
request_id(const struct rest_req *q, char *id, size_t len)
{
	if (rest_query_get(q->uri, "id", id, len) == 0)
		return;
	if (q->form && rest_form_get(q->body, q->len, "id", id, len) == 0)
		return;
	if (strcmp(q->method, "POST") == 0 && q->len > 0 &&
	    q->body[0] != '{' && q->body[0] != '[' &&
	    rest_form_get(q->body, q->len, "id", id, len) == 0)
		return;
	snprintf(id, len, "%s",
	         strcmp(q->method, "DELETE") == 0 ? "delete" : "list");
}

void
emu_rest_crossconnects(struct emu *e, const struct rest_req *q,
                       struct answer *a)
{
	char id[32];
	int  get = strcmp(q->method, "GET") == 0;
	int  post = strcmp(q->method, "POST") == 0;

	emu_conn_sync(e);
	request_id(q, id, sizeof(id));
	if (get && strcmp(id, "list") == 0)
		list(e, a);
	else if (get && strcmp(id, "detail") == 0)
		detail(e, q, a);
	else if (get)
		emu_rest_fail(a, "Unknown id %s", id);
	else if (q->ro)
		forbidden(a);
	else if (post && strcmp(id, "add") == 0)
		add(e, q, 0, a);
	else if (post && strcmp(id, "badd") == 0)
		add(e, q, 1, a);
	else if (post && strcmp(id, "bdel") == 0)
		bdel(e, q, a);
	else if ((strcmp(q->method, "DELETE") == 0 &&
	          strcmp(id, "delete") == 0) ||
	         (post && (strcmp(id, "activate") == 0 ||
	                   strcmp(id, "deactivate") == 0)))
		one_conn(e, q, id, a);
	else if (post && strcmp(id, "deleteall") == 0) {
		struct rest_result ok = {.ok = 1};

		emu_conn_clear(e);
		emu_rest_results(a, &ok, 1, 0);
	} else {
		a->status = 405;
		a->body = strdup("[{\"status\":\"0\",\"msg\":\"Method not "
		                 "allowed\"}]");
	}
}

/* ---- identity ------------------------------------------------------------- */

static json_t *
syscfg(const struct emu *e)
{
	char sn[32], pn[48];

	snprintf(sn, sizeof(sn), "EMU%06u", e->x.n);
	snprintf(pn, sizeof(pn), "OCS-EMU-%ux%u", e->x.n, e->x.n);
	return (json_pack("{s:s,s:s,s:i}", "serialnumber", sn, "partnumber",
	                  pn, "ports", (json_int_t)e->x.n));
}

/* labvault: info ?id=softwareversion is an object with "version";
 * node ?detail=SOFTWARE a list whose [0].version; SYSCFG an object with
 * serialnumber/partnumber; HARDWARE the same under nodeSysConfigInfo. */
void
emu_rest_info(struct emu *e, const struct rest_req *q, struct answer *a)
{
	char    id[32], det[32];
	json_t *j = NULL;

	a->status = 200;
	if (strncmp(q->uri, "/rest/node", 10) == 0) {
		if (rest_query_get(q->uri, "detail", det, sizeof(det)) != 0)
			det[0] = '\0';
		if (strcmp(det, "SOFTWARE") == 0)
			j = json_pack("[{s:s,s:s}]", "name", "ocs-emu",
			              "version", OCS_VERSION);
		else if (strcmp(det, "SYSCFG") == 0 || det[0] == '\0')
			j = syscfg(e);
		else if (strcmp(det, "HARDWARE") == 0)
			j = json_pack("{s:o}", "nodeSysConfigInfo", syscfg(e));
		else {
			emu_rest_fail(a, "Unknown detail %s", det);
			return;
		}
		a->body = j ? json_dumps(j, JSON_COMPACT) : NULL;
		json_decref(j);
		return;
	}
	if (rest_query_get(q->uri, "id", id, sizeof(id)) != 0)
		snprintf(id, sizeof(id), "restversion");
	if (strcmp(id, "restversion") == 0)
		a->body = strdup("[{\"restversion\":\"1.0\"}]");
	else if (strcmp(id, "softwareversion") == 0)
		a->body = strdup("{\"version\":\"ocs-emu " OCS_VERSION "\"}");
	else
		emu_rest_fail(a, "Unknown id %s", id);
}

const char *
emu_rest_origin(const char *t)
{
	const char *p;

	if (strncasecmp(t, "http://", 7) == 0)
		p = t + 7;
	else if (strncasecmp(t, "https://", 8) == 0)
		p = t + 8;
	else
		return (t);
	/* The authority runs to the path, or to the query if none. */
	p += strcspn(p, "/?");
	return (*p == '/' ? p : "/");
}

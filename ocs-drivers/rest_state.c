/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What a CALIENT switch reports over REST: the cross-connect list, the
 * ports summary and a port's detail, both ways.  The shapes are those of
 * real switches as their clients read them (labvault's list rows with
 * half1/half2, RENAT's port detail); see testbed/ocs-emu/PROTOCOLS.md.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocs-drivers/rest.h"
#include "ocs-drivers/rest_int.h"
#include "proto/base/errf.h"

/* ---- the cross-connect list ---------------------------------------------- */

/* half.conn of list row i as a uni connection, into x. */
static int
half_conn(json_t *h, const char *which, size_t i, const struct rest_names *t,
          struct rest_xc *x, char *err, size_t errlen)
{
	json_t     *c = json_object_get(h, "conn");
	const char *s;

	if (!json_is_string(c))
		return (errf(-REST_ESHAPE, err, errlen,
		             "list[%zu].%s.conn: expected a string", i,
		             which));
	s = json_string_value(c);
	if (rest_conn_parse(t, s, x) != 0 || x->bi)
		return (errf(-REST_EVALUE, err, errlen,
		             "list[%zu].%s.conn: \"%.40s\" is not IN>OUT of "
		             "this switch",
		             i, which, s));
	return (0);
}

/* A listed row: half1.conn (and half2.conn, the way back, when bi). */
static int
list_row(json_t *o, size_t i, const struct rest_names *t, void *out, char *err,
         size_t errlen)
{
	struct rest_xc *x = out, back;
	json_t         *h1, *h2, *dir;
	int             rv;

	h1 = json_object_get(o, "half1");
	h2 = json_object_get(o, "half2");
	if (!json_is_object(h1))
		return (errf(-REST_ESHAPE, err, errlen,
		             "list[%zu].half1: expected an object", i));
	if (h2 != NULL && !json_is_null(h2) && !json_is_object(h2))
		return (errf(-REST_ESHAPE, err, errlen,
		             "list[%zu].half2: expected an object", i));
	if ((rv = half_conn(h1, "half1", i, t, x, err, errlen)) != 0)
		return (rv);
	if (json_is_object(h2)) {
		if ((rv = half_conn(h2, "half2", i, t, &back, err, errlen)) !=
		    0)
			return (rv);
		if (back.a != x->b || back.b != x->a || x->a == x->b)
			return (errf(
			    -REST_EVALUE, err, errlen,
			    "list[%zu].half2.conn: \"%.40s\" is not "
			    "the way back of half1",
			    i,
			    json_string_value(json_object_get(h2, "conn"))));
		x->bi = 1;
	}
	/* The direction field, if present, must agree with the halves. */
	dir = json_object_get(o, "dir");
	if (dir != NULL) {
		const char *d =
		    json_is_string(dir) ? json_string_value(dir) : "";

		if ((strcmp(d, "bi") && strcmp(d, "uni")) ||
		    (strcmp(d, "bi") == 0) != x->bi)
			return (errf(-REST_EVALUE, err, errlen,
			             "list[%zu].dir: \"%.10s\" does not match "
			             "its halves (%s)",
			             i, d, x->bi ? "two" : "one"));
	}
	return (0);
}

int
rest_list_parse(const char *body, size_t len, const struct rest_names *t,
                struct rest_xc **out, size_t *n, char *err, size_t errlen)
{
	return (rest_walk(body, len, "list", 0, sizeof(**out), list_row, t,
	                  (void **)out, n, err, errlen));
}

static json_t *
power_str(double dbm)
{
	char b[32];

	if (dbm <= -90)
		return (json_string("NONE"));
	snprintf(b, sizeof(b), "%.1f", dbm);
	return (json_string(b));
}

static json_t *
half_obj(const struct rest_names *t, const struct rest_row *r, int second)
{
	const struct rest_half *h = &r->h[second];
	struct rest_xc          u = {.a = second ? r->x.b : r->x.a,
	                             .b = second ? r->x.a : r->x.b};
	char                    loss[32];
	int                     lit = r->active && !h->fail;

	snprintf(loss, sizeof(loss), "%.1f",
	         h->inp > -90 && h->outp > -90 ? h->inp - h->outp : 0.0);
	return (json_pack(
	    "{s:o,s:o,s:o,s:s,s:s,s:s,s:s,s:s,s:s}", "conn",
	    rest_conn_json(t, &u), "inp", power_str(h->inp), "outp",
	    power_str(h->outp), "loss", loss, "alarm", h->fail ? "LOS" : "",
	    "as", r->active ? "IS" : "OOS", "os", lit ? "IS" : "OOS", "oc",
	    h->fail ? "FAIL" : "OK", "state", r->active ? "ACT" : "IDLE"));
}

char *
rest_list_fmt(const struct rest_names *t, const struct rest_row *r, size_t n)
{
	json_t *a = json_array();
	char    nm[REST_CONN_MAX];
	size_t  i;

	for (i = 0; a && i < n; i++) {
		json_t *o = json_pack(
		    "{s:s,s:s,s:s,s:s,s:o}", "name",
		    r[i].name[0] ? r[i].name
		                 : rest_conn_fmt(t, &r[i].x, nm, sizeof(nm)),
		    "group", r[i].group[0] ? r[i].group : "SYSTEM", "dir",
		    r[i].x.bi ? "bi" : "uni", "band", "CBAND", "half1",
		    half_obj(t, &r[i], 0));

		if (o != NULL && r[i].x.bi &&
		    json_object_set_new(o, "half2", half_obj(t, &r[i], 1)) !=
		        0) {
			json_decref(o);
			o = NULL;
		}
		if (json_array_append_new(a, o) != 0) {
			json_decref(a);
			return (NULL);
		}
	}
	return (rest_dump(a));
}

/* ---- ports --------------------------------------------------------------- */

/* Power: a number as a string, or "NONE" when dark. */
static int
power_parse(json_t *v, double *dbm)
{
	const char *s;
	char       *end;

	if (v == NULL) {
		*dbm = -90;
		return (0);
	}
	if (json_is_number(v)) {
		*dbm = json_number_value(v);
		return (isfinite(*dbm) ? 0 : -REST_EVALUE);
	}
	if (!json_is_string(v))
		return (-REST_EVALUE);
	s = json_string_value(v);
	if (strcmp(s, "NONE") == 0 || *s == '\0') {
		*dbm = -90;
		return (0);
	}
	*dbm = strtod(s, &end);
	return (*end != '\0' || !isfinite(*dbm) ? -1 : 0);
}

static int
oc_failed(json_t *o, const char *key)
{
	json_t     *v = json_object_get(o, key);
	const char *s = json_is_string(v) ? json_string_value(v) : "";

	return (strcmp(s, "FAIL") == 0 || strcmp(s, "NOHW") == 0);
}

/* An optional string field into buf (truncated), "" if absent. */
static int
opt_str(json_t *o, const char *key, char *buf, size_t len)
{
	json_t *v = json_object_get(o, key);

	buf[0] = '\0';
	if (v == NULL || json_is_null(v))
		return (0);
	if (!json_is_string(v) ||
	    strlen(json_string_value(v)) != json_string_length(v))
		return (-REST_ESHAPE);
	snprintf(buf, len, "%s", json_string_value(v));
	return (0);
}

static int
as_oos(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return (json_is_string(v) &&
	        strncmp(json_string_value(v), "OOS", 3) == 0 &&
	        strcmp(json_string_value(v), "OOS-NP") != 0);
}

/* The fields of a port row other than its name; ctx[i] in messages. */
static int
port_fields(json_t *o, const char *ctx, size_t i, struct rest_port *r,
            char *err, size_t errlen)
{
	json_t *pin = json_object_get(o, "inpower");

	if (power_parse(pin ? pin : json_object_get(o, "power"),
	                &r->inpower) != 0 ||
	    power_parse(json_object_get(o, "outpower"), &r->outpower) != 0)
		return (errf(-REST_EVALUE, err, errlen,
		             "%s[%zu]: power is not a number", ctx, i));
	if (opt_str(o, json_object_get(o, "incircuit") ? "incircuit" : "conn",
	            r->inconn, sizeof(r->inconn)) != 0 ||
	    opt_str(o, "outcircuit", r->outconn, sizeof(r->outconn)) != 0 ||
	    opt_str(o, "inalias", r->inalias, sizeof(r->inalias)) != 0 ||
	    opt_str(o, "outalias", r->outalias, sizeof(r->outalias)) != 0)
		return (errf(-REST_ESHAPE, err, errlen,
		             "%s[%zu]: a circuit or an alias is not a string",
		             ctx, i));
	r->fail = oc_failed(o, "inoc") || oc_failed(o, "outoc") ||
	          oc_failed(o, "oc");
	r->inoos = as_oos(o, "inas");
	r->outoos = as_oos(o, "outas");
	return (0);
}

/* Every row's name, as listed, for rest_names_set. */
static int
row_names(json_t *j, char (*names)[REST_NAME_MAX], char *err, size_t errlen)
{
	json_t     *o;
	const char *s;
	size_t      i;

	json_array_foreach(j, i, o)
	{
		if (!json_is_object(o))
			return (errf(-REST_ESHAPE, err, errlen,
			             "ports[%zu]: expected an object", i));
		if ((s = rest_str_field(o, "ports", i, "port", err, errlen)) ==
		    NULL)
			return (-REST_ESHAPE);
		if (strlen(s) >= REST_NAME_MAX)
			return (errf(-REST_EVALUE, err, errlen,
			             "ports[%zu].port: \"%.31s...\" is not "
			             "shelf.module.port",
			             i, s));
		memcpy(names[i], s, strlen(s) + 1);
	}
	return (0);
}

int
rest_ports_parse(const char *body, size_t len, struct rest_names *t,
                 struct rest_port **rowsp, char *err, size_t errlen)
{
	struct rest_port *rows = NULL;
	char(*names)[REST_NAME_MAX] = NULL;
	json_t  *j, *o;
	uint32_t p;
	size_t   i, k;
	int      rv;

	memset(t, 0, sizeof(*t));
	if (rowsp != NULL)
		*rowsp = NULL;
	if ((rv = rest_load(body, len, &j, err, errlen)) != 0)
		return (rv);
	if (!json_is_array(j) || (k = json_array_size(j)) == 0) {
		rv = errf(-REST_ESHAPE, err, errlen,
		          "ports: expected a non-empty JSON array");
		goto out;
	}
	if (k > REST_PORTS_MAX) {
		rv = errf(-REST_EVALUE, err, errlen,
		          "ports: %zu rows, more than %d", k, REST_PORTS_MAX);
		goto out;
	}
	if ((names = calloc(k, sizeof(*names))) == NULL ||
	    (rows = calloc(k, sizeof(*rows))) == NULL) {
		rv = -ENOMEM;
		goto out;
	}
	if ((rv = row_names(j, names, err, errlen)) != 0 ||
	    (rv = rest_names_set(t, (const char(*)[REST_NAME_MAX])names, k,
	                         err, errlen)) != 0)
		goto out;
	json_array_foreach(j, i, o)
	{
		(void)rest_port_parse(t, names[i], &p);
		rows[p - 1].port = p;
		if ((rv = port_fields(o, "ports", i, &rows[p - 1], err,
		                      errlen)) != 0)
			goto out;
	}
	if (rowsp != NULL) {
		*rowsp = rows;
		rows = NULL;
	}
out:
	if (rv != 0)
		rest_names_free(t);
	free(names);
	free(rows);
	json_decref(j);
	return (rv);
}

char *
rest_ports_fmt(const struct rest_names *t, const struct rest_port *p, size_t n)
{
	json_t *a = json_array();
	size_t  i;

	for (i = 0; a && i < n; i++) {
		const char *oc = p[i].fail ? "FAIL" : "OK";
		const char *c = p[i].inconn[0] ? p[i].inconn : p[i].outconn;
		json_t     *o = json_pack(
		        "{s:o,s:s,s:s,s:o,s:o,s:o,s:s,s:s,s:s,s:s}", "port",
		        rest_port_json(t, p[i].port), "conn", c, "connid", c,
		        "power", power_str(p[i].inpower), "inpower",
		        power_str(p[i].inpower), "outpower",
		        power_str(p[i].outpower), "inoc", oc, "outoc", oc,
		        "inalias", p[i].inalias, "outalias", p[i].outalias);

		if (json_array_append_new(a, o) != 0) {
			json_decref(a);
			return (NULL);
		}
	}
	return (rest_dump(a));
}

/* ---- one port's detail --------------------------------------------------- */

int
rest_detail_parse(const char *body, size_t len, const struct rest_names *t,
                  struct rest_port *pt, char *err, size_t errlen)
{
	json_t *j, *o;
	int     rv;

	memset(pt, 0, sizeof(*pt));
	if ((rv = rest_load(body, len, &j, err, errlen)) != 0)
		return (rv);
	o = j;
	if (json_is_array(j) && json_array_size(j) == 1)
		o = json_array_get(j, 0);
	if (!json_is_object(o)) {
		rv = errf(-REST_ESHAPE, err, errlen,
		          "detail: expected [{...}], one object");
		goto out;
	}
	if ((rv = rest_port_field(o, "detail", 0, "port", t, &pt->port, err,
	                          errlen)) != 0)
		goto out;
	rv = port_fields(o, "detail", 0, pt, err, errlen);
out:
	json_decref(j);
	return (rv);
}

/* A half's admin state, operational state and owner. */
static void
half_states(const char *conn, int oos, int fail, const char **as,
            const char **os, const char **owner)
{
	*as = oos ? "OOS" : conn[0] ? "IS" : "OOS-NP";
	*os = conn[0] && !oos && !fail ? "IS" : "OOS";
	*owner = conn[0] ? "TRANSIT" : "NONE";
}

char *
rest_detail_fmt(const struct rest_names *t, const struct rest_port *p)
{
	const char *oc = p->fail ? "FAIL" : "OK";
	const char *ias, *ios, *iow, *oas, *oos, *oow;
	json_t     *o;

	half_states(p->inconn, p->inoos, p->fail, &ias, &ios, &iow);
	half_states(p->outconn, p->outoos, p->fail, &oas, &oos, &oow);
	o = json_pack("{s:o,s:s,s:s,s:s,s:o,s:s,s:s,s:s,"
	              "s:s,s:s,s:s,s:o,s:s,s:s,s:s}",
	              "port", rest_port_json(t, p->port), "inas", ias, "inos",
	              ios, "inoc", oc, "inpower", power_str(p->inpower),
	              "incircuit", p->inconn, "inowner", iow, "inalias",
	              p->inalias, "outas", oas, "outos", oos, "outoc", oc,
	              "outpower", power_str(p->outpower), "outcircuit",
	              p->outconn, "outowner", oow, "outalias", p->outalias);
	return (rest_dump(json_pack("[o]", o)));
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * CALIENT REST bodies with jansson.  Parsers are strict about what they
 * use (types, port ranges, one connection per port) and ignore fields
 * they do not know, as real switches add fields between releases.
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocs-drivers/rest.h"
#include "proto/base/errf.h"

#define JSON_DEPTH_MAX 16

const char *
rest_port_fmt(uint32_t p, char *buf, size_t len)
{
	if (p == 0)
		snprintf(buf, len, "?");
	else
		snprintf(buf, len, "1.%" PRIu32 ".%" PRIu32,
		         (p - 1) / REST_PORTS_PER_MODULE + 1,
		         (p - 1) % REST_PORTS_PER_MODULE + 1);
	return (buf);
}

/* A decimal number without sign or leading junk, at most 6 digits. */
static const char *
num(const char *s, uint32_t *v)
{
	uint32_t x = 0;
	int      k = 0;

	while (*s >= '0' && *s <= '9' && k < 7) {
		x = x * 10 + (uint32_t)(*s++ - '0');
		k++;
	}
	if (k == 0 || k > 6)
		return (NULL);
	*v = x;
	return (s);
}

int
rest_port_parse(const char *s, uint32_t *p)
{
	uint32_t shelf, mod, port, sub;

	if ((s = num(s, &shelf)) == NULL || *s++ != '.' ||
	    (s = num(s, &mod)) == NULL || *s++ != '.' ||
	    (s = num(s, &port)) == NULL)
		return (-REST_EVALUE);
	if (*s == '/') {
		if ((s = num(s + 1, &sub)) == NULL || sub != 1)
			return (-REST_EVALUE);
	}
	if (*s != '\0' || shelf != 1 || mod < 1 || mod > 4096 || port < 1 ||
	    port > REST_PORTS_PER_MODULE)
		return (-REST_EVALUE);
	*p = (mod - 1) * REST_PORTS_PER_MODULE + port;
	return (0);
}

const char *
rest_conn_fmt(const struct rest_xc *x, char *buf, size_t len)
{
	char a[REST_NAME_MAX], b[REST_NAME_MAX];

	snprintf(buf, len, "%s%c%s", rest_port_fmt(x->a, a, sizeof(a)),
	         x->bi ? '-' : '>', rest_port_fmt(x->b, b, sizeof(b)));
	return (buf);
}

int
rest_conn_parse(const char *s, struct rest_xc *x)
{
	char        a[REST_NAME_MAX];
	const char *sep = strpbrk(s, "->");

	if (sep == NULL || (size_t)(sep - s) >= sizeof(a))
		return (-REST_EVALUE);
	memcpy(a, s, (size_t)(sep - s));
	a[sep - s] = '\0';
	if (rest_port_parse(a, &x->a) != 0 || rest_port_parse(sep + 1, &x->b))
		return (-REST_EVALUE);
	x->bi = *sep == '-';
	return (0);
}

/* ---- parsing helpers ------------------------------------------------------ */

static int
depth_ok(json_t *j, int d)
{
	size_t      i;
	const char *k;
	json_t     *v;

	if (d > JSON_DEPTH_MAX)
		return (0);
	if (json_is_array(j)) {
		json_array_foreach(j, i,
		                   v) if (!depth_ok(v, d + 1)) return (0);
	} else if (json_is_object(j)) {
		json_object_foreach(j, k,
		                    v) if (!depth_ok(v, d + 1)) return (0);
	}
	return (1);
}

static int
load(const char *body, size_t len, json_t **out, char *err, size_t errlen)
{
	json_error_t je;
	json_t      *j;

	if (len > REST_BODY_MAX) {
		return (errf(-REST_ESIZE, err, errlen,
		             "body of %zu bytes is over the %u byte limit",
		             len, REST_BODY_MAX));
	}
	if (body == NULL || len == 0) {
		return (errf(-REST_EJSON, err, errlen,
		             "empty body where JSON was expected"));
	}
	j = json_loadb(body, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL,
	               &je);
	if (j == NULL) {
		return (errf(-REST_EJSON, err, errlen,
		             "not JSON: %s at line %d column %d", je.text,
		             je.line, je.column));
	}
	if (!depth_ok(j, 0)) {
		json_decref(j);
		return (errf(-REST_EJSON, err, errlen,
		             "JSON nested deeper than %d", JSON_DEPTH_MAX));
	}
	*out = j;
	return (0);
}

/* A string field; NULL with err filled if absent or not a string. */
static const char *
str_field(json_t *o, const char *ctx, size_t i, const char *key, char *err,
          size_t errlen)
{
	json_t *v = json_object_get(o, key);

	if (v == NULL) {
		(void)errf(0, err, errlen, "%s[%zu]: field \"%s\" missing",
		           ctx, i, key);
		return (NULL);
	}
	if (!json_is_string(v) ||
	    strlen(json_string_value(v)) != json_string_length(v)) {
		(void)errf(0, err, errlen, "%s[%zu].%s: expected a string",
		           ctx, i, key);
		return (NULL);
	}
	return (json_string_value(v));
}

static int
port_field(json_t *o, const char *ctx, size_t i, const char *key,
           uint32_t nports, uint32_t *p, char *err, size_t errlen)
{
	const char *s = str_field(o, ctx, i, key, err, errlen);

	if (s == NULL)
		return (-REST_ESHAPE);
	if (rest_port_parse(s, p) != 0 || (nports && *p > nports)) {
		return (errf(-REST_EVALUE, err, errlen,
		             "%s[%zu].%s: \"%.40s\" is not a port%s", ctx, i,
		             key, s, nports ? " of this switch" : ""));
	}
	return (0);
}

static int
conn_check(const struct rest_xc *x, uint32_t nports)
{
	if (nports && (x->a > nports || x->b > nports))
		return (-REST_EVALUE);
	return (x->bi && x->a == x->b ? -1 : 0);
}

/* One element of a top-level array: o is element i, out its slot. */
typedef int (*item_fn)(json_t *o, size_t i, uint32_t nports, void *out,
                       char *err, size_t errlen);

/*
 * Parse a body that is an array of objects (or, with one_ok, a single
 * object standing for an array of one) into a malloc'd array of elsize
 * elements, one item() call each.  ctx names the array in messages.
 */
static int
walk(const char *body, size_t len, const char *ctx, int one_ok, size_t elsize,
     item_fn item, uint32_t nports, void **out, size_t *n, char *err,
     size_t errlen)
{
	json_t *j, *o;
	char   *x = NULL;
	size_t  i;
	int     rv;

	*out = NULL;
	*n = 0;
	if ((rv = load(body, len, &j, err, errlen)) != 0)
		return (rv);
	if (one_ok && json_is_object(j)) {
		json_t *a = json_array();

		if (a == NULL || json_array_append_new(a, j) != 0) {
			json_decref(a);
			json_decref(j);
			return (-ENOMEM);
		}
		j = a;
	}
	if (!json_is_array(j)) {
		rv = errf(-REST_ESHAPE, err, errlen,
		          "%s: expected a JSON array", ctx);
		goto out;
	}
	if ((x = calloc(json_array_size(j) + 1, elsize)) == NULL) {
		rv = -ENOMEM;
		goto out;
	}
	json_array_foreach(j, i, o)
	{
		if (!json_is_object(o)) {
			rv = errf(-REST_ESHAPE, err, errlen,
			          "%s[%zu]: expected an object", ctx, i);
			goto out;
		}
		if ((rv = item(o, i, nports, x + i * elsize, err, errlen)) !=
		    0)
			goto out;
	}
	*n = json_array_size(j);
out:
	json_decref(j);
	if (rv != 0) {
		free(x);
		*n = 0;
		return (rv);
	}
	*out = x;
	return (0);
}

static int
badd_item(json_t *o, size_t i, uint32_t nports, void *out, char *err,
          size_t errlen)
{
	struct rest_xc *x = out;
	const char     *dir;
	int             rv;

	if ((rv = port_field(o, "crossconnects", i, "in", nports, &x->a, err,
	                     errlen)) != 0 ||
	    (rv = port_field(o, "crossconnects", i, "out", nports, &x->b, err,
	                     errlen)) != 0)
		return (rv);
	if ((dir = str_field(o, "crossconnects", i, "dir", err, errlen)) ==
	    NULL)
		return (-REST_ESHAPE);
	if (strcmp(dir, "bi") && strcmp(dir, "uni")) {
		return (
		    errf(-REST_EVALUE, err, errlen,
		         "crossconnects[%zu].dir: \"%.20s\" is not bi or uni",
		         i, dir));
	}
	x->bi = strcmp(dir, "bi") == 0;
	if (conn_check(x, nports) != 0) {
		return (errf(
		    -REST_EVALUE, err, errlen,
		    "crossconnects[%zu]: a bi connection of port %s to itself",
		    i, json_string_value(json_object_get(o, "in"))));
	}
	return (0);
}

int
rest_badd_parse(const char *body, size_t len, uint32_t nports,
                struct rest_xc **out, size_t *n, char *err, size_t errlen)
{
	/* A single add is one object. */
	return (walk(body, len, "crossconnects", 1, sizeof(**out), badd_item,
	             nports, (void **)out, n, err, errlen));
}

static int
bdel_item(json_t *o, size_t i, uint32_t nports, void *out, char *err,
          size_t errlen)
{
	struct rest_xc *x = out;
	const char     *c;

	if ((c = str_field(o, "connections", i, "conn", err, errlen)) == NULL)
		return (-REST_ESHAPE);
	if (rest_conn_parse(c, x) != 0 || conn_check(x, nports) != 0) {
		return (errf(
		    -REST_EVALUE, err, errlen,
		    "connections[%zu].conn: \"%.40s\" is not a connection "
		    "name",
		    i, c));
	}
	return (0);
}

int
rest_bdel_parse(const char *body, size_t len, uint32_t nports,
                struct rest_xc **out, size_t *n, char *err, size_t errlen)
{
	return (walk(body, len, "connections", 0, sizeof(**out), bdel_item,
	             nports, (void **)out, n, err, errlen));
}

/* status: "1"/"0" or 1/0. */
static int
status_of(json_t *o, int *ok)
{
	json_t *s = json_object_get(o, "status");

	if (json_is_string(s)) {
		const char *v = json_string_value(s);

		if (strcmp(v, "1") && strcmp(v, "0"))
			return (-REST_ESHAPE);
		*ok = strcmp(v, "1") == 0;
		return (0);
	}
	if (json_is_integer(s)) {
		json_int_t v = json_integer_value(s);

		if (v != 0 && v != 1)
			return (-REST_ESHAPE);
		*ok = v == 1;
		return (0);
	}
	return (-REST_ESHAPE);
}

static void
result_text(json_t *o, struct rest_result *r)
{
	json_t     *m = json_object_get(o, "msg");
	json_t     *d = json_object_get(o, "description");
	const char *ms = json_is_string(m) ? json_string_value(m) : "";
	const char *ds = json_is_string(d) ? json_string_value(d) : "";
	char       *p;

	if (*ms && *ds && strcmp(ms, ds) != 0)
		snprintf(r->text, sizeof(r->text), "%s: %s", ms, ds);
	else
		snprintf(r->text, sizeof(r->text), "%s", *ms ? ms : ds);
	/* One line in our logs, whatever the device sends. */
	for (p = r->text; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = ' ';
}

static int
result_item(json_t *o, size_t i, uint32_t nports, void *out, char *err,
            size_t errlen)
{
	struct rest_result *r = out;
	json_t             *in = json_object_get(o, "response");

	(void)nports;
	if (in != NULL)
		o = in;
	if (!json_is_object(o) || status_of(o, &r->ok) != 0) {
		return (errf(-REST_ESHAPE, err, errlen,
		             "results[%zu]: no status \"0\" or \"1\"", i));
	}
	result_text(o, r);
	return (0);
}

int
rest_result_parse(const char *body, size_t len, size_t want,
                  struct rest_result **out, size_t *n, char *err,
                  size_t errlen)
{
	int rv = walk(body, len, "results", 1, sizeof(**out), result_item, 0,
	              (void **)out, n, err, errlen);

	if (rv == 0 && (*n == 0 || (want && *n != want))) {
		(void)errf(0, err, errlen, "results: %zu items for %zu sent",
		           *n, want);
		free(*out);
		*out = NULL;
		*n = 0;
		return (-REST_ESHAPE);
	}
	return (rv);
}

/* A listed row: its name (or half1.conn) gives ports and direction. */
static int
list_row(json_t *o, size_t i, uint32_t nports, void *out, char *err,
         size_t errlen)
{
	struct rest_xc *x = out, hx;
	json_t         *h1, *h2, *nm, *dir;
	const char     *name = NULL;

	h1 = json_object_get(o, "half1");
	h2 = json_object_get(o, "half2");
	if (h1 != NULL && !json_is_object(h1))
		return (errf(-REST_ESHAPE, err, errlen,
		             "list[%zu].half1: expected an object", i));
	if (h2 != NULL && !json_is_null(h2) && !json_is_object(h2))
		return (errf(-REST_ESHAPE, err, errlen,
		             "list[%zu].half2: expected an object", i));
	nm = json_object_get(o, "name");
	if (json_is_string(nm) && json_string_length(nm) > 0)
		name = json_string_value(nm);
	else if (h1 != NULL && json_is_string(json_object_get(h1, "conn")))
		name = json_string_value(json_object_get(h1, "conn"));
	if (name == NULL)
		return (errf(-REST_ESHAPE, err, errlen,
		             "list[%zu]: neither name nor half1.conn", i));
	if (rest_conn_parse(name, x) != 0 || conn_check(x, nports) != 0)
		return (errf(-REST_EVALUE, err, errlen,
		             "list[%zu].name: \"%.40s\" is not a connection "
		             "of this switch",
		             i, name));
	/* The direction field, if present, must agree with the name. */
	dir = json_object_get(o, "dir");
	if (dir != NULL) {
		const char *d =
		    json_is_string(dir) ? json_string_value(dir) : "";

		if ((strcmp(d, "bi") == 0) != x->bi ||
		    (strcmp(d, "uni") && strcmp(d, "bi")))
			return (errf(-REST_EVALUE, err, errlen,
			             "list[%zu].dir: \"%.10s\" does not match "
			             "\"%s\"",
			             i, d, name));
	}
	/* half1.conn, when given, is A>B of this connection. */
	if (h1 != NULL && json_is_string(json_object_get(h1, "conn"))) {
		const char *c = json_string_value(json_object_get(h1, "conn"));

		if (rest_conn_parse(c, &hx) != 0 || hx.bi || hx.a != x->a ||
		    hx.b != x->b)
			return (errf(-REST_EVALUE, err, errlen,
			             "list[%zu].half1.conn: \"%.40s\" is not "
			             "half of \"%s\"",
			             i, c, name));
	}
	return (0);
}

int
rest_list_parse(const char *body, size_t len, uint32_t nports,
                struct rest_xc **out, size_t *n, char *err, size_t errlen)
{
	return (walk(body, len, "list", 0, sizeof(**out), list_row, nports,
	             (void **)out, n, err, errlen));
}

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

int
rest_ports_parse(const char *body, size_t len, uint32_t *nports,
                 struct rest_port **rowsp, char *err, size_t errlen)
{
	struct rest_port *rows = NULL;
	json_t           *j, *o, *pin;
	uint32_t          p, max = 0;
	size_t            i, k;
	int               rv;

	*nports = 0;
	if (rowsp != NULL)
		*rowsp = NULL;
	if ((rv = load(body, len, &j, err, errlen)) != 0)
		return (rv);
	if (!json_is_array(j) || (k = json_array_size(j)) == 0) {
		rv = errf(-REST_ESHAPE, err, errlen,
		          "ports: expected a non-empty JSON array");
		goto out;
	}
	if (k > 4096) {
		rv = errf(-REST_EVALUE, err, errlen,
		          "ports: %zu rows, more than 4096", k);
		goto out;
	}
	if ((rows = calloc(k, sizeof(*rows))) == NULL) {
		rv = -ENOMEM;
		goto out;
	}
	json_array_foreach(j, i, o)
	{
		struct rest_port *r;

		if (!json_is_object(o)) {
			rv = errf(-REST_ESHAPE, err, errlen,
			          "ports[%zu]: expected an object", i);
			goto out;
		}
		if ((rv = port_field(o, "ports", i, "port", 0, &p, err,
		                     errlen)) != 0)
			goto out;
		if (p > k || rows[p - 1].port != 0) {
			rv =
			    errf(-REST_EVALUE, err, errlen,
			         "ports[%zu].port: \"%s\" %s", i,
			         json_string_value(json_object_get(o, "port")),
			         p > k ? "leaves a gap in the numbering"
			               : "listed twice");
			goto out;
		}
		r = &rows[p - 1];
		r->port = p;
		pin = json_object_get(o, "inpower");
		if (power_parse(pin ? pin : json_object_get(o, "power"),
		                &r->inpower) != 0 ||
		    power_parse(json_object_get(o, "outpower"),
		                &r->outpower) != 0) {
			rv = errf(-REST_EVALUE, err, errlen,
			          "ports[%zu]: power is not a number", i);
			goto out;
		}
		r->fail = oc_failed(o, "inoc") || oc_failed(o, "outoc") ||
		          oc_failed(o, "oc");
		max = p > max ? p : max;
	}
	*nports = max;
	if (rowsp != NULL) {
		*rowsp = rows;
		rows = NULL;
	}
out:
	free(rows);
	json_decref(j);
	return (rv);
}

int
rest_detail_parse(const char *body, size_t len, struct rest_port *pt,
                  char *err, size_t errlen)
{
	json_t     *j, *o, *v;
	const char *s;
	int         rv;

	memset(pt, 0, sizeof(*pt));
	if ((rv = load(body, len, &j, err, errlen)) != 0)
		return (rv);
	o = j;
	if (json_is_array(j) && json_array_size(j) == 1)
		o = json_array_get(j, 0);
	if (!json_is_object(o)) {
		rv = errf(-REST_ESHAPE, err, errlen,
		          "detail: expected an object");
		goto out;
	}
	if ((rv = port_field(o, "detail", 0, "port", 0, &pt->port, err,
	                     errlen)) != 0)
		goto out;
	if (power_parse(json_object_get(o, "inpower"), &pt->inpower) != 0 ||
	    power_parse(json_object_get(o, "outpower"), &pt->outpower) != 0) {
		rv = errf(-REST_EVALUE, err, errlen,
		          "detail: inpower/outpower is not a number");
		goto out;
	}
	v = json_object_get(o, "incircuit");
	if (v != NULL && !json_is_string(v)) {
		rv = errf(-REST_ESHAPE, err, errlen,
		          "detail.incircuit: expected a string");
		goto out;
	}
	snprintf(pt->conn, sizeof(pt->conn), "%.31s",
	         v ? json_string_value(v) : "");
	v = json_object_get(o, "inoc");
	s = json_is_string(v) ? json_string_value(v) : "";
	pt->fail = strcmp(s, "FAIL") == 0 || strcmp(s, "NOHW") == 0;
out:
	json_decref(j);
	return (rv);
}

/* ---- formatting ---------------------------------------------------------- */

static char *
dump(json_t *j)
{
	char *s = j ? json_dumps(j, JSON_COMPACT) : NULL;

	json_decref(j);
	return (s);
}

static json_t *
port_str(uint32_t p)
{
	char b[REST_NAME_MAX];

	return (json_string(rest_port_fmt(p, b, sizeof(b))));
}

static json_t *
conn_str(const struct rest_xc *x)
{
	char b[2 * REST_NAME_MAX];

	return (json_string(rest_conn_fmt(x, b, sizeof(b))));
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

char *
rest_badd_fmt(const struct rest_xc *x, size_t n)
{
	json_t *a = json_array();
	size_t  i;

	for (i = 0; a && i < n; i++) {
		json_t *o =
		    json_pack("{s:o,s:o,s:s}", "in", port_str(x[i].a), "out",
		              port_str(x[i].b), "dir", x[i].bi ? "bi" : "uni");

		if (json_array_append_new(a, o) != 0) {
			json_decref(a);
			return (NULL);
		}
	}
	return (dump(a));
}

char *
rest_bdel_fmt(const struct rest_xc *x, size_t n)
{
	json_t *a = json_array();
	size_t  i;

	for (i = 0; a && i < n; i++)
		if (json_array_append_new(
		        a, json_pack("{s:o}", "conn", conn_str(&x[i]))) != 0) {
			json_decref(a);
			return (NULL);
		}
	return (dump(a));
}

char *
rest_result_fmt(const struct rest_result *r, size_t n, int bulk)
{
	json_t *a = json_array();
	size_t  i;

	for (i = 0; a && i < n; i++) {
		json_t *o =
		    json_pack("{s:s,s:s,s:s}", "status", r[i].ok ? "1" : "0",
		              "msg", r[i].ok ? "Success" : "Failed",
		              "description", r[i].ok ? "" : r[i].text);

		if (bulk && o != NULL)
			o = json_pack("{s:o}", "response", o);
		if (json_array_append_new(a, o) != 0) {
			json_decref(a);
			return (NULL);
		}
	}
	return (dump(a));
}

static json_t *
half_obj(const struct rest_xc *x, int second, const struct rest_half *h)
{
	struct rest_xc u = {.a = second ? x->b : x->a,
	                    .b = second ? x->a : x->b};
	char           loss[32];

	snprintf(loss, sizeof(loss), "%.1f",
	         h->inp > -90 && h->outp > -90 ? h->inp - h->outp : 0.0);
	return (json_pack("{s:o,s:o,s:o,s:s,s:s,s:s,s:s,s:s,s:s}", "conn",
	                  conn_str(&u), "inp", power_str(h->inp), "outp",
	                  power_str(h->outp), "loss", loss, "alarm",
	                  h->fail ? "LOS" : "", "as", "IS", "os",
	                  h->fail ? "OOS" : "IS", "oc",
	                  h->fail ? "FAIL" : "OK", "state", "ACT"));
}

char *
rest_list_fmt(const struct rest_xc *x, const struct rest_half (*h)[2],
              size_t                n)
{
	json_t *a = json_array();
	size_t  i;

	for (i = 0; a && i < n; i++) {
		json_t *o = json_pack(
		    "{s:o,s:s,s:s,s:s,s:o}", "name", conn_str(&x[i]), "group",
		    "SYSTEM", "dir", x[i].bi ? "bi" : "uni", "band", "CBAND",
		    "half1", half_obj(&x[i], 0, &h[i][0]));

		if (o != NULL && x[i].bi &&
		    json_object_set_new(o, "half2",
		                        half_obj(&x[i], 1, &h[i][1])) != 0) {
			json_decref(o);
			o = NULL;
		}
		if (json_array_append_new(a, o) != 0) {
			json_decref(a);
			return (NULL);
		}
	}
	return (dump(a));
}

char *
rest_ports_fmt(const struct rest_port *p, size_t n)
{
	json_t *a = json_array();
	size_t  i;

	for (i = 0; a && i < n; i++) {
		const char *oc = p[i].fail ? "FAIL" : "OK";
		json_t     *o = json_pack(
		        "{s:o,s:s,s:s,s:o,s:o,s:o,s:s,s:s,s:s,s:s}", "port",
		        port_str(p[i].port), "conn", p[i].conn, "connid",
		        p[i].conn, "power", power_str(p[i].inpower), "inpower",
		        power_str(p[i].inpower), "outpower",
		        power_str(p[i].outpower), "inoc", oc, "outoc", oc,
		        "inalias", "", "outalias", "");

		if (json_array_append_new(a, o) != 0) {
			json_decref(a);
			return (NULL);
		}
	}
	return (dump(a));
}

char *
rest_detail_fmt(const struct rest_port *p)
{
	const char *oc = p->fail ? "FAIL" : "OK";
	const char *st = p->conn[0] ? "IS" : "OOS";

	return (dump(json_pack(
	    "{s:o,s:s,s:s,s:s,s:o,s:s,s:s,s:s,s:s,s:o,s:s,s:s,s:s,s:s}",
	    "port", port_str(p->port), "inas", st, "inos",
	    p->fail ? "OOS" : st, "inoc", oc, "inpower", power_str(p->inpower),
	    "incircuit", p->conn, "inowner", p->conn[0] ? "TRANSIT" : "NONE",
	    "inalias", "", "outas", st, "outpower", power_str(p->outpower),
	    "outoc", oc, "outcircuit", p->conn, "outowner",
	    p->conn[0] ? "TRANSIT" : "NONE", "outalias", "")));
}

/* ---- query strings ------------------------------------------------------- */

static int
hex(int c)
{
	if (c >= '0' && c <= '9')
		return (c - '0');
	if (c >= 'a' && c <= 'f')
		return (c - 'a' + 10);
	if (c >= 'A' && c <= 'F')
		return (c - 'A' + 10);
	return (-1);
}

int
rest_query_get(const char *uri, const char *key, char *buf, size_t len)
{
	const char *q = strchr(uri, '?'), *e;
	size_t      kl = strlen(key), k;

	if (q == NULL || len == 0)
		return (-ENOENT);
	for (q++; *q; q = *e ? e + 1 : e) {
		e = q + strcspn(q, "&;");
		if ((size_t)(e - q) <= kl || strncmp(q, key, kl) != 0 ||
		    q[kl] != '=')
			continue;
		for (q += kl + 1, k = 0; q < e; q++) {
			int c = (unsigned char)*q;

			if (c == '%') {
				int h1, h2;

				if (e - q < 3 || (h1 = hex(q[1])) < 0 ||
				    (h2 = hex(q[2])) < 0 || (h1 | h2) == 0)
					return (-EINVAL);
				c = h1 << 4 | h2;
				q += 2;
			} else if (c == '+')
				c = ' ';
			if (k + 1 >= len)
				return (-EINVAL);
			buf[k++] = (char)c;
		}
		buf[k] = '\0';
		return (0);
	}
	return (-ENOENT);
}

/* ---- patches <-> cross-connects ------------------------------------------ */

size_t
rest_xc_from_map(const uint16_t *map, uint32_t n, struct rest_xc *xc)
{
	size_t   k = 0;
	uint32_t a, b;

	for (a = 1; a <= n; a++) {
		if (map[a] <= n || map[a] > 2 * n)
			continue;
		b = map[a] - n;
		if (b != a && b <= n && map[b] == n + a) {
			if (a < b)
				xc[k++] = (struct rest_xc){a, b, 1};
			continue; /* the pair is listed from its lower port */
		}
		xc[k++] = (struct rest_xc){a, b, 0};
	}
	return (k);
}

int
rest_xc_to_map(const struct rest_xc *x, uint32_t n, uint16_t *map)
{
	uint32_t i;

	if (x->a < 1 || x->a > n || x->b < 1 || x->b > n ||
	    (x->bi && x->a == x->b) || map[x->a] != 0 ||
	    (x->bi && map[x->b] != 0))
		return (-REST_EVALUE);
	for (i = 1; i <= n; i++)
		if (map[i] == n + x->b || (x->bi && map[i] == n + x->a))
			return (-REST_EVALUE);
	map[x->a] = (uint16_t)(n + x->b);
	if (x->bi)
		map[x->b] = (uint16_t)(n + x->a);
	return (0);
}

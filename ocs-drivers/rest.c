/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * CALIENT REST requests and their outcomes with jansson (what the switch
 * reports is rest_state.c), and the parsing helpers both use.  Parsers
 * are strict about what they use (types, port ranges, names) and ignore
 * fields they do not know, as real switches add fields between releases.
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
#include "ocs-drivers/rest_int.h"
#include "proto/base/errf.h"

#define JSON_DEPTH_MAX 16

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

int
rest_load(const char *body, size_t len, json_t **out, char *err, size_t errlen)
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
const char *
rest_str_field(json_t *o, const char *ctx, size_t i, const char *key,
               char *err, size_t errlen)
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

int
rest_port_field(json_t *o, const char *ctx, size_t i, const char *key,
                const struct rest_names *t, uint32_t *p, char *err,
                size_t errlen)
{
	const char *s = rest_str_field(o, ctx, i, key, err, errlen);

	if (s == NULL)
		return (-REST_ESHAPE);
	if (rest_port_parse(t, s, p) != 0) {
		return (errf(-REST_EVALUE, err, errlen,
		             "%s[%zu].%s: \"%.40s\" is not a port of this "
		             "switch",
		             ctx, i, key, s));
	}
	return (0);
}

/* An optional name field: absent is "", present must be a name. */
static int
cname_field(json_t *o, const char *ctx, size_t i, const char *key, char *buf,
            char *err, size_t errlen)
{
	json_t *v = json_object_get(o, key);

	buf[0] = '\0';
	if (v == NULL || json_is_null(v) ||
	    (json_is_string(v) && json_string_length(v) == 0))
		return (0);
	if (!json_is_string(v) ||
	    strlen(json_string_value(v)) != json_string_length(v) ||
	    !rest_cname_ok(json_string_value(v)))
		return (errf(-REST_EVALUE, err, errlen,
		             "%s[%zu].%s: expected a name of 1..%d letters, "
		             "digits and _.>/-",
		             ctx, i, key, REST_CONN_MAX - 1));
	snprintf(buf, REST_CONN_MAX, "%s", json_string_value(v));
	return (0);
}

int
rest_walk(const char *body, size_t len, const char *ctx, int one_ok,
          size_t elsize, rest_item_fn item, const struct rest_names *t,
          void **out, size_t *n, char *err, size_t errlen)
{
	json_t *j, *o;
	char   *x = NULL;
	size_t  i;
	int     rv;

	*out = NULL;
	*n = 0;
	if ((rv = rest_load(body, len, &j, err, errlen)) != 0)
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
		if ((rv = item(o, i, t, x + i * elsize, err, errlen)) != 0)
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

/* dir "bi" or "uni" into x->bi; ctx[i].dir names it. */
static int
dir_value(const char *dir, const char *ctx, size_t i, struct rest_xc *x,
          char *err, size_t errlen)
{
	if (strcmp(dir, "bi") && strcmp(dir, "uni")) {
		return (errf(-REST_EVALUE, err, errlen,
		             "%s[%zu].dir: \"%.20s\" is not bi or uni", ctx, i,
		             dir));
	}
	x->bi = strcmp(dir, "bi") == 0;
	return (0);
}

/* The checks every add shares, after its fields are read. */
static int
add_check(const struct rest_names *t, struct rest_add *a, const char *ctx,
          size_t i, char *err, size_t errlen)
{
	struct rest_xc named;
	char           in[REST_NAME_MAX];

	if (a->x.bi && a->x.a == a->x.b)
		return (errf(-REST_EVALUE, err, errlen,
		             "%s[%zu]: a bi connection of port %s to itself",
		             ctx, i,
		             rest_port_fmt(t, a->x.a, in, sizeof(in))));
	/* A name that reads as ports must be these ports. */
	if (a->name[0] && rest_conn_parse(t, a->name, &named) == 0 &&
	    (named.a != a->x.a || named.b != a->x.b || named.bi != a->x.bi))
		return (errf(-REST_EVALUE, err, errlen,
		             "%s[%zu].conn: \"%s\" names other ports", ctx, i,
		             a->name));
	return (0);
}

static int
badd_item(json_t *o, size_t i, const struct rest_names *t, void *out,
          char *err, size_t errlen)
{
	struct rest_add *a = out;
	const char      *dir;
	int              rv;

	if ((rv = rest_port_field(o, "crossconnects", i, "in", t, &a->x.a, err,
	                          errlen)) != 0 ||
	    (rv = rest_port_field(o, "crossconnects", i, "out", t, &a->x.b,
	                          err, errlen)) != 0)
		return (rv);
	if ((dir = rest_str_field(o, "crossconnects", i, "dir", err,
	                          errlen)) == NULL)
		return (-REST_ESHAPE);
	if ((rv = dir_value(dir, "crossconnects", i, &a->x, err, errlen)) !=
	        0 ||
	    (rv = cname_field(o, "crossconnects", i, "conn", a->name, err,
	                      errlen)) != 0 ||
	    (rv = cname_field(o, "crossconnects", i, "group", a->group, err,
	                      errlen)) != 0)
		return (rv);
	return (add_check(t, a, "crossconnects", i, err, errlen));
}

int
rest_badd_parse(const char *body, size_t len, const struct rest_names *t,
                struct rest_add **out, size_t *n, char *err, size_t errlen)
{
	/* A single add is one object. */
	return (rest_walk(body, len, "crossconnects", 1, sizeof(**out),
	                  badd_item, t, (void **)out, n, err, errlen));
}

/* One field of a form: "" when absent; -REST_EVALUE if malformed. */
static int
form_field(const char *body, size_t len, const char *key, char *buf, size_t bl,
           char *err, size_t errlen)
{
	int rv = rest_form_get(body, len, key, buf, bl);

	if (rv == -ENOENT) {
		buf[0] = '\0';
		return (0);
	}
	if (rv != 0)
		return (errf(-REST_EVALUE, err, errlen,
		             "form field %s: bad escape or longer than %zu",
		             key, bl - 1));
	return (0);
}

int
rest_add_form_parse(const char *body, size_t len, const struct rest_names *t,
                    struct rest_add *a, char *err, size_t errlen)
{
	char in[REST_NAME_MAX], out[REST_NAME_MAX], dir[8];
	int  rv;

	memset(a, 0, sizeof(*a));
	if (len > REST_BODY_MAX)
		return (errf(-REST_ESIZE, err, errlen,
		             "body of %zu bytes is over the %u byte limit",
		             len, REST_BODY_MAX));
	if ((rv = form_field(body, len, "in", in, sizeof(in), err, errlen)) ||
	    (rv = form_field(body, len, "out", out, sizeof(out), err,
	                     errlen)) ||
	    (rv = form_field(body, len, "dir", dir, sizeof(dir), err,
	                     errlen)) ||
	    (rv = form_field(body, len, "conn", a->name, sizeof(a->name), err,
	                     errlen)) ||
	    (rv = form_field(body, len, "group", a->group, sizeof(a->group),
	                     err, errlen)))
		return (rv);
	if (rest_port_parse(t, in, &a->x.a) != 0)
		return (errf(-REST_EVALUE, err, errlen,
		             "form field in: \"%s\" is not a port of this "
		             "switch",
		             in));
	if (rest_port_parse(t, out, &a->x.b) != 0)
		return (errf(-REST_EVALUE, err, errlen,
		             "form field out: \"%s\" is not a port of this "
		             "switch",
		             out));
	if ((a->name[0] && !rest_cname_ok(a->name)) ||
	    (a->group[0] && !rest_cname_ok(a->group)))
		return (errf(-REST_EVALUE, err, errlen,
		             "form field conn or group: not a name of "
		             "letters, digits and _.>/-"));
	if ((rv = dir_value(dir[0] ? dir : "bi", "form", 0, &a->x, err,
	                    errlen)) != 0)
		return (rv);
	return (add_check(t, a, "form", 0, err, errlen));
}

static int
bdel_item(json_t *o, size_t i, const struct rest_names *t, void *out,
          char *err, size_t errlen)
{
	struct rest_ref *r = out;
	const char      *c;

	if ((c = rest_str_field(o, "connections", i, "conn", err, errlen)) ==
	    NULL)
		return (-REST_ESHAPE);
	if (rest_ref_parse(t, c, r) != 0) {
		return (errf(
		    -REST_EVALUE, err, errlen,
		    "connections[%zu].conn: \"%.40s\" is not a connection "
		    "name",
		    i, c));
	}
	return (0);
}

int
rest_bdel_parse(const char *body, size_t len, const struct rest_names *t,
                struct rest_ref **out, size_t *n, char *err, size_t errlen)
{
	return (rest_walk(body, len, "connections", 0, sizeof(**out),
	                  bdel_item, t, (void **)out, n, err, errlen));
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
result_item(json_t *o, size_t i, const struct rest_names *t, void *out,
            char *err, size_t errlen)
{
	struct rest_result *r = out;
	json_t             *in = json_object_get(o, "response");

	(void)t;
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
	int rv = rest_walk(body, len, "results", 1, sizeof(**out), result_item,
	                   NULL, (void **)out, n, err, errlen);

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

/* ---- formatting ---------------------------------------------------------- */

char *
rest_dump(json_t *j)
{
	char *s = j ? json_dumps(j, JSON_COMPACT) : NULL;

	json_decref(j);
	return (s);
}

json_t *
rest_port_json(const struct rest_names *t, uint32_t p)
{
	char b[REST_NAME_MAX];

	return (json_string(rest_port_fmt(t, p, b, sizeof(b))));
}

json_t *
rest_conn_json(const struct rest_names *t, const struct rest_xc *x)
{
	char b[REST_CONN_MAX];

	return (json_string(rest_conn_fmt(t, x, b, sizeof(b))));
}

char *
rest_badd_fmt(const struct rest_names *t, const struct rest_xc *x, size_t n)
{
	json_t *a = json_array();
	size_t  i;

	for (i = 0; a && i < n; i++) {
		json_t *o = json_pack(
		    "{s:o,s:o,s:s}", "in", rest_port_json(t, x[i].a), "out",
		    rest_port_json(t, x[i].b), "dir", x[i].bi ? "bi" : "uni");

		if (json_array_append_new(a, o) != 0) {
			json_decref(a);
			return (NULL);
		}
	}
	return (rest_dump(a));
}

char *
rest_bdel_fmt(const struct rest_names *t, const struct rest_xc *x, size_t n)
{
	json_t *a = json_array();
	size_t  i;

	for (i = 0; a && i < n; i++)
		if (json_array_append_new(
		        a, json_pack("{s:o}", "conn",
		                     rest_conn_json(t, &x[i]))) != 0) {
			json_decref(a);
			return (NULL);
		}
	return (rest_dump(a));
}

char *
rest_result_fmt(const struct rest_result *r, size_t n, int bulk)
{
	json_t *a = json_array();
	size_t  i;

	for (i = 0; a && i < n; i++) {
		json_t *o = json_pack(
		    "{s:s,s:s,s:s}", "status", r[i].ok ? "1" : "0", "msg",
		    r[i].ok ? "Success" : "Failed", "description", r[i].text);

		if (bulk && o != NULL)
			o = json_pack("{s:o}", "response", o);
		if (json_array_append_new(a, o) != 0) {
			json_decref(a);
			return (NULL);
		}
	}
	return (rest_dump(a));
}

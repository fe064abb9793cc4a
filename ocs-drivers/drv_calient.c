/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The calient driver: CALIENT S-series REST over HTTP(S) (the session is
 * drv_calient_http.c) with the rest.c codec.  A session logs in with
 * Basic auth on GET /rest/ports/?id=summary, which also names the ports:
 * sorted by shelf, module and port they are numbered 1..N, on any shelf
 * and with gaps, as the device has them.  Then it sends the session
 * cookie.  A reconfiguration is one bulk delete (?id=bdel) of the
 * connections it changes and one bulk add (?id=badd) of the new ones,
 * pairing patches into "bi" connections; read-back is ?id=list, read by
 * the halves' conn (A>B), whatever their owners named them.  HTTP 200
 * with status "0" is a refusal whose msg/description becomes the error
 * text.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "ocs-drivers/drv.h"
#include "ocs-drivers/drv_calient_int.h"
#include "ocs-drivers/rest.h"
#include "proto/base/mono.h"

#define CAL_BACKOFF_MIN 50
#define CAL_BACKOFF_MAX 2000

/*
 * A request with the session: an expired cookie (401) is replaced by a
 * fresh Basic login and the request sent again, which is safe because a
 * 401 means the device did not act on it.
 */
static int
xfer(struct calient *c, const char *method, const char *uri, const char *body,
     struct hres *h, int *sent, uint64_t deadline)
{
	int rv, again = c->cookie[0] != '\0';

	rv = cal_xfer_once(c, method, uri, body, 0, h, sent, deadline);
	if (rv == 0 && h->status == 401 && again) {
		free(h->body);
		c->cookie[0] = '\0';
		rv = cal_xfer_once(c, method, uri, body, 1, h, sent, deadline);
	}
	if (rv != 0)
		return (rv);
	if (h->status == 401 || h->status == 403) {
		cal_seterr(c, "%s %s on %s as %s: HTTP %u %s", method, uri,
		           c->base, c->user, h->status,
		           h->status == 401 ? "(login refused)"
		                            : "(forbidden: account may be "
		                              "read-only)");
		free(h->body);
		h->body = NULL;
		return (h->status == 401 ? -DRV_EAUTH : -DRV_EPERM);
	}
	if (h->status != 200) {
		cal_seterr(c, "%s %s on %s: HTTP %u", method, uri, c->base,
		           h->status);
		free(h->body);
		h->body = NULL;
		/* The device answered but did not do it. */
		return (h->status >= 500 ? -DRV_EDENIED : -DRV_EPROTO);
	}
	return (0);
}

/* The same ports as before, or the numbers we use would name others. */
static int
same_names(struct calient *c, const struct rest_names *t)
{
	uint32_t p;

	if (c->names.n == 0)
		return (1);
	if (t->n != c->names.n) {
		cal_seterr(c,
		           "%s now has %u ports where it had %u: restart to "
		           "number them again",
		           c->base, t->n, c->names.n);
		return (0);
	}
	for (p = 0; p < t->n; p++)
		if (t->key[p] != c->names.key[p]) {
			cal_seterr(c,
			           "%s now has port %s where it had %s: "
			           "restart to number them again",
			           c->base, t->name[p], c->names.name[p]);
			return (0);
		}
	return (1);
}

/* The ports summary's names and rows (rows may be NULL). */
static int
summary(struct calient *c, const struct hres *h, struct rest_port **rows)
{
	struct rest_names t;
	char              e[300];
	int               rv;

	rv = rest_ports_parse(h->body, h->len, &t, rows, e, sizeof(e));
	if (rv != 0) {
		cal_seterr(c, "ports summary from %s: %s", c->base, e);
		return (rv == -ENOMEM ? rv : -DRV_EPROTO);
	}
	if (!same_names(c, &t)) {
		rest_names_free(&t);
		if (rows != NULL) {
			free(*rows);
			*rows = NULL;
		}
		return (-DRV_EPROTO);
	}
	if (c->names.n == 0)
		c->names = t;
	else
		rest_names_free(&t);
	return (0);
}

/* Log in, learn the ports. */
static int
session(struct calient *c, uint64_t deadline)
{
	struct hres h;
	int         rv, sent;

	c->cookie[0] = '\0';
	rv = cal_xfer_once(c, "GET", "/rest/ports/?id=summary", NULL, 1, &h,
	                   &sent, deadline);
	if (rv != 0)
		return (rv);
	if (h.status == 401 || h.status == 403) {
		cal_seterr(c, "login as %s on %s refused: HTTP %u%s", c->user,
		           c->base, h.status,
		           h.status == 403 ? " (forbidden)" : "");
		free(h.body);
		cal_drop(c);
		return (-DRV_EAUTH);
	}
	if (h.status != 200) {
		cal_seterr(c, "GET /rest/ports/?id=summary on %s: HTTP %u",
		           c->base, h.status);
		free(h.body);
		cal_drop(c);
		return (-DRV_EPROTO);
	}
	rv = summary(c, &h, NULL);
	free(h.body);
	if (rv != 0)
		cal_drop(c);
	return (rv);
}

/* A session, logged in and with the ports known.  A server that closes
 * after each answer leaves no connection: the cookie is the session. */
static int
ensure(struct calient *c, uint64_t deadline)
{
	uint32_t backoff = CAL_BACKOFF_MIN;
	int      rv;

	if (c->cookie[0] && c->names.n != 0)
		return (0);
	for (;;) {
		rv = session(c, deadline);
		if (rv == 0 || rv == -DRV_EAUTH || rv == -ENOMEM)
			return (rv);
		if (mono_ms() + backoff >= deadline || rv == -ECANCELED)
			return (rv);
		if (cal_sleep(c, backoff) != 0)
			return (-ECANCELED);
		backoff = backoff * 2 > CAL_BACKOFF_MAX ? CAL_BACKOFF_MAX
		                                        : backoff * 2;
	}
}

static int
cal_open(void *priv, const char *url, const struct drv_opts *o)
{
	struct calient *c = priv;
	int             rv;

	c->timeout_ms = o->timeout_ms;
	c->switch_ms = o->switch_ms;
	if ((rv = cal_http_open(c, url, o)) != 0)
		return (rv);
	return (ensure(c, mono_ms() + (uint64_t)c->timeout_ms));
}

/* ocs-emu's POST /rest/emu/?id=fault; a real switch answers 404. */
static int
cal_inject(void *priv, const char *spec, char *now, size_t len)
{
	struct calient *c = priv;
	struct hres     h;
	json_t         *j, *o;
	char           *body;
	int             rv, sent;

	c->err[0] = '\0';
	if ((rv = ensure(c, mono_ms() + (uint64_t)c->timeout_ms)) != 0)
		return (rv);
	if ((o = json_pack("{ss}", "fault", spec)) == NULL ||
	    (body = json_dumps(o, JSON_COMPACT)) == NULL) {
		json_decref(o);
		return (-ENOMEM);
	}
	json_decref(o);
	rv = xfer(c, "POST", "/rest/emu/?id=fault", body, &h, &sent,
	          mono_ms() + (uint64_t)c->timeout_ms);
	free(body);
	if (rv != 0)
		return (rv == -DRV_EPROTO ? -DRV_EDENIED : rv);
	j = json_loadb(h.body, h.len, 0, NULL);
	free(h.body);
	o = json_array_get(j, 0);
	if (o == NULL || !json_is_string(json_object_get(o, "status"))) {
		json_decref(j);
		cal_seterr(c, "fault answer from %s: not ocs-emu's", c->base);
		return (-DRV_EDENIED);
	}
	if (strcmp(json_string_value(json_object_get(o, "status")), "1") !=
	    0) {
		/* The reason is in description, msg says "Failed". */
		cal_seterr(
		    c, "fault: %s",
		    json_is_string(json_object_get(o, "description"))
		        ? json_string_value(json_object_get(o, "description"))
		        : "refused");
		json_decref(j);
		return (-DRV_EDENIED);
	}
	snprintf(now, len, "%s",
	         json_is_string(json_object_get(o, "msg"))
	             ? json_string_value(json_object_get(o, "msg"))
	             : spec);
	json_decref(j);
	return (0);
}

static void
cal_close(void *priv)
{
	struct calient *c = priv;

	cal_http_close(c);
	rest_names_free(&c->names);
}

/* shelf.module.port, as every CALIENT writes its ports. */
static int
cal_port_name_ok(const char *name)
{
	uint64_t key;

	return (rest_port_key(name, &key) == 0);
}

/* The duplex port number of a port the switch names ("1.1.1"). */
static int
cal_port_lookup(void *priv, const char *name, uint32_t *p)
{
	struct calient *c = priv;

	return (rest_names_lookup(&c->names, name, p));
}

static int
cal_caps(void *priv, struct drv_caps *cp)
{
	struct calient *c = priv;
	int             rv;

	if ((rv = ensure(c, mono_ms() + (uint64_t)c->timeout_ms)) != 0)
		return (rv);
	memset(cp, 0, sizeof(*cp));
	cp->nports = c->names.n;
	cp->bidirectional = 1;
	cp->switch_ms = c->switch_ms;
	return (0);
}

/* GET ?id=list into xcs; idempotent, retried once on a fresh session. */
static int
list_xcs(struct calient *c, struct rest_xc **xcs, size_t *n)
{
	struct hres h;
	char        e[300];
	int         rv, sent, tries;

	*xcs = NULL;
	*n = 0;
	for (tries = 0; tries < 2; tries++) {
		uint64_t deadline = mono_ms() + (uint64_t)c->timeout_ms;

		if ((rv = ensure(c, deadline)) != 0)
			return (rv);
		rv = xfer(c, "GET", "/rest/crossconnects/?id=list", NULL, &h,
		          &sent, deadline);
		if (rv == 0) {
			rv = rest_list_parse(h.body, h.len, &c->names, xcs, n,
			                     e, sizeof(e));
			free(h.body);
			if (rv == 0 || rv == -ENOMEM)
				return (rv);
			cal_seterr(c, "cross-connect list from %s: %s",
			           c->base, e);
			cal_drop(c);
			rv = -DRV_EPROTO;
		}
		if (rv != -ECONNRESET && rv != -ETIMEDOUT && rv != -DRV_EPROTO)
			return (rv);
	}
	return (rv);
}

/*
 * POST a bulk body and read the per-item results.  0 when every item
 * succeeded; else -DRV_EDENIED with *napplied items done and the first
 * failure in c->err.
 */
static int
bulk(struct calient *c, const char *op, const struct rest_xc *x, size_t n,
     size_t *napplied, int *acted)
{
	struct rest_result *r = NULL;
	struct hres         h;
	char                uri[64], e[300], nm[REST_CONN_MAX];
	char               *body;
	size_t              nr, i, bad = n;
	int                 rv, sent;

	*napplied = 0;
	*acted = 0;
	body = strcmp(op, "bdel") == 0 ? rest_bdel_fmt(&c->names, x, n)
	                               : rest_badd_fmt(&c->names, x, n);
	if (body == NULL)
		return (-ENOMEM);
	snprintf(uri, sizeof(uri), "/rest/crossconnects/?id=%s", op);
	rv = xfer(c, "POST", uri, body, &h, &sent,
	          mono_ms() + (uint64_t)c->timeout_ms);
	free(body);
	if (rv != 0) {
		/* A refusal in HTTP terms means it was not done; a lost
		 * answer means it may have been. */
		*acted = sent && rv != -DRV_EAUTH && rv != -DRV_EPERM &&
		         rv != -DRV_EDENIED && rv != -DRV_EPROTO;
		return (rv);
	}
	rv = rest_result_parse(h.body, h.len, n, &r, &nr, e, sizeof(e));
	free(h.body);
	if (rv != 0) {
		cal_seterr(c, "%s answer from %s: %s", op, c->base, e);
		*acted = 1;
		return (rv == -ENOMEM ? rv : -DRV_EPROTO);
	}
	for (i = 0; i < nr; i++) {
		if (r[i].ok)
			(*napplied)++;
		else if (bad == n)
			bad = i;
	}
	if (bad < n)
		cal_seterr(
		    c, "%s of %s refused by %s: %s (%zu of %zu done)", op,
		    rest_conn_fmt(&c->names, &x[bad], nm, sizeof(nm)), c->base,
		    r[bad].text[0] ? r[bad].text : "status 0", *napplied, n);
	*acted = *napplied > 0;
	free(r);
	return (bad < n ? -DRV_EDENIED : 0);
}

static int
cal_apply(void *priv, const struct drv_batch *b)
{
	struct calient *c = priv;
	struct rest_xc *cur = NULL, *del = NULL, *add = NULL;
	uint16_t       *map = NULL, *rest = NULL;
	char            e[300];
	size_t          ncur, ndel, nadd, done = 0;
	int             rv, acted = 0;

	c->err[0] = '\0';
	if ((rv = list_xcs(c, &cur, &ncur)) != 0)
		return (rv);
	map = calloc(c->names.n + 1, sizeof(*map));
	rest = calloc(c->names.n + 1, sizeof(*rest));
	del = calloc(ncur + 1, sizeof(*del));
	add = calloc(c->names.n + 1, sizeof(*add));
	if (!map || !rest || !del || !add) {
		rv = -ENOMEM;
		goto out;
	}
	if ((rv = rest_plan(&c->names, cur, ncur, b, del, &ndel, add, &nadd,
	                    map, rest, e, sizeof(e))) != 0) {
		cal_seterr(c, "%s%s",
		           rv == -DRV_EBUSY ? "" : "cross-connect list: ", e);
		rv = rv == -DRV_EBUSY ? rv : -DRV_EPROTO;
		goto out;
	}
	if (ndel > 0) {
		rv = bulk(c, "bdel", del, ndel, &done, &acted);
		if (rv != 0) {
			if (acted)
				rv = -DRV_EPARTIAL;
			goto out;
		}
	}
	if (nadd > 0) {
		rv = bulk(c, "badd", add, nadd, &done, &acted);
		if (rv != 0 && (ndel > 0 || acted))
			rv = -DRV_EPARTIAL;
	}
out:
	free(cur);
	free(del);
	free(add);
	free(map);
	free(rest);
	return (rv);
}

static int
cal_read_map(void *priv, uint16_t *map, size_t nports)
{
	struct calient *c = priv;
	struct rest_xc *x;
	size_t          n;
	char            e[300];
	int             rv;

	c->err[0] = '\0';
	if (c->names.n != 0 && nports != c->names.n)
		return (-EINVAL);
	if ((rv = list_xcs(c, &x, &n)) != 0)
		return (rv);
	if (nports != c->names.n) {
		free(x);
		return (-EINVAL);
	}
	rv = rest_map_of(&c->names, x, n, map, e, sizeof(e));
	free(x);
	if (rv != 0) {
		cal_seterr(c, "cross-connect list from %s: %s", c->base, e);
		rv = -DRV_EPROTO;
	}
	return (rv);
}

/* The ports summary: duplex port p is ingress p and egress N + p. */
static int
cal_ports_state(void *priv, const uint16_t *ports, size_t n,
                struct drv_port_state *st)
{
	struct calient   *c = priv;
	struct rest_port *rows = NULL;
	struct hres       h;
	size_t            i;
	int               rv, sent, tries;

	c->err[0] = '\0';
	for (tries = 0; tries < 2; tries++) {
		uint64_t deadline = mono_ms() + (uint64_t)c->timeout_ms;

		if ((rv = ensure(c, deadline)) != 0)
			return (rv);
		rv = xfer(c, "GET", "/rest/ports/?id=summary", NULL, &h, &sent,
		          deadline);
		if (rv == 0) {
			rv = summary(c, &h, &rows);
			free(h.body);
			if (rv == 0 || rv == -ENOMEM)
				break;
			cal_drop(c);
		}
		if (rv != -ECONNRESET && rv != -ETIMEDOUT && rv != -DRV_EPROTO)
			return (rv);
	}
	if (rv != 0)
		return (rv);
	for (i = 0; i < n; i++) {
		const struct rest_port *r = &rows[(ports[i] - 1) % c->names.n];

		st[i].dbm = ports[i] <= c->names.n ? r->inpower : r->outpower;
		st[i].failed = r->fail;
	}
	free(rows);
	return (0);
}

static const char *
cal_last_error(void *priv)
{
	struct calient *c = priv;

	return (c->err[0] ? c->err : NULL);
}

const struct drv_ops drv_calient_ops = {
    .name = "calient",
    .priv_size = sizeof(struct calient),
    .open = cal_open,
    .close = cal_close,
    .caps = cal_caps,
    .apply = cal_apply,
    .read_map = cal_read_map,
    .ports_state = cal_ports_state,
    .inject = cal_inject,
    .port_lookup = cal_port_lookup,
    .port_name_ok = cal_port_name_ok,
    .last_error = cal_last_error,
};

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The calient driver: CALIENT S-series REST over HTTP(S), with nng's HTTP
 * client (and its TLS) and the rest.c codec.  A session logs in with
 * Basic auth on GET /rest/ports/?id=summary (which also gives the size),
 * then sends the session cookie.  A reconfiguration is one bulk delete
 * (?id=bdel) of the connections it changes and one bulk add (?id=badd) of
 * the new ones, pairing patches into "bi" connections; read-back is
 * ?id=list.  HTTP 200 with status "0" is a refusal whose msg/description
 * becomes the error text.
 *
 * Bodies are read by hand after the headers (not nng_http_conn_transact)
 * so a device cannot make us allocate more than REST_BODY_MAX.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <jansson.h>
#include <nng/nng.h>
#include <nng/supplemental/http/http.h>
#include <nng/supplemental/tls/tls.h>
#include <openssl/evp.h>

#include "ocs-drivers/drv.h"
#include "ocs-drivers/rest.h"
#include "proto/base/mono.h"
#include "proto/base/net.h"

#define CAL_BACKOFF_MIN 50
#define CAL_BACKOFF_MAX 2000

struct calient {
	char             base[300]; /* http[s]://host:port, for messages */
	nng_url         *url;
	nng_http_client *cli;
	nng_http_conn   *conn; /* NULL: not connected */
	nng_aio         *aio;
	int              done_fd;    /* readable when aio completes */
	int              cancel_fd;  /* drv_opts' */
	char             basic[300]; /* "Basic <base64>" */
	char             user[64];
	char             cookie[256]; /* "" until logged in */
	int              timeout_ms;
	uint32_t         nports;
	uint32_t         switch_ms;
	char             err[512];
	void (*trace)(void *, const char *, ...);
	void *trace_arg;
};

/* One HTTP exchange's answer. */
struct hres {
	uint16_t status;
	char    *body; /* NUL-terminated, malloc'd */
	size_t   len;
};

__attribute__((__format__(printf, 2, 3))) static void
seterr(struct calient *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->err, sizeof(c->err), fmt, ap);
	va_end(ap);
}

static int
errno_of(int nv)
{
	switch (nv) {
	case NNG_ETIMEDOUT:
		return (-ETIMEDOUT);
	case NNG_ECONNREFUSED:
		return (-ECONNREFUSED);
	case NNG_ENOMEM:
		return (-ENOMEM);
	case NNG_EADDRINVAL:
		return (-EINVAL);
	case NNG_EPROTO:
	case NNG_ECRYPTO:
	case NNG_EPEERAUTH:
		return (-DRV_EPROTO);
	case NNG_EUNREACHABLE:
		return (-EHOSTUNREACH);
	case NNG_ECANCELED:
		return (-ECANCELED);
	default:
		return (-ECONNRESET);
	}
}

static void
drop(struct calient *c)
{
	if (c->conn != NULL)
		nng_http_conn_close(c->conn);
	c->conn = NULL;
}

/* The aio's completion, seen by await's poll. */
static void
aio_done(void *arg)
{
	struct calient *c = arg;
	uint64_t        one = 1;

	if (write(c->done_fd, &one, sizeof(one)) < 0)
		return; /* a counter at its maximum is readable anyway */
}

/*
 * Run the aio to completion within the deadline (nng's own timeout,
 * armed by arm()), or cancel it as soon as the caller's cancel_fd says
 * so: waiting on nng_aio_wait alone could not be cut short.
 */
static int
await(struct calient *c, uint64_t deadline)
{
	struct pollfd pfd[2] = {{.fd = c->done_fd, .events = POLLIN},
	                        {.fd = c->cancel_fd, .events = POLLIN}};
	uint64_t      v;
	int           r;

	(void)deadline;
	do
		r = poll(pfd, c->cancel_fd > 0 ? 2 : 1, -1);
	while (r < 0 && errno == EINTR);
	if (r > 0 && !pfd[0].revents)
		nng_aio_cancel(c->aio);
	nng_aio_wait(c->aio);
	if (read(c->done_fd, &v, sizeof(v)) < 0)
		return (NNG_EINTERNAL);
	return (nng_aio_result(c->aio));
}

static void
arm(struct calient *c, uint64_t deadline)
{
	uint64_t now = mono_ms();

	nng_aio_set_timeout(
	    c->aio, now >= deadline ? 1 : (nng_duration)(deadline - now));
}

static int
connect_http(struct calient *c, uint64_t deadline)
{
	int rv;

	if (c->conn != NULL)
		return (0);
	arm(c, deadline);
	nng_http_client_connect(c->cli, c->aio);
	if ((rv = await(c, deadline)) != 0) {
		seterr(c, "connecting to %s: %s", c->base, nng_strerror(rv));
		return (errno_of(rv));
	}
	c->conn = nng_aio_get_output(c->aio, 0);
	return (0);
}

/* Keep "name=value" of a Set-Cookie header. */
static void
take_cookie(struct calient *c, nng_http_res *res)
{
	const char *sc = nng_http_res_get_header(res, "Set-Cookie");
	size_t      n;

	if (sc == NULL)
		return;
	n = strcspn(sc, ";,");
	if (n == 0 || n >= sizeof(c->cookie) || memchr(sc, '=', n) == NULL ||
	    strpbrk(sc, "\r\n") != NULL)
		return;
	memcpy(c->cookie, sc, n);
	c->cookie[n] = '\0';
}

/*
 * One request on the session's connection.  A transport failure drops the
 * connection and returns -errno with c->err set; *sent tells whether the
 * request went out whole (the device may have acted on it).
 */
/*
 * The answer's body, of the length it announces (chunked encoding is
 * refused: the switch does not use it, and a driver must not guess).  0,
 * or a code after seterr; the caller drops the connection.
 */
static int
read_body(struct calient *c, nng_http_res *res, const char *method,
          const char *uri, struct hres *h, uint64_t deadline)
{
	const char        *cl, *te;
	char              *end;
	nng_iov            iov;
	unsigned long long len = 0;
	int                rv;

	te = nng_http_res_get_header(res, "Transfer-Encoding");
	cl = nng_http_res_get_header(res, "Content-Length");
	if (te != NULL && strcmp(te, "identity") != 0) {
		seterr(c,
		       "%s answered %s %s with Transfer-Encoding %.40s, "
		       "which this driver does not read",
		       c->base, method, uri, te);
		return (-DRV_EPROTO);
	}
	if (cl != NULL) {
		len = strtoull(cl, &end, 10);
		if (*cl < '0' || *cl > '9' || *end != '\0' ||
		    len > REST_BODY_MAX) {
			seterr(c,
			       "%s answered %s %s with Content-Length "
			       "\"%.30s\" (limit %u)",
			       c->base, method, uri, cl, REST_BODY_MAX);
			return (-DRV_EPROTO);
		}
	}
	if ((h->body = malloc((size_t)len + 1)) == NULL)
		return (-ENOMEM);
	h->len = (size_t)len;
	h->body[len] = '\0';
	if (len > 0) {
		iov.iov_buf = h->body;
		iov.iov_len = (size_t)len;
		nng_aio_set_iov(c->aio, 1, &iov);
		arm(c, deadline);
		nng_http_conn_read_all(c->conn, c->aio);
		if ((rv = await(c, deadline)) != 0) {
			seterr(c, "reading the body of %s %s from %s: %s",
			       method, uri, c->base, nng_strerror(rv));
			return (errno_of(rv));
		}
	}
	return (0);
}

static int
xfer_once(struct calient *c, const char *method, const char *uri,
          const char *body, int use_basic, struct hres *h, int *sent,
          uint64_t deadline)
{
	nng_http_req *req = NULL;
	nng_http_res *res = NULL;
	const char   *te;
	int           rv;

	memset(h, 0, sizeof(*h));
	*sent = 0;
	if ((rv = connect_http(c, deadline)) != 0)
		return (rv);
	if ((rv = nng_http_req_alloc(&req, c->url)) != 0 ||
	    (rv = nng_http_res_alloc(&res)) != 0 ||
	    (rv = nng_http_req_set_method(req, method)) != 0 ||
	    (rv = nng_http_req_set_uri(req, uri)) != 0 ||
	    (rv = nng_http_req_set_header(req, "Accept",
	                                  "application/json")) != 0 ||
	    (rv = nng_http_req_set_header(
	         req, use_basic || !c->cookie[0] ? "Authorization" : "Cookie",
	         use_basic || !c->cookie[0] ? c->basic : c->cookie)) != 0 ||
	    (body != NULL &&
	     ((rv = nng_http_req_set_header(req, "Content-Type",
	                                    "application/json")) != 0 ||
	      (rv = nng_http_req_copy_data(req, body, strlen(body))) != 0))) {
		rv = errno_of(rv);
		goto out;
	}
	if (c->trace)
		c->trace(c->trace_arg, "rest > %s %s %.200s", method, uri,
		         body ? body : "");
	arm(c, deadline);
	nng_http_conn_write_req(c->conn, req, c->aio);
	if ((rv = await(c, deadline)) != 0) {
		*sent = 1; /* part of it may have gone */
		seterr(c, "sending %s %s to %s: %s", method, uri, c->base,
		       nng_strerror(rv));
		rv = errno_of(rv);
		drop(c);
		goto out;
	}
	*sent = 1;
	arm(c, deadline);
	nng_http_conn_read_res(c->conn, res, c->aio);
	if ((rv = await(c, deadline)) != 0) {
		seterr(c, "waiting for the answer to %s %s from %s: %s",
		       method, uri, c->base,
		       rv == NNG_ETIMEDOUT ? "timed out"
		       : rv == NNG_EPROTO  ? "not HTTP"
		                           : nng_strerror(rv));
		rv = errno_of(rv);
		drop(c);
		goto out;
	}
	h->status = nng_http_res_get_status(res);
	if ((rv = read_body(c, res, method, uri, h, deadline)) != 0) {
		drop(c);
		goto out;
	}
	take_cookie(c, res);
	te = nng_http_res_get_header(res, "Connection");
	if (te != NULL && strcasecmp(te, "close") == 0)
		drop(c);
	if (c->trace)
		c->trace(c->trace_arg, "rest < %u %.200s", h->status, h->body);
	rv = 0;
out:
	if (rv != 0) {
		free(h->body);
		h->body = NULL;
	}
	nng_http_req_free(req);
	nng_http_res_free(res);
	return (rv);
}

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

	rv = xfer_once(c, method, uri, body, 0, h, sent, deadline);
	if (rv == 0 && h->status == 401 && again) {
		free(h->body);
		c->cookie[0] = '\0';
		rv = xfer_once(c, method, uri, body, 1, h, sent, deadline);
	}
	if (rv != 0)
		return (rv);
	if (h->status == 401 || h->status == 403) {
		seterr(c, "%s %s on %s as %s: HTTP %u %s", method, uri,
		       c->base, c->user, h->status,
		       h->status == 401 ? "(login refused)"
		                        : "(forbidden: account may be "
		                          "read-only)");
		free(h->body);
		h->body = NULL;
		return (h->status == 401 ? -DRV_EAUTH : -DRV_EPERM);
	}
	if (h->status != 200) {
		seterr(c, "%s %s on %s: HTTP %u", method, uri, c->base,
		       h->status);
		free(h->body);
		h->body = NULL;
		/* The device answered but did not do it. */
		return (h->status >= 500 ? -DRV_EDENIED : -DRV_EPROTO);
	}
	return (0);
}

/* Log in, learn the size. */
static int
session(struct calient *c, uint64_t deadline)
{
	struct hres h;
	char        e[300];
	int         rv, sent;

	c->cookie[0] = '\0';
	rv = xfer_once(c, "GET", "/rest/ports/?id=summary", NULL, 1, &h, &sent,
	               deadline);
	if (rv != 0)
		return (rv);
	if (h.status == 401 || h.status == 403) {
		seterr(c, "login as %s on %s refused: HTTP %u%s", c->user,
		       c->base, h.status,
		       h.status == 403 ? " (forbidden)" : "");
		free(h.body);
		drop(c);
		return (-DRV_EAUTH);
	}
	if (h.status != 200) {
		seterr(c, "GET /rest/ports/?id=summary on %s: HTTP %u",
		       c->base, h.status);
		free(h.body);
		drop(c);
		return (-DRV_EPROTO);
	}
	rv = rest_ports_parse(h.body, h.len, &c->nports, NULL, e, sizeof(e));
	free(h.body);
	if (rv != 0) {
		seterr(c, "ports summary from %s: %s", c->base, e);
		drop(c);
		return (rv == -ENOMEM ? rv : -DRV_EPROTO);
	}
	if (c->nports > DRV_MAX_PORTS) {
		seterr(c, "%s has %u ports, more than %d", c->base, c->nports,
		       DRV_MAX_PORTS);
		return (-DRV_EPROTO);
	}
	return (0);
}

static int
ensure(struct calient *c, uint64_t deadline)
{
	uint32_t backoff = CAL_BACKOFF_MIN;
	int      rv;

	if (c->conn != NULL && c->nports != 0)
		return (0);
	for (;;) {
		rv = session(c, deadline);
		if (rv == 0 || rv == -DRV_EAUTH || rv == -ENOMEM)
			return (rv);
		if (mono_ms() + backoff >= deadline || rv == -ECANCELED)
			return (rv);
		if (net_sleep(backoff, c->cancel_fd) != 0)
			return (-ECANCELED);
		backoff = backoff * 2 > CAL_BACKOFF_MAX ? CAL_BACKOFF_MAX
		                                        : backoff * 2;
	}
}

static int
cal_open(void *priv, const char *url, const struct drv_opts *o)
{
	struct calient *c = priv;
	nng_tls_config *tls = NULL;
	char            hp[300], raw[200], host[256], port[16];
	int             rv, https = 0;

	if (strncmp(url, "https://", 8) == 0) {
		https = 1;
		url += 8;
	} else if (strncmp(url, "http://", 7) == 0)
		url += 7;
	if (net_hostport(url, https ? "443" : "80", host, sizeof(host), port,
	                 sizeof(port)) != 0)
		return (-EINVAL);
	if (o->user == NULL || o->password == NULL ||
	    strlen(o->user) >= sizeof(c->user) ||
	    strlen(o->user) + strlen(o->password) + 2 > sizeof(raw) ||
	    strchr(o->user, ':') || strpbrk(o->user, "\r\n") ||
	    strpbrk(o->password, "\r\n"))
		return (-EINVAL);
	snprintf(c->user, sizeof(c->user), "%s", o->user);
	snprintf(raw, sizeof(raw), "%s:%s", o->user, o->password);
	memcpy(c->basic, "Basic ", 6);
	EVP_EncodeBlock((unsigned char *)c->basic + 6,
	                (const unsigned char *)raw, (int)strlen(raw));
	memset(raw, 0, sizeof(raw));
	snprintf(hp, sizeof(hp), "%s://%s%s%s:%s", https ? "https" : "http",
	         strchr(host, ':') ? "[" : "", host,
	         strchr(host, ':') ? "]" : "", port);
	snprintf(c->base, sizeof(c->base), "%s", hp);
	c->timeout_ms = o->timeout_ms;
	c->switch_ms = o->switch_ms;
	c->cancel_fd = o->cancel_fd;
	c->trace = o->trace;
	c->trace_arg = o->trace_arg;
	if ((rv = nng_url_parse(&c->url, hp)) != 0)
		return (-EINVAL);
	if ((c->done_fd = eventfd(0, EFD_CLOEXEC)) < 0)
		return (-errno);
	if ((rv = nng_http_client_alloc(&c->cli, c->url)) != 0 ||
	    (rv = nng_aio_alloc(&c->aio, aio_done, c)) != 0)
		return (errno_of(rv));
	if (https) {
		/* Switches ship self-signed certificates: encrypt, and
		 * verify only when a CA is configured. */
		if ((rv = nng_tls_config_alloc(&tls, NNG_TLS_MODE_CLIENT)) !=
		    0)
			return (errno_of(rv));
		rv = o->ca_file && *o->ca_file
		         ? nng_tls_config_ca_file(tls, o->ca_file)
		         : nng_tls_config_auth_mode(tls,
		                                    NNG_TLS_AUTH_MODE_NONE);
		if (rv == 0 && o->ca_file && *o->ca_file)
			rv = nng_tls_config_server_name(tls, host);
		if (rv == 0)
			rv = nng_http_client_set_tls(c->cli, tls);
		nng_tls_config_free(tls);
		if (rv != 0) {
			seterr(c, "TLS for %s: %s", c->base, nng_strerror(rv));
			return (-EINVAL);
		}
	}
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
		seterr(c, "fault answer from %s: not ocs-emu's", c->base);
		return (-DRV_EDENIED);
	}
	if (strcmp(json_string_value(json_object_get(o, "status")), "1") !=
	    0) {
		/* The reason is in description, msg says "Failed". */
		seterr(
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

	drop(c);
	if (c->aio)
		nng_aio_free(c->aio);
	if (c->done_fd > 0)
		close(c->done_fd);
	if (c->cli)
		nng_http_client_free(c->cli);
	if (c->url)
		nng_url_free(c->url);
	c->aio = NULL;
	c->cli = NULL;
	c->url = NULL;
	memset(c->basic, 0, sizeof(c->basic));
}

static int
cal_caps(void *priv, struct drv_caps *cp)
{
	struct calient *c = priv;
	int             rv;

	if ((rv = ensure(c, mono_ms() + (uint64_t)c->timeout_ms)) != 0)
		return (rv);
	memset(cp, 0, sizeof(*cp));
	cp->nports = c->nports;
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
			rv = rest_list_parse(h.body, h.len, c->nports, xcs, n,
			                     e, sizeof(e));
			free(h.body);
			if (rv == 0 || rv == -ENOMEM)
				return (rv);
			seterr(c, "cross-connect list from %s: %s", c->base,
			       e);
			drop(c);
			rv = -DRV_EPROTO;
		}
		if (rv != -ECONNRESET && rv != -ETIMEDOUT && rv != -DRV_EPROTO)
			return (rv);
	}
	return (rv);
}

/* The map of a list; -DRV_EPROTO if two connections share a port. */
static int
list_map(struct calient *c, const struct rest_xc *x, size_t n, uint16_t *map)
{
	char   nm[2 * REST_NAME_MAX];
	size_t i;

	memset(map, 0, (c->nports + 1) * sizeof(*map));
	for (i = 0; i < n; i++)
		if (rest_xc_to_map(&x[i], c->nports, map) != 0) {
			seterr(c,
			       "cross-connect list from %s: %s overlaps "
			       "another connection",
			       c->base, rest_conn_fmt(&x[i], nm, sizeof(nm)));
			return (-DRV_EPROTO);
		}
	return (0);
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
	char                uri[64], e[300], nm[2 * REST_NAME_MAX];
	char               *body;
	size_t              nr, i, bad = n;
	int                 rv, sent;

	*napplied = 0;
	*acted = 0;
	body = strcmp(op, "bdel") == 0 ? rest_bdel_fmt(x, n)
	                               : rest_badd_fmt(x, n);
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
		seterr(c, "%s answer from %s: %s", op, c->base, e);
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
		seterr(c, "%s of %s refused by %s: %s (%zu of %zu done)", op,
		       rest_conn_fmt(&x[bad], nm, sizeof(nm)), c->base,
		       r[bad].text[0] ? r[bad].text : "status 0", *napplied,
		       n);
	*acted = *napplied > 0;
	free(r);
	return (bad < n ? -DRV_EDENIED : 0);
}

/* Would a port of patch p clash with the map?  (Named in c->err.) */
static int
busy(struct calient *c, const uint16_t *map, const struct drv_patch *p)
{
	uint32_t i;

	if (map[p->in] != 0) {
		seterr(c, "ingress %u is already patched to %u", p->in,
		       map[p->in]);
		return (1);
	}
	for (i = 1; i <= c->nports; i++)
		if (map[i] == p->out) {
			seterr(c, "egress %u is already patched from %u",
			       p->out, i);
			return (1);
		}
	return (0);
}

static int
plan_apply(struct calient *c, const struct drv_batch *b,
           const struct rest_xc *cur, size_t ncur, struct rest_xc *del,
           size_t *ndel, struct rest_xc *add, size_t *nadd, uint16_t *map,
           uint16_t *rest)
{
	uint32_t n = c->nports, i, j;
	size_t   k;

	if (list_map(c, cur, ncur, map) != 0)
		return (-DRV_EPROTO);
	for (k = 0; k < b->ndisconnect; k++) {
		uint32_t pt = b->disconnect[k];

		if (pt <= n)
			map[pt] = 0;
		else
			for (i = 1; i <= n; i++)
				if (map[i] == pt)
					map[i] = 0;
	}
	for (k = 0; k < b->nconnect; k++) {
		if (busy(c, map, &b->connect[k]))
			return (-DRV_EBUSY);
		map[b->connect[k].in] = b->connect[k].out;
	}
	/* Keep every listed connection whose patches all survive. */
	memcpy(rest, map, (n + 1) * sizeof(*map));
	*ndel = 0;
	for (k = 0; k < ncur; k++) {
		i = cur[k].a;
		j = cur[k].b;
		if (map[i] == n + j && (!cur[k].bi || map[j] == n + i)) {
			rest[i] = 0;
			if (cur[k].bi)
				rest[j] = 0;
		} else
			del[(*ndel)++] = cur[k];
	}
	*nadd = rest_xc_from_map(rest, n, add);
	return (0);
}

static int
cal_apply(void *priv, const struct drv_batch *b)
{
	struct calient *c = priv;
	struct rest_xc *cur = NULL, *del = NULL, *add = NULL;
	uint16_t       *map = NULL, *rest = NULL;
	size_t          ncur, ndel, nadd, done = 0;
	int             rv, acted = 0;

	c->err[0] = '\0';
	if ((rv = list_xcs(c, &cur, &ncur)) != 0)
		return (rv);
	map = calloc(c->nports + 1, sizeof(*map));
	rest = calloc(c->nports + 1, sizeof(*rest));
	del = calloc(ncur + 1, sizeof(*del));
	add = calloc(c->nports + 1, sizeof(*add));
	if (!map || !rest || !del || !add) {
		rv = -ENOMEM;
		goto out;
	}
	if ((rv = plan_apply(c, b, cur, ncur, del, &ndel, add, &nadd, map,
	                     rest)) != 0)
		goto out;
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
	int             rv;

	c->err[0] = '\0';
	if (c->nports != 0 && nports != c->nports)
		return (-EINVAL);
	if ((rv = list_xcs(c, &x, &n)) != 0)
		return (rv);
	if (nports != c->nports) {
		free(x);
		return (-EINVAL);
	}
	rv = list_map(c, x, n, map);
	free(x);
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
	uint32_t          np;
	char              e[300];
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
			rv = rest_ports_parse(h.body, h.len, &np, &rows, e,
			                      sizeof(e));
			free(h.body);
			if (rv == 0 && np != c->nports) {
				snprintf(e, sizeof(e),
				         "%u ports where there were %u", np,
				         c->nports);
				free(rows);
				rv = -REST_EVALUE;
			}
			if (rv == 0)
				break;
			if (rv == -ENOMEM)
				return (rv);
			seterr(c, "ports summary from %s: %s", c->base, e);
			drop(c);
			rv = -DRV_EPROTO;
		}
		if (rv != -ECONNRESET && rv != -ETIMEDOUT && rv != -DRV_EPROTO)
			return (rv);
	}
	if (rv != 0)
		return (rv);
	for (i = 0; i < n; i++) {
		const struct rest_port *r = &rows[(ports[i] - 1) % c->nports];

		st[i].dbm = ports[i] <= c->nports ? r->inpower : r->outpower;
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
    .last_error = cal_last_error,
};

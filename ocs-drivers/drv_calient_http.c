/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The calient driver's HTTP session, on nng's HTTP client (and its TLS).
 * Every wait is an aio the caller's cancel_fd can cut short.  Bodies are
 * read by hand after the headers (not nng_http_conn_transact) so a
 * device cannot make us allocate more than REST_BODY_MAX, and so that
 * the servers switches embed are read as they are: a body without a
 * length runs to the close, an HTTP/1.0 answer closes the connection
 * unless it says keep-alive, and a kept-alive connection the switch
 * closed while idle is replaced without losing the request.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <nng/nng.h>
#include <nng/supplemental/http/http.h>
#include <nng/supplemental/tls/tls.h>
#include <openssl/evp.h>

#include "ocs-drivers/drv_calient_int.h"
#include "proto/base/mono.h"
#include "proto/base/net.h"

void
cal_seterr(struct calient *c, const char *fmt, ...)
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
	case 0:
		return (0);
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

void
cal_drop(struct calient *c)
{
	if (c->conn != NULL)
		nng_http_conn_close(c->conn);
	c->conn = NULL;
	c->served = 0;
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
 * Run the aio to completion (nng's own timeout, armed by arm()), or
 * cancel it as soon as the caller's cancel_fd says so: waiting on
 * nng_aio_wait alone could not be cut short.
 */
static int
await(struct calient *c)
{
	struct pollfd pfd[2] = {{.fd = c->done_fd, .events = POLLIN},
	                        {.fd = c->cancel_fd, .events = POLLIN}};
	uint64_t      v;
	int           r;

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

int
cal_sleep(struct calient *c, uint32_t ms)
{
	return (net_sleep(ms, c->cancel_fd) != 0 ? -ECANCELED : 0);
}

static int
connect_http(struct calient *c, uint64_t deadline)
{
	int rv;

	if (c->conn != NULL)
		return (0);
	arm(c, deadline);
	nng_http_client_connect(c->cli, c->aio);
	if ((rv = await(c)) != 0) {
		cal_seterr(c, "connecting to %s: %s", c->base,
		           nng_strerror(rv));
		return (errno_of(rv));
	}
	c->conn = nng_aio_get_output(c->aio, 0);
	c->served = 0;
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

/* Does the server keep the connection after this answer? */
static int
keeps_alive(nng_http_res *res)
{
	const char *v = nng_http_res_get_header(res, "Connection");
	const char *ver = nng_http_res_get_version(res);

	if (v != NULL && strcasecmp(v, "close") == 0)
		return (0);
	if (ver != NULL && strcmp(ver, "HTTP/1.0") == 0)
		return (v != NULL && strcasecmp(v, "keep-alive") == 0);
	return (1);
}

/* A body without a length: everything up to the close, at most
 * REST_BODY_MAX.  0 or a code after cal_seterr. */
static int
read_to_close(struct calient *c, const char *what, struct hres *h,
              uint64_t deadline)
{
	size_t  cap = 4096, got = 0;
	char   *b = malloc(cap + 1), *nb;
	nng_iov iov;
	int     rv;

	for (;;) {
		if (b == NULL)
			return (-ENOMEM);
		if (got == cap) {
			if (cap > REST_BODY_MAX) {
				free(b);
				cal_seterr(c, "%s: body over %u bytes", what,
				           REST_BODY_MAX);
				return (-DRV_EPROTO);
			}
			if ((nb = realloc(b, 2 * cap + 1)) == NULL) {
				free(b);
				return (-ENOMEM);
			}
			b = nb;
			cap *= 2;
		}
		iov.iov_buf = b + got;
		iov.iov_len = cap - got;
		nng_aio_set_iov(c->aio, 1, &iov);
		arm(c, deadline);
		nng_http_conn_read(c->conn, c->aio);
		rv = await(c);
		if (rv == NNG_ECLOSED || rv == NNG_ECONNSHUT)
			break;
		if (rv != 0) {
			free(b);
			cal_seterr(c, "%s: reading the body: %s", what,
			           nng_strerror(rv));
			return (errno_of(rv));
		}
		got += nng_aio_count(c->aio);
	}
	b[got] = '\0';
	h->body = b;
	h->len = got;
	return (0);
}

/*
 * The answer's body: of the length it announces, or (no length) up to
 * the close.  Chunked encoding is refused: switches do not use it, and a
 * driver must not guess.  *closes is set when the connection ends with
 * the body.  0, or a code after cal_seterr; the caller drops the
 * connection.
 */
static int
read_body(struct calient *c, nng_http_res *res, const char *what,
          struct hres *h, uint64_t deadline, int *closes)
{
	const char        *cl, *te;
	char              *end;
	nng_iov            iov;
	unsigned long long len = 0;
	int                rv;

	te = nng_http_res_get_header(res, "Transfer-Encoding");
	cl = nng_http_res_get_header(res, "Content-Length");
	if (te != NULL && strcmp(te, "identity") != 0) {
		cal_seterr(c,
		           "%s: Transfer-Encoding %.40s, which this driver "
		           "does not read",
		           what, te);
		return (-DRV_EPROTO);
	}
	if (cl == NULL && h->status != 204 && h->status != 304) {
		*closes = 1;
		return (read_to_close(c, what, h, deadline));
	}
	if (cl != NULL) {
		len = strtoull(cl, &end, 10);
		if (*cl < '0' || *cl > '9' || *end != '\0' ||
		    len > REST_BODY_MAX) {
			cal_seterr(c,
			           "%s: Content-Length \"%.30s\" (limit %u)",
			           what, cl, REST_BODY_MAX);
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
		if ((rv = await(c)) != 0) {
			cal_seterr(c, "%s: reading the body: %s", what,
			           nng_strerror(rv));
			return (errno_of(rv));
		}
	}
	return (0);
}

static int
make_req(struct calient *c, nng_http_req **reqp, const char *method,
         const char *uri, const char *body, int use_basic)
{
	nng_http_req *req = NULL;
	int           basic = use_basic || !c->cookie[0];
	int           rv;

	if ((rv = nng_http_req_alloc(&req, c->url)) != 0 ||
	    (rv = nng_http_req_set_method(req, method)) != 0 ||
	    (rv = nng_http_req_set_uri(req, uri)) != 0 ||
	    (rv = nng_http_req_set_header(req, "Accept",
	                                  "application/json")) != 0 ||
	    (rv = nng_http_req_set_header(
	         req, basic ? "Authorization" : "Cookie",
	         basic ? c->basic : c->cookie)) != 0 ||
	    (body != NULL &&
	     ((rv = nng_http_req_set_header(req, "Content-Type",
	                                    "application/json")) != 0 ||
	      (rv = nng_http_req_copy_data(req, body, strlen(body))) != 0))) {
		nng_http_req_free(req);
		return (errno_of(rv));
	}
	*reqp = req;
	return (0);
}

/* One exchange; *early says it failed before any of the answer came. */
static int
xfer1(struct calient *c, const char *method, const char *uri, const char *body,
      int use_basic, struct hres *h, int *sent, int *early, uint64_t deadline)
{
	nng_http_req *req = NULL;
	nng_http_res *res = NULL;
	char          what[520];
	int           rv, closes = 0;

	memset(h, 0, sizeof(*h));
	*sent = 0;
	*early = 0;
	snprintf(what, sizeof(what), "%s %.200s on %s", method, uri, c->base);
	if ((rv = connect_http(c, deadline)) != 0)
		return (rv);
	if ((rv = make_req(c, &req, method, uri, body, use_basic)) != 0 ||
	    (rv = errno_of(nng_http_res_alloc(&res))) != 0)
		goto out;
	if (c->trace)
		c->trace(c->trace_arg, "rest > %s %s %.200s", method, uri,
		         body ? body : "");
	arm(c, deadline);
	nng_http_conn_write_req(c->conn, req, c->aio);
	*sent = 1; /* part of it may have gone, whatever the result */
	if ((rv = await(c)) == 0) {
		arm(c, deadline);
		nng_http_conn_read_res(c->conn, res, c->aio);
		rv = await(c);
	}
	if (rv != 0) {
		*early = 1;
		cal_seterr(c, "%s: %s", what,
		           rv == NNG_ETIMEDOUT
		               ? "timed out waiting for the answer"
		           : rv == NNG_EPROTO ? "the answer is not HTTP"
		                              : nng_strerror(rv));
		rv = errno_of(rv);
		cal_drop(c);
		goto out;
	}
	h->status = nng_http_res_get_status(res);
	if ((rv = read_body(c, res, what, h, deadline, &closes)) != 0) {
		cal_drop(c);
		goto out;
	}
	take_cookie(c, res);
	c->served++;
	if (closes || !keeps_alive(res))
		cal_drop(c);
	if (c->trace)
		c->trace(c->trace_arg, "rest < %u %.200s", h->status, h->body);
out:
	if (rv != 0) {
		free(h->body);
		h->body = NULL;
	}
	nng_http_req_free(req);
	nng_http_res_free(res);
	return (rv);
}

int
cal_xfer_once(struct calient *c, const char *method, const char *uri,
              const char *body, int use_basic, struct hres *h, int *sent,
              uint64_t deadline)
{
	int reused = c->conn != NULL && c->served > 0;
	int rv, early;

	rv = xfer1(c, method, uri, body, use_basic, h, sent, &early, deadline);
	/* A server closes an idle kept-alive connection without a word;
	 * the request then meets the close before any answer, so it was
	 * not acted on (curl resends it the same way).  A new connection
	 * that fails so is an answer. */
	if (rv == -ECONNRESET && reused && early) {
		if (c->trace)
			c->trace(c->trace_arg,
			         "rest: %s closed the kept-alive connection; "
			         "sending again on a new one",
			         c->base);
		rv = xfer1(c, method, uri, body, use_basic, h, sent, &early,
		           deadline);
	}
	return (rv);
}

static int
set_tls(struct calient *c, const char *host, const struct drv_opts *o)
{
	nng_tls_config *tls = NULL;
	int             rv;

	/* Switches ship self-signed certificates: encrypt, and verify
	 * only when a CA is configured. */
	if ((rv = nng_tls_config_alloc(&tls, NNG_TLS_MODE_CLIENT)) != 0)
		return (errno_of(rv));
	rv = o->ca_file && *o->ca_file
	         ? nng_tls_config_ca_file(tls, o->ca_file)
	         : nng_tls_config_auth_mode(tls, NNG_TLS_AUTH_MODE_NONE);
	if (rv == 0 && o->ca_file && *o->ca_file)
		rv = nng_tls_config_server_name(tls, host);
	if (rv == 0)
		rv = nng_http_client_set_tls(c->cli, tls);
	nng_tls_config_free(tls);
	if (rv != 0) {
		cal_seterr(c, "TLS for %s: %s", c->base, nng_strerror(rv));
		return (-EINVAL);
	}
	return (0);
}

int
cal_http_open(struct calient *c, const char *url, const struct drv_opts *o)
{
	char hp[300], raw[200], host[256], port[16];
	int  rv, https = 0;

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
	return (https ? set_tls(c, host, o) : 0);
}

void
cal_http_close(struct calient *c)
{
	cal_drop(c);
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
	c->done_fd = 0;
	memset(c->basic, 0, sizeof(c->basic));
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The REST face of ocs-emu: CALIENT's /rest dialect (spec/ocs-protocols.md
 * sect. 2.1) on nng's HTTP server, over the same switch model as the TL1
 * face.  Duplex port p (named 1.<module>.<port>, 16 per module) is TL1
 * ingress p plus egress N+p.  Basic auth, then a session cookie; a
 * read-only viewer account gets 403 on writes.  A change is answered once
 * the mirrors have settled (unless --ack immediate), without holding an
 * nng thread: the reply waits on a sleep aio.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <nng/nng.h>
#include <nng/supplemental/http/http.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "ocs-drivers/rest.h"
#include "proto/base/log.h"
#include "proto/base/mono.h"
#include "proto/base/net.h"
#include "testbed/ocs-emu/emu.h"

#define REST_SESSIONS 64
#define COOKIE_NAME   "OCSEMU"

struct rsess {
	char     id[33]; /* hex; "" = free */
	int      ro;
	uint64_t used;
};

/* A reply waiting for the mirrors (or an injected delay). */
struct pend {
	struct emu_rest *r;
	nng_aio         *uaio, *sleep;
	nng_http_res    *res;
	struct pend     *next;
};

struct emu_rest {
	struct emu       *e;
	nng_url          *url;
	nng_http_server  *srv;
	nng_http_handler *h[5];
	size_t            nh;
	struct rsess      sess[REST_SESSIONS]; /* under e->mtx */
	uint64_t          clock;
	pthread_mutex_t   pmtx; /* the pending list */
	pthread_cond_t    pcv;
	int               sync_ok;
	struct pend      *pending;
	int               stopping;
};

/* What a handler decided; sent by finish(). */
struct answer {
	uint16_t status;
	char    *body; /* malloc'd JSON (or garbage) */
	char     cookie[80];
	uint64_t due_ms; /* 0: now */
	int      drop;   /* hang up instead */
};

/* ---- replies ------------------------------------------------------------- */

static void
pend_done(void *arg)
{
	struct pend     *p = arg;
	struct emu_rest *r = p->r;
	struct pend    **pp;

	nng_aio_set_output(p->uaio, 0, p->res);
	nng_aio_finish(p->uaio, 0);
	pthread_mutex_lock(&r->pmtx);
	for (pp = &r->pending; *pp != NULL; pp = &(*pp)->next)
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	pthread_cond_broadcast(&r->pcv);
	pthread_mutex_unlock(&r->pmtx);
	nng_aio_reap(p->sleep);
	free(p);
}

static void
finish(struct emu_rest *r, nng_aio *aio, struct answer *a)
{
	nng_http_res *res = NULL;
	struct pend  *p;
	uint64_t      now = mono_ms();
	const char   *ct = "application/json";
	int           rv;

	if (a->drop) {
		free(a->body);
		nng_aio_finish(aio, NNG_ECONNRESET);
		return;
	}
	if (a->body == NULL && (a->body = strdup("[]")) == NULL) {
		nng_aio_finish(aio, NNG_ENOMEM);
		return;
	}
	if (a->body[0] != '[' && a->body[0] != '{')
		ct = "text/html";
	if ((rv = nng_http_res_alloc(&res)) != 0 ||
	    (rv = nng_http_res_set_status(res, a->status)) != 0 ||
	    (rv = nng_http_res_set_header(res, "Content-Type", ct)) != 0 ||
	    (a->status == 401 &&
	     (rv = nng_http_res_set_header(res, "WWW-Authenticate",
	                                   "Basic realm=\"ocs-emu\"")) != 0) ||
	    (a->cookie[0] && (rv = nng_http_res_set_header(res, "Set-Cookie",
	                                                   a->cookie)) != 0) ||
	    (rv = nng_http_res_copy_data(res, a->body, strlen(a->body))) !=
	        0) {
		free(a->body);
		nng_http_res_free(res);
		nng_aio_finish(aio, rv);
		return;
	}
	free(a->body);
	pthread_mutex_lock(&r->pmtx);
	if (a->due_ms <= now || r->stopping ||
	    (p = calloc(1, sizeof(*p))) == NULL) {
		pthread_mutex_unlock(&r->pmtx);
		nng_aio_set_output(aio, 0, res);
		nng_aio_finish(aio, 0);
		return;
	}
	if (nng_aio_alloc(&p->sleep, pend_done, p) != 0) {
		pthread_mutex_unlock(&r->pmtx);
		free(p);
		nng_aio_set_output(aio, 0, res);
		nng_aio_finish(aio, 0);
		return;
	}
	p->r = r;
	p->uaio = aio;
	p->res = res;
	p->next = r->pending;
	r->pending = p;
	pthread_mutex_unlock(&r->pmtx);
	nng_sleep_aio((nng_duration)(a->due_ms - now), p->sleep);
}

static void
results(struct answer *a, const struct rest_result *res, size_t n, int bulk)
{
	a->status = 200;
	a->body = rest_result_fmt(res, n, bulk);
}

__attribute__((__format__(printf, 2, 3))) static void
fail1(struct answer *a, const char *fmt, ...)
{
	struct rest_result res = {.ok = 0};
	va_list            ap;

	va_start(ap, fmt);
	vsnprintf(res.text, sizeof(res.text), fmt, ap);
	va_end(ap);
	results(a, &res, 1, 0);
}

/* ---- authentication ------------------------------------------------------ */

/* 0 full access, 1 read-only, -EACCES refused. */
static int
basic_ok(struct emu_rest *r, const char *hdr)
{
	unsigned char raw[300];
	const char   *b64;
	char          want[400];
	size_t        n;
	int           k;

	if (strncasecmp(hdr, "Basic ", 6) != 0)
		return (-EACCES);
	b64 = hdr + 6;
	n = strlen(b64);
	if (n == 0 || n % 4 != 0 || n / 4 * 3 >= sizeof(raw))
		return (-EACCES);
	if ((k = EVP_DecodeBlock(raw, (const unsigned char *)b64, (int)n)) < 0)
		return (-EACCES);
	/* EVP_DecodeBlock counts the padding as bytes. */
	while (n > 0 && b64[n - 1] == '=') {
		k--;
		n--;
	}
	raw[k] = '\0';
	if (r->e->fault.refuse_login)
		return (-EACCES);
	snprintf(want, sizeof(want), "%s:%s", r->e->c.user, r->e->c.password);
	if (strcmp((char *)raw, want) == 0)
		return (0);
	if (r->e->c.viewer[0] && strcmp((char *)raw, r->e->c.viewer) == 0)
		return (1);
	return (-EACCES);
}

static struct rsess *
cookie_sess(struct emu_rest *r, const char *hdr)
{
	const char *p;
	size_t      i, n;

	for (p = hdr; p != NULL && *p;
	     p = strchr(p, ';') ? strchr(p, ';') + 1 : NULL) {
		while (*p == ' ')
			p++;
		if (strncmp(p, COOKIE_NAME "=", sizeof(COOKIE_NAME)) != 0)
			continue;
		p += sizeof(COOKIE_NAME);
		n = strcspn(p, "; ");
		if (n != 32)
			return (NULL);
		for (i = 0; i < REST_SESSIONS; i++)
			if (r->sess[i].id[0] &&
			    strncmp(r->sess[i].id, p, 32) == 0)
				return (&r->sess[i]);
		return (NULL);
	}
	return (NULL);
}

static int
new_sess(struct emu_rest *r, int ro, struct answer *a)
{
	struct rsess *s = &r->sess[0];
	uint8_t       rnd[16];
	size_t        i;

	for (i = 1; i < REST_SESSIONS; i++)
		if (r->sess[i].used < s->used)
			s = &r->sess[i];
	if (RAND_bytes(rnd, sizeof(rnd)) != 1)
		return (-EIO);
	for (i = 0; i < sizeof(rnd); i++)
		snprintf(s->id + 2 * i, 3, "%02x", rnd[i]);
	s->ro = ro;
	s->used = ++r->clock;
	snprintf(a->cookie, sizeof(a->cookie), COOKIE_NAME "=%s; Path=/rest",
	         s->id);
	return (0);
}

/* Who is asking: 0 full, 1 read-only, -EACCES answer 401 (filled in a). */
static int
authenticate(struct emu_rest *r, nng_http_req *req, int control,
             struct answer *a)
{
	const char   *auth = nng_http_req_get_header(req, "Authorization");
	const char   *ck = nng_http_req_get_header(req, "Cookie");
	struct rsess *s;
	int           who;

	if (ck != NULL && (s = cookie_sess(r, ck)) != NULL &&
	    (control || !r->e->fault.refuse_login)) {
		s->used = ++r->clock;
		return (s->ro);
	}
	if (auth != NULL) {
		int saved = r->e->fault.refuse_login;

		if (control)
			r->e->fault.refuse_login = 0;
		who = basic_ok(r, auth);
		r->e->fault.refuse_login = saved;
		if (who >= 0) {
			if (new_sess(r, who, a) != 0)
				return (-EACCES);
			return (who);
		}
	}
	log_info("rest: %s refused", auth ? "login"
	                                  : "request without "
	                                    "credentials");
	a->status = 401;
	a->body = strdup("[{\"status\":\"0\",\"msg\":\"Unauthorized\","
	                 "\"description\":\"Login required\"}]");
	return (-EACCES);
}

/* ---- the switch ---------------------------------------------------------- */

static double
pw(const struct emu *e, uint32_t port, uint64_t now)
{
	double v = oxc_power(&e->x, port, now);

	return (v <= OXC_NO_LIGHT + 1 ? -90 : v);
}

static void
port_row(const struct emu *e, uint32_t p, uint64_t now, struct rest_port *o)
{
	uint32_t       n = e->x.n, b;
	struct rest_xc x;

	memset(o, 0, sizeof(*o));
	o->port = p;
	o->inpower = pw(e, p, now);
	o->outpower = pw(e, n + p, now);
	o->fail = e->x.failed[p] || e->x.failed[n + p];
	if (e->x.out_of[p]) {
		b = e->x.out_of[p] - n;
		x = (struct rest_xc){p, b, b != p && e->x.out_of[b] == n + p};
		if (x.bi && b < p)
			x = (struct rest_xc){b, p, 1};
		rest_conn_fmt(&x, o->conn, sizeof(o->conn));
	}
}

static void
get_ports(struct emu_rest *r, nng_http_req *req, struct answer *a)
{
	struct emu       *e = r->e;
	struct rest_port *rows, one;
	const char       *uri = nng_http_req_get_uri(req);
	char              id[32], port[REST_NAME_MAX];
	uint64_t          now = mono_ns();
	uint32_t          p;

	if (rest_query_get(uri, "id", id, sizeof(id)) != 0)
		snprintf(id, sizeof(id), "summary");
	a->status = 200;
	if (strcmp(id, "summary") == 0) {
		if ((rows = calloc(e->x.n, sizeof(*rows))) == NULL)
			return;
		for (p = 1; p <= e->x.n; p++)
			port_row(e, p, now, &rows[p - 1]);
		a->body = rest_ports_fmt(rows, e->x.n);
		free(rows);
	} else if (strcmp(id, "detail") == 0) {
		if (rest_query_get(uri, "port", port, sizeof(port)) != 0 ||
		    rest_port_parse(port, &p) != 0 || p > e->x.n) {
			fail1(a, "Invalid port %.40s", port);
			return;
		}
		port_row(e, p, now, &one);
		a->body = rest_detail_fmt(&one);
	} else
		fail1(a, "Unknown id %s", id);
}

static void
list(struct emu_rest *r, struct answer *a)
{
	struct emu     *e = r->e;
	struct rest_xc *x = calloc(e->x.n + 1, sizeof(*x));
	struct rest_half(*h)[2] = calloc(e->x.n + 1, sizeof(*h));
	uint64_t now = mono_ns();
	size_t   n, i;
	int      k;

	a->status = 200;
	if (x == NULL || h == NULL)
		goto out;
	n = rest_xc_from_map(e->x.out_of, e->x.n, x);
	for (i = 0; i < n; i++)
		for (k = 0; k < 1 + x[i].bi; k++) {
			uint32_t in = k ? x[i].b : x[i].a;
			uint32_t out = e->x.n + (k ? x[i].a : x[i].b);

			h[i][k].inp = pw(e, in, now);
			h[i][k].outp = pw(e, out, now);
			h[i][k].fail = e->x.failed[in] || e->x.failed[out];
		}
	a->body = rest_list_fmt(x, h, n);
out:
	free(x);
	free(h);
}

/* The patches of a connection. */
static size_t
patches_of(const struct emu *e, const struct rest_xc *x, struct drv_patch *p)
{
	p[0] = (struct drv_patch){(uint16_t)x->a, (uint16_t)(e->x.n + x->b)};
	if (!x->bi)
		return (1);
	p[1] = (struct drv_patch){(uint16_t)x->b, (uint16_t)(e->x.n + x->a)};
	return (2);
}

static void
say_refused(struct rest_result *res, const struct emu *e,
            const struct oxc_err *oe)
{
	char     a[REST_NAME_MAX];
	uint32_t n = e->x.n;
	uint32_t port = oe->port > n ? oe->port - n : oe->port;

	rest_port_fmt(port, a, sizeof(a));
	if (oe->code == -DRV_EBUSY)
		snprintf(res->text, sizeof(res->text),
		         "Ports are being used: %s is in another connection",
		         a);
	else if (oe->code == -DRV_EPORT)
		snprintf(res->text, sizeof(res->text), "Invalid port %s", a);
	else
		snprintf(res->text, sizeof(res->text),
		         "Port %s repeated in one connection", a);
}

/* Add connections one by one, as a switch does; per-item results. */
static void
add(struct emu_rest *r, const char *body, size_t len, int bulk,
    struct answer *a)
{
	struct emu         *e = r->e;
	struct rest_xc     *x = NULL;
	struct rest_result *res = NULL;
	struct drv_patch    p[2];
	struct oxc_err      oe;
	char                err[300];
	uint64_t            now = mono_ns(), gen = e->x.gen;
	size_t              n, i, stop;

	if (rest_badd_parse(body, len, 0, &x, &n, err, sizeof(err)) != 0) {
		fail1(a, "Bad request: %s", err);
		return;
	}
	if (n == 0 || (!bulk && n != 1)) {
		fail1(a, "Bad request: %s",
		      n ? "one connection expected" : "no connections");
		free(x);
		return;
	}
	if ((res = calloc(n, sizeof(*res))) == NULL) {
		free(x);
		return;
	}
	stop = e->fault.deny_half && n > 1 ? n / 2 : n;
	for (i = 0; i < n; i++) {
		char nm[2 * REST_NAME_MAX];

		if (i >= stop) {
			snprintf(res[i].text, sizeof(res[i].text),
			         "Equipment fault: bulk add stopped after %zu "
			         "of %zu",
			         stop, n);
			continue;
		}
		if (x[i].a > e->x.n || x[i].b > e->x.n) {
			snprintf(res[i].text, sizeof(res[i].text),
			         "Invalid port in %s",
			         rest_conn_fmt(&x[i], nm, sizeof(nm)));
			continue;
		}
		if (oxc_connect(&e->x, p, patches_of(e, &x[i], p), now, &oe) !=
		    0) {
			say_refused(&res[i], e, &oe);
			continue;
		}
		res[i].ok = 1;
	}
	results(a, res, n, bulk);
	if (e->x.gen != gen && !e->c.ack_immediate)
		a->due_ms = mono_ms() + (e->x.switch_ns + 999999) / 1000000;
	free(x);
	free(res);
}

/* Delete connections by name; an unknown name fails that item. */
static void
del(struct emu_rest *r, struct rest_xc *x, size_t n, int bulk,
    struct answer *a)
{
	struct emu         *e = r->e;
	struct rest_result *res = calloc(n ? n : 1, sizeof(*res));
	struct drv_patch    p[2];
	struct oxc_err      oe;
	uint16_t            in[2];
	char                nm[2 * REST_NAME_MAX];
	size_t              i, k, np;

	if (res == NULL)
		return;
	for (i = 0; i < n; i++) {
		if (x[i].a > e->x.n || x[i].b > e->x.n) {
			snprintf(res[i].text, sizeof(res[i].text),
			         "Invalid port in %s",
			         rest_conn_fmt(&x[i], nm, sizeof(nm)));
			continue;
		}
		np = patches_of(e, &x[i], p);
		for (k = 0; k < np; k++)
			if (e->x.out_of[p[k].in] != p[k].out)
				break;
		if (k < np) {
			snprintf(res[i].text, sizeof(res[i].text),
			         "Connection %s does not exist",
			         rest_conn_fmt(&x[i], nm, sizeof(nm)));
			continue;
		}
		for (k = 0; k < np; k++)
			in[k] = p[k].in;
		res[i].ok = oxc_disconnect(&e->x, in, np, mono_ns(), &oe) == 0;
	}
	results(a, res, n, bulk);
	free(res);
}

static void
crossconnects(struct emu_rest *r, nng_http_req *req, int ro, struct answer *a)
{
	const char     *m = nng_http_req_get_method(req);
	const char     *uri = nng_http_req_get_uri(req);
	struct rest_xc *x = NULL, one;
	char            id[32], conn[2 * REST_NAME_MAX], err[300];
	void           *body;
	size_t          len, n;
	int             get = strcmp(m, "GET") == 0;

	nng_http_req_get_data(req, &body, &len);
	if (rest_query_get(uri, "id", id, sizeof(id)) != 0)
		snprintf(id, sizeof(id), "%s",
		         strcmp(m, "DELETE") == 0 ? "delete" : "list");
	if (get && strcmp(id, "list") == 0) {
		list(r, a);
		return;
	}
	if (get) {
		fail1(a, "Unknown id %s", id);
		return;
	}
	if (ro) {
		a->status = 403;
		a->body = strdup("[{\"status\":\"0\",\"msg\":\"Forbidden\","
		                 "\"description\":\"Read-only user\"}]");
		return;
	}
	if (strcmp(m, "POST") == 0 && strcmp(id, "add") == 0)
		add(r, body, len, 0, a);
	else if (strcmp(m, "POST") == 0 && strcmp(id, "badd") == 0)
		add(r, body, len, 1, a);
	else if (strcmp(m, "POST") == 0 && strcmp(id, "bdel") == 0) {
		if (rest_bdel_parse(body, len, 0, &x, &n, err, sizeof(err)) !=
		    0) {
			fail1(a, "Bad request: %s", err);
			return;
		}
		del(r, x, n, 1, a);
		free(x);
	} else if (strcmp(m, "DELETE") == 0 && strcmp(id, "delete") == 0) {
		if (rest_query_get(uri, "conn", conn, sizeof(conn)) != 0 ||
		    rest_conn_parse(conn, &one) != 0) {
			fail1(a, "Bad request: conn=%.40s is not a connection",
			      conn);
			return;
		}
		del(r, &one, 1, 0, a);
	} else if (strcmp(m, "POST") == 0 && strcmp(id, "deleteall") == 0) {
		struct rest_result ok = {.ok = 1};

		oxc_clear(&r->e->x);
		results(a, &ok, 1, 0);
	} else {
		a->status = 405;
		a->body = strdup("[{\"status\":\"0\",\"msg\":\"Method not "
		                 "allowed\"}]");
	}
}

/* POST /rest/emu/?id=fault {"fault":"spec"}: the fault control. */
static void
emu_control(struct emu_rest *r, nng_http_req *req, struct answer *a)
{
	struct rest_result res = {.ok = 1};
	json_t            *j = NULL;
	void              *body;
	size_t             len;
	char               err[200];
	const char        *spec;

	nng_http_req_get_data(req, &body, &len);
	if (strcmp(nng_http_req_get_method(req), "POST") == 0) {
		j = len ? json_loadb(body, len, 0, NULL) : NULL;
		spec = json_string_value(json_object_get(j, "fault"));
		if (spec == NULL) {
			json_decref(j);
			fail1(a, "Bad request: expected {\"fault\":\"SPEC\"}");
			return;
		}
		if (emu_fault_set(r->e, spec, err, sizeof(err)) != 0) {
			json_decref(j);
			fail1(a, "%s", err);
			return;
		}
		json_decref(j);
	}
	emu_fault_fmt(r->e, res.text, sizeof(res.text));
	log_info("rest: faults now: %s", res.text);
	a->status = 200;
	a->body = rest_result_fmt(&res, 1, 0);
	/* The format keeps text only for failures: put it in msg. */
	if (a->body != NULL) {
		json_t *o = json_loads(a->body, 0, NULL);

		free(a->body);
		json_object_set_new(json_array_get(o, 0), "msg",
		                    json_string(res.text));
		a->body = json_dumps(o, JSON_COMPACT);
		json_decref(o);
	}
}

static void
info(struct emu_rest *r, nng_http_req *req, struct answer *a)
{
	const char *uri = nng_http_req_get_uri(req);
	char        id[32];

	a->status = 200;
	if (strncmp(uri, "/rest/node", 10) == 0) {
		char b[256];

		snprintf(b, sizeof(b),
		         "{\"serialnumber\":\"EMU%06u\",\"partnumber\":"
		         "\"OCS-EMU-%ux%u\",\"nodeSysConfigInfo\":{\"ports\":"
		         "%u}}",
		         r->e->x.n, r->e->x.n, r->e->x.n, r->e->x.n);
		a->body = strdup(b);
		return;
	}
	if (rest_query_get(uri, "id", id, sizeof(id)) != 0)
		snprintf(id, sizeof(id), "restversion");
	if (strcmp(id, "restversion") == 0)
		a->body = strdup("[{\"restversion\":\"1.0\"}]");
	else if (strcmp(id, "softwareversion") == 0)
		a->body = strdup("[{\"softwareversion\":\"ocs-emu\"}]");
	else
		fail1(a, "Unknown id %s", id);
}

static void
rest_cb(nng_aio *aio)
{
	nng_http_req     *req = nng_aio_get_input(aio, 0);
	nng_http_handler *h = nng_aio_get_input(aio, 1);
	struct emu_rest  *r = nng_http_handler_get_data(h);
	struct emu       *e = r->e;
	const char       *uri = nng_http_req_get_uri(req);
	struct answer     a = {.status = 500};
	uint64_t          gen;
	int               who, control = strncmp(uri, "/rest/emu", 9) == 0;

	pthread_mutex_lock(&e->mtx);
	gen = e->x.gen;
	log_trace("rest > %s %.200s", nng_http_req_get_method(req), uri);
	if (!control && e->fault.drop_after &&
	    ++e->rest_reqs % (e->fault.drop_after + 1) == 0) {
		log_info("rest: fault: dropping the connection at request "
		         "%llu",
		         (unsigned long long)e->rest_reqs);
		a.drop = 1;
	} else if ((who = authenticate(r, req, control, &a)) < 0)
		; /* 401 filled in */
	else if (control)
		emu_control(r, req, &a);
	else if (strncmp(uri, "/rest/crossconnects", 19) == 0)
		crossconnects(r, req, who, &a);
	else if (strncmp(uri, "/rest/ports", 11) == 0) {
		if (strcmp(nng_http_req_get_method(req), "GET") != 0 && who) {
			a.status = 403;
			a.body = strdup("[{\"status\":\"0\",\"msg\":"
			                "\"Forbidden\"}]");
		} else
			get_ports(r, req, &a);
	} else
		info(r, req, &a);
	if (e->x.gen != gen && e->c.state[0] && emu_state_save(e) != 0)
		log_warnx("saving state to %s failed", e->c.state);
	if (!control && !a.drop) {
		if (e->fault.garbage) {
			free(a.body);
			a.body = strdup(emu_garbage);
			a.status = 200;
		}
		if (e->fault.delay_ms)
			a.due_ms = (a.due_ms ? a.due_ms : mono_ms()) +
			           e->fault.delay_ms;
	}
	pthread_mutex_unlock(&e->mtx);
	finish(r, aio, &a);
}

int
emu_rest_start(struct emu *e, struct emu_rest **out, char *bound, size_t bl,
               char *err, size_t errlen)
{
	static const char *const paths[] = {"/rest/crossconnects",
	                                    "/rest/ports", "/rest/info",
	                                    "/rest/node", "/rest/emu"};
	struct emu_rest         *r;
	nng_sockaddr             sa;
	char                     host[256], port[16], url[300], ip[64];
	size_t                   i;
	int                      rv;

	*out = NULL;
	if (net_hostport(e->c.rest, "80", host, sizeof(host), port,
	                 sizeof(port)) != 0) {
		snprintf(err, errlen, "--rest \"%s\": expected ADDR:PORT",
		         e->c.rest);
		return (-EINVAL);
	}
	if ((r = calloc(1, sizeof(*r))) == NULL)
		return (-ENOMEM);
	r->e = e;
	snprintf(url, sizeof(url), "http://%s%s%s:%s",
	         strchr(host, ':') ? "[" : "", host,
	         strchr(host, ':') ? "]" : "", port);
	pthread_mutex_init(&r->pmtx, NULL);
	pthread_cond_init(&r->pcv, NULL);
	r->sync_ok = 1;
	if ((rv = nng_url_parse(&r->url, url)) != 0 ||
	    (rv = nng_http_server_hold(&r->srv, r->url)) != 0)
		goto fail;
	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		nng_http_handler *h;

		if ((rv = nng_http_handler_alloc(&h, paths[i], rest_cb)) != 0)
			goto fail;
		if ((rv = nng_http_handler_set_method(h, NULL)) != 0 ||
		    (rv = nng_http_handler_collect_body(h, true,
		                                        REST_BODY_MAX)) != 0 ||
		    (rv = nng_http_handler_set_data(h, r, NULL)) != 0 ||
		    (rv = nng_http_server_add_handler(r->srv, h)) != 0) {
			nng_http_handler_free(h);
			goto fail;
		}
		r->h[r->nh++] = h;
	}
	if ((rv = nng_http_server_start(r->srv)) != 0 ||
	    (rv = nng_http_server_get_addr(r->srv, &sa)) != 0)
		goto fail;
	if (sa.s_family == NNG_AF_INET) {
		const uint8_t *a = (const uint8_t *)&sa.s_in.sa_addr;

		snprintf(ip, sizeof(ip), "%u.%u.%u.%u", a[0], a[1], a[2],
		         a[3]);
		snprintf(bound, bl, "%s:%u", ip,
		         (unsigned)ntohs(sa.s_in.sa_port));
	} else
		snprintf(bound, bl, "[%s]:%u", host,
		         (unsigned)ntohs(sa.s_in6.sa_port));
	*out = r;
	return (0);
fail:
	snprintf(err, errlen, "rest on %s: %s", e->c.rest, nng_strerror(rv));
	emu_rest_stop(r);
	return (-EIO);
}

void
emu_rest_stop(struct emu_rest *r)
{
	struct pend *p;

	if (r == NULL)
		return;
	/* Answer what is waiting now, before the server goes. */
	if (r->sync_ok) {
		pthread_mutex_lock(&r->pmtx);
		r->stopping = 1;
		for (p = r->pending; p != NULL; p = p->next)
			nng_aio_cancel(p->sleep);
		while (r->pending != NULL)
			pthread_cond_wait(&r->pcv, &r->pmtx);
		pthread_mutex_unlock(&r->pmtx);
	}
	if (r->srv != NULL) {
		nng_http_server_stop(r->srv);
		nng_http_server_release(r->srv);
	}
	if (r->url != NULL)
		nng_url_free(r->url);
	if (r->sync_ok) {
		pthread_cond_destroy(&r->pcv);
		pthread_mutex_destroy(&r->pmtx);
	}
	free(r);
}

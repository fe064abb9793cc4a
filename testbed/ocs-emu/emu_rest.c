/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The REST face of ocs-emu: CALIENT's /rest dialect (the resources are
 * emu_rest_xc.c) on nng's HTTP server, over the same switch model as the
 * TL1 faces.  Duplex port p (named 1.<module>.<port>, 16 per module) is
 * TL1 ingress p plus egress N+p.  Basic auth, then a session cookie; a
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
#include "testbed/ocs-emu/emu_rest_int.h"

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
			emu_rest_fail(
			    a, "Bad request: expected {\"fault\":\"SPEC\"}");
			return;
		}
		if (emu_fault_set(r->e, spec, err, sizeof(err)) != 0) {
			json_decref(j);
			emu_rest_fail(a, "%s", err);
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

/* The request for the resources, with its body and kind. */
static void
req_of(nng_http_req *req, int ro, struct rest_req *q)
{
	const char *ct = nng_http_req_get_header(req, "Content-Type");
	void       *body;
	size_t      len;

	nng_http_req_get_data(req, &body, &len);
	q->method = nng_http_req_get_method(req);
	q->uri = emu_rest_origin(nng_http_req_get_uri(req));
	q->body = body;
	q->len = body ? len : 0;
	q->form = ct != NULL &&
	          strncmp(ct, "application/x-www-form-urlencoded", 33) == 0;
	q->ro = ro;
}

/* Answer a change once the mirrors have moved (unless --ack immediate). */
static void
settle(struct emu *e, const struct rest_req *q, uint64_t now_ns,
       struct answer *a)
{
	uint64_t s = oxc_settled_at(&e->x);

	if (strcmp(q->method, "GET") == 0 || e->c.ack_immediate ||
	    s <= now_ns || a->status != 200)
		return;
	a->due_ms = mono_ms() + (s - now_ns + 999999) / 1000000;
}

static void
rest_cb(nng_aio *aio)
{
	nng_http_req     *req = nng_aio_get_input(aio, 0);
	nng_http_handler *h = nng_aio_get_input(aio, 1);
	struct emu_rest  *r = nng_http_handler_get_data(h);
	struct emu       *e = r->e;
	const char       *uri = emu_rest_origin(nng_http_req_get_uri(req));
	struct answer     a = {.status = 500};
	struct rest_req   q;
	uint64_t          gen, now = mono_ns();
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
	else {
		req_of(req, who, &q);
		if (strncmp(uri, "/rest/crossconnects", 19) == 0)
			emu_rest_crossconnects(e, &q, &a);
		else if (strncmp(uri, "/rest/ports", 11) == 0)
			emu_rest_ports(e, &q, &a);
		else
			emu_rest_info(e, &q, &a);
		settle(e, &q, now, &a);
	}
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

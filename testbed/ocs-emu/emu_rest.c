/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The REST face of ocs-emu: CALIENT's /rest dialect (the resources are
 * emu_rest_xc.c) on libmicrohttpd, over the same switch model as the TL1
 * faces.  Duplex port p (named 1.<module>.<port>, 16 per module) is TL1
 * ingress p plus egress N+p.  Basic auth, then a session cookie; a
 * read-only viewer account gets 403 on writes.  A change is answered once
 * the mirrors have settled (unless --ack immediate), without holding the
 * server's thread: the connection is suspended and a timer thread resumes
 * it when the answer is due.
 *
 * Strangers cost little: a connection idle for the login grace (whole
 * seconds: a request half sent and left there) is closed, at most REST_CONNS are held (64 from
 * one address), and a request's headers get a fixed pool (nng's HTTP
 * server, which this face used before, held 3 000 half-sent requests for
 * as long as their senders liked).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <netdb.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>

#include <microhttpd.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "ocs-drivers/rest.h"
#include "proto/base/log.h"
#include "proto/base/mono.h"
#include "proto/base/net.h"
#include "testbed/ocs-emu/emu_rest_int.h"

#define REST_SESSIONS 64
#define COOKIE_NAME   "OCSEMU"
#define REST_CONNS    512         /* connections held at once */
#define REST_PER_IP   64          /* of them from one address */
#define REST_POOL     (32u << 10) /* a request's headers and line */

struct rsess {
	char     id[33]; /* hex; "" = free */
	int      ro;
	uint64_t used;
};

/* One request on a connection, from its first line to its answer. */
struct rconn {
	struct emu_rest       *r;
	struct MHD_Connection *conn;
	char                  *uri; /* the request target as sent */
	char                  *body;
	size_t                 len;
	int                    started, too_big;
	/* The answer, when it waits for the mirrors (or an injected delay):
	 * the connection is suspended until due_ms. */
	struct MHD_Response *res;
	unsigned             status;
	uint64_t             due_ms;
	int                  dp;   /* and once the datapath follows */
	struct rconn        *next; /* on the pending list */
	int                  pending;
};

struct emu_rest {
	struct emu        *e;
	struct MHD_Daemon *d;
	struct rsess       sess[REST_SESSIONS]; /* under e->mtx */
	uint64_t           clock;
	pthread_mutex_t    pmtx; /* the pending list */
	pthread_cond_t     pcv;
	pthread_t          timer;
	int                sync_ok, timer_ok;
	struct rconn      *pending;
	int                stopping;
};

/* ---- delayed answers ----------------------------------------------------- */

/* Has the kernel's datapath (if any) applied every change?  Taken with
 * pmtx held: nothing takes pmtx under e->mtx. */
static int
dp_done(struct emu *e)
{
	int done;

	pthread_mutex_lock(&e->mtx);
	done = emu_dp_done(e, mono_ns());
	pthread_mutex_unlock(&e->mtx);
	return (done);
}

/* Resumes each suspended connection when its answer is due (a change on
 * the kernel's datapath: and applied there); all at once when the face
 * stops. */
static void *
timer_main(void *arg)
{
	struct emu_rest *r = arg;
	struct rconn    *p;
	uint64_t         now, next;

	pthread_mutex_lock(&r->pmtx);
	for (;;) {
		now = mono_ms();
		next = now + 1000;
		for (p = r->pending; p != NULL; p = p->next) {
			if (!p->pending)
				continue;
			if (p->due_ms <= now && p->dp && !r->stopping &&
			    !dp_done(r->e)) {
				p->due_ms = now + 1; /* looked at every ms */
				next = p->due_ms < next ? p->due_ms : next;
			} else if (p->due_ms <= now || r->stopping) {
				p->pending = 0;
				MHD_resume_connection(p->conn);
			} else if (p->due_ms < next)
				next = p->due_ms;
		}
		if (r->stopping && r->pending == NULL)
			break;
		{
			struct timespec ts;
			uint64_t        ms = next - now;

			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += (time_t)(ms / 1000);
			ts.tv_nsec += (long)(ms % 1000) * 1000000L;
			if (ts.tv_nsec >= 1000000000L) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000L;
			}
			pthread_cond_timedwait(&r->pcv, &r->pmtx, &ts);
		}
	}
	pthread_mutex_unlock(&r->pmtx);
	return (NULL);
}

static void
unlink_pending(struct emu_rest *r, struct rconn *rc)
{
	struct rconn **pp;

	pthread_mutex_lock(&r->pmtx);
	for (pp = &r->pending; *pp != NULL; pp = &(*pp)->next)
		if (*pp == rc) {
			*pp = rc->next;
			break;
		}
	pthread_cond_broadcast(&r->pcv);
	pthread_mutex_unlock(&r->pmtx);
}

/* The answer as an MHD response: NULL when out of memory. */
static struct MHD_Response *
response_of(struct answer *a)
{
	struct MHD_Response *res;
	const char          *ct = "application/json";

	if (a->body == NULL && (a->body = strdup("[]")) == NULL)
		return (NULL);
	if (a->body[0] != '[' && a->body[0] != '{')
		ct = "text/html";
	res = MHD_create_response_from_buffer(strlen(a->body), a->body,
	                                      MHD_RESPMEM_MUST_FREE);
	if (res == NULL) {
		free(a->body);
		return (NULL);
	}
	a->body = NULL; /* the response's now */
	if (MHD_add_response_header(res, "Content-Type", ct) != MHD_YES ||
	    (a->status == 401 &&
	     MHD_add_response_header(res, "WWW-Authenticate",
	                             "Basic realm=\"ocs-emu\"") != MHD_YES) ||
	    (a->cookie[0] && MHD_add_response_header(res, "Set-Cookie",
	                                             a->cookie) != MHD_YES)) {
		MHD_destroy_response(res);
		return (NULL);
	}
	return (res);
}

/* Send the answer now, or suspend the connection until it is due. */
static enum MHD_Result
finish(struct emu_rest *r, struct rconn *rc, struct answer *a)
{
	struct MHD_Response *res;
	enum MHD_Result      ok;

	if (a->drop) {
		free(a->body);
		return (MHD_NO); /* MHD hangs up */
	}
	if ((res = response_of(a)) == NULL)
		return (MHD_NO);
	pthread_mutex_lock(&r->pmtx);
	if ((a->due_ms > mono_ms() || a->dp) && !r->stopping && r->timer_ok) {
		rc->res = res;
		rc->status = a->status;
		rc->due_ms = a->due_ms;
		rc->dp = a->dp;
		rc->pending = 1;
		rc->next = r->pending;
		r->pending = rc;
		MHD_suspend_connection(rc->conn);
		pthread_cond_broadcast(&r->pcv);
		pthread_mutex_unlock(&r->pmtx);
		return (MHD_YES);
	}
	pthread_mutex_unlock(&r->pmtx);
	ok = MHD_queue_response(rc->conn, a->status, res);
	MHD_destroy_response(res);
	return (ok);
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
authenticate(struct emu_rest *r, struct rconn *rc, int control,
             struct answer *a)
{
	const char *auth = MHD_lookup_connection_value(
	    rc->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
	const char *ck = MHD_lookup_connection_value(rc->conn, MHD_HEADER_KIND,
	                                             MHD_HTTP_HEADER_COOKIE);
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
emu_control(struct emu_rest *r, const struct rconn *rc, const char *method,
            struct answer *a)
{
	struct rest_result res = {.ok = 1};
	json_t            *j = NULL;
	char               err[200];
	const char        *spec;

	if (strcmp(method, "POST") == 0) {
		j = rc->len ? json_loadb(rc->body, rc->len, 0, NULL) : NULL;
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
req_of(const struct rconn *rc, const char *method, int ro, struct rest_req *q)
{
	const char *ct = MHD_lookup_connection_value(
	    rc->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);

	q->method = method;
	q->uri = emu_rest_origin(rc->uri);
	q->body = rc->body;
	q->len = rc->body ? rc->len : 0;
	q->form = ct != NULL &&
	          strncmp(ct, "application/x-www-form-urlencoded", 33) == 0;
	q->ro = ro;
}

/* Answer a change once the mirrors have moved (unless --ack immediate),
 * and on the kernel's datapath once the kernel forwards as they say, as
 * TL1 does: a light check read at once must see the new paths. */
static void
settle(struct emu *e, const struct rest_req *q, uint64_t now_ns,
       struct answer *a)
{
	uint64_t s = oxc_settled_at(&e->x);

	if (strcmp(q->method, "GET") == 0 || e->c.ack_immediate ||
	    a->status != 200)
		return;
	a->dp = e->dp_track && !emu_dp_done(e, now_ns);
	if (s > now_ns)
		a->due_ms = mono_ms() + (s - now_ns + 999999) / 1000000;
	else if (a->dp)
		a->due_ms = mono_ms();
}

/* The answer to a whole request (line, headers and body in rc). */
static void
answer(struct emu_rest *r, struct rconn *rc, const char *method,
       struct answer *a)
{
	struct emu     *e = r->e;
	const char     *uri = emu_rest_origin(rc->uri);
	struct rest_req q;
	uint64_t        gen, now = mono_ns();
	int             who, control = strncmp(uri, "/rest/emu", 9) == 0;

	pthread_mutex_lock(&e->mtx);
	gen = e->x.gen;
	log_trace("rest > %s %.200s", method, uri);
	if (!control && e->fault.drop_after &&
	    ++e->rest_reqs % (e->fault.drop_after + 1) == 0) {
		log_info("rest: fault: dropping the connection at request "
		         "%llu",
		         (unsigned long long)e->rest_reqs);
		a->drop = 1;
	} else if ((who = authenticate(r, rc, control, a)) < 0)
		; /* 401 filled in */
	else if (control)
		emu_control(r, rc, method, a);
	else {
		req_of(rc, method, who, &q);
		if (strncmp(uri, "/rest/crossconnects", 19) == 0)
			emu_rest_crossconnects(e, &q, a);
		else if (strncmp(uri, "/rest/ports", 11) == 0)
			emu_rest_ports(e, &q, a);
		else
			emu_rest_info(e, &q, a);
		settle(e, &q, now, a);
	}
	if (e->x.gen != gen && e->c.state[0] && emu_state_save(e) != 0)
		log_warnx("saving state to %s failed", e->c.state);
	if (!control && !a->drop) {
		if (e->fault.garbage) {
			free(a->body);
			a->body = strdup(emu_garbage);
			a->status = 200;
		}
		if (e->fault.delay_ms)
			a->due_ms = (a->due_ms ? a->due_ms : mono_ms()) +
			            e->fault.delay_ms;
	}
	pthread_mutex_unlock(&e->mtx);
}

/* MHD's first word on a request: the target as it was sent (the
 * handler's url has lost its query, and absolute-form targets are taken
 * as they come).  Its state lives until request_done. */
static void *
request_begins(void *cls, const char *uri, struct MHD_Connection *c)
{
	struct rconn *rc = calloc(1, sizeof(*rc));

	if (rc == NULL)
		return (NULL);
	rc->r = cls;
	rc->conn = c;
	rc->uri = strdup(uri ? uri : "/");
	return (rc);
}

static void
request_done(void *cls, struct MHD_Connection *c, void **ptr,
             enum MHD_RequestTerminationCode why)
{
	struct rconn *rc = *ptr;

	(void)c, (void)why;
	if (rc == NULL)
		return;
	if (rc->res != NULL) {
		unlink_pending(cls, rc);
		MHD_destroy_response(rc->res);
	}
	free(rc->uri);
	free(rc->body);
	free(rc);
	*ptr = NULL;
}

/* A body chunk, kept within REST_BODY_MAX (the rest read and dropped:
 * the answer is 413). */
static void
take_body(struct rconn *rc, const char *data, size_t n)
{
	char *nb;

	if (rc->too_big || rc->len + n > REST_BODY_MAX ||
	    (nb = realloc(rc->body, rc->len + n + 1)) == NULL) {
		rc->too_big = 1;
		return;
	}
	memcpy(nb + rc->len, data, n);
	rc->body = nb;
	rc->len += n;
	rc->body[rc->len] = '\0';
}

static enum MHD_Result
on_request(void *cls, struct MHD_Connection *c, const char *url,
           const char *method, const char *version, const char *data,
           size_t *n, void **ptr)
{
	struct emu_rest *r = cls;
	struct rconn    *rc = *ptr;
	struct answer    a = {.status = 500};
	enum MHD_Result  ok;

	(void)url, (void)version;
	if (rc == NULL || rc->uri == NULL)
		return (MHD_NO);
	if (rc->res != NULL) { /* resumed: its answer is due */
		unlink_pending(r, rc);
		ok = MHD_queue_response(c, rc->status, rc->res);
		MHD_destroy_response(rc->res);
		rc->res = NULL;
		return (ok);
	}
	if (!rc->started) { /* the headers; a body may follow */
		rc->started = 1;
		return (MHD_YES);
	}
	if (*n != 0) {
		take_body(rc, data, *n);
		*n = 0;
		return (MHD_YES);
	}
	if (rc->too_big) {
		a.status = 413;
		emu_rest_fail(&a, "Request body larger than %u bytes",
		              (unsigned)REST_BODY_MAX);
		return (finish(r, rc, &a));
	}
	answer(r, rc, method, &a);
	return (finish(r, rc, &a));
}

/* Where to listen: the first address host:port resolves to. */
static int
bind_addr(const char *host, const char *port, struct sockaddr_storage *ss,
          socklen_t *sl)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM,
	                         .ai_flags = AI_PASSIVE | AI_NUMERICSERV},
	                *ai;

	if (getaddrinfo(host[0] ? host : NULL, port, &hints, &ai) != 0)
		return (-EINVAL);
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*sl = ai->ai_addrlen;
	freeaddrinfo(ai);
	return (0);
}

/* A connection's idle limit: the login grace, in MHD's whole seconds. */
static unsigned int
idle_s(const struct emu *e)
{
	uint32_t ms = e->c.login_grace_ms ? e->c.login_grace_ms : 10000;

	return ((ms + 999) / 1000);
}

int
emu_rest_start(struct emu *e, struct emu_rest **out, char *bound, size_t bl,
               char *err, size_t errlen)
{
	struct emu_rest            *r;
	struct sockaddr_storage     ss;
	socklen_t                   sl;
	const union MHD_DaemonInfo *di;
	char                        host[256], port[16];

	*out = NULL;
	if (net_hostport(e->c.rest, "80", host, sizeof(host), port,
	                 sizeof(port)) != 0 ||
	    bind_addr(host, port, &ss, &sl) != 0) {
		snprintf(err, errlen, "--rest \"%s\": expected ADDR:PORT",
		         e->c.rest);
		return (-EINVAL);
	}
	if ((r = calloc(1, sizeof(*r))) == NULL)
		return (-ENOMEM);
	r->e = e;
	pthread_mutex_init(&r->pmtx, NULL);
	pthread_cond_init(&r->pcv, NULL);
	r->sync_ok = 1;
	if (pthread_create(&r->timer, NULL, timer_main, r) == 0)
		r->timer_ok = 1;
	r->d = MHD_start_daemon(
	    MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL |
	        MHD_ALLOW_SUSPEND_RESUME |
	        (ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0),
	    0, NULL, NULL, on_request, r, MHD_OPTION_SOCK_ADDR, &ss,
	    MHD_OPTION_URI_LOG_CALLBACK, request_begins, r,
	    MHD_OPTION_NOTIFY_COMPLETED, request_done, r,
	    MHD_OPTION_CONNECTION_TIMEOUT, idle_s(e),
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned int)REST_CONNS,
	    MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)REST_PER_IP,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)REST_POOL,
	    MHD_OPTION_END);
	(void)sl;
	if (r->d == NULL || !r->timer_ok ||
	    (di = MHD_get_daemon_info(r->d, MHD_DAEMON_INFO_BIND_PORT)) ==
	        NULL) {
		snprintf(err, errlen, "rest on %s: cannot listen (%s)",
		         e->c.rest,
		         r->d == NULL ? strerror(errno) : "no port");
		emu_rest_stop(r);
		return (-EIO);
	}
	if (ss.ss_family == AF_INET6)
		snprintf(bound, bl, "[%s]:%u", host, (unsigned)di->port);
	else {
		char ip[INET_ADDRSTRLEN];

		inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, ip,
		          sizeof(ip));
		snprintf(bound, bl, "%s:%u", ip, (unsigned)di->port);
	}
	*out = r;
	return (0);
}

void
emu_rest_stop(struct emu_rest *r)
{
	uint64_t until = mono_ms() + 2000;

	if (r == NULL)
		return;
	/* Answer what is waiting now, before the server goes (MHD must
	 * not stop with a connection suspended). */
	pthread_mutex_lock(&r->pmtx);
	r->stopping = 1;
	pthread_cond_broadcast(&r->pcv);
	pthread_mutex_unlock(&r->pmtx);
	if (r->timer_ok)
		pthread_join(r->timer, NULL);
	while (r->d != NULL && mono_ms() < until) {
		int empty;

		pthread_mutex_lock(&r->pmtx);
		empty = r->pending == NULL;
		pthread_mutex_unlock(&r->pmtx);
		if (empty)
			break;
		mono_sleep_ms(5);
	}
	if (r->d != NULL)
		MHD_stop_daemon(r->d);
	pthread_cond_destroy(&r->pcv);
	pthread_mutex_destroy(&r->pmtx);
	free(r);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocs-web's HTTP loop: one poll over the listening socket, the
 * connections, an eventfd the other threads wake it with and a signalfd.
 * Every socket is non-blocking and every connection bounded: its head in
 * WEB_HEAD_MAX bytes within --head-timeout (WEB_HEAD_MS), one request at a time, an event
 * stream's unsent bytes in WEB_SSE_PEND (a reader that falls further
 * behind is dropped), WEB_CONN_MAX of them (the next get a 503 and are
 * closed).  Nothing a browser sends reaches ocsd but the endpoints'
 * requests, WEB_WORKERS at a time (web_api.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ocsd/web.h"
#include "proto/alink.h"
#include "proto/base/log.h"
#include "proto/base/mono.h"
#include "proto/base/net.h"

struct wconn {
	uint64_t        id;
	struct alink_io io;
	struct alink_rx rx;
	int             tls_done;
	char           *out; /* to send: out[off..len) */
	size_t          off, len, cap;
	int             sse;     /* an event stream */
	int             busy;    /* an endpoint's answer is on its way */
	int             closing; /* close once out is sent */
	int             keep_alive;
	unsigned        requests;  /* heads answered */
	uint64_t        since_ms;  /* the head's wait (or the idle time) */
	uint64_t        ping_ms;   /* a stream's last bytes */
	uint64_t        linger_ms; /* half-closed: read and drop until then */
	char            peer[64];
};

void
web_wake(struct web *w)
{
	uint64_t one = 1;

	if (write(w->wake_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		log_warnx("web: wake: %s", strerror(errno));
}

/* Append to what c sends; 0 or -ENOMEM. */
static int
conn_put(struct wconn *c, const char *b, size_t n)
{
	if (c->off > 0 && c->off == c->len)
		c->off = c->len = 0;
	if (c->len + n > c->cap) {
		size_t cap = c->cap ? c->cap : 4096;
		char  *nb;

		while (cap < c->len + n)
			cap *= 2;
		if ((nb = realloc(c->out, cap)) == NULL)
			return (-ENOMEM);
		c->out = nb;
		c->cap = cap;
	}
	memcpy(c->out + c->len, b, n);
	c->len += n;
	return (0);
}

static void
conn_free(struct web *w, int i)
{
	struct wconn *c = w->conn[i];

	if (c->sse)
		w->nsse--;
	alink_io_close(&c->io);
	alink_rx_free(&c->rx);
	free(c->out);
	free(c);
	w->conn[i] = w->conn[--w->nconn];
	w->conn[w->nconn] = NULL;
}

/* An HTTP error and the connection's end. */
static void
conn_error(struct wconn *c, int status, const char *why)
{
	char  *resp, body[400];
	size_t len;
	int    n;

	n = snprintf(body, sizeof(body), "%d %s: %s\n", status,
	             web_reason(status), why);
	if (web_response(status, "text/plain; charset=utf-8", body,
	                 (size_t)(n > 0 ? n : 0), 0, 0, NULL,
	                 status == 401 ? "WWW-Authenticate: Basic "
	                                 "realm=\"ocs-web\"\r\n"
	                               : NULL,
	                 &resp, &len) == 0) {
		conn_put(c, resp, len);
		free(resp);
	}
	c->closing = 1;
}

/* The Host a page on a loopback address must name: ours (a name that
 * resolves elsewhere and then to 127.0.0.1 is another site's page
 * reading ours, DNS rebinding). */
static int
host_ok(const struct web *w, const char *host)
{
	char want[96];

	if (!w->o->loopback)
		return (1);
	snprintf(want, sizeof(want), "127.0.0.1:%u", w->port);
	if (strcmp(host, want) == 0)
		return (1);
	snprintf(want, sizeof(want), "localhost:%u", w->port);
	if (strcmp(host, want) == 0)
		return (1);
	snprintf(want, sizeof(want), "[::1]:%u", w->port);
	return (strcmp(host, want) == 0);
}

/* An event stream begins: the head, then every snapshot. */
static void
start_stream(struct web *w, struct wconn *c)
{
	static const char head[] = "HTTP/1.1 200 OK\r\n"
	                           "Content-Type: text/event-stream\r\n"
	                           "Cache-Control: no-store\r\n"
	                           "X-Content-Type-Options: nosniff\r\n"
	                           "Connection: keep-alive\r\n\r\n"
	                           "retry: 1000\n\n";
	char             *s;
	size_t            n;

	if (w->nsse >= WEB_SSE_MAX) {
		conn_error(c, 503, "too many event streams at once");
		return;
	}
	if ((s = web_stream_start(w, &n)) == NULL) {
		conn_error(c, 503, "out of memory");
		return;
	}
	c->sse = 1;
	w->nsse++;
	conn_put(c, head, sizeof(head) - 1);
	conn_put(c, s, n);
	free(s);
	c->ping_ms = mono_ms();
}

/* A whole request head: answer it. */
static void
on_request(struct web *w, struct wconn *c, const struct web_req *r)
{
	char  *resp = NULL, why[300] = "";
	size_t len = 0;
	int    st;

	if (!host_ok(w, r->host)) {
		conn_error(c, 421, "Host is not this server's");
		return;
	}
	if (w->o->auth_b64[0] && strcmp(r->auth, w->o->auth_b64) != 0) {
		conn_error(c, 401, "credentials needed");
		return;
	}
	c->keep_alive = r->keep_alive;
	c->requests++;
	if (strcmp(r->path, "/events") == 0) {
		start_stream(w, c);
		return;
	}
	st = web_route(w, c->id, r, &resp, &len, why, sizeof(why));
	if (st == 0 && resp == NULL) { /* queued for a worker */
		c->busy = 1;
		return;
	}
	if (st != 0) {
		conn_error(c, st,
		           why[0]      ? why
		           : st == 404 ? "no such page"
		           : st == 503 ? "busy: too many requests for ocsd"
		                       : "bad request");
		return;
	}
	conn_put(c, resp, len);
	free(resp);
	if (!c->keep_alive)
		c->closing = 1;
}

/* Read what came; parse a whole head.  -1: close now. */
static int
on_readable(struct web *w, struct wconn *c)
{
	struct web_req r;
	char           why[200];
	size_t         used;
	long           n;
	int            rv;

	n = alink_rx_read(&c->rx, &c->io);
	if (n == 0 || (n < 0 && n != -EAGAIN && n != -EMSGSIZE))
		return (-1);
	if (c->sse) { /* a stream's reader says nothing */
		c->rx.len = 0;
		return (0);
	}
	if (c->busy || c->closing)
		return (0);
	rv = web_parse((const char *)c->rx.b, c->rx.len, &r, &used, why,
	               sizeof(why));
	if (rv == 1 && n == -EMSGSIZE)
		rv = -431;
	if (rv == 1)
		return (0);
	if (rv < 0) {
		if (w->o->verbose)
			log_info("web: %s: %d: %s", c->peer, -rv, why);
		conn_error(c, -rv, why);
		return (0);
	}
	c->rx.len -= used;
	memmove(c->rx.b, c->rx.b + used, c->rx.len);
	c->since_ms = mono_ms();
	on_request(w, c, &r);
	return (0);
}

/* Send what is waiting.  -1: close now. */
static int
on_writable(struct wconn *c)
{
	long n;

	while (c->off < c->len) {
		n = alink_io_write(&c->io, c->out + c->off, c->len - c->off);
		if (n == -EAGAIN)
			return (0);
		if (n < 0)
			return (-1);
		c->off += (size_t)n;
	}
	c->off = c->len = 0;
	if (c->closing == 1 && c->linger_ms == 0) {
		/* Closed with a request's rest unread (a head refused
		 * halfway), the kernel would answer it with a reset that
		 * can destroy our answer in the peer's buffer: half-close,
		 * then read what is left (as nginx's lingering close). */
		alink_io_shutdown_wr(&c->io);
		c->linger_ms = mono_ms() + WEB_LINGER_MS;
		c->rx.len = 0;
		return (0);
	}
	if (c->closing)
		return (-1);
	return (0);
}

/* A half-closed connection: drop what comes until its end.  -1: close. */
static int
linger_read(struct wconn *c)
{
	char    junk[16384];
	ssize_t r;
	int     i;

	for (i = 0; i < 64; i++) { /* a turn, not forever */
		r = read(c->io.fd, junk, sizeof(junk));
		if (r > 0)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EINTR))
			return (0);
		return (-1);
	}
	return (0);
}

/* "addr:port" of a peer, for the log. */
static void
peer_name(const struct sockaddr_storage *sa, char *out, size_t len)
{
	char h[INET6_ADDRSTRLEN] = "?";

	if (sa->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const void *)sa;

		inet_ntop(AF_INET6, &s6->sin6_addr, h, sizeof(h));
		snprintf(out, len, "[%s]:%u", h, ntohs(s6->sin6_port));
	} else {
		const struct sockaddr_in *s4 = (const void *)sa;

		inet_ntop(AF_INET, &s4->sin_addr, h, sizeof(h));
		snprintf(out, len, "%s:%u", h, ntohs(s4->sin_port));
	}
}

static void
accept_one(struct web *w)
{
	static const char busy[] =
	    "HTTP/1.1 503 Service Unavailable\r\n"
	    "Content-Type: text/plain\r\nContent-Length: 30\r\n"
	    "Connection: close\r\n\r\n"
	    "503 too many connections now\r\n";
	struct sockaddr_storage sa;
	socklen_t               sl = sizeof(sa);
	struct wconn           *c;
	int                     fd, one = 1;

	fd = accept4(w->lfd, (struct sockaddr *)&sa, &sl,
	             SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return;
	if (w->nconn >= WEB_CONN_MAX || (c = calloc(1, sizeof(*c))) == NULL) {
		char junk[4096];

		/* Best effort, never waited for: the error, then the end.
		 * What the peer sent already is read first, so the close
		 * is a FIN after the 503, not a reset that can drop it. */
		while (recv(fd, junk, sizeof(junk), MSG_DONTWAIT) > 0)
			;
		if (send(fd, busy, sizeof(busy) - 1,
		         MSG_DONTWAIT | MSG_NOSIGNAL) < 0 &&
		    w->o->verbose)
			log_info("web: a connection over the limit closed");
		close(fd);
		return;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	c->id = ++w->next_id;
	c->rx.max = WEB_HEAD_MAX - ALINK_HDR;
	c->since_ms = mono_ms();
	peer_name(&sa, c->peer, sizeof(c->peer));
	if (alink_io_init(&c->io, fd, w->tls, 1, NULL) != 0) {
		close(fd);
		free(c);
		return;
	}
	w->conn[w->nconn++] = c;
}

static struct wconn *
conn_by_id(struct web *w, uint64_t id)
{
	int i;

	for (i = 0; i < w->nconn; i++)
		if (w->conn[i]->id == id)
			return (w->conn[i]);
	return (NULL);
}

/* Answers from the workers, and what the feed broadcasts. */
static void
on_wake(struct web *w)
{
	uint64_t      v, id;
	struct wconn *c;
	char         *s;
	size_t        n;
	int           i;

	if (read(w->wake_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		log_warnx("web: wake: %s", strerror(errno));
	while ((id = web_take_done(w, &s, &n)) != 0) {
		if ((c = conn_by_id(w, id)) != NULL) {
			c->busy = 0;
			c->since_ms = mono_ms();
			conn_put(c, s, n);
			if (!c->keep_alive)
				c->closing = 1;
		}
		free(s);
	}
	while ((s = web_take_bcast(w, &n)) != NULL) {
		for (i = 0; i < w->nconn; i++) {
			c = w->conn[i];
			if (!c->sse)
				continue;
			/* A reader this far behind is dropped: it reloads
			 * and starts from the snapshots. */
			if (c->len - c->off + n > WEB_SSE_PEND ||
			    conn_put(c, s, n) != 0)
				c->closing = 2;
			else
				c->ping_ms = mono_ms();
		}
		free(s);
	}
}

/* Deadlines: a head too slow, an idle connection, a stream's ping. */
static void
on_tick(struct web *w, uint64_t now)
{
	static const char ping[] = ": ping\n\n";
	int               i;

	for (i = 0; i < w->nconn; i++) {
		struct wconn *c = w->conn[i];

		if (c->linger_ms != 0) {
			if (now >= c->linger_ms)
				c->closing = 2;
			continue;
		}
		if (c->sse) {
			if (now - c->ping_ms > 15000 &&
			    conn_put(c, ping, sizeof(ping) - 1) == 0)
				c->ping_ms = now;
			continue;
		}
		if (c->busy || c->closing || c->off < c->len)
			continue;
		if (c->rx.len > 0 && now - c->since_ms > w->o->head_ms)
			conn_error(c, 408, "the request head came too slowly");
		else if (c->rx.len == 0 &&
		         now - c->since_ms >
		             (c->requests > 0 ? WEB_IDLE_MS : w->o->head_ms))
			c->closing = 2; /* a connection that never asks is
			                 * held no longer than a head */
	}
}

/* One connection's turn after poll.  -1: close it. */
static int
conn_turn(struct web *w, struct wconn *c, short rev)
{
	char why[200];
	int  rv;

	if (c->closing == 2)
		return (-1);
	if (c->linger_ms != 0)
		return (linger_read(c));
	if (!c->tls_done) {
		rv = alink_io_handshake(&c->io, why, sizeof(why));
		if (rv == -EAGAIN)
			return (0);
		if (rv != 0) {
			if (w->o->verbose)
				log_info("web: %s: TLS: %s", c->peer, why);
			return (-1);
		}
		c->tls_done = 1;
		c->since_ms = mono_ms();
	}
	if ((rev & (POLLIN | POLLHUP | POLLERR)) && on_readable(w, c) != 0)
		return (-1);
	if (c->off < c->len || c->closing)
		return (on_writable(c));
	return (0);
}

int
web_serve(struct web *w)
{
	struct pollfd *pfd;
	int            i, n, stop = 0;

	if ((pfd = calloc(WEB_CONN_MAX + 3, sizeof(*pfd))) == NULL)
		return (-1);
	while (!stop) {
		pfd[0] = (struct pollfd){.fd = w->lfd, .events = POLLIN};
		pfd[1] = (struct pollfd){.fd = w->wake_fd, .events = POLLIN};
		pfd[2] = (struct pollfd){.fd = w->sig_fd, .events = POLLIN};
		for (i = 0; i < w->nconn; i++) {
			struct wconn *c = w->conn[i];
			short         ev = POLLIN;

			if (c->linger_ms == 0 &&
			    (c->off < c->len || c->closing ||
			     (c->io.want_write && !c->tls_done)))
				ev |= POLLOUT;
			pfd[3 + i] =
			    (struct pollfd){.fd = c->io.fd, .events = ev};
		}
		n = w->nconn;
		if (poll(pfd, (nfds_t)(3 + n), 1000) < 0 && errno != EINTR)
			break;
		if (pfd[2].revents & POLLIN)
			stop = 1;
		/* Backwards: conn_free moves the last into the hole. */
		for (i = n - 1; i >= 0; i--)
			if ((pfd[3 + i].revents || w->conn[i]->closing == 2) &&
			    conn_turn(w, w->conn[i], pfd[3 + i].revents) != 0)
				conn_free(w, i);
		if (pfd[1].revents & POLLIN)
			on_wake(w);
		on_tick(w, mono_ms());
		/* What the wake or the tick queued goes out now. */
		for (i = w->nconn - 1; i >= 0; i--)
			if ((w->conn[i]->off < w->conn[i]->len ||
			     (w->conn[i]->closing &&
			      w->conn[i]->linger_ms == 0)) &&
			    conn_turn(w, w->conn[i], 0) != 0)
				conn_free(w, i);
		if (pfd[0].revents & POLLIN)
			for (i = 0; i < 64; i++) /* a burst, not forever */
				accept_one(w);
	}
	free(pfd);
	return (0);
}

int
web_listen(struct web *w)
{
	char     host[80], port[16];
	sigset_t ss;
	char    *colon;

	if (net_hostport(w->o->listen, "8080", host, sizeof(host), port,
	                 sizeof(port)) != 0) {
		log_warnx("web: --listen \"%s\": expected HOST:PORT",
		          w->o->listen);
		return (-1);
	}
	if ((w->lfd = net_listen(host, port, w->bound, sizeof(w->bound))) <
	    0) {
		log_warnx("web: listening on %s: %s", w->o->listen,
		          strerror(-w->lfd));
		return (-1);
	}
	colon = strrchr(w->bound, ':');
	w->port = colon ? (uint16_t)atoi(colon + 1) : 0;
	if ((w->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0) {
		log_warnx("web: eventfd: %s", strerror(errno));
		return (-1);
	}
	sigemptyset(&ss);
	sigaddset(&ss, SIGINT);
	sigaddset(&ss, SIGTERM);
	if ((w->sig_fd = signalfd(-1, &ss, SFD_NONBLOCK | SFD_CLOEXEC)) < 0) {
		log_warnx("web: signalfd: %s", strerror(errno));
		return (-1);
	}
	return (0);
}

void
web_close(struct web *w)
{
	while (w->nconn > 0)
		conn_free(w, w->nconn - 1);
	if (w->lfd >= 0)
		close(w->lfd);
	if (w->wake_fd >= 0)
		close(w->wake_fd);
	if (w->sig_fd >= 0)
		close(w->sig_fd);
}

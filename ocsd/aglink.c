/* SPDX-License-Identifier: BSD-2-Clause */
/* ocsd's end of the agent links (see aglink.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include "ocsd/aglink.h"
#include "proto/auth.h"
#include "proto/base/log.h"
#include "proto/base/mono.h"
#include "proto/base/net.h"

/* Connections at once: every agent's, and room for strays. */
#define AGL_CONNS 4352
/* A connection that has not attached by then is closed (its TLS
 * handshake included). */
#define AGL_ATTACH_MS 5000
#define AGL_EVENTS    256
/* What may wait to be written to one agent: a plan is at most
 * MSG_MAX_BYTES, and it waits for nothing else. */
#define AGL_OUT_MAX (2 * (size_t)MSG_MAX_BYTES)

struct aglink_conn {
	struct aglink      *l;
	struct alink_io     io;
	nng_mtx            *tls_mtx; /* the TLS session: reads and writes */
	void               *owner;
	int                 open;    /* handshake done, Challenge sent */
	int                 dropped; /* by its owner: closed quietly */
	int                 failed;  /* a write failed: closed, owner told */
	int                 eof;     /* read: end, or an error */
	int                 pollout; /* EPOLLOUT armed */
	uint64_t            born;
	struct alink_rx     rx;
	uint8_t             nonce[AUTH_NONCE];
	char                peer[64];
	uint8_t            *out; /* what the socket has not taken yet */
	size_t              olen, ocap;
	struct aglink_conn *prev, *next;
};

struct aglink {
	nng_mtx             *lock;
	struct aglink_events ev;
	struct ssl_ctx_st   *tls;
	int                  lfd, ep, wake;
	nng_thread          *thr;
	struct aglink_conn  *conns;
	uint32_t             nconn;
	char                 url[300];
	uint64_t             refused, refused_said; /* connections turned
	                                             * away, and logged */
	struct log_limit     bad;                   /* strangers' bad frames */
};

static void
conn_free(struct aglink *l, struct aglink_conn *c)
{
	epoll_ctl(l->ep, EPOLL_CTL_DEL, c->io.fd, NULL);
	alink_io_close(&c->io);
	alink_rx_free(&c->rx);
	free(c->out);
	if (c->tls_mtx != NULL)
		nng_mtx_free(c->tls_mtx);
	if (c->prev)
		c->prev->next = c->next;
	else
		l->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	l->nconn--;
	free(c);
}

/* Plain sockets need no lock between a read and a write; TLS does. */
static void
tls_lock(struct aglink_conn *c)
{
	if (c->tls_mtx != NULL)
		nng_mtx_lock(c->tls_mtx);
}

static void
tls_unlock(struct aglink_conn *c)
{
	if (c->tls_mtx != NULL)
		nng_mtx_unlock(c->tls_mtx);
}

static void
peer_name(int fd, char *buf, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t               sl = sizeof(ss);
	char                    a[INET6_ADDRSTRLEN];

	snprintf(buf, len, "ipc");
	if (getpeername(fd, (struct sockaddr *)&ss, &sl) != 0)
		return;
	if (ss.ss_family == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &s4->sin_addr, a, sizeof(a));
		snprintf(buf, len, "%s:%u", a, ntohs(s4->sin_port));
	} else if (ss.ss_family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		inet_ntop(AF_INET6, &s6->sin6_addr, a, sizeof(a));
		snprintf(buf, len, "[%s]:%u", a, ntohs(s6->sin6_port));
	}
}

static int  enqueue(struct aglink_conn *, const uint8_t *, size_t);
static void want_out(struct aglink_conn *, int);

/*
 * The Challenge a connection opens with, as soon as it is open (TLS
 * done).  Only the thread knows the connection then (nobody else writes
 * to it before its first frame), so no lock: written at once, or queued
 * for EPOLLOUT.  0, or -1 when it cannot go on.
 */
static int
greet(struct aglink_conn *c)
{
	Ocs__Msg       m;
	Ocs__Challenge ch;
	uint8_t       *buf;
	size_t         len, off = 0;
	long           w = 0;

	msg_init(&m, 0);
	ocs__challenge__init(&ch);
	ch.nonce.data = c->nonce;
	ch.nonce.len = AUTH_NONCE;
	m.body_case = OCS__MSG__BODY_CHALLENGE;
	m.challenge = &ch;
	if (alink_pack(&m, &buf, &len) != 0)
		return (-1);
	while (off < len &&
	       (w = alink_io_write(&c->io, buf + off, len - off)) > 0)
		off += (size_t)w;
	if ((w >= 0 || w == -EAGAIN) && off < len &&
	    enqueue(c, buf + off, len - off) == 0)
		want_out(c, 1);
	free(buf);
	return (w < 0 && w != -EAGAIN ? -1 : 0);
}

/* A new connection: TLS first where configured, then the Challenge. */
static struct aglink_conn *
conn_new(struct aglink *l, int fd)
{
	struct epoll_event  ev = {.events = EPOLLIN};
	struct aglink_conn *c;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return (NULL);
	c->l = l;
	c->born = mono_ms();
	c->rx.max = ALINK_FIRST_MAX;
	peer_name(fd, c->peer, sizeof(c->peer));
	ev.data.ptr = c;
	if (alink_io_init(&c->io, fd, l->tls, 1, NULL) != 0 ||
	    (l->tls != NULL && nng_mtx_alloc(&c->tls_mtx) != 0) ||
	    auth_nonce(c->nonce) != 0 ||
	    epoll_ctl(l->ep, EPOLL_CTL_ADD, fd, &ev) != 0) {
		c->io.fd = -1; /* the caller closes fd */
		alink_io_close(&c->io);
		if (c->tls_mtx != NULL)
			nng_mtx_free(c->tls_mtx);
		free(c);
		return (NULL);
	}
	c->open = l->tls == NULL;
	if (c->open && greet(c) != 0)
		c->eof = 1;
	c->next = l->conns;
	if (l->conns)
		l->conns->prev = c;
	l->conns = c;
	l->nconn++;
	return (c);
}

/* Without the lock: only this thread touches the list.  A flood of
 * strangers is counted, and said once a second at most (reap_idle). */
static void
accept_all(struct aglink *l)
{
	int fd;

	while ((fd = accept4(l->lfd, NULL, NULL,
	                     SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		if (l->nconn >= AGL_CONNS || conn_new(l, fd) == NULL) {
			l->refused++;
			close(fd);
		}
	}
}

/* Arm or disarm EPOLLOUT as c needs it (any thread: epoll is safe). */
static void
want_out(struct aglink_conn *c, int on)
{
	struct epoll_event ev = {.events = EPOLLIN | (on ? EPOLLOUT : 0),
	                         .data.ptr = c};

	if (c->pollout == on)
		return;
	c->pollout = on;
	epoll_ctl(c->l->ep, EPOLL_CTL_MOD, c->io.fd, &ev);
}

/* Without the lock: the handshake's next step, or what the connection
 * has now, into its buffer. */
static void
drain(struct aglink_conn *c)
{
	char why[300];
	long r;
	int  rv;

	tls_lock(c);
	if (!c->open) {
		/* Nobody else knows the connection yet: no lock needed
		 * for want_out or the Challenge. */
		rv = alink_io_handshake(&c->io, why, sizeof(why));
		if (rv == 0) {
			c->open = 1;
			if (greet(c) != 0)
				c->eof = 1;
		} else if (rv == -EAGAIN)
			want_out(c, c->io.want_write);
		else {
			log_debug("agent link: %s: %s", c->peer, why);
			c->eof = 1;
		}
		tls_unlock(c);
		return;
	}
	r = alink_rx_read(&c->rx, &c->io);
	tls_unlock(c);
	if (r == 0 || (r < 0 && r != -EAGAIN))
		c->eof = 1;
}

/* With the lock: what waits in c's queue, as far as the socket takes. */
static void
flush(struct aglink_conn *c)
{
	size_t off = 0;
	long   w = 0;

	tls_lock(c);
	while (off < c->olen &&
	       (w = alink_io_write(&c->io, c->out + off, c->olen - off)) > 0)
		off += (size_t)w;
	tls_unlock(c);
	memmove(c->out, c->out + off, c->olen - off);
	c->olen -= off;
	if (w < 0 && w != -EAGAIN) {
		c->failed = 1;
		shutdown(c->io.fd, SHUT_RDWR);
		return;
	}
	want_out(c, c->olen > 0 || c->io.want_write);
}

static int
enqueue(struct aglink_conn *c, const uint8_t *buf, size_t len)
{
	uint8_t *nb;
	size_t   cap;

	if (c->olen + len > AGL_OUT_MAX)
		return (-ENOBUFS);
	if (c->olen + len > c->ocap) {
		cap = c->ocap ? c->ocap : 4096;
		while (cap < c->olen + len)
			cap *= 2;
		if ((nb = realloc(c->out, cap)) == NULL)
			return (-ENOMEM);
		c->out = nb;
		c->ocap = cap;
	}
	memcpy(c->out + c->olen, buf, len);
	c->olen += len;
	return (0);
}

int
aglink_send(struct aglink_conn *c, const Ocs__Msg *m)
{
	uint8_t *buf;
	size_t   len, off = 0;
	long     w = 0;
	int      rv;

	if (c == NULL || c->failed || c->dropped)
		return (-EPIPE);
	if ((rv = alink_pack(m, &buf, &len)) != 0)
		return (rv);
	/* Behind what waits, or straight to the socket. */
	if (c->olen == 0) {
		tls_lock(c);
		while (off < len &&
		       (w = alink_io_write(&c->io, buf + off, len - off)) > 0)
			off += (size_t)w;
		tls_unlock(c);
	}
	if (w < 0 && w != -EAGAIN)
		rv = (int)w;
	else if (off < len)
		rv = enqueue(c, buf + off, len - off);
	free(buf);
	if (rv != 0) {
		/* Half a frame cannot be taken back: the link ends here,
		 * and the thread tells the owner. */
		c->failed = 1;
		shutdown(c->io.fd, SHUT_RDWR);
		return (rv);
	}
	want_out(c, c->olen > 0 || c->io.want_write);
	return (0);
}

void
aglink_reply(struct aglink_conn *c, uint64_t seq, int code, const char *text)
{
	Ocs__Msg   m;
	Ocs__Error e;
	Ocs__Idle  idle;

	msg_init(&m, seq);
	if (code == 0) {
		ocs__idle__init(&idle);
		m.body_case = OCS__MSG__BODY_IDLE;
		m.idle = &idle;
	} else {
		ocs__error__init(&e);
		e.code = code;
		e.text = (char *)(uintptr_t)text;
		m.body_case = OCS__MSG__BODY_ERROR;
		m.error = &e;
	}
	(void)aglink_send(c, &m);
}

/* With the lock: every whole frame to the owner (or the would-be one). */
static void
deliver(struct aglink *l, struct aglink_conn *c)
{
	Ocs__Msg *m;
	char      why[300];
	int       rv;

	while (!c->dropped && !c->failed &&
	       (rv = alink_rx_next(&c->rx, &m, why, sizeof(why))) != 0) {
		if (rv < 0) {
			log_warnx_limited(&l->bad, "agent link: %s: %s",
			                  c->peer, why);
			c->eof = 1;
			break;
		}
		if (l->ev.msg)
			l->ev.msg(l->ev.arg, c, c->owner, m);
		msg_free(m);
		/* Nobody took it: a stranger, refused and gone. */
		if (c->owner == NULL && !c->dropped) {
			aglink_reply(c, 0, -EPERM, "expected an attach");
			aglink_drop(c);
		}
	}
}

/* With the lock: a connection at its end goes, its owner told. */
static void
reap(struct aglink *l, struct aglink_conn *c)
{
	const char *why = c->failed ? "it did not take what ocsd sent"
	                            : "the agent closed it";

	if (!c->eof && !c->failed)
		return;
	if (c->owner != NULL && !c->dropped && l->ev.closed)
		l->ev.closed(l->ev.arg, c->owner, why);
	conn_free(l, c);
}

/* Once a second, with the lock: connections that never attached, and
 * how many were turned away (one line, not one a connection). */
static void
reap_idle(struct aglink *l, uint64_t now)
{
	struct aglink_conn *c, *next;
	uint32_t            slow = 0;

	log_limit_tick(&l->bad);
	for (c = l->conns; c; c = next) {
		next = c->next;
		if (c->owner == NULL && !c->eof &&
		    now - c->born > AGL_ATTACH_MS) {
			slow++;
			c->eof = 1;
		}
		reap(l, c);
	}
	if (slow > 0)
		log_warnx("agent link: %u connection%s that did not attach "
		          "within %d ms closed",
		          slow, slow > 1 ? "s" : "", AGL_ATTACH_MS);
	if (l->refused > l->refused_said) {
		log_warnx("agent link: %llu connections refused (%u open, the "
		          "most there may be)",
		          (unsigned long long)(l->refused - l->refused_said),
		          l->nconn);
		l->refused_said = l->refused;
	}
}

static void
handle(struct aglink *l, struct aglink_conn *c, uint32_t events)
{
	if ((events & EPOLLOUT) && c->open) {
		flush(c);
		/* A TLS read that had to write first goes on now. */
		if (c->open && c->olen == 0 && !c->io.want_write)
			drain(c);
	}
	deliver(l, c);
	if (c->eof || c->failed || c->dropped) {
		c->eof = 1;
		reap(l, c);
	}
}

static int
round_(struct aglink *l, uint64_t *last_scan)
{
	struct epoll_event  ev[AGL_EVENTS];
	struct aglink_conn *c;
	uint64_t            now;
	int                 k, i, stop = 0;

	k = epoll_wait(l->ep, ev, AGL_EVENTS, 1000);
	for (i = 0; i < k; i++) {
		if (ev[i].data.ptr == NULL)
			accept_all(l);
		else if (ev[i].data.ptr == (void *)l)
			stop = 1;
		else if (ev[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR) ||
		         !((struct aglink_conn *)ev[i].data.ptr)->open)
			drain(ev[i].data.ptr);
	}
	if (stop)
		return (1);
	nng_mtx_lock(l->lock);
	for (i = 0; i < k; i++)
		if ((c = ev[i].data.ptr) != NULL && c != (void *)l)
			handle(l, c, ev[i].events);
	now = mono_ms();
	if (now - *last_scan >= 1000) {
		*last_scan = now;
		reap_idle(l, now);
	}
	nng_mtx_unlock(l->lock);
	return (0);
}

static void
thread_main(void *arg)
{
	struct aglink *l = arg;
	uint64_t       last = mono_ms();

	while (round_(l, &last) == 0)
		;
}

void
aglink_own(struct aglink_conn *c, void *owner)
{
	c->owner = owner;
	c->rx.max = MSG_MAX_BYTES;
}

const uint8_t *
aglink_nonce(const struct aglink_conn *c)
{
	return (c->nonce);
}

const char *
aglink_peer(const struct aglink_conn *c)
{
	return (c->peer);
}

void
aglink_drop(struct aglink_conn *c)
{
	if (c == NULL)
		return;
	c->dropped = 1;
	c->owner = NULL;
	/* What waits in the queue is lost with it (its owner is done);
	 * what the socket took, a refusal say, still goes out before the
	 * FIN.  The thread sees the end and closes it. */
	c->olen = 0;
	shutdown(c->io.fd, SHUT_RDWR);
}

static int
listen_on(struct aglink *l, const char *url, char *bound, size_t bl, char *err,
          size_t el)
{
	struct epoll_event ev = {.events = EPOLLIN};
	char               addr[300], got[300];
	int                tls = strncmp(url, "tls+tcp://", 10) == 0;

	if (net_url_addr(tls ? url + 4 : url, addr, sizeof(addr)) != 0) {
		snprintf(err, el,
		         "agent link \"%.200s\": expected tcp://host:port, "
		         "tls+tcp://host:port or ipc:///path",
		         url);
		return (-EINVAL);
	}
	if ((l->lfd = net_listen_addr(addr, got, sizeof(got))) < 0) {
		snprintf(err, el, "agent link %s: %s", url, strerror(-l->lfd));
		return (l->lfd);
	}
	/* A join storm attaches every agent at once. */
	if (listen(l->lfd, AGL_CONNS) != 0) {
		snprintf(err, el, "agent link %s: %s", url, strerror(errno));
		return (-errno);
	}
	/* Told to agents in the configured form, with the real port. */
	if (strncmp(got, "unix:", 5) == 0)
		snprintf(bound, bl, "ipc://%s", got + 5);
	else
		snprintf(bound, bl, "%s://%s", tls ? "tls+tcp" : "tcp", got);
	ev.data.ptr = NULL;
	if ((l->ep = epoll_create1(EPOLL_CLOEXEC)) < 0 ||
	    epoll_ctl(l->ep, EPOLL_CTL_ADD, l->lfd, &ev) != 0 ||
	    (l->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
		snprintf(err, el, "agent link %s: %s", url, strerror(errno));
		return (-errno);
	}
	ev.data.ptr = l;
	if (epoll_ctl(l->ep, EPOLL_CTL_ADD, l->wake, &ev) != 0) {
		snprintf(err, el, "agent link %s: %s", url, strerror(errno));
		return (-errno);
	}
	return (0);
}

int
aglink_open(const char *url, const char *cert_key, nng_mtx *lock,
            const struct aglink_events *ev, struct aglink **out, char *bound,
            size_t bl, char *err, size_t el)
{
	struct aglink *l;
	int            rv = 0;

	*out = NULL;
	if ((l = calloc(1, sizeof(*l))) == NULL)
		return (-ENOMEM);
	l->lock = lock;
	l->ev = *ev;
	l->lfd = l->ep = l->wake = -1;
	snprintf(l->url, sizeof(l->url), "%s", url);
	if (strncmp(url, "tls+tcp://", 10) == 0) {
		if (cert_key == NULL || cert_key[0] == '\0') {
			snprintf(err, el,
			         "agent link %s: TLS needs a certificate and "
			         "key file (tls_cert_key)",
			         url);
			rv = -EINVAL;
		} else
			rv = alink_tls_server(cert_key, &l->tls, err, el);
	}
	if (rv != 0 || (rv = listen_on(l, url, bound, bl, err, el)) != 0 ||
	    (rv = nng_thread_create(&l->thr, thread_main, l)) != 0) {
		if (rv > 0) {
			snprintf(err, el, "agent link: %s", nng_strerror(rv));
			rv = msg_nngerr(rv);
		}
		l->thr = NULL;
		aglink_close(l);
		return (rv);
	}
	*out = l;
	return (0);
}

void
aglink_close(struct aglink *l)
{
	uint64_t one = 1;

	if (l == NULL)
		return;
	if (l->thr != NULL) {
		if (write(l->wake, &one, sizeof(one)) != sizeof(one))
			log_warnx("agent link: cannot stop its thread");
		nng_thread_destroy(l->thr);
	}
	while (l->conns)
		conn_free(l, l->conns);
	if (l->lfd >= 0)
		close(l->lfd);
	if (l->ep >= 0)
		close(l->ep);
	if (l->wake >= 0)
		close(l->wake);
	if (strncmp(l->url, "ipc://", 6) == 0)
		unlink(l->url + 6);
	alink_tls_free(l->tls);
	free(l);
}

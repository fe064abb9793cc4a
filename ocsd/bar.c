/* SPDX-License-Identifier: BSD-2-Clause */
/* ocsd's end of the barrier link (see bar.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ocsd/bar.h"
#include "proto/base/log.h"
#include "proto/base/mono.h"
#include "proto/base/net.h"

/* Connections at once: every agent's, and room for strays. */
#define BAR_CONNS 4352
/* A connection that has not attached by then is closed. */
#define BAR_ATTACH_MS 5000
#define BAR_EVENTS    256

struct bar_conn {
	struct bar       *b;
	int               fd;
	void             *owner;
	int               dropped; /* by its owner: closed quietly */
	int               failed;  /* a send failed: closed, owner told */
	int               eof;     /* read: end, or an error */
	uint64_t          born;
	struct barlink_rx rx;
	struct bar_conn  *prev, *next;
};

struct bar {
	nng_mtx          *lock;
	struct bar_events ev;
	int               lfd, ep, wake;
	nng_thread       *thr;
	struct bar_conn  *conns;
	uint32_t          nconn;
	char              url[300];
};

static void
conn_free(struct bar *b, struct bar_conn *c)
{
	epoll_ctl(b->ep, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	barlink_rx_free(&c->rx);
	if (c->prev)
		c->prev->next = c->next;
	else
		b->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	b->nconn--;
	free(c);
}

/* Without the lock: only this thread touches the list. */
static void
accept_all(struct bar *b)
{
	struct epoll_event ev = {.events = EPOLLIN};
	struct bar_conn   *c;
	int                fd;

	while ((fd = accept4(b->lfd, NULL, NULL,
	                     SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		if (b->nconn >= BAR_CONNS ||
		    (c = calloc(1, sizeof(*c))) == NULL) {
			log_warnx("barrier link: %u connections: one refused",
			          b->nconn);
			close(fd);
			continue;
		}
		c->b = b;
		c->fd = fd;
		c->born = mono_ms();
		c->rx.max = BARLINK_ATTACH_MAX;
		ev.data.ptr = c;
		if (epoll_ctl(b->ep, EPOLL_CTL_ADD, fd, &ev) != 0) {
			close(fd);
			free(c);
			continue;
		}
		c->next = b->conns;
		if (b->conns)
			b->conns->prev = c;
		b->conns = c;
		b->nconn++;
	}
}

/* Without the lock: what the connection has now, into its buffer. */
static void
drain(struct bar_conn *c)
{
	long r = barlink_rx_read(&c->rx, c->fd);

	if (r == 0 || (r < 0 && r != -EAGAIN))
		c->eof = 1;
}

void
bar_reply(struct bar_conn *c, const Ocs__Msg *req, int code, const char *text)
{
	Ocs__Msg   m;
	Ocs__Error e;
	Ocs__Idle  idle;

	msg_init(&m, req && req->has_seq ? req->seq : 0);
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
	bar_send(c, &m);
}

/* The first frame: an Attach the owner accepts, or the end. */
static void
attach(struct bar *b, struct bar_conn *c, const Ocs__Msg *m)
{
	char why[300];
	int  rv = -MSG_EBODY;

	snprintf(why, sizeof(why), "expected an attach, got %s",
	         msg_body_name(m->body_case));
	if (m->body_case == OCS__MSG__BODY_ATTACH)
		rv = b->ev.attach
		         ? b->ev.attach(b->ev.arg, c, m, why, sizeof(why))
		         : -EPERM;
	if (rv == 0 && c->owner != NULL) {
		c->rx.max = MSG_MAX_BYTES;
		bar_reply(c, m, 0, NULL);
		return;
	}
	log_warnx("barrier link: refused a connection: %s", why);
	bar_reply(c, m, rv, why);
	c->dropped = 1;
	shutdown(c->fd, SHUT_RDWR);
}

/* With the lock: every whole frame to its owner. */
static void
deliver(struct bar *b, struct bar_conn *c)
{
	Ocs__Msg *m;
	char      why[300];
	int       rv;

	while (!c->dropped && !c->failed &&
	       (rv = barlink_rx_next(&c->rx, &m, why, sizeof(why))) != 0) {
		if (rv < 0) {
			log_warnx("barrier link: %s", why);
			c->eof = 1;
			break;
		}
		if (c->owner == NULL)
			attach(b, c, m);
		else if (b->ev.msg)
			b->ev.msg(b->ev.arg, c, c->owner, m);
		msg_free(m);
	}
}

/* With the lock: connections at their end go, their owners told. */
static void
reap(struct bar *b, struct bar_conn *c, uint64_t now)
{
	const char *why =
	    c->failed ? "it did not take an answer" : "the agent closed it";

	if (c->owner == NULL && !c->eof && now - c->born > BAR_ATTACH_MS) {
		log_warnx("barrier link: a connection that did not attach "
		          "in %d ms closed",
		          BAR_ATTACH_MS);
		c->eof = 1;
	}
	if (!c->eof && !c->failed)
		return;
	if (c->owner != NULL && !c->dropped && b->ev.closed)
		b->ev.closed(b->ev.arg, c->owner, why);
	conn_free(b, c);
}

static int
round_(struct bar *b, uint64_t *last_scan)
{
	struct epoll_event ev[BAR_EVENTS];
	struct bar_conn   *c, *next;
	uint64_t           now;
	int                k, i, stop = 0;

	k = epoll_wait(b->ep, ev, BAR_EVENTS, 1000);
	for (i = 0; i < k; i++) {
		if (ev[i].data.ptr == NULL)
			accept_all(b);
		else if (ev[i].data.ptr == (void *)b)
			stop = 1;
		else
			drain(ev[i].data.ptr);
	}
	if (stop)
		return (1);
	nng_mtx_lock(b->lock);
	for (i = 0; i < k; i++)
		if ((c = ev[i].data.ptr) != NULL && c != (void *)b)
			deliver(b, c);
	now = mono_ms();
	for (i = 0; i < k; i++)
		if ((c = ev[i].data.ptr) != NULL && c != (void *)b &&
		    (c->eof || c->failed || c->dropped)) {
			c->eof = 1;
			reap(b, c, now);
		}
	/* Once a second: connections that never attached. */
	if (now - *last_scan >= 1000) {
		*last_scan = now;
		for (c = b->conns; c; c = next) {
			next = c->next;
			reap(b, c, now);
		}
	}
	nng_mtx_unlock(b->lock);
	return (0);
}

static void
thread_main(void *arg)
{
	struct bar *b = arg;
	uint64_t    last = mono_ms();

	while (round_(b, &last) == 0)
		;
}

void
bar_own(struct bar_conn *c, void *owner)
{
	c->owner = owner;
}

int
bar_send(struct bar_conn *c, const Ocs__Msg *m)
{
	uint8_t *buf;
	size_t   len;
	ssize_t  w;
	int      rv;

	if (c->dropped || c->failed)
		return (-EPIPE);
	if ((rv = barlink_pack(m, &buf, &len)) != 0)
		return (rv);
	do
		w = send(c->fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
	while (w < 0 && errno == EINTR);
	free(buf);
	if (w == (ssize_t)len)
		return (0);
	/* Half a frame cannot be taken back: the link ends here, and the
	 * thread tells the owner. */
	c->failed = 1;
	shutdown(c->fd, SHUT_RDWR);
	return (w < 0 ? -errno : -EPIPE);
}

void
bar_drop(struct bar_conn *c)
{
	if (c == NULL)
		return;
	c->dropped = 1;
	c->owner = NULL;
	/* The thread sees the end and closes it. */
	shutdown(c->fd, SHUT_RDWR);
}

static int
bar_listen(struct bar *b, const char *url, char *bound, size_t bl, char *err,
           size_t el)
{
	struct epoll_event ev = {.events = EPOLLIN};
	char               addr[300], got[300];
	int                fd;

	if ((fd = net_url_addr(url, addr, sizeof(addr))) != 0) {
		snprintf(err, el,
		         "barrier \"%.200s\": expected tcp://host:port "
		         "or ipc:///path",
		         url);
		return (fd);
	}
	if ((b->lfd = net_listen_addr(addr, got, sizeof(got))) < 0) {
		snprintf(err, el, "barrier %s: %s", url, strerror(-b->lfd));
		return (b->lfd);
	}
	/* A join storm attaches every agent at once. */
	if (listen(b->lfd, BAR_CONNS) != 0) {
		snprintf(err, el, "barrier %s: %s", url, strerror(errno));
		return (-errno);
	}
	/* Told to agents in the configured form, with the real port. */
	if (strncmp(got, "unix:", 5) == 0)
		snprintf(bound, bl, "ipc://%s", got + 5);
	else
		snprintf(bound, bl, "tcp://%s", got);
	ev.data.ptr = NULL;
	if ((b->ep = epoll_create1(EPOLL_CLOEXEC)) < 0 ||
	    epoll_ctl(b->ep, EPOLL_CTL_ADD, b->lfd, &ev) != 0 ||
	    (b->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
		snprintf(err, el, "barrier %s: %s", url, strerror(errno));
		return (-errno);
	}
	ev.data.ptr = b;
	if (epoll_ctl(b->ep, EPOLL_CTL_ADD, b->wake, &ev) != 0) {
		snprintf(err, el, "barrier %s: %s", url, strerror(errno));
		return (-errno);
	}
	return (0);
}

int
bar_open(const char *url, nng_mtx *lock, const struct bar_events *ev,
         struct bar **out, char *bound, size_t bl, char *err, size_t el)
{
	struct bar *b;
	int         rv;

	*out = NULL;
	if ((b = calloc(1, sizeof(*b))) == NULL)
		return (-ENOMEM);
	b->lock = lock;
	b->ev = *ev;
	b->lfd = b->ep = b->wake = -1;
	snprintf(b->url, sizeof(b->url), "%s", url);
	if ((rv = bar_listen(b, url, bound, bl, err, el)) != 0 ||
	    (rv = nng_thread_create(&b->thr, thread_main, b)) != 0) {
		if (rv > 0) {
			snprintf(err, el, "barrier: %s", nng_strerror(rv));
			rv = msg_nngerr(rv);
		}
		b->thr = NULL;
		bar_close(b);
		return (rv);
	}
	*out = b;
	return (0);
}

void
bar_close(struct bar *b)
{
	uint64_t one = 1;

	if (b == NULL)
		return;
	if (b->thr != NULL) {
		if (write(b->wake, &one, sizeof(one)) != sizeof(one))
			log_warnx("barrier link: cannot stop its thread");
		nng_thread_destroy(b->thr);
	}
	while (b->conns)
		conn_free(b, b->conns);
	if (b->lfd >= 0)
		close(b->lfd);
	if (b->ep >= 0)
		close(b->ep);
	if (b->wake >= 0)
		close(b->wake);
	if (strncmp(b->url, "ipc://", 6) == 0)
		unlink(b->url + 6);
	free(b);
}

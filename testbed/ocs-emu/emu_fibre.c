/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The light path of ocs-emu.  Every host transceiver keeps one TCP
 * connection, announced as "FIBRE <ingress> <egress>": what it writes
 * enters the switch at the ingress, what the switch puts out at the
 * egress is written to it.  Bytes from ingress i go to the fibre plugged
 * at the egress i is patched to, if the path is lit; otherwise they are
 * dropped (light does not queue).  Bytes in flight when the patch changes
 * are dropped, never delivered to the new peer.
 *
 * One thread, epoll, and splice(2) through a pipe per fibre, so payload
 * is moved by reference rather than copied through user space.  A fibre
 * whose peer cannot take more stops being read (TCP backpressure to the
 * sender) until the peer drains, as a link runs at its slower end.
 *
 * With a line rate (--rate) every transmitter is a token bucket: what a
 * fibre reads from its host is metered at the rate, and a fibre out of
 * tokens is not read until a timer says it has enough again, so a
 * run's data time is set by the configured rate, not by this machine's
 * CPU, and TCP pushes back on the sender as a real NIC's queue does.
 *
 * Links: a connection announced as "LINK <egress>" watches the link of
 * the receiver plugged at that egress, as a NIC's carrier: after "OK" it
 * is told "dark" or "up <n>" at once and at every change ("up" once light
 * has reached it for the port's retrain time, --link-up; n counts its
 * ups).  Light from another sender (or a new patch) is a new link: "dark"
 * then "up" again, even if no evaluation fell between the two, so a
 * watcher always sees the count move.  The relay's agents say these to
 * ocsd, which waits for them as for a kernel carrier.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "proto/base/log.h"
#include "proto/base/mono.h"
#include "testbed/ocs-emu/emu.h"

#define PIPE_BYTES (1u << 20)
#define MAX_FIBRES 4096
/* A metered fibre is read again once it has two milliseconds of its rate
 * in tokens, within these bounds: few wake-ups, and little more than a
 * line rate's worth at once at the start of a burst. */
#define TB_GRANT_MIN (4u << 10)
#define TB_GRANT_MAX (16u << 10)
/* Shutters and faults change links without a change of patches: a
 * watched link is looked at this often besides. */
#define WATCH_TICK_NS 10000000u

struct fconn {
	int           fd, pr, pw;
	uint32_t      in, out; /* 0 until announced */
	char          hdr[64];
	size_t        hlen;
	size_t        pending; /* bytes in the pipe */
	struct fconn *target;
	uint64_t      gen; /* patch generation the pending bytes follow */
	int           blocked, waiters, events;
	double        tokens; /* bytes it may still send now */
	uint64_t      tb_ns;  /* when tokens was last brought up */
	uint64_t      due_ns; /* out of tokens until then, or 0 */
	/* A LINK watch (in == 0): the egress watched, and what it was
	 * told: up, its count, the light (sender, settling time) it is. */
	uint32_t wout, wups, wsrc;
	int      wup;
	uint64_t wsettle;
};

struct fsrv {
	struct emu    *e;
	int            ep, devnull;
	struct fconn **by_in, **by_out;
	struct fconn  *all[MAX_FIBRES];
	int            nall;
	double         rate;  /* bytes a ns, 0: unmetered */
	double         depth; /* the bucket, bytes */
	double         grant; /* tokens a fibre waits for, bytes */
	int            tfd;   /* timerfd for the earliest due_ns */
	int            wfd;   /* eventfd: the patches changed (watches) */
	int            ltfd;  /* timerfd: the next link to come up */
	int            nwatch;
	int            wdue; /* the watches are to be told (not at every
	                      * byte relayed: on a change, a timer, a new
	                      * watch) */
};

static void
set_events(struct fsrv *f, struct fconn *c)
{
	struct epoll_event ev = {0};
	int                want = (c->blocked || c->due_ns ? 0 : EPOLLIN) |
	           (c->waiters ? EPOLLOUT : 0) | EPOLLRDHUP;

	if (want == c->events)
		return;
	ev.events = (uint32_t)want;
	ev.data.ptr = c;
	epoll_ctl(f->ep, EPOLL_CTL_MOD, c->fd, &ev);
	c->events = want;
}

static void
drop_pending(struct fsrv *f, struct fconn *c)
{
	if (c->pending) {
		ssize_t n = splice(c->pr, NULL, f->devnull, NULL, c->pending,
		                   SPLICE_F_NONBLOCK);

		if (c->in)
			__atomic_add_fetch(&f->e->cnt_drop[c->in],
			                   n > 0 ? (uint64_t)n : c->pending,
			                   __ATOMIC_RELAXED);
		c->pending = 0;
	}
	if (c->blocked && c->target) {
		c->target->waiters--;
		set_events(f, c->target);
	}
	c->blocked = 0;
	c->target = NULL;
	set_events(f, c);
}

static void
close_conn(struct fsrv *f, struct fconn *c)
{
	int i;

	log_debug("fibre: unplugged ingress %u / egress %u", c->in, c->out);
	drop_pending(f, c);
	/* Whoever was sending to this fibre loses what was in flight. */
	for (i = 0; i < f->nall; i++)
		if (f->all[i]->target == c)
			drop_pending(f, f->all[i]);
	if (c->in)
		f->by_in[c->in] = NULL;
	if (c->out)
		f->by_out[c->out] = NULL;
	if (c->wout)
		f->nwatch--;
	epoll_ctl(f->ep, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	close(c->pr);
	close(c->pw);
	for (i = 0; i < f->nall; i++)
		if (f->all[i] == c) {
			f->all[i] = f->all[--f->nall];
			break;
		}
	free(c);
}

/* Where light from ingress `in` goes now, or NULL (dark, unpatched, or
 * nothing plugged at the egress). */
static struct fconn *
route(struct fsrv *f, uint32_t in, uint64_t *gen)
{
	struct emu *e = f->e;
	uint64_t    now = mono_ns();
	uint32_t    out;
	int         lit;

	pthread_mutex_lock(&e->mtx);
	out = e->x.out_of[in];
	lit = oxc_lit(&e->x, in, now);
	/* With retrain times (--link-up) the receiver's link must have
	 * come up too: until then what is sent is lost, as on a NIC. */
	if (lit && out && e->link_any)
		lit = emu_link_up(e, out - e->x.n, now);
	*gen = e->x.gen;
	pthread_mutex_unlock(&e->mtx);
	return (lit && out ? f->by_out[out] : NULL);
}

static uint64_t
gen_now(struct fsrv *f)
{
	uint64_t g;

	pthread_mutex_lock(&f->e->mtx);
	g = f->e->x.gen;
	pthread_mutex_unlock(&f->e->mtx);
	return (g);
}

/* Tell watch c of its link if that changed: "dark", or "up <n>" once
 * light (from one sender, since one settling) has been there for the
 * retrain time.  When a link retraining comes up, or 0. */
static uint64_t
watch_tell(struct fsrv *f, struct fconn *c, uint64_t now)
{
	struct emu *e = f->e;
	uint32_t    in, k = c->wout - e->x.n;
	uint64_t    settle = 0, due = 0;
	int         up, lit;
	char        line[32];

	pthread_mutex_lock(&e->mtx);
	in = e->x.in_of[c->wout];
	lit = in != 0 && oxc_lit(&e->x, in, now);
	up = lit && emu_link_up(e, k, now);
	settle = in != 0 ? e->x.settle[in] : 0;
	if (lit && !up && e->link_ns != NULL)
		due = settle + e->link_ns[k];
	pthread_mutex_unlock(&e->mtx);
	/* Another light than the one it was told of: a new link. */
	if (c->wup && (!up || in != c->wsrc || settle != c->wsettle)) {
		c->wup = 0;
		(void)!send(c->fd, "dark\n", 5, MSG_NOSIGNAL | MSG_DONTWAIT);
	}
	if (up && !c->wup) {
		c->wup = 1;
		c->wups++;
		c->wsrc = in;
		c->wsettle = settle;
		snprintf(line, sizeof(line), "up %u\n", c->wups);
		(void)!send(c->fd, line, strlen(line),
		            MSG_NOSIGNAL | MSG_DONTWAIT);
	}
	return (due);
}

/* Every watch told; the timer set for the next link to come up. */
static void
watches_tell(struct fsrv *f)
{
	struct itimerspec its = {{0, 0}, {0, 0}};
	uint64_t          now = mono_ns(), next = now + WATCH_TICK_NS, t;
	int               i;

	if (f->nwatch == 0)
		return;
	for (i = 0; i < f->nall; i++)
		if (f->all[i]->wout &&
		    (t = watch_tell(f, f->all[i], now)) != 0 && t < next)
			next = t > now ? t : now + 1;
	its.it_value.tv_sec = (time_t)(next / 1000000000u);
	its.it_value.tv_nsec = (long)(next % 1000000000u);
	timerfd_settime(f->ltfd, TFD_TIMER_ABSTIME, &its, NULL);
}

/* The model's patches changed (oxc's hook, under the model's lock):
 * the watches are told at once. */
static void
patches_changed(void *arg)
{
	uint64_t one = 1;

	(void)!write(*(int *)arg, &one, sizeof(one));
}

/* What a watch sends is nothing; its end is its close. */
static void
watch_input(struct fsrv *f, struct fconn *c)
{
	char    buf[256];
	ssize_t r = recv(c->fd, buf, sizeof(buf), 0);

	if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
		close_conn(f, c);
}

/* The test hook: flip one byte in the middle of what is in the pipe. */
static void
corrupt(struct fsrv *f, struct fconn *c)
{
	uint8_t buf[65536];
	ssize_t n, w;

	if (!__atomic_exchange_n(&f->e->corrupt[c->in], 0, __ATOMIC_RELAXED))
		return;
	n = read(c->pr, buf,
	         c->pending < sizeof(buf) ? c->pending : sizeof(buf));
	if (n <= 0)
		return;
	buf[n / 2] ^= 0x5a;
	log_info("fibre: corrupted byte %zd of %zd from ingress %u (test "
	         "hook)",
	         n / 2, n, c->in);
	/* Back to the front of the stream: the rest is still in the pipe,
	 * so put the chunk in a fresh pipe ahead of it. */
	{
		int np[2];

		if (pipe2(np, O_NONBLOCK | O_CLOEXEC) != 0)
			return;
		fcntl(np[1], F_SETPIPE_SZ, PIPE_BYTES);
		w = write(np[1], buf, (size_t)n);
		if (w > 0)
			splice(c->pr, NULL, np[1], NULL,
			       c->pending - (size_t)n, SPLICE_F_NONBLOCK);
		close(c->pr);
		close(c->pw);
		c->pr = np[0];
		c->pw = np[1];
	}
}

/* How much fibre c may read now: everything unmetered; with a rate the
 * tokens it has, or 0 after setting when it has a grant's again. */
static size_t
grant(struct fsrv *f, struct fconn *c)
{
	uint64_t now;
	double   need;

	if (f->rate == 0)
		return (PIPE_BYTES);
	now = mono_ns();
	c->tokens += (double)(now - c->tb_ns) * f->rate;
	if (c->tokens > f->depth)
		c->tokens = f->depth;
	c->tb_ns = now;
	need = f->grant;
	if (c->tokens >= need)
		return (c->tokens < PIPE_BYTES ? (size_t)c->tokens
		                               : PIPE_BYTES);
	c->due_ns = now + (uint64_t)((need - c->tokens) / f->rate) + 1;
	set_events(f, c);
	return (0);
}

/* Move what fibre c sends; stops when it has nothing or must wait. */
static void
carry(struct fsrv *f, struct fconn *c)
{
	ssize_t n;
	size_t  may;

	for (;;) {
		if (c->pending == 0) {
			if (c->due_ns || (may = grant(f, c)) == 0)
				return;
			n = splice(c->fd, NULL, c->pw, NULL, may,
			           SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
			if (n == 0) {
				close_conn(f, c);
				return;
			}
			if (n < 0) {
				if (errno != EAGAIN && errno != EINTR)
					close_conn(f, c);
				return;
			}
			c->pending = (size_t)n;
			c->tokens -= (double)n;
			__atomic_add_fetch(&f->e->cnt_in[c->in], (uint64_t)n,
			                   __ATOMIC_RELAXED);
			if ((c->target = route(f, c->in, &c->gen)) == NULL) {
				drop_pending(f, c);
				continue;
			}
			if (__atomic_load_n(&f->e->corrupt[c->in],
			                    __ATOMIC_RELAXED))
				corrupt(f, c);
		}
		if (c->gen != gen_now(f) &&
		    route(f, c->in, &c->gen) != c->target) {
			drop_pending(f, c); /* the patch changed under it */
			continue;
		}
		n = splice(c->pr, NULL, c->target->fd, NULL, c->pending,
		           SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
		if (n > 0) {
			c->pending -= (size_t)n;
			__atomic_add_fetch(&f->e->cnt_out[c->target->out],
			                   (uint64_t)n, __ATOMIC_RELAXED);
			if (c->pending == 0)
				c->target = NULL;
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			if (!c->blocked) {
				c->blocked = 1;
				c->target->waiters++;
				set_events(f, c->target);
				set_events(f, c);
			}
			return;
		}
		drop_pending(f, c); /* the receiving fibre is gone */
	}
}

/* "LINK <egress>\n" -> "OK\n" and the link at once, or "ERR reason\n". */
static void
watch_announce(struct fsrv *f, struct fconn *c)
{
	unsigned out;
	char     extra, reply[128] = "";

	if (sscanf(c->hdr, "LINK %u %c", &out, &extra) != 1)
		snprintf(reply, sizeof(reply), "ERR expected LINK <egress>\n");
	else if (out <= f->e->x.n || out > 2 * f->e->x.n)
		snprintf(reply, sizeof(reply), "ERR no egress port %u\n", out);
	if (reply[0]) {
		log_warnx("fibre: refused \"%.*s\": %.*s",
		          (int)strcspn(c->hdr, "\n"), c->hdr,
		          (int)strcspn(reply, "\n"), reply);
		(void)!send(c->fd, reply, strlen(reply), MSG_NOSIGNAL);
		close_conn(f, c);
		return;
	}
	c->wout = out;
	f->nwatch++;
	f->wdue = 1;
	(void)!send(c->fd, "OK\n", 3, MSG_NOSIGNAL);
	(void)watch_tell(f, c, mono_ns());
	if (!c->wup)
		(void)!send(c->fd, "dark\n", 5, MSG_NOSIGNAL | MSG_DONTWAIT);
	log_debug("fibre: watching the link of egress %u", out);
}

/* "FIBRE <ingress> <egress>\n" -> "OK\n" or "ERR reason\n". */
static void
announce(struct fsrv *f, struct fconn *c)
{
	struct emu *e = f->e;
	unsigned    in, out;
	char        extra, reply[128];
	ssize_t     r;

	r = recv(c->fd, c->hdr + c->hlen, 1, 0);
	if (r <= 0) {
		if (r == 0 || (errno != EAGAIN && errno != EINTR))
			close_conn(f, c);
		return;
	}
	if (c->hdr[c->hlen++] != '\n') {
		if (c->hlen == sizeof(c->hdr) - 1) {
			log_warnx("fibre: announcement too long, closing");
			close_conn(f, c);
		}
		return;
	}
	c->hdr[c->hlen] = '\0';
	reply[0] = '\0';
	if (strncmp(c->hdr, "LINK ", 5) == 0) {
		watch_announce(f, c);
		return;
	}
	if (sscanf(c->hdr, "FIBRE %u %u %c", &in, &out, &extra) != 2)
		snprintf(reply, sizeof(reply),
		         "ERR expected FIBRE <ingress> <egress>\n");
	else if (in < 1 || in > e->x.n)
		snprintf(reply, sizeof(reply), "ERR no ingress port %u\n", in);
	else if (out <= e->x.n || out > 2 * e->x.n)
		snprintf(reply, sizeof(reply), "ERR no egress port %u\n", out);
	else if (f->by_in[in])
		snprintf(reply, sizeof(reply),
		         "ERR ingress %u already has a fibre\n", in);
	else if (f->by_out[out])
		snprintf(reply, sizeof(reply),
		         "ERR egress %u already has a fibre\n", out);
	if (reply[0]) {
		log_warnx("fibre: refused \"%.*s\": %.*s",
		          (int)strcspn(c->hdr, "\n"), c->hdr,
		          (int)strcspn(reply, "\n"), reply);
		(void)!send(c->fd, reply, strlen(reply), MSG_NOSIGNAL);
		close_conn(f, c);
		return;
	}
	c->in = in;
	c->out = out;
	f->by_in[in] = c;
	f->by_out[out] = c;
	(void)!send(c->fd, "OK\n", 3, MSG_NOSIGNAL);
	log_debug("fibre: plugged ingress %u / egress %u", in, out);
}

static void
accept_fibre(struct fsrv *f, int lfd)
{
	struct epoll_event ev = {0};
	struct fconn      *c;
	int                fd, p[2], buf = 4 << 20, one = 1;

	if ((fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) < 0)
		return;
	if (f->nall == MAX_FIBRES || (c = calloc(1, sizeof(*c))) == NULL ||
	    pipe2(p, O_NONBLOCK | O_CLOEXEC) != 0) {
		log_warnx("fibre: cannot take another fibre");
		close(fd);
		return;
	}
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	/* Light has no Nagle: the tail of a burst must not wait for an
	 * ACK (40 ms of delayed ACK per phase otherwise). */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	fcntl(p[1], F_SETPIPE_SZ, PIPE_BYTES);
	c->fd = fd;
	c->pr = p[0];
	c->pw = p[1];
	c->tokens = f->depth;
	c->tb_ns = mono_ns();
	c->events = EPOLLIN | EPOLLRDHUP;
	ev.events = (uint32_t)c->events;
	ev.data.ptr = c;
	epoll_ctl(f->ep, EPOLL_CTL_ADD, fd, &ev);
	f->all[f->nall++] = c;
}

/* Read again the metered fibres whose tokens are due, and set the timer
 * for the next one. */
static void
metered(struct fsrv *f)
{
	struct itimerspec its = {{0, 0}, {0, 0}};
	uint64_t          now = mono_ns(), next = 0;
	int               i;

	for (i = 0; i < f->nall; i++) {
		struct fconn *c = f->all[i];

		if (c->due_ns && c->due_ns <= now) {
			c->due_ns = 0;
			set_events(f, c);
			if (!c->blocked && c->in)
				carry(f, c); /* may close it: look again */
			i = -1;
			now = mono_ns();
			next = 0;
			continue;
		}
		if (c->due_ns && (next == 0 || c->due_ns < next))
			next = c->due_ns;
	}
	if (next) {
		its.it_value.tv_sec = (time_t)(next / 1000000000u);
		its.it_value.tv_nsec = (long)(next % 1000000000u);
	}
	timerfd_settime(f->tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

/* The server's descriptors and the listener, the stop fd, the timers
 * and the patches' wake-up in its epoll set: 0 or -ENOMEM (what was made
 * is closed by fsrv_close). */
static int
fsrv_open(struct fsrv *f, struct emu *e, int lfd, int stopfd)
{
	struct epoll_event ev;

	memset(f, 0, sizeof(*f));
	f->e = e;
	f->by_in = calloc(2 * e->x.n + 1, sizeof(*f->by_in));
	f->by_out = calloc(2 * e->x.n + 1, sizeof(*f->by_out));
	f->ep = epoll_create1(EPOLL_CLOEXEC);
	f->devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	f->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	f->ltfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	f->wfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	f->rate = (double)e->c.rate_bps / 8e9;
	/* A grant, and a millisecond more so that a late timer loses
	 * nothing. */
	f->grant = fmin(fmax(f->rate * 2e6, TB_GRANT_MIN), TB_GRANT_MAX);
	f->depth = f->grant + f->rate * 1e6;
	if (!f->by_in || !f->by_out || f->ep < 0 || f->devnull < 0 ||
	    f->tfd < 0 || f->ltfd < 0 || f->wfd < 0) {
		return (-ENOMEM);
	}
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.ptr = &f->ep; /* marks the listener */
	epoll_ctl(f->ep, EPOLL_CTL_ADD, lfd, &ev);
	ev.data.ptr = &f->devnull; /* marks the stop fd */
	epoll_ctl(f->ep, EPOLL_CTL_ADD, stopfd, &ev);
	ev.data.ptr = &f->tfd; /* marks the meter's timer */
	epoll_ctl(f->ep, EPOLL_CTL_ADD, f->tfd, &ev);
	ev.data.ptr = &f->ltfd; /* marks the links' timer */
	epoll_ctl(f->ep, EPOLL_CTL_ADD, f->ltfd, &ev);
	ev.data.ptr = &f->wfd; /* marks a change of patches */
	epoll_ctl(f->ep, EPOLL_CTL_ADD, f->wfd, &ev);
	pthread_mutex_lock(&e->mtx);
	e->x.changed = patches_changed;
	e->x.changed_arg = &f->wfd;
	pthread_mutex_unlock(&e->mtx);
	return (0);
}

static void
fsrv_close(struct fsrv *f, struct emu *e)
{
	pthread_mutex_lock(&e->mtx);
	e->x.changed = NULL;
	pthread_mutex_unlock(&e->mtx);
	while (f->nall > 0)
		close_conn(f, f->all[0]);
	free(f->by_in);
	free(f->by_out);
	if (f->ep >= 0)
		close(f->ep);
	if (f->devnull >= 0)
		close(f->devnull);
	if (f->tfd >= 0)
		close(f->tfd);
	if (f->ltfd >= 0)
		close(f->ltfd);
	if (f->wfd >= 0)
		close(f->wfd);
}

int
emu_fibre_serve(struct emu *e, int lfd, int stopfd)
{
	struct epoll_event evs[64];
	struct fsrv        f;
	int                n, i, j, blocked, rv;

	if ((rv = fsrv_open(&f, e, lfd, stopfd)) != 0)
		goto out;
	for (;;) {
		for (blocked = 0, i = 0; i < f.nall; i++)
			blocked |= f.all[i]->blocked;
		n = epoll_wait(f.ep, evs, 64, blocked ? 20 : -1);
		if (n < 0 && errno != EINTR) {
			rv = -errno;
			break;
		}
		for (i = 0; i < n; i++) {
			struct fconn *c = evs[i].data.ptr;

			if (evs[i].data.ptr == &f.devnull)
				goto out;
			if (evs[i].data.ptr == &f.ep) {
				accept_fibre(&f, lfd);
				continue;
			}
			if (evs[i].data.ptr == &f.tfd ||
			    evs[i].data.ptr == &f.ltfd ||
			    evs[i].data.ptr == &f.wfd) {
				uint64_t x;

				(void)!read(*(int *)evs[i].data.ptr, &x,
				            sizeof(x));
				f.wdue |= evs[i].data.ptr != &f.tfd;
				continue;
			}
			/* Writable: resume the fibres waiting on it. */
			if (evs[i].events & EPOLLOUT)
				for (j = 0; j < f.nall; j++) {
					struct fconn *w = f.all[j];

					if (w->blocked && w->target == c) {
						w->blocked = 0;
						c->waiters--;
						set_events(&f, w);
						carry(&f, w);
					}
				}
			/* The fibre may have gone while resuming others. */
			for (j = 0; j < f.nall && f.all[j] != c; j++)
				;
			if (j == f.nall)
				continue;
			set_events(&f, c);
			if (evs[i].events &
			    (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) {
				if (c->wout)
					watch_input(&f, c);
				else if (c->in == 0)
					announce(&f, c);
				else if (!c->blocked)
					carry(&f, c);
			}
		}
		/* A blocked fibre whose patch changed drops what it held. */
		for (i = 0; i < f.nall; i++)
			if (f.all[i]->blocked && f.all[i]->gen != gen_now(&f))
				drop_pending(&f, f.all[i]);
		if (f.rate > 0)
			metered(&f);
		if (f.wdue) {
			f.wdue = 0;
			watches_tell(&f);
		}
	}
out:
	fsrv_close(&f, e);
	return (rv);
}

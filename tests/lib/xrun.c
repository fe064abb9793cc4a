/* SPDX-License-Identifier: BSD-2-Clause */
/* Executors in threads (see xrun.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tests/lib/xrun.h"

static int
fd_open(void *p, const char *a, uint32_t i, uint32_t e, int t, char *err,
        size_t l)
{
	(void)p, (void)a, (void)i, (void)e, (void)t, (void)err, (void)l;
	return (0);
}

static int
fd_fd(void *p)
{
	return (((struct xrun_fd *)p)->fd);
}

/* What a short write takes this time (see xrun.h), or n. */
static size_t
fd_cut(struct xrun_fd *x, size_t n)
{
	size_t c;

	if (!x->short_writes)
		return (n);
	c = 1 + (size_t)(x->calls++ * 7919u % 1499u);
	return (c < n ? c : n);
}

/* What a lossy fibre still carries of n bytes (n if it is not lossy). */
static size_t
fd_room(const struct xrun_fd *x, size_t n)
{
	if (x->drop_after == 0)
		return (n);
	if (x->sent >= x->drop_after)
		return (0);
	return (x->drop_after - x->sent < n ? x->drop_after - x->sent : n);
}

static ssize_t
fd_send(void *p, const void *b, size_t n)
{
	struct xrun_fd *x = p;
	ssize_t         w;

	if (fd_room(x, n) == 0)
		return ((ssize_t)n); /* lost on the way */
	w = send(x->fd, b, fd_cut(x, fd_room(x, n)),
	         MSG_DONTWAIT | MSG_NOSIGNAL);
	if (w > 0)
		x->sent += (uint64_t)w;
	return (w >= 0 ? w : errno == EAGAIN ? -EAGAIN : -errno);
}

static ssize_t
fd_sendv(void *p, const struct iovec *iov, int cnt)
{
	struct xrun_fd *x = p;
	struct iovec    v[8];
	struct msghdr   m = {.msg_iov = v};
	size_t          left = (size_t)-1;
	ssize_t         w;
	int             i;

	if (cnt > 8)
		return (-EINVAL);
	if (x->drop_after) {
		size_t all = 0;

		for (i = 0; i < cnt; i++)
			all += iov[i].iov_len;
		if ((left = fd_room(x, all)) == 0)
			return ((ssize_t)all); /* lost on the way */
	}
	if (x->short_writes)
		left = fd_cut(x, left);
	for (i = 0; i < cnt && left > 0; i++) {
		v[i] = iov[i];
		if (v[i].iov_len > left)
			v[i].iov_len = left;
		left -= v[i].iov_len;
	}
	m.msg_iovlen = (size_t)i;
	w = sendmsg(x->fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (w > 0)
		x->sent += (uint64_t)w;
	return (w >= 0 ? w : errno == EAGAIN ? -EAGAIN : -errno);
}

static ssize_t
fd_recv(void *p, void *b, size_t n)
{
	ssize_t r = recv(((struct xrun_fd *)p)->fd, b, n, MSG_DONTWAIT);

	return (r >= 0 ? r : errno == EAGAIN ? -EAGAIN : -errno);
}

static uint32_t
fd_gap(void *p, char *what, size_t len)
{
	struct xrun_fd *x = p;

	if (what && len)
		snprintf(what, len, "fd %d quiet for %u ms", x->fd, x->gap_ms);
	return (x->gap_ms);
}

static void
fd_close(void *p)
{
	close(((struct xrun_fd *)p)->fd);
}

const struct xport_ops xrun_fd_ops = {
    .name = "fd",
    .priv_size = sizeof(struct xrun_fd),
    .open = fd_open,
    .fd = fd_fd,
    .send = fd_send,
    .sendv = fd_sendv,
    .recv = fd_recv,
    .gap = fd_gap,
    .close = fd_close,
};

static void *
node_main(void *arg)
{
	struct xrun_node *v = arg;
	struct exec      *e;
	struct plan_done  d;
	struct timespec   c0, c1;
	uint32_t          k;

	v->rv = exec_new(&e, &v->p, v->x, NULL, v->err, sizeof(v->err));
	/* Phase 0 starts when every node is set up, as ocsd's first
	 * barrier makes it: no node's data time holds another's setup. */
	pthread_barrier_wait(v->start);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
	for (k = 0; k < v->p.nph; k++) {
		/* A barrier: nobody starts the phase before everyone has
		 * finished the last (ocsd's release), failed nodes too. */
		if (k > 0 && v->p.ph[k].barrier)
			pthread_barrier_wait(v->start);
		if (v->rv != 0)
			continue;
		v->rv = exec_phase(e, k, &d, v->err, sizeof(v->err));
		v->verified += d.verified;
		v->bytes += d.recv;
		v->relayed += d.relayed;
		v->data_ns += d.data_ns;
	}
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
	v->cpu_ns = (uint64_t)(c1.tv_sec - c0.tv_sec) * 1000000000u +
	            (uint64_t)c1.tv_nsec - (uint64_t)c0.tv_nsec;
	if (v->rv == 0) {
		uint64_t end;

		v->rv = exec_finish(e, &end, v->err, sizeof(v->err));
		v->verified += end;
	}
	exec_free(e);
	return (NULL);
}

void
xrun(struct xrun_node *v, uint32_t n)
{
	pthread_barrier_t start;
	uint32_t          i, m = 0;

	for (i = 0; i < n; i++)
		m += !v[i].skip;
	if (m == 0)
		return;
	pthread_barrier_init(&start, NULL, m);
	for (i = 0; i < n; i++)
		if (!v[i].skip) {
			v[i].start = &start;
			pthread_create(&v[i].t, NULL, node_main, &v[i]);
		}
	for (i = 0; i < n; i++)
		if (!v[i].skip)
			pthread_join(v[i].t, NULL);
	pthread_barrier_destroy(&start);
}

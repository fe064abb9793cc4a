/* SPDX-License-Identifier: BSD-2-Clause */
/* Executors in threads (see xrun.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
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

static ssize_t
fd_send(void *p, const void *b, size_t n)
{
	ssize_t w =
	    send(((struct xrun_fd *)p)->fd, b, n, MSG_DONTWAIT | MSG_NOSIGNAL);

	return (w >= 0 ? w : errno == EAGAIN ? -EAGAIN : -errno);
}

static ssize_t
fd_recv(void *p, void *b, size_t n)
{
	ssize_t r = recv(((struct xrun_fd *)p)->fd, b, n, MSG_DONTWAIT);

	return (r >= 0 ? r : errno == EAGAIN ? -EAGAIN : -errno);
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
    .recv = fd_recv,
    .close = fd_close,
};

static void *
node_main(void *arg)
{
	struct xrun_node *v = arg;
	struct exec      *e;
	struct plan_done  d;
	uint32_t          k;

	v->rv = exec_new(&e, &v->p, v->x, NULL, v->err, sizeof(v->err));
	/* Phase 0 starts when every node is set up, as ocsd's first
	 * barrier makes it: no node's data time holds another's setup. */
	pthread_barrier_wait(v->start);
	for (k = 0; v->rv == 0 && k < v->p.nph; k++) {
		v->rv = exec_phase(e, k, &d, v->err, sizeof(v->err));
		v->verified += d.verified;
		v->bytes += d.recv;
		v->relayed += d.relayed;
		v->data_ns += d.data_ns;
	}
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

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The floor of a barrier over nng on this machine (nng_floor.h): what
 * ocsd's barrier costs with ocsd's work taken out.
 */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nng/nng.h>
#include <nng/protocol/reqrep0/rep.h>
#include <nng/protocol/reqrep0/req.h>
#include <nng/supplemental/util/platform.h>

#include "proto/base/mono.h"
#include "tests/bench/nng_floor.h"

#define READY_BYTES 48 /* about a Ready with no phase reports */

/* One client: a Ready, then waits for the release, then again. */
struct cl {
	nng_socket s;
	nng_ctx    c;
	nng_aio   *aio;
	int        sending;
};

static void
cl_send(struct cl *k)
{
	nng_msg *m;

	if (nng_msg_alloc(&m, READY_BYTES) != 0)
		return;
	memset(nng_msg_body(m), 'r', READY_BYTES);
	k->sending = 1;
	nng_aio_set_msg(k->aio, m);
	nng_ctx_send(k->c, k->aio);
}

static void
cl_cb(void *arg)
{
	struct cl *k = arg;

	if (nng_aio_result(k->aio) != 0) {
		if (k->sending)
			nng_msg_free(nng_aio_get_msg(k->aio));
		return; /* the server went away: this client is done */
	}
	if (k->sending) {
		k->sending = 0;
		nng_ctx_recv(k->c, k->aio);
		return;
	}
	nng_msg_free(nng_aio_get_msg(k->aio));
	cl_send(k);
}

/* One client alone in its process, as an agent is: blocking calls. */
static void
client_alone(const char *url)
{
	nng_socket s;
	nng_msg   *m;

	if (nng_req0_open(&s) != 0 ||
	    nng_socket_set_ms(s, NNG_OPT_REQ_RESENDTIME,
	                      NNG_DURATION_INFINITE) != 0 ||
	    nng_dial(s, url, NULL, 0) != 0)
		_exit(1);
	for (;;) {
		if (nng_msg_alloc(&m, READY_BYTES) != 0)
			_exit(1);
		memset(nng_msg_body(m), 'r', READY_BYTES);
		if (nng_sendmsg(s, m, 0) != 0 || nng_recvmsg(s, &m, 0) != 0)
			_exit(0);
		nng_msg_free(m);
	}
}

/* The child: n clients, until it is killed; several in one process run
 * on callbacks, as ocs-load's do. */
static void
clients(const char *url, uint32_t n)
{
	struct cl *k = calloc(n, sizeof(*k));
	uint32_t   i;

	if (n == 1)
		client_alone(url);
	if (k == NULL)
		_exit(1);
	for (i = 0; k != NULL && i < n; i++) {
		if (nng_req0_open(&k[i].s) != 0 ||
		    nng_socket_set_ms(k[i].s, NNG_OPT_REQ_RESENDTIME,
		                      NNG_DURATION_INFINITE) != 0 ||
		    nng_dial(k[i].s, url, NULL, 0) != 0 ||
		    nng_ctx_open(&k[i].c, k[i].s) != 0 ||
		    nng_aio_alloc(&k[i].aio, cl_cb, &k[i]) != 0)
			_exit(1);
		cl_send(&k[i]);
	}
	for (;;)
		pause();
}

void
nng_floor_child(int argc, char **argv)
{
	long n;

	if (argc != 4 || strcmp(argv[1], "--nng-floor-clients") != 0)
		return;
	n = strtol(argv[3], NULL, 10);
	if (n < 1 || n > 100000)
		_exit(2);
	clients(argv[2], (uint32_t)n);
}

/* The server: one context an agent, as ocsd holds each Ready. */
struct sv;
struct sv_one {
	struct sv *v;
	nng_ctx    c;
	nng_aio   *raio, *saio;
};
struct sv {
	nng_mtx      *mtx;
	nng_cv       *cv;
	uint32_t      n, got;
	uint64_t      t_last;
	atomic_int    failed;
	struct sv_one o[];
};

static void
sv_recv_cb(void *arg)
{
	struct sv_one *o = arg;
	struct sv     *v = o->v;

	if (nng_aio_result(o->raio) != 0) {
		atomic_store(&v->failed, 1);
	} else
		nng_msg_free(nng_aio_get_msg(o->raio));
	nng_mtx_lock(v->mtx);
	if (++v->got == v->n) {
		v->t_last = mono_ns();
		nng_cv_wake(v->cv);
	}
	nng_mtx_unlock(v->mtx);
}

/* A release sent: the context waits for the next Ready. */
static void
sv_send_cb(void *arg)
{
	struct sv_one *o = arg;

	if (nng_aio_result(o->saio) != 0) {
		nng_msg_free(nng_aio_get_msg(o->saio));
		atomic_store(&o->v->failed, 1);
		sv_recv_cb(o); /* counted, so that the round ends */
		return;
	}
	nng_ctx_recv(o->c, o->raio);
}

static int
wait_all(struct sv *v, uint64_t deadline_ms)
{
	nng_mtx_lock(v->mtx);
	while (v->got < v->n && mono_ms() < deadline_ms)
		nng_cv_until(v->cv, nng_clock() + 100);
	nng_mtx_unlock(v->mtx);
	return (v->got == v->n && !atomic_load(&v->failed) ? 0 : -1);
}

static int
sv_round(struct sv *v, double *ms)
{
	uint64_t t0;
	uint32_t i;

	v->got = 0;
	t0 = mono_ns();
	for (i = 0; i < v->n; i++) {
		nng_msg *m;

		if (nng_msg_alloc(&m, 16) != 0)
			return (-1);
		nng_aio_set_msg(v->o[i].saio, m);
		nng_ctx_send(v->o[i].c, v->o[i].saio);
	}
	if (wait_all(v, mono_ms() + 30000) != 0)
		return (-1);
	*ms = (double)(v->t_last - t0) / 1e6;
	return (0);
}

static int
cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x < y ? -1 : x > y);
}

double
floor_median(double *t, int n)
{
	qsort(t, (size_t)n, sizeof(*t), cmp_d);
	return (t[n / 2]);
}

static void
sv_free(struct sv *v, nng_socket s)
{
	uint32_t i;

	nng_close(s);
	for (i = 0; i < v->n; i++) {
		if (v->o[i].raio)
			nng_aio_free(v->o[i].raio);
		if (v->o[i].saio)
			nng_aio_free(v->o[i].saio);
	}
	nng_cv_free(v->cv);
	nng_mtx_free(v->mtx);
	free(v);
}

int
floor_spawn(const char *flag, const char *addr, uint32_t n, uint32_t procs,
            pid_t *pid)
{
	char     ns[16];
	uint32_t p;

	for (p = 0; p < procs; p++) {
		snprintf(ns, sizeof(ns), "%u",
		         n / procs + (p < n % procs ? 1 : 0));
		/* A new program, not a fork: this process has nng's
		 * threads. */
		if ((pid[p] = fork()) < 0)
			return (-1);
		if (pid[p] == 0) {
			execl("/proc/self/exe", "floor", flag, addr, ns,
			      (char *)NULL);
			_exit(127);
		}
	}
	return (0);
}

double
nng_floor_ms(uint32_t n, uint32_t procs, int rounds)
{
	struct sv *v = calloc(1, sizeof(*v) + n * sizeof(v->o[0]));
	double    *t = calloc((size_t)rounds, sizeof(*t)), res = -1;
	pid_t     *pid = calloc(procs, sizeof(*pid));
	nng_socket s = NNG_SOCKET_INITIALIZER;
	char       url[96];
	uint32_t   i;
	int        r, st, ok = 0;

	snprintf(url, sizeof(url), "ipc:///tmp/ocs-nng-floor-%d.sock",
	         (int)getpid());
	if (v == NULL || t == NULL || pid == NULL || procs == 0 || procs > n ||
	    nng_mtx_alloc(&v->mtx) != 0 || nng_cv_alloc(&v->cv, v->mtx) != 0 ||
	    nng_rep0_open(&s) != 0 || nng_listen(s, url, NULL, 0) != 0)
		goto out;
	v->n = n;
	for (i = 0; i < n; i++) {
		v->o[i].v = v;
		if (nng_ctx_open(&v->o[i].c, s) != 0 ||
		    nng_aio_alloc(&v->o[i].raio, sv_recv_cb, &v->o[i]) != 0 ||
		    nng_aio_alloc(&v->o[i].saio, sv_send_cb, &v->o[i]) != 0)
			goto out;
		nng_ctx_recv(v->o[i].c, v->o[i].raio);
	}
	ok = floor_spawn("--nng-floor-clients", url, n, procs, pid) == 0;
	/* Every client's first Ready, then the rounds. */
	ok = ok && wait_all(v, mono_ms() + 30000) == 0;
	for (r = 0; ok && r < rounds; r++)
		ok = sv_round(v, &t[r]) == 0;
	for (i = 0; i < procs; i++)
		if (pid[i] > 0) {
			kill(pid[i], SIGKILL);
			waitpid(pid[i], &st, 0);
		}
	if (ok)
		res = floor_median(t, rounds);
out:
	unlink(url + strlen("ipc://"));
	if (v != NULL && v->mtx != NULL && v->cv != NULL)
		sv_free(v, s);
	free(t);
	free(pid);
	return (res);
}

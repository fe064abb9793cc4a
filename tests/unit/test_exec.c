/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_exec.c: the executor on its own.  Each node runs in a
 * thread; the circuits of the (single) configuration are socketpairs, so
 * everything in the executor is exercised (multi-hop relays, frames of
 * later phases arriving early, flow control, verification) without ocsd
 * or the emulator.  Plus the failures: a plan that expects the wrong
 * sender, and a node that never shows up.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "agent/exec.h"
#include "agent/frame.h"
#include "agent/vplace.h"
#include "collectives/a2a.h"
#include "collectives/tsyn.h"
#include "tests/lib/xrun.h"

/*
 * Run algo on n nodes with no reconfiguration (one configuration, so
 * socketpairs can stand for its circuits).  tweak may alter plans.
 */
static struct xrun_node *
run_all(const char *algo, uint32_t n, uint64_t bytes, uint32_t chunk,
        uint32_t deadline, void (*tweak)(struct xrun_node *, uint32_t))
{
	struct a2a          a;
	struct sched        s;
	struct sched_nplan *np;
	struct xrun_node   *v = calloc(n, sizeof(*v));
	uint8_t             before[64] = {0};
	uint32_t            i;

	assert_int_equal(a2a_init(&a, algo, n), 0);
	assert_int_equal(a2a_build(&a, bytes, before, 1u << 24, &s), 0);
	assert_int_equal(sched_validate(&s, NULL), 0);
	assert_int_equal(sched_plans(&s, &np), 0);
	for (i = 0; i < s.cfg[0].ncirc; i++) {
		const struct sched_circuit *c = &s.circ[s.cfg[0].circ_off + i];
		int                         sv[2], big = 1 << 20;

		assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
		setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
		setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
		v[c->a].fd[c->pa].fd = sv[0];
		v[c->b].fd[c->pb].fd = sv[1];
	}
	for (i = 0; i < n; i++) {
		assert_int_equal(plan_from_sched(&s, &np[i], 42, chunk,
		                                 deadline, 2, &v[i].p),
		                 0);
		v[i].x[0] = (struct xport){&xrun_fd_ops, &v[i].fd[0]};
		v[i].x[1] = (struct xport){&xrun_fd_ops, &v[i].fd[1]};
		if (tweak)
			tweak(v, i);
	}
	xrun(v, n);
	for (i = 0; i < n; i++) {
		close(v[i].fd[0].fd);
		close(v[i].fd[1].fd);
		plan_free(&v[i].p);
	}
	sched_plans_free(np, n);
	sched_free(&s);
	a2a_fini(&a);
	return (v);
}

/* Every node of v finished and verified what it received; frees v. */
static void
expect_verified(struct xrun_node *v, const char *algo, uint32_t n)
{
	uint64_t got = 0;
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (v[i].rv != 0)
			fail_msg("%s n=%u node %u: %s", algo, n, i, v[i].err);
		got += v[i].verified;
	}
	assert_true(got >= (uint64_t)n * (n - 1));
	free(v);
}

static void
expect_ok(const char *algo, uint32_t n, uint64_t bytes, uint32_t chunk)
{
	expect_verified(run_all(algo, n, bytes, chunk, 20000, NULL), algo, n);
}

/* Long reused paths: ReTri and Bridge without reconfiguring relay over
 * up to 3^(s-1) hops; the ring must not deadlock. */
static void
test_exec_relays_on_one_configuration(void **state)
{
	(void)state;
	expect_ok("retri", 9, 9 * 4096, 1024);
	expect_ok("retri", 27, 27 * 2048, 1024);
	expect_ok("retri", 10, 100003, 1024); /* n not a power of 3 */
	expect_ok("bridge", 16, 16 * 4096, 1024);
	expect_ok("bridge", 6, 6000, 1024);
	expect_ok("static", 9, 9 * 8192, 1024);
	expect_ok("static", 8, 8 * 8192, 1024); /* tie halves */
}

/*
 * A sender that puts a probe (ocsctl check's, agent/frame.h) between two
 * of its frames once one has gone whole: the receiver, synced to the run
 * by then, must skip it, not take it for data nor call it garbage.  A
 * test's own table: tweak has no argument to carry it.
 */
struct probing {
	struct xrun_fd *fd;
	int             whole, done;
};
static struct probing probing[9][2];

static ssize_t
probing_sendv(void *p, const struct iovec *iov, int cnt)
{
	struct probing    *q = p;
	struct frame_probe pr = {.nonce = 1, .trx = 0, .host = "h09"};
	uint8_t            f[FRAME_PROBE_MAX];
	size_t             want = 0, n, off = 0;
	ssize_t            r;
	int                i;

	for (i = 0; i < cnt; i++)
		want += iov[i].iov_len;
	if (q->whole && !q->done) {
		n = frame_probe_put(f, &pr);
		while (off < n && (r = send(q->fd->fd, f + off, n - off,
		                            MSG_NOSIGNAL)) > 0)
			off += (size_t)r;
		q->done = 1;
	}
	r = xrun_fd_ops.sendv(q->fd, iov, cnt);
	q->whole = r == (ssize_t)want;
	return (r);
}

static ssize_t
probing_send(void *p, const void *b, size_t n)
{
	struct iovec v = {(void *)(uintptr_t)b, n};

	return (probing_sendv(p, &v, 1));
}

static int
probing_fd(void *p)
{
	return (xrun_fd_ops.fd(((struct probing *)p)->fd));
}

static ssize_t
probing_recv(void *p, void *b, size_t n)
{
	return (xrun_fd_ops.recv(((struct probing *)p)->fd, b, n));
}

static const struct xport_ops probing_ops = {
    .name = "probing",
    .fd = probing_fd,
    .send = probing_send,
    .sendv = probing_sendv,
    .recv = probing_recv,
};

static void
tweak_probing(struct xrun_node *v, uint32_t i)
{
	int k;

	for (k = 0; k < 2; k++) {
		probing[i][k] = (struct probing){&v[i].fd[k], 0, 0};
		v[i].x[k] = (struct xport){&probing_ops, &probing[i][k]};
	}
}

/* A probe late into a run, on every circuit, mid-stream: skipped. */
static void
test_exec_skips_probes(void **state)
{
	uint32_t i, k, sent = 0;

	(void)state;
	expect_verified(
	    run_all("retri", 9, 9 * 8192, 1024, 20000, tweak_probing), "retri",
	    9);
	for (i = 0; i < 9; i++)
		for (k = 0; k < 2; k++)
			sent += probing[i][k].done;
	assert_true(sent >= 9); /* the probes did go, mid-run */
}

/* A synthesised topology collective on circuits (socketpairs), every
 * node on 2 ports; tweak may alter plans. */
static struct xrun_node *
run_topo(const char *spec, enum tsyn_algo algo, enum sched_coll coll,
         uint64_t bytes, uint32_t chunks, uint32_t deadline,
         void (*tweak)(struct xrun_node *, uint32_t))
{
	struct tsyn_params q = {
	    .algo = algo, .coll = coll, .bytes = bytes, .chunks = chunks};
	struct topo         t;
	struct sched        ts, s;
	struct sched_nplan *np;
	struct xrun_node   *v;
	char                err[256];
	uint32_t            i, slots;
	int                *dark;

	assert_int_equal(topo_generate(spec, &t, err, sizeof(err)), 0);
	assert_int_equal(tsyn_synth(&t, &q, &ts, err, sizeof(err)), 0);
	assert_int_equal(tsyn_validate(&ts, &slots, err, sizeof(err)), 0);
	if (tsyn_on_circuits(&ts, 64, &s, err, sizeof(err)) != 0)
		fail_msg("%s: %s", spec, err);
	assert_true(s.ports <= 2);
	assert_int_equal(sched_plans(&s, &np), 0);
	assert_non_null(v = calloc(s.n, sizeof(*v)));
	for (i = 0; i < s.n; i++)
		v[i].fd[0].fd = v[i].fd[1].fd = -1;
	for (i = 0; i < s.cfg[0].ncirc; i++) {
		const struct sched_circuit *c = &s.circ[s.cfg[0].circ_off + i];
		int                         sv[2];

		assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
		v[c->a].fd[c->pa].fd = sv[0];
		v[c->b].fd[c->pb].fd = sv[1];
	}
	/* A transceiver the schedule leaves dark is still plugged in: it
	 * reads nothing. */
	assert_non_null(dark = calloc(2 * s.n, sizeof(*dark)));
	for (i = 0; i < 2 * s.n; i++) {
		int sv[2] = {-1, -1};

		if (v[i / 2].fd[i % 2].fd < 0)
			assert_int_equal(
			    socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
		if (sv[0] >= 0)
			v[i / 2].fd[i % 2].fd = sv[0];
		dark[i] = sv[1];
	}
	for (i = 0; i < s.n; i++) {
		assert_int_equal(plan_from_sched(&s, &np[i], 42, 1024,
		                                 deadline, 2, &v[i].p),
		                 0);
		v[i].x[0] = (struct xport){&xrun_fd_ops, &v[i].fd[0]};
		v[i].x[1] = (struct xport){&xrun_fd_ops, &v[i].fd[1]};
		if (tweak)
			tweak(v, i);
	}
	xrun(v, s.n);
	for (i = 0; i < s.n; i++) {
		if (v[i].fd[0].fd >= 0)
			close(v[i].fd[0].fd);
		if (v[i].fd[1].fd >= 0)
			close(v[i].fd[1].fd);
		plan_free(&v[i].p);
	}
	for (i = 0; i < 2 * s.n; i++)
		if (dark[i] >= 0)
			close(dark[i]);
	free(dark);
	sched_plans_free(np, s.n);
	sched_free(&s);
	sched_free(&ts);
	topo_free(&t);
	return (v);
}

static void
expect_topo(const char *spec, enum tsyn_algo algo, enum sched_coll coll,
            uint32_t n, uint64_t bytes, uint32_t chunks)
{
	struct xrun_node *v =
	    run_topo(spec, algo, coll, bytes, chunks, 10000, NULL);
	uint32_t i;

	/* Every block a node ends with, checked once: AllGather's as they
	 * arrive, ReduceScatter's sums at the end, AllReduce both. */
	for (i = 0; i < n; i++) {
		if (v[i].rv != 0)
			fail_msg("%s %s coll %d node %u: %s", spec,
			         tsyn_algo_name(algo), (int)coll, i, v[i].err);
		uint64_t want = (coll == SCHED_ALLGATHER       ? n - 1
		                 : coll == SCHED_REDUCESCATTER ? 1
		                                               : n) *
		                (uint64_t)chunks;

		/* SPH sends a copy per destination: some arrive twice, each
		 * checked. */
		if (v[i].verified != want &&
		    !(algo == TSYN_SPH && v[i].verified > want))
			fail_msg("%s %s coll %d node %u: %llu verified", spec,
			         tsyn_algo_name(algo), (int)coll, i,
			         (unsigned long long)v[i].verified);
	}
	free(v);
}

/* AllGather, ReduceScatter and AllReduce, synthesised on rings and a
 * mesh of hosts, run with real sums and every element checked. */
static void
test_exec_topology_collectives(void **state)
{
	static const enum sched_coll colls[] = {
	    SCHED_ALLGATHER, SCHED_REDUCESCATTER, SCHED_ALLREDUCE};
	size_t c;

	(void)state;
	for (c = 0; c < 3; c++) {
		expect_topo("ring:5:10GBps:1us", TSYN_TEN, colls[c], 5,
		            5 * 2 * 4096, 2);
		expect_topo("ring:9:10GBps:1us", TSYN_MTEG, colls[c], 9,
		            9 * 3 * 1000, 3);
		expect_topo("mesh:2x2:10GBps:1us", TSYN_RING, colls[c], 4,
		            4 * 65536, 1);
	}
	expect_topo("ring:4:10GBps:1us", TSYN_SPH, SCHED_ALLGATHER, 4,
	            4 * 3000, 1);
}

/* A node that adds what it should have replaced (AllReduce's gather
 * taken for more reduction) holds wrong sums: it says so at the end, or
 * the next node does when the wrong sum reaches it (and the node then
 * waits for it in vain); nobody claims success for it. */
static void
late_gather(struct xrun_node *v, uint32_t i)
{
	if (i == 2)
		v[i].p.ag_from = v[i].p.nph;
}

static void
test_exec_wrong_sum_detected(void **state)
{
	struct xrun_node *v;
	uint32_t          i, said = 0;

	(void)state;
	v = run_topo("ring:5:10GBps:1us", TSYN_TEN, SCHED_ALLREDUCE, 5 * 4096,
	             1, 500, late_gather);
	assert_int_not_equal(v[2].rv, 0);
	for (i = 0; i < 5; i++)
		if (v[i].rv == -EPROTO &&
		    (strstr(v[i].err, "end: node 2's sum of chunk") ||
		     strstr(v[i].err, "wrong at byte")))
			said++;
	assert_true(said >= 1);
	free(v);
}

/* Large blocks in small chunks: many frames, tight flow control. */
static void
test_exec_many_chunks(void **state)
{
	(void)state;
	expect_ok("retri", 9, 9u << 20, 4096);
}

static void
short_writes(struct xrun_node *v, uint32_t i)
{
	v[i].fd[0].short_writes = v[i].fd[1].short_writes = 1;
}

/* Every write cut short (xrun.h): what a fibre does not take is queued
 * and goes on whole and in order, own frames (gathered from their slots)
 * and relays (written on from the input) alike. */
static void
test_exec_short_writes(void **state)
{
	static const char *algo[] = {"static", "retri", "bridge"};
	uint32_t           k;

	(void)state;
	for (k = 0; k < 3; k++)
		expect_verified(
		    run_all(algo[k], 9, 9 * 20000, 1000, 20000, short_writes),
		    algo[k], 9);
}

/* Node 0's first fibre loses all but its first 5 000 bytes; every
 * transport has a 100 ms gap. */
static void
lossy(struct xrun_node *v, uint32_t i)
{
	v[i].fd[0].gap_ms = v[i].fd[1].gap_ms = 100;
	if (i == 0)
		v[i].fd[0].drop_after = 5000;
}

/* A stream whose last bytes are lost leaves no gap to see: the receiver,
 * which knows what the phase needs, names the missing bytes, the sender
 * and the transport's view within the gap, not at the deadline. */
static void
test_exec_lost_tail_named(void **state)
{
	struct xrun_node *v =
	    run_all("static", 9, 9 * 20000, 1000, 20000, lossy);
	uint32_t i, named = 0;

	(void)state;
	for (i = 0; i < 9; i++) {
		if (v[i].rv == 0)
			continue;
		if (strstr(v[i].err, "timed out"))
			fail_msg("node %u waited for the deadline: %s", i,
			         v[i].err);
		if (v[i].rv == -EBADMSG &&
		    strstr(v[i].err, "stream did not come: ") &&
		    strstr(v[i].err, "bytes (") &&
		    strstr(v[i].err, "quiet for 100 ms"))
			named++;
	}
	assert_true(named >= 1);
	free(v);
}

/* Zero-byte blocks still count (m smaller than n). */
static void
test_exec_tiny_payload(void **state)
{
	(void)state;
	expect_ok("retri", 9, 5, 1024);
}

static void
wrong_sender(struct xrun_node *v, uint32_t i)
{
	if (i == 4 && v[i].p.ph[0].nrecv > 0)
		v[i].p.ph[0].recv[0].src = (v[i].p.ph[0].recv[0].src + 2) % 9;
}

static void
test_exec_unexpected_sender_aborts(void **state)
{
	struct xrun_node *v =
	    run_all("retri", 9, 9 * 4096, 1024, 2000, wrong_sender);

	(void)state;
	assert_int_equal(v[4].rv, -EPROTO);
	if (strstr(v[4].err, "phase 0: unexpected frame of B[") == NULL)
		fail_msg("reason: %s", v[4].err);
	free(v);
}

static void
absent(struct xrun_node *v, uint32_t i)
{
	v[i].skip = i == 0;
}

static void
test_exec_missing_peer_times_out(void **state)
{
	struct xrun_node *v = run_all("retri", 9, 9 * 4096, 1024, 300, absent);

	(void)state;
	/* Node 1 waits for node 0's blocks and says which. */
	assert_int_equal(v[1].rv, -ETIMEDOUT);
	if (strstr(v[1].err, "from node 0 on port L") == NULL)
		fail_msg("reason: %s", v[1].err);
	free(v);
}

static void
bad_node(struct plan *p)
{
	p->node = p->n;
}
static void
bad_chunk(struct plan *p)
{
	p->chunk = 8;
}
static void
bad_slots(struct plan *p)
{
	p->max_blocks = p->n * p->n * p->parts + 1;
}
static void
bad_ports(struct plan *p)
{
	p->nports = EXEC_MAX_PORTS + 1;
}
/* A sum of no nodes: the fuzzer's division by zero (n x parts). */
static void
bad_sum0(struct plan *p)
{
	p->coll = SCHED_ALLREDUCE;
	p->ag_from = 0;
	p->n = 0;
}
static void
bad_sum_parts(struct plan *p)
{
	p->coll = SCHED_REDUCESCATTER;
	p->parts = 0;
}
static void
bad_dl(struct plan *p)
{
	p->deadline_ms = 0;
}
static void
bad_bar0(struct plan *p)
{
	p->ph[0].barrier = 0;
}
static void
bad_dst(struct plan *p)
{
	p->ph[0].send[0].dst = p->n;
}
static void
bad_blk(struct plan *p)
{
	static const uint32_t huge = UINT32_MAX;

	p->ph[0].send[0].blk = &huge;
	p->ph[0].send[0].nblk = 1;
}

/* More phases without a barrier than one Ready reports: a plan ocsd
 * would not make, and the agent's reports could not hold. */
static void
bad_stretch(struct plan *p)
{
	static struct plan_phase ph[PLAN_MAX_DONE + 2];
	uint32_t                 k;

	for (k = 0; k < PLAN_MAX_DONE + 2; k++) {
		memset(&ph[k], 0, sizeof(ph[k]));
		ph[k].barrier = k == 0;
	}
	p->ph = ph;
	p->nph = PLAN_MAX_DONE + 2;
}

/* What the executor refuses before it allocates anything. */
static void
test_exec_check_rejects_bad_plans(void **state)
{
	struct a2a          a;
	struct sched        s;
	struct sched_nplan *np;
	struct plan         p, q;
	uint8_t             before[64] = {0};
	char                err[256];
	struct {
		const char *what;
		void (*bad)(struct plan *);
	} const cases[] = {
	    {"bad sizes", bad_node},
	    {"bad sizes", bad_chunk},
	    {"bad sizes", bad_slots},
	    {"bad sizes", bad_ports},
	    {"deadline_ms 0", bad_dl},
	    {"phase 0 without", bad_bar0},
	    {"names a port", bad_dst},
	    {"names a port", bad_blk},
	    {"bad sizes", bad_sum0},
	    {"bad sizes", bad_sum_parts},
	    {"without a barrier (66), at most 64", bad_stretch},
	};
	size_t i;

	(void)state;
	assert_int_equal(a2a_init(&a, "retri", 9), 0);
	assert_int_equal(a2a_build(&a, 9 * 4096, before, 1u << 24, &s), 0);
	assert_int_equal(sched_plans(&s, &np), 0);
	assert_int_equal(plan_from_sched(&s, &np[4], 7, 1024, 1000, 2, &p), 0);
	assert_int_equal(exec_check(&p, err, sizeof(err)), 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct plan_send   sv[64];
		struct plan_phase *mine;

		q = p;
		q.ph = mine = malloc(p.nph * sizeof(*q.ph));
		memcpy(q.ph, p.ph, p.nph * sizeof(*q.ph));
		assert_true(p.ph[0].nsend <= 64);
		memcpy(sv, p.ph[0].send, p.ph[0].nsend * sizeof(*sv));
		q.ph[0].send = sv;
		cases[i].bad(&q);
		err[0] = '\0';
		assert_int_equal(exec_check(&q, err, sizeof(err)), -EINVAL);
		if (strstr(err, cases[i].what) == NULL)
			fail_msg("case %zu: %s", i, err);
		free(mine);
	}
	plan_free(&p);
	sched_plans_free(np, 9);
	sched_free(&s);
	a2a_fini(&a);
}

/*
 * Explicit blocks of very different sizes, one pair's cut in two across
 * phases on one configuration (a swap: the two one-way circuits of
 * nodes 0 and 1 share a socketpair): delivered, verified, and placed in
 * no more memory than the most each node holds at once.
 */
static void
test_exec_explicit_blocks(void **state)
{
	static const uint64_t t[4] = {0, 100003, 37, 0};
	struct sched          s;
	struct sched_nplan   *np;
	struct sched_seg      s01 = {0, 0, 0, 1}, s10 = {1, 0, 0, 1};
	struct xrun_node      v[2];
	uint64_t              at[3], peak;
	uint32_t              b[3], i;
	int                   sv[2], big = 1 << 20;

	(void)state;
	memset(v, 0, sizeof(v));
	assert_int_equal(sched_init_v(&s, "t", 2, 1, t), 0);
	assert_int_equal(sched_add_phase(&s, 1, 0), 0);
	assert_int_equal(sched_add_link(&s, 0, 0, 1, 0), 0);
	assert_int_equal(sched_add_link(&s, 1, 0, 0, 0), 0);
	b[0] = (uint32_t)sched_add_vblk(&s, 0, 1, 0, 60000);
	b[1] = (uint32_t)sched_add_vblk(&s, 1, 0, 0, 37);
	b[2] = (uint32_t)sched_add_vblk(&s, 0, 1, 60000, 40003);
	assert_int_equal(sched_add_xfer(&s, 0, 1, &b[0], 1, &s01, 1), 0);
	assert_int_equal(sched_add_xfer(&s, 1, 0, &b[1], 1, &s10, 1), 0);
	assert_int_equal(sched_add_phase(&s, 0, 0), 1);
	assert_int_equal(sched_add_xfer(&s, 0, 1, &b[2], 1, &s01, 1), 0);
	assert_int_equal(sched_validate(&s, NULL), 0);
	assert_int_equal(sched_plans(&s, &np), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
	setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
	for (i = 0; i < 2; i++) {
		v[i].fd[0].fd = sv[i];
		v[i].fd[1].fd = -1;
		assert_int_equal(
		    plan_from_sched(&s, &np[i], 42, 4096, 20000, 1, &v[i].p),
		    0);
		v[i].x[0] = (struct xport){&xrun_fd_ops, &v[i].fd[0]};
	}
	/* Node 1 holds its 37 bytes, then all 100003 it receives. */
	assert_int_equal(vplace(&v[1].p, at, &peak), 0);
	assert_int_equal(peak, 100003 + 37);
	xrun(v, 2);
	for (i = 0; i < 2; i++) {
		if (v[i].rv != 0)
			fail_msg("node %u: %s", i, v[i].err);
		close(sv[i]);
		plan_free(&v[i].p);
	}
	assert_int_equal(v[1].verified, 2);
	assert_int_equal(v[0].verified, 1);
	sched_plans_free(np, 2);
	sched_free(&s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_exec_relays_on_one_configuration),
	    cmocka_unit_test(test_exec_skips_probes),
	    cmocka_unit_test(test_exec_many_chunks),
	    cmocka_unit_test(test_exec_topology_collectives),
	    cmocka_unit_test(test_exec_wrong_sum_detected),
	    cmocka_unit_test(test_exec_tiny_payload),
	    cmocka_unit_test(test_exec_short_writes),
	    cmocka_unit_test(test_exec_unexpected_sender_aborts),
	    cmocka_unit_test(test_exec_missing_peer_times_out),
	    cmocka_unit_test(test_exec_lost_tail_named),
	    cmocka_unit_test(test_exec_check_rejects_bad_plans),
	    cmocka_unit_test(test_exec_explicit_blocks),
	};

	return (cmocka_run_group_tests_name("exec", tests, NULL, NULL));
}

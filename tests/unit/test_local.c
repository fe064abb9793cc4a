/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_local.c: a server's local links (agent/local.c,
 * xport_local.c): the hello and what it refuses, the token bucket's
 * arithmetic (fed times, no clock), two nodes' links made over a real
 * loopback listener past a stray connection, bytes through them, a
 * link closed named, and a peer that never comes named.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "agent/local.h"
#include "proto/base/net.h"

static const uint8_t tok[PLAN_LTOKEN] = "0123456789abcdef";

/* Node `node` of a server of two: its one local link to `peer`. */
static void
plan2(struct plan *p, uint32_t node, uint32_t peer, const char *addr)
{
	memset(p, 0, sizeof(*p));
	p->node = node;
	p->n = 4;
	p->local_from = 1;
	p->nlocal = 1;
	p->nports = 2;
	p->lnode[0] = peer;
	p->local_bps = 400e6;
	p->deadline_ms = 2000;
	snprintf(p->laddr[0], sizeof(p->laddr[0]), "%s", addr);
	memcpy(p->ltoken, tok, sizeof(tok));
}

static void
test_local_hello(void **state)
{
	uint8_t     h[LOCAL_HELLO];
	struct plan p;
	uint8_t     bad[PLAN_LTOKEN];

	(void)state;
	plan2(&p, 3, 1, "x");
	local_hello(h, 0x100000007ull, 1, 3, tok);
	assert_int_equal(local_hello_check(h, &p, 0x100000007ull), 0);
	/* Another run, another receiver, a sender of higher index (it is
	 * the one that dials), a stranger, another token. */
	assert_int_equal(local_hello_check(h, &p, 7), -1);
	local_hello(h, 7, 1, 2, tok);
	assert_int_equal(local_hello_check(h, &p, 7), -1);
	plan2(&p, 0, 1, "x");
	local_hello(h, 7, 1, 0, tok);
	assert_int_equal(local_hello_check(h, &p, 7), -1);
	plan2(&p, 3, 1, "x");
	local_hello(h, 7, 2, 3, tok);
	assert_int_equal(local_hello_check(h, &p, 7), -1);
	memcpy(bad, tok, sizeof(bad));
	bad[5] ^= 1;
	local_hello(h, 7, 1, 3, bad);
	assert_int_equal(local_hello_check(h, &p, 7), -1);
	local_hello(h, 7, 1, 3, tok);
	h[0] = 'X';
	assert_int_equal(local_hello_check(h, &p, 7), -1);
}

/* 400 Mbps is 0.05 bytes a ns: a bucket of 250 000 bytes (5 ms). */
static void
test_local_bucket(void **state)
{
	struct local_bucket tb;
	uint64_t            wait = 0;

	(void)state;
	local_bucket_init(&tb, 400e6);
	assert_true(tb.depth == 250000);
	tb.t_ns = 1000;
	assert_int_equal(local_bucket_take(&tb, 300000, 1000, &wait), 250000);
	local_bucket_spend(&tb, 250000);
	/* Empty: 16 KiB (what a write needs at least) takes 327 680 ns. */
	assert_int_equal(local_bucket_take(&tb, 80000, 1000, &wait), 0);
	assert_int_equal(wait, 327681);
	assert_int_equal(local_bucket_take(&tb, 80000, 1000 + 327000, &wait),
	                 0);
	assert_int_equal(local_bucket_take(&tb, 80000, 1000 + 327681, &wait),
	                 16384);
	/* A small write needs only itself. */
	local_bucket_spend(&tb, 16384);
	assert_int_equal(
	    local_bucket_take(&tb, 100, 1000 + 327681 + 2000, &wait), 100);
	/* Never more than the bucket holds, however long it waited. */
	assert_int_equal(local_bucket_take(&tb, 1 << 20, 1ull << 40, &wait),
	                 250000);
}

/* Node 0 dials node 1's listener; node 1 accepts, past a stranger. */
static void
test_local_connect_and_carry(void **state)
{
	struct local_links a, b;
	struct plan        p0, p1;
	char               b0[64], b1[64], err[256], buf[100];
	int                l0, l1, stray;
	uint8_t            h[LOCAL_HELLO];
	ssize_t            r;

	(void)state;
	assert_true((l0 = local_listen("127.0.0.1:0", b0, sizeof(b0), err,
	                               sizeof(err))) >= 0);
	assert_true((l1 = local_listen("127.0.0.1:0", b1, sizeof(b1), err,
	                               sizeof(err))) >= 0);
	plan2(&p0, 0, 1, b1);
	plan2(&p1, 1, 0, b0);
	/* A stale hello (another run) first: closed, waited past. */
	assert_true((stray = net_connect_addr(b1, 1000)) >= 0);
	local_hello(h, 99, 0, 1, tok);
	assert_int_equal(net_write_all(stray, h, sizeof(h), 5000, -1), 0);
	assert_int_equal(
	    local_connect(l0, &p0, 42, &a, 2000, NULL, err, sizeof(err)), 0);
	assert_int_equal(
	    local_connect(l1, &p1, 42, &b, 2000, NULL, err, sizeof(err)), 0);
	assert_int_equal(a.n, 1);
	assert_int_equal(b.n, 1);
	assert_int_equal(xport_send(&a.x[0], "hello", 5), 5);
	do
		r = xport_recv(&b.x[0], buf, sizeof(buf));
	while (r == -EAGAIN);
	assert_int_equal(r, 5);
	assert_memory_equal(buf, "hello", 5);
	/* Its far end gone: named, with the node. */
	local_close(&a);
	do
		r = xport_recv(&b.x[0], buf, sizeof(buf));
	while (r == -EAGAIN);
	assert_int_equal(r, -EPIPE);
	assert_non_null(
	    strstr(xport_why(&b.x[0]), "local link to node 0 (127.0.0.1:"));
	assert_non_null(strstr(xport_why(&b.x[0]), "closed by the other"));
	local_close(&b);
	close(stray);
	close(l0);
	close(l1);
}

/* The abort hook: a pipe with a byte in it means "aborted: why". */
static int
said_abort(void *arg, char *reason, size_t len)
{
	char c;

	if (read(*(int *)arg, &c, 1) != 1)
		return (0);
	snprintf(reason, len, "h03 (node 3): out of memory");
	return (1);
}

/* A peer that never dials: the wait ends at the timeout, naming it, or
 * at once when the run is aborted meanwhile. */
static void
test_local_peer_missing_named(void **state)
{
	struct local_links b;
	struct plan        p1;
	char               b1[64], err[256];
	int                l1;

	(void)state;
	assert_true((l1 = local_listen("127.0.0.1:0", b1, sizeof(b1), err,
	                               sizeof(err))) >= 0);
	plan2(&p1, 1, 0, "127.0.0.1:9");
	assert_int_equal(
	    local_connect(l1, &p1, 42, &b, 200, NULL, err, sizeof(err)),
	    -ETIMEDOUT);
	assert_string_equal(err, "local link from node 0 (at 127.0.0.1:9) did "
	                         "not come within 0.2 s");
	{
		int               pp[2];
		struct exec_abort ab = {-1, said_abort, &pp[0], NULL};

		assert_int_equal(pipe(pp), 0);
		ab.fd = pp[0];
		assert_int_equal(write(pp[1], "x", 1), 1);
		assert_int_equal(local_connect(l1, &p1, 42, &b, 10000, &ab,
		                               err, sizeof(err)),
		                 -ECANCELED);
		assert_string_equal(err, "aborted while its local links were "
		                         "made: h03 (node 3): out of memory");
		close(pp[0]);
		close(pp[1]);
	}
	/* And one that cannot be dialled. */
	plan2(&p1, 0, 1, "127.0.0.1:1");
	assert_true(
	    local_connect(l1, &p1, 42, &b, 500, NULL, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "local link to node 1 at 127.0.0.1:1"));
	assert_int_equal(
	    local_connect(-1, &p1, 42, &b, 500, NULL, err, sizeof(err)),
	    -ENOTCONN);
	close(l1);
	assert_true(
	    local_listen("nonsense", b1, sizeof(b1), err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "local link \"nonsense\": listen"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_local_hello),
	    cmocka_unit_test(test_local_bucket),
	    cmocka_unit_test(test_local_connect_and_carry),
	    cmocka_unit_test(test_local_peer_missing_named),
	};

	return (cmocka_run_group_tests_name("local", tests, NULL, NULL));
}

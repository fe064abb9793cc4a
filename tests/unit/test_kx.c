/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_kx.c: the kernel transport's receiving half (reorder
 * stash, loss and repeat detection, stream changes) fed from a datagram
 * socket pair, so every order of segments can be played: the bytes come
 * out whole and in order, or the error names the loss; and probes
 * (ocsctl check), which are no stream's bytes.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "agent/xport_kernel.h"
#include "proto/base/mono.h"

#define SEG 100

struct fx {
	struct kx k;
	int       tx;
};

static int
setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	int        sv[2];

	assert_non_null(f);
	assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
	f->k.fd = sv[0];
	f->tx = sv[1];
	f->k.seg = SEG;
	snprintf(f->k.ifname, sizeof(f->k.ifname), "t9");
	assert_non_null(f->k.stash = malloc(KX_STASH * SEG));
	*state = f;
	return (0);
}

static int
teardown(void **state)
{
	struct fx *f = *state;

	close(f->k.fd);
	close(f->tx);
	free(f->k.stash);
	free(f);
	return (0);
}

/* Byte i of stream s carries (s * 7 + i) & 0xff. */
static void
put(struct fx *f, uint8_t mac, uint32_t stream, uint64_t off, size_t len)
{
	uint8_t b[KX_HDR + SEG];
	size_t  i;

	memset(b, 0xff, 6);
	memset(b + 6, mac, 6);
	b[12] = 0x88;
	b[13] = 0xb5;
	b[14] = 'O';
	b[15] = 'S';
	b[16] = 1;
	b[17] = 0;
	for (i = 0; i < 4; i++) {
		b[18 + i] = (uint8_t)(stream >> (24 - 8 * i));
		b[26 + i] = (uint8_t)(off >> (24 - 8 * i));
	}
	memset(b + 22, 0, 4);
	memset(b + 30, 0, 8);
	for (i = 0; i < len; i++)
		b[KX_HDR + i] = (uint8_t)(stream * 7 + off + i);
	assert_int_equal(send(f->tx, b, KX_HDR + len, 0),
	                 (ssize_t)(KX_HDR + len));
}

/* Read up to want bytes (in calls of `room`) and check them as stream s
 * from offset `from`; the bytes read. */
static size_t
take(struct fx *f, uint32_t stream, uint64_t from, size_t want, size_t room)
{
	uint8_t b[64 * SEG];
	size_t  got = 0, i;
	ssize_t r;

	while (got < want) {
		r = kx_recv(&f->k, b, room < want - got ? room : want - got);
		if (r <= 0)
			break;
		for (i = 0; i < (size_t)r; i++)
			assert_int_equal(
			    b[i], (uint8_t)(stream * 7 + from + got + i));
		got += (size_t)r;
	}
	return (got);
}

/* A probe segment: flag KX_F_PROBE, no stream, payload p. */
static void
put_probe(struct fx *f, const char *p)
{
	uint8_t b[KX_HDR + SEG];
	size_t  n = strlen(p);

	memset(b, 0, KX_HDR);
	memset(b, 0xff, 6);
	memset(b + 6, 3, 6);
	b[12] = 0x88;
	b[13] = 0xb5;
	b[14] = 'O';
	b[15] = 'S';
	b[16] = 1;
	b[17] = KX_F_PROBE;
	memcpy(b + KX_HDR, p, n);
	assert_int_equal(send(f->tx, b, KX_HDR + n, 0), (ssize_t)(KX_HDR + n));
}

/* A probe amid a stream is not delivered as its bytes (nor breaks it);
 * idle, kx_probe_recv finds the probes and drops the rest. */
static void
test_probe_is_no_stream(void **state)
{
	struct fx *f = *state;
	char       b[SEG];

	put(f, 1, 5, 0, SEG);
	put_probe(f, "probe-one");
	put(f, 1, 5, SEG, SEG);
	assert_int_equal(take(f, 5, 0, 2 * SEG, sizeof(uint8_t[64 * SEG])),
	                 2 * SEG);
	assert_int_equal(kx_recv(&f->k, (uint8_t[8]){0}, 8), -EAGAIN);
	put(f, 1, 6, 0, SEG);
	put_probe(f, "probe-two");
	put(f, 1, 6, SEG, SEG);
	assert_int_equal(kx_probe_recv(&f->k, b, sizeof(b)), 9);
	assert_memory_equal(b, "probe-two", 9);
	assert_int_equal(kx_probe_recv(&f->k, b, sizeof(b)), -EAGAIN);
}

static void
test_in_order(void **state)
{
	struct fx *f = *state;
	int        i;

	for (i = 0; i < 10; i++)
		put(f, 1, 5, (uint64_t)i * SEG, SEG);
	put(f, 1, 5, 10 * SEG, 37); /* a short one ends it */
	assert_int_equal(
	    take(f, 5, 0, 10 * SEG + 37, sizeof(uint8_t[64 * SEG])),
	    10 * SEG + 37);
	assert_int_equal(kx_recv(&f->k, (uint8_t[8]){0}, 8), -EAGAIN);
}

/* Reordered segments come out in order, whatever room the reader has. */
static void
test_reordered(void **state)
{
	struct fx       *f = *state;
	static const int order[] = {0, 2, 1, 3, 6, 4, 5, 7, 9, 8};
	size_t           rooms[] = {64 * SEG, SEG, 33};
	size_t           r;
	int              i;

	for (r = 0; r < 3; r++) {
		uint32_t st = 10 + (uint32_t)r;

		for (i = 0; i < 10; i++)
			put(f, 1, st, (uint64_t)order[i] * SEG, SEG);
		assert_int_equal(take(f, st, 0, 10 * SEG, rooms[r]), 10 * SEG);
		assert_int_equal(f->k.nst, 0);
	}
}

/* The first bytes of a new stream may come after later ones. */
static void
test_new_stream_late_start(void **state)
{
	struct fx *f = *state;

	put(f, 1, 1, 0, SEG);
	assert_int_equal(take(f, 1, 0, SEG, 64 * SEG), SEG);
	put(f, 2, 8, SEG, SEG); /* another sender, its second segment */
	put(f, 2, 8, 0, SEG);
	assert_int_equal(take(f, 8, 0, 2 * SEG, 64 * SEG), 2 * SEG);
}

/* A gap nothing fills is a loss after KX_GAP_MS, named. */
static void
test_gap_is_loss(void **state)
{
	struct fx *f = *state;
	uint8_t    b[64 * SEG];

	put(f, 3, 4, 0, SEG);
	put(f, 3, 4, 2 * SEG, SEG); /* the one at SEG never comes */
	assert_int_equal(take(f, 4, 0, SEG, sizeof(b)), SEG);
	assert_int_equal(kx_recv(&f->k, b, sizeof(b)), -EAGAIN);
	mono_sleep_ms(KX_GAP_MS + 50);
	assert_int_equal(kx_recv(&f->k, b, sizeof(b)), -EBADMSG);
	assert_non_null(strstr(f->k.why, "lost 100 bytes from "
	                                 "03:03:03:03:03:03 (offset 100"));
	/* and it stays said */
	assert_int_equal(kx_recv(&f->k, b, sizeof(b)), -EBADMSG);
}

/* A stream that stops short: the transport says where it stopped, for
 * the executor's error (which knows that bytes are missing). */
static void
test_gap_names_where_it_stopped(void **state)
{
	struct fx *f = *state;
	char       what[256];

	assert_int_equal(kx_gap(&f->k, NULL, 0), KX_QUIET_MS);
	assert_int_equal(kx_gap(&f->k, what, sizeof(what)), KX_QUIET_MS);
	assert_non_null(strstr(what, "interface t9: nothing came"));
	put(f, 3, 4, 0, SEG);
	put(f, 3, 4, SEG, 40);
	assert_int_equal(take(f, 4, 0, SEG + 40, 64 * SEG), SEG + 40);
	kx_gap(&f->k, what, sizeof(what));
	if (strstr(what, "interface t9: nothing came for ") == NULL ||
	    strstr(what, "after byte 140 of the stream from "
	                 "03:03:03:03:03:03") == NULL)
		fail_msg("%s", what);
}

/* More early segments than the stash holds, then the missing ones: the
 * stream was reordered deeper than the stash, and the error says so (not
 * "lost"), at once. */
static void
test_stash_overflow_reordered(void **state)
{
	struct fx *f = *state;
	uint8_t    b[64 * SEG];
	int        i;
	ssize_t    r;

	put(f, 1, 1, 0, SEG);
	assert_int_equal(take(f, 1, 0, SEG, sizeof(b)), SEG);
	for (i = 0; i <= KX_STASH; i++)
		put(f, 1, 1, (uint64_t)(i + 2) * SEG, SEG);
	put(f, 1, 1, SEG, SEG); /* the one they overtook */
	do
		r = kx_recv(&f->k, b, SEG);
	while (r > 0);
	assert_int_equal(r, -EBADMSG);
	if (strstr(f->k.why, "reordered beyond 63 segments: the bytes at "
	                     "offset 100 from 01:01:01:01:01:01 came after "
	                     "65 later segments") == NULL)
		fail_msg("%s", f->k.why);
	assert_null(strstr(f->k.why, "lost"));
}

/* The same overflow and the missing bytes never come: lost, said after
 * KX_GAP_MS (not at once: they might still come). */
static void
test_stash_overflow_lost(void **state)
{
	struct fx *f = *state;
	uint8_t    b[64 * SEG];
	int        i;
	ssize_t    r;

	put(f, 1, 1, 0, SEG);
	assert_int_equal(take(f, 1, 0, SEG, sizeof(b)), SEG);
	for (i = 0; i <= KX_STASH; i++)
		put(f, 1, 1, (uint64_t)(i + 2) * SEG, SEG);
	do
		r = kx_recv(&f->k, b, SEG);
	while (r > 0);
	assert_int_equal(r, -EAGAIN);
	assert_int_equal(kx_gap(&f->k, NULL, 0), 0); /* its own call */
	put(f, 1, 1, (uint64_t)(KX_STASH + 3) * SEG, SEG);
	mono_sleep_ms(KX_GAP_MS + 50);
	assert_int_equal(kx_recv(&f->k, b, SEG), -EBADMSG);
	if (strstr(f->k.why,
	           "lost bytes from 01:01:01:01:01:01 at offset "
	           "100 (66 later segments came without them") == NULL)
		fail_msg("%s", f->k.why);
}

static void
test_repeat(void **state)
{
	struct fx *f = *state;
	uint8_t    b[64 * SEG];

	put(f, 1, 1, 0, SEG);
	put(f, 1, 1, SEG, SEG);
	put(f, 1, 1, 0, SEG);
	assert_int_equal(kx_recv(&f->k, b, sizeof(b)), 2 * SEG);
	assert_int_equal(kx_recv(&f->k, b, sizeof(b)), -EBADMSG);
	assert_non_null(strstr(f->k.why, "came twice"));
}

/* Not ours (another protocol on the EtherType, a runt): skipped. */
static void
test_not_ours(void **state)
{
	struct fx *f = *state;
	uint8_t    junk[20] = {0};

	assert_int_equal(send(f->tx, junk, sizeof(junk), 0), 20);
	put(f, 1, 1, 0, SEG);
	assert_int_equal(take(f, 1, 0, SEG, 64 * SEG), SEG);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_in_order, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_reordered, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_new_stream_late_start, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_gap_is_loss, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_gap_names_where_it_stopped,
	                                    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stash_overflow_reordered,
	                                    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stash_overflow_lost, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_repeat, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_not_ours, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_probe_is_no_stream, setup,
	                                    teardown),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}

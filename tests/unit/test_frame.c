/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_frame.c: CRC32C against the standard check value, the
 * block pattern, frame headers, and the join proof against an HMAC
 * computed independently (Python's hmac module).
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "agent/crc32c.h"
#include "agent/frame.h"
#include "agent/pattern.h"
#include "proto/auth.h"

static void
test_crc32c_check_values(void **state)
{
	uint8_t buf[768];
	size_t  i;

	(void)state;
	assert_int_equal(crc32c(0, "123456789", 9), 0xe3069283);
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)i;
	assert_int_equal(crc32c(0, buf, sizeof(buf)), 0x9fa293b3);
	/* Continuation equals one pass. */
	assert_int_equal(crc32c(crc32c(0, buf, 100), buf + 100, 668),
	                 0x9fa293b3);
	assert_int_equal(crc32c(0, "", 0), 0);
}

/*
 * Long buffers take the three-lane path: against values from an
 * independent bitwise CRC32C (Python, in the commit that added this),
 * and every split of a continuation equal to one pass.
 */
static void
test_crc32c_long(void **state)
{
	static uint8_t buf[70001];
	size_t         i, cut[] = {1, 8, 1023, 3072, 3073, 9216, 40000};
	uint32_t       whole;

	(void)state;
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)((i * 7) ^ (i >> 8));
	whole = crc32c(0, buf, sizeof(buf));
	assert_int_equal(whole, 0x14e0610a);
	assert_int_equal(crc32c(0, buf, 65536 + 36), 0xc086616a);
	for (i = 0; i < sizeof(cut) / sizeof(cut[0]); i++)
		assert_int_equal(crc32c(crc32c(0, buf, cut[i]), buf + cut[i],
		                        sizeof(buf) - cut[i]),
		                 whole);
}

static void
test_pattern_any_offset(void **state)
{
	uint8_t whole[1000], part[333];

	(void)state;
	pat_fill(whole, sizeof(whole), 7, 3, 5, 1, 0);
	/* A piece made on its own matches the same bytes of the whole. */
	pat_fill(part, sizeof(part), 7, 3, 5, 1, 301);
	assert_memory_equal(part, whole + 301, sizeof(part));
	assert_int_equal(pat_check(whole, sizeof(whole), 7, 3, 5, 1, 0), -1);
	assert_int_equal(pat_check(part, sizeof(part), 7, 3, 5, 1, 301), -1);
	/* Every byte is checked, at its true offset. */
	whole[517] ^= 1;
	assert_int_equal(pat_check(whole, sizeof(whole), 7, 3, 5, 1, 0), 517);
	whole[517] ^= 1;
	whole[999] ^= 0x80;
	assert_int_equal(pat_check(whole, sizeof(whole), 7, 3, 5, 1, 0), 999);
	/* Another block, run or part has other content. */
	assert_true(pat_check(part, sizeof(part), 8, 3, 5, 1, 301) >= 0);
	assert_true(pat_check(part, sizeof(part), 7, 5, 3, 1, 301) >= 0);
	assert_true(pat_check(part, sizeof(part), 7, 3, 5, 0, 301) >= 0);
}

/* The word-at-a-time fill and check (vectors, stretches of 512 words,
 * tails) agree with the pattern made byte by byte at each offset, and
 * find a flipped byte wherever it is. */
static void
test_pattern_every_byte(void **state)
{
	enum { N = 4096 * 2 + 203 };
	static uint8_t whole[N], to[N];
	uint8_t        one;
	size_t         i, start;

	(void)state;
	pat_fill(whole, N, 11, 2, 9, 0, 0);
	for (i = 0; i < N; i++) {
		pat_fill(&one, 1, 11, 2, 9, 0, i);
		assert_int_equal(one, whole[i]);
	}
	for (start = 0; start < 4; start += 3)
		for (i = start; i < N; i++) {
			whole[i] ^= 0x10;
			assert_int_equal(pat_check(whole + start, N - start,
			                           11, 2, 9, 0, start),
			                 (int64_t)i);
			assert_int_equal(pat_check_copy(to, whole + start,
			                                N - start, 11, 2, 9, 0,
			                                start),
			                 (int64_t)i);
			whole[i] ^= 0x10;
		}
	assert_int_equal(pat_check(whole, N, 11, 2, 9, 0, 0), -1);
	/* Checked into place: every byte lands, with heads and tails of
	 * several lengths, and nothing past the end. */
	for (start = 0; start < 10; start += 4) {
		size_t len = N - 2 * start - 1;

		memset(to, 0, N);
		assert_int_equal(pat_check_copy(to + start, whole + start, len,
		                                11, 2, 9, 0, start),
		                 -1);
		assert_memory_equal(to + start, whole + start, len);
		assert_int_equal(to[start + len], 0);
	}
}

static void
test_frame_roundtrip_and_crc(void **state)
{
	struct frame f = {.run = 0xdeadbeef,
	                  .phase = 3,
	                  .hops = 9,
	                  .src = 1,
	                  .dst = 10,
	                  .block = 1234,
	                  .off = 65536,
	                  .len = 100},
	             g;
	uint8_t buf[FRAME_HDR + 100];

	(void)state;
	memset(buf + FRAME_HDR, 0xab, 100);
	frame_put(buf, &f, buf + FRAME_HDR);
	assert_int_equal(frame_get(buf, &g), 0);
	assert_int_equal(g.run, f.run);
	assert_int_equal(g.phase, 3);
	assert_int_equal(g.hops, 9);
	assert_int_equal(g.block, 1234);
	assert_int_equal(g.off, 65536);
	assert_int_equal(g.len, 100);
	assert_true(frame_crc_ok(buf, &g, buf + FRAME_HDR));
	/* Relays change hops without touching the CRC. */
	frame_set_hops(buf, 8);
	assert_int_equal(frame_get(buf, &g), 0);
	assert_int_equal(g.hops, 8);
	assert_true(frame_crc_ok(buf, &g, buf + FRAME_HDR));
	/* Any other bit, in header or payload, is caught. */
	buf[FRAME_HDR + 50] ^= 4;
	assert_false(frame_crc_ok(buf, &g, buf + FRAME_HDR));
	buf[FRAME_HDR + 50] ^= 4;
	buf[21] ^= 1; /* block id */
	assert_int_equal(frame_get(buf, &g), 0);
	assert_false(frame_crc_ok(buf, &g, buf + FRAME_HDR));
	buf[0] ^= 1;
	assert_int_equal(frame_get(buf, &g), -EPROTO);
}

static void
test_auth_proof_known_answer(void **state)
{
	static const uint8_t want[AUTH_PROOF] = {
	    0x89, 0xda, 0xd6, 0x21, 0x33, 0xa3, 0x6d, 0x67, 0xd2, 0x91, 0x21,
	    0x34, 0x1e, 0xfe, 0x27, 0x56, 0x2a, 0xac, 0x97, 0x8a, 0xed, 0xb1,
	    0xc7, 0xaf, 0x8a, 0xde, 0x73, 0x2b, 0xf4, 0x5d, 0x4c, 0xef};
	uint8_t nonce[AUTH_NONCE], got[AUTH_PROOF], n2[AUTH_NONCE];
	size_t  i;

	(void)state;
	for (i = 0; i < AUTH_NONCE; i++)
		nonce[i] = (uint8_t)i;
	assert_int_equal(auth_proof((const uint8_t *)"0123456789abcdef", 16,
	                            nonce, AUTH_NONCE, "h0", got),
	                 0);
	assert_memory_equal(got, want, AUTH_PROOF);
	assert_true(auth_equal(got, want, AUTH_PROOF));
	got[31] ^= 1;
	assert_false(auth_equal(got, want, AUTH_PROOF));
	assert_int_equal(auth_nonce(nonce), 0);
	assert_int_equal(auth_nonce(n2), 0);
	assert_memory_not_equal(nonce, n2, AUTH_NONCE);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_crc32c_check_values),
	    cmocka_unit_test(test_crc32c_long),
	    cmocka_unit_test(test_pattern_every_byte),
	    cmocka_unit_test(test_pattern_any_offset),
	    cmocka_unit_test(test_frame_roundtrip_and_crc),
	    cmocka_unit_test(test_auth_proof_known_answer),
	};

	return (cmocka_run_group_tests_name("frame", tests, NULL, NULL));
}

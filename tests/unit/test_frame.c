/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_frame.c: CRC32C against the standard check value, the
 * block pattern, frame headers, probe frames (ocsctl check) and the
 * agent's scan for them in a stream, the Probe and Heard messages, and
 * the join proof against an HMAC computed independently (Python's hmac
 * module).
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "agent/crc32c.h"
#include "agent/frame.h"
#include "agent/pattern.h"
#include "agent/probe.h"
#include "proto/amsg.h"
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

static size_t
probe_of(uint8_t *buf, const char *host, uint32_t trx, uint32_t nonce)
{
	struct frame_probe p = {.nonce = nonce, .trx = trx};

	snprintf(p.host, sizeof(p.host), "%s", host);
	return (frame_probe_put(buf, &p));
}

/* A probe: its own magic (never a data frame), the sender in it. */
static void
test_frame_probe_roundtrip(void **state)
{
	struct frame_probe g;
	struct frame       f;
	uint8_t            buf[FRAME_PROBE_MAX];
	size_t             n;

	(void)state;
	n = probe_of(buf, "h07", 1, 0xfeed);
	assert_int_equal(n, FRAME_HDR + 3);
	assert_int_equal(frame_probe_len(buf), n);
	assert_int_equal(frame_probe_get(buf, n, &g), (int)n);
	assert_string_equal(g.host, "h07");
	assert_int_equal(g.trx, 1);
	assert_int_equal(g.nonce, 0xfeed);
	/* Never data: a data frame's decoder refuses it, and a data frame
	 * is no probe. */
	assert_int_equal(frame_get(buf, &f), -EPROTO);
	f = (struct frame){.run = 0, .len = 3, .hops = 1};
	frame_put(buf, &f, "h07");
	assert_int_equal(frame_probe_len(buf), 0);
	assert_int_equal(frame_probe_get(buf, FRAME_HDR + 3, &g), -EPROTO);
}

/* Short, corrupted, or naming no host: not taken. */
static void
test_frame_probe_rejects(void **state)
{
	struct frame_probe g;
	uint8_t            buf[FRAME_PROBE_MAX];
	size_t             n;

	(void)state;
	n = probe_of(buf, "h01", 0, 7);
	assert_int_equal(frame_probe_get(buf, n - 1, &g), 0); /* more */
	assert_int_equal(frame_probe_get(buf, 10, &g), 0);
	buf[FRAME_HDR + 1] ^= 1; /* the host: the CRC says so */
	assert_int_equal(frame_probe_get(buf, n, &g), -EPROTO);
	buf[FRAME_HDR + 1] ^= 1;
	buf[20] ^= 1; /* the nonce */
	assert_int_equal(frame_probe_get(buf, n, &g), -EPROTO);
	/* A good CRC over a name with a byte no host name has. */
	n = probe_of(buf, "h0;", 0, 7);
	assert_int_equal(frame_probe_get(buf, n, &g), -EPROTO);
	/* A length no probe has. */
	n = probe_of(buf, "h01", 0, 7);
	buf[28] = 200;
	assert_int_equal(frame_probe_len(buf), 0);
	assert_int_equal(frame_probe_get(buf, n, &g), -EPROTO);
}

/* The stream: probes found after garbage, across any cut, once each,
 * and another check's (its nonce) left out. */
static void
test_probe_scan_stream(void **state)
{
	struct amsg_heard h[4];
	uint8_t           s[512], buf[512];
	size_t            n = 0, len = 0, nh = 0, cut;

	(void)state;
	memset(s, 'O', 50); /* a leftover of a run: no probe */
	n = 50;
	n += probe_of(s + n, "h02", 1, 9);
	n += probe_of(s + n, "h03", 0, 8); /* another check's */
	n += probe_of(s + n, "h02", 1, 9); /* sent again */
	n += probe_of(s + n, "h04", 0, 9);
	for (cut = 0; cut < n; cut += 7) { /* 7 bytes a read */
		size_t k = n - cut < 7 ? n - cut : 7;

		memcpy(buf + len, s + cut, k);
		len += k;
		probe_scan(buf, &len, 1, 9, h, 4, &nh);
	}
	assert_int_equal(nh, 2);
	assert_int_equal(h[0].trx, 1);
	assert_string_equal(h[0].host, "h02");
	assert_int_equal(h[0].from_trx, 1);
	assert_string_equal(h[1].host, "h04");
	assert_int_equal(h[1].from_trx, 0);
	assert_true(len < FRAME_HDR);
}

/* The Probe's checks: transceivers this host has, a sane wait. */
static void
test_amsg_probe_checked(void **state)
{
	Ocs__Msg          m;
	Ocs__Probe        p;
	struct amsg_probe got;
	uint32_t          s[] = {0, 1}, l[] = {1};
	char              err[200];

	(void)state;
	ocs__msg__init(&m);
	ocs__probe__init(&p);
	m.body_case = OCS__MSG__BODY_PROBE;
	m.probe = &p;
	p.nonce = 5;
	p.send = s;
	p.n_send = 2;
	p.listen = l;
	p.n_listen = 1;
	p.wait_ms = 400;
	assert_int_equal(amsg_probe_get(&m, 2, &got, err, sizeof(err)), 0);
	assert_int_equal(got.send, 3);
	assert_int_equal(got.listen, 2);
	assert_int_equal(got.nonce, 5);
	assert_int_equal(amsg_probe_get(&m, 1, &got, err, sizeof(err)),
	                 -MSG_EFIELD);
	assert_non_null(strstr(err, "transceiver 1: this host has 1"));
	p.wait_ms = 0;
	assert_int_equal(amsg_probe_get(&m, 2, &got, err, sizeof(err)),
	                 -MSG_EFIELD);
	assert_non_null(strstr(err, "wait_ms 0"));
	m.body_case = OCS__MSG__BODY_IDLE;
	assert_int_equal(amsg_probe_get(&m, 2, &got, err, sizeof(err)),
	                 -MSG_EBODY);
}

/* A Heard as built, through the wire and back. */
static void
test_amsg_heard_wire(void **state)
{
	struct amsg_out  *o = calloc(1, sizeof(*o));
	struct amsg_heard h[2] = {{0, 1, "h05"}, {1, 0, "h06"}};
	uint8_t           buf[512];
	Ocs__Msg         *m;
	size_t            n;
	char              why[200];

	(void)state;
	assert_non_null(o);
	amsg_heard(o, 3, 77, h, 2, 1u << 1);
	n = ocs__msg__pack(&o->m, buf);
	assert_int_equal(msg_decode(buf, n, &m, why, sizeof(why)), 0);
	assert_int_equal(m->body_case, OCS__MSG__BODY_HEARD);
	assert_false(m->has_seq && m->seq != 0); /* unasked */
	assert_int_equal(m->heard->agent_id, 3);
	assert_int_equal(m->heard->nonce, 77);
	assert_int_equal(m->heard->n_heard, 2);
	assert_string_equal(m->heard->heard[1]->host, "h06");
	assert_int_equal(m->heard->heard[0]->from_trx, 1);
	assert_int_equal(m->heard->n_unsent, 1);
	assert_int_equal(m->heard->unsent[0], 1);
	msg_free(m);
	free(o);
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
	    cmocka_unit_test(test_frame_probe_roundtrip),
	    cmocka_unit_test(test_frame_probe_rejects),
	    cmocka_unit_test(test_probe_scan_stream),
	    cmocka_unit_test(test_amsg_probe_checked),
	    cmocka_unit_test(test_amsg_heard_wire),
	    cmocka_unit_test(test_auth_proof_known_answer),
	};

	return (cmocka_run_group_tests_name("frame", tests, NULL, NULL));
}

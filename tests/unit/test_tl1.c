/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_tl1.c: the TL1 codec on the reply texts of
 * spec/ocs-protocols.md (COMPLD, DENY with each code, multi-line data,
 * '>' continuation, autonomous messages interleaved with replies, acks),
 * on truncated and garbage input, and the command/AID side.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "ocs-drivers/drv.h"
#include "ocs-drivers/tl1.h"

#define COMPLD_DATA                                                           \
	"\r\n\n   OCS1 17-09-11 11:16:43\r\nM  123 COMPLD\r\n"                \
	"   \"1,17\"\r\n   \"2,18\"\r\n;"
#define DENY_IDNV                                                             \
	"\r\n\n   OCS1 17-09-11 11:16:43\r\nM  123 DENY\r\n   IDNV\r\n"       \
	"   /* Invalid OXC port: 1000 */\r\n;"

static ssize_t
parse(const char *s, struct tl1_resp *r)
{
	return (tl1_resp_parse(s, strlen(s), r));
}

static void
test_tl1_compld_with_data(void **state)
{
	struct tl1_resp r;

	(void)state;
	assert_int_equal(parse(COMPLD_DATA, &r), strlen(COMPLD_DATA));
	assert_int_equal(r.kind, TL1_RESP);
	assert_int_equal(r.status, TL1_COMPLD);
	assert_string_equal(r.tag, "123");
	assert_string_equal(r.sid, "OCS1");
	assert_string_equal(r.date, "17-09-11");
	assert_string_equal(r.time, "11:16:43");
	assert_int_equal(r.nlines, 2);
	assert_string_equal(r.lines[0], "1,17");
	assert_string_equal(r.lines[1], "2,18");
	assert_false(r.more);
	tl1_resp_free(&r);
}

static void
test_tl1_deny_every_code(void **state)
{
	static const char *const codes[] = {"IDNV", "IIAC", "IICT", "IITA",
	                                    "PICC", "SRCN", "IICM", "IPNV",
	                                    "IPMS", "PLNA", "SNVS"};
	struct tl1_resp          r;
	char                     buf[256], txt[128];
	size_t                   i;

	(void)state;
	assert_int_equal(parse(DENY_IDNV, &r), strlen(DENY_IDNV));
	assert_int_equal(r.status, TL1_DENY);
	assert_string_equal(r.code, "IDNV");
	assert_string_equal(r.comment, "Invalid OXC port: 1000");
	tl1_resp_errtext(&r, txt, sizeof(txt));
	assert_string_equal(txt, "IDNV Invalid OXC port: 1000");
	tl1_resp_free(&r);
	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		snprintf(
		    buf, sizeof(buf),
		    "\r\n\n   OCS1 17-09-11 11:16:43\r\nM  9 DENY\r\n   %s\r\n"
		    "   /* Parse error at offset 17 in command */\r\n;",
		    codes[i]);
		assert_int_equal(parse(buf, &r), strlen(buf));
		assert_string_equal(r.code, codes[i]);
		assert_string_equal(r.comment,
		                    "Parse error at offset 17 in command");
		tl1_resp_free(&r);
	}
}

/* SID with blanks, as an unnamed switch reports it. */
static void
test_tl1_nil_sid(void **state)
{
	const char     *s = "\r\n\n   ( nil ) 24-01-01 00:00:00\r\nM  1 "
	                    "COMPLD\r\n;";
	struct tl1_resp r;

	(void)state;
	assert_int_equal(parse(s, &r), strlen(s));
	assert_string_equal(r.sid, "( nil )");
	tl1_resp_free(&r);
}

static void
test_tl1_continuation_blocks(void **state)
{
	const char *s = "\r\n\n   OCS1 17-09-11 11:16:43\r\nM  5 COMPLD\r\n"
	                "   \"1,17\"\r\n>"
	                "\r\n\n   OCS1 17-09-11 11:16:43\r\nM  5 COMPLD\r\n"
	                "   \"2,18\"\r\n;";
	struct tl1_resp r;
	ssize_t         n;

	(void)state;
	n = parse(s, &r);
	assert_true(n > 0);
	assert_true(r.more);
	assert_int_equal(r.nlines, 1);
	tl1_resp_free(&r);
	assert_int_equal(tl1_resp_parse(s + n, strlen(s) - (size_t)n, &r),
	                 strlen(s) - (size_t)n);
	assert_false(r.more);
	assert_string_equal(r.lines[0], "2,18");
	tl1_resp_free(&r);
}

/* An autonomous message first, then the reply: only M lines carry the
 * CTAG, so the two are told apart. */
static void
test_tl1_autonomous_interleaved(void **state)
{
	const char *s =
	    "\r\n\n   OCS1 17-09-11 11:16:43\r\n*C 42 REPT ALM EQPT\r\n"
	    "   \"17:LOS,SC,SA,09-11,11-16-43:\\\"Loss of signal\\\"\"\r\n;"
	    "\r\n\n   OCS1 17-09-11 11:16:44\r\nA  43 REPT EVT "
	    "PORT\r\n;" COMPLD_DATA;
	struct tl1_resp r;
	ssize_t         n, off = 0;

	(void)state;
	n = parse(s, &r);
	assert_true(n > 0);
	assert_int_equal(r.kind, TL1_AUTO);
	assert_string_equal(r.alarm, "*C");
	assert_string_equal(r.tag, "42");
	assert_string_equal(r.verb, "REPT ALM EQPT");
	assert_string_equal(r.lines[0],
	                    "17:LOS,SC,SA,09-11,11-16-43:\"Loss of signal\"");
	tl1_resp_free(&r);
	off += n;
	n = tl1_resp_parse(s + off, strlen(s) - (size_t)off, &r);
	assert_int_equal(r.kind, TL1_AUTO);
	assert_string_equal(r.alarm, "A");
	assert_string_equal(r.tag, "43");
	tl1_resp_free(&r);
	off += n;
	n = tl1_resp_parse(s + off, strlen(s) - (size_t)off, &r);
	assert_int_equal((size_t)(off + n), strlen(s));
	assert_int_equal(r.kind, TL1_RESP);
	assert_string_equal(r.tag, "123");
	tl1_resp_free(&r);
}

static void
test_tl1_ack_in_progress(void **state)
{
	const char     *s = "IP 77\r\n<" COMPLD_DATA;
	struct tl1_resp r;
	ssize_t         n;

	(void)state;
	n = parse(s, &r);
	assert_int_equal(n, 8);
	assert_int_equal(r.kind, TL1_ACK);
	assert_string_equal(r.ack, "IP");
	assert_string_equal(r.tag, "77");
	tl1_resp_free(&r);
}

/* Every strict prefix of a reply asks for more bytes. */
static void
test_tl1_truncated_needs_more(void **state)
{
	struct tl1_resp r;
	size_t          k, len = strlen(COMPLD_DATA);

	(void)state;
	for (k = 0; k < len; k++)
		assert_int_equal(tl1_resp_parse(COMPLD_DATA, k, &r), 0);
	assert_int_equal(tl1_resp_parse("IP 77\r\n", 7, &r), 0);
}

static void
test_tl1_garbage_rejected(void **state)
{
	static const char *const bad[] = {
	    "garbage\r\n",
	    "HELLO WORLD\r\n<",
	    "\r\n\n   OCS1 no date here\r\nM  1 COMPLD\r\n;",
	    "\r\n\n   OCS1 17-09-11 11:16:43\r\nX  1 COMPLD\r\n;",
	    "\r\n\n   OCS1 17-09-11 11:16:43\r\nM  1 MAYBE\r\n;",
	    "\r\n\n   OCS1 17-09-11 11:16:43\r\nM\r\n;",
	    "\r\n\n   OCS1 17-09-11 11:16:43\r\nM  12345678901234567890 "
	    "COMPLD\r\n;",
	    "\x01\x02\x03\n",
	};
	struct tl1_resp r;
	size_t          i;

	/* Found by fuzzing: NUL bytes in a CTAG or a data line. */
	static const char nul_tag[] = "\r\n\n   OCS1 17-09-11 11:16:43\r\n"
	                              "M  \0\0"
	                              "3 COMPLD\r\n;";
	static const char nul_data[] = "\r\n\n   OCS1 17-09-11 11:16:43\r\n"
	                               "M  3 COMPLD\r\n   \"1\0"
	                               "7\"\r\n;";

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(parse(bad[i], &r), -EPROTO);
	assert_int_equal(tl1_resp_parse(nul_tag, sizeof(nul_tag) - 1, &r),
	                 -EPROTO);
	assert_int_equal(tl1_resp_parse(nul_data, sizeof(nul_data) - 1, &r),
	                 -EPROTO);
}

static void
test_tl1_server_format_roundtrip(void **state)
{
	struct tl1_buf  b = {0};
	struct tl1_resp r;
	char           *lines[3] = {"1,17", "say \"hi\"", "3,19"};
	ssize_t         n;
	size_t          off = 0, got = 0;
	int             blocks = 0;

	(void)state;
	/* Blocks of at most 8 data bytes: three blocks, same CTAG. */
	assert_int_equal(tl1_resp_fmt(&b, "EMU", 0, "55", TL1_COMPLD, NULL,
	                              NULL, lines, 3, 8),
	                 0);
	while ((n = tl1_resp_parse(b.p + off, b.len - off, &r)) > 0) {
		assert_string_equal(r.tag, "55");
		assert_int_equal(r.nlines, 1);
		assert_string_equal(r.lines[0], lines[got]);
		got++;
		blocks++;
		off += (size_t)n;
		if (!r.more) {
			tl1_resp_free(&r);
			break;
		}
		tl1_resp_free(&r);
	}
	assert_int_equal(blocks, 3);
	assert_int_equal(off, b.len);
	/* A DENY with code and comment. */
	tl1_buf_free(&b);
	assert_int_equal(tl1_resp_fmt(&b, "EMU", 0, "9", TL1_DENY, "PICC",
	                              "Permission denied", NULL, 0, 0),
	                 0);
	assert_int_equal(tl1_resp_parse(b.p, b.len, &r), b.len);
	assert_string_equal(r.code, "PICC");
	assert_string_equal(r.comment, "Permission denied");
	tl1_resp_free(&r);
	tl1_buf_free(&b);
}

static void
test_tl1_cmd_parse(void **state)
{
	struct tl1_cmd c;
	enum tl1_perr  pe;
	size_t         off;
	const char    *s;

	(void)state;
	s = "act-user::root:123::root";
	assert_int_equal(tl1_cmd_parse(s, strlen(s), 0, &c, &pe, &off), 0);
	assert_string_equal(c.verb, "ACT-USER");
	assert_string_equal(c.tid, "");
	assert_string_equal(c.aid, "root");
	assert_string_equal(c.ctag, "123");
	assert_int_equal(c.nblk, 2);
	assert_string_equal(c.blk[0], "");
	assert_string_equal(c.blk[1], "root");
	tl1_cmd_free(&c);
	s = "RTRV-PATCH:\"OCS:1\"::5:;";
	assert_int_equal(tl1_cmd_parse(s, strlen(s), 0, &c, &pe, &off), 0);
	assert_string_equal(c.tid, "OCS:1");
	tl1_cmd_free(&c);
	s = "RTRV-EQPT::SYSTEM:123:::PARAMETER=SIZE";
	assert_int_equal(tl1_cmd_parse(s, strlen(s), 0, &c, &pe, &off), 0);
	assert_int_equal(c.nblk, 3);
	assert_string_equal(c.blk[2], "PARAMETER=SIZE");
	tl1_cmd_free(&c);
	/* Missing CTAG: IICT. */
	s = "ENT-PATCH::1,17";
	assert_int_equal(tl1_cmd_parse(s, strlen(s), 0, &c, &pe, &off),
	                 -EINVAL);
	assert_int_equal(pe, TL1_PERR_CTAG);
	tl1_cmd_free(&c);
	s = "ENT-PATCH::1,17::";
	assert_int_equal(tl1_cmd_parse(s, strlen(s), 0, &c, &pe, &off),
	                 -EINVAL);
	assert_int_equal(pe, TL1_PERR_CTAG);
	assert_int_equal(off, 16);
	tl1_cmd_free(&c);
	s = "ENT PATCH::1,17:1:";
	assert_int_equal(tl1_cmd_parse(s, strlen(s), 0, &c, &pe, &off),
	                 -EINVAL);
	assert_int_equal(pe, TL1_PERR_VERB);
	tl1_cmd_free(&c);
	s = "SET-SID:::1::\"unterminated";
	assert_int_equal(tl1_cmd_parse(s, strlen(s), 0, &c, &pe, &off),
	                 -EINVAL);
	assert_int_equal(pe, TL1_PERR_SYNTAX);
	tl1_cmd_free(&c);
}

static void
test_tl1_aid_lists(void **state)
{
	uint32_t p[16];
	char     bad[32];

	(void)state;
	assert_int_equal(tl1_aid_parse("11&4&10", p, 16, bad, 32), 3);
	assert_int_equal(p[1], 4);
	assert_int_equal(tl1_aid_parse("1&&4&9", p, 16, bad, 32), 5);
	assert_int_equal(p[3], 4);
	assert_int_equal(p[4], 9);
	assert_int_equal(tl1_aid_parse("", p, 16, bad, 32), 0);
	assert_int_equal(tl1_aid_parse("a", p, 16, bad, 32), -EINVAL);
	assert_string_equal(bad, "a");
	assert_int_equal(tl1_aid_parse("-10", p, 16, bad, 32), -EINVAL);
	assert_string_equal(bad, "-10");
	assert_int_equal(tl1_aid_parse("1&", p, 16, bad, 32), -EINVAL);
	assert_int_equal(tl1_aid_parse("5&&3", p, 16, bad, 32), -EINVAL);
	assert_int_equal(tl1_aid_parse("1&&100", p, 16, bad, 32), -E2BIG);
	assert_int_equal(tl1_aid_parse("99999999999", p, 16, bad, 32),
	                 -EINVAL);
}

static void
test_tl1_aid_format(void **state)
{
	static const uint16_t         ports[] = {1, 2, 3, 4, 7, 9, 10};
	static const struct drv_patch pp[] = {
	    {3, 19}, {1, 17}, {2, 18}, {5, 30}, {6, 31}};
	struct tl1_buf b = {0};
	uint32_t       in[8], out[8];
	char           bad[8], *comma;

	(void)state;
	assert_int_equal(tl1_aid_fmt(&b, ports, 7), 0);
	assert_string_equal(b.p, "1&&4&7&9&10");
	tl1_buf_free(&b);
	/* Sorted by ingress; runs only where both sides step by one. */
	assert_int_equal(tl1_aid_fmt_patches(&b, pp, 5), 0);
	assert_string_equal(b.p, "1&&3&5&6,17&&19&30&31");
	comma = strchr(b.p, ',');
	*comma = '\0';
	assert_int_equal(tl1_aid_parse(b.p, in, 8, bad, 8), 5);
	assert_int_equal(tl1_aid_parse(comma + 1, out, 8, bad, 8), 5);
	assert_int_equal(in[2], 3);
	assert_int_equal(out[2], 19);
	assert_int_equal(in[4], 6);
	assert_int_equal(out[4], 31);
	tl1_buf_free(&b);
	assert_int_equal(tl1_cmd_fmt(&b, "ENT-PATCH", "", "1,17", 7, ""), 0);
	assert_string_equal(b.p, "ENT-PATCH::1,17:7;\r\n");
	tl1_buf_free(&b);
}

/* ocs-emu's capture line: the capture's drops when it says them (an
 * older emulator does not), anything malformed named. */
static void
test_tl1_capture_drops(void **state)
{
	struct drv_capture c;
	char               err[128];

	(void)state;
	assert_int_equal(
	    tl1_capture_parse("FRAMES=10,UNLIT=1,DROPS=7,FIRST=2/3,GAPS=1:0.5",
	                      &c, err, sizeof(err)),
	    0);
	assert_int_equal(c.frames, 10);
	assert_int_equal(c.unlit, 1);
	assert_true(c.has_drops);
	assert_int_equal(c.drops, 7);
	assert_int_equal(c.first_phase, 2);
	assert_int_equal(c.ngaps, 1);
	assert_int_equal(
	    tl1_capture_parse("FRAMES=10,UNLIT=0", &c, err, sizeof(err)), 0);
	assert_false(c.has_drops);
	assert_int_equal(tl1_capture_parse("FRAMES=10,UNLIT=0,DROPS=x", &c,
	                                   err, sizeof(err)),
	                 -EINVAL);
	assert_non_null(strstr(err, "at 25"));
	assert_int_equal(tl1_capture_parse("FRAMES=10,UNLIT=0,DROPS=", &c, err,
	                                   sizeof(err)),
	                 -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tl1_compld_with_data),
	    cmocka_unit_test(test_tl1_deny_every_code),
	    cmocka_unit_test(test_tl1_nil_sid),
	    cmocka_unit_test(test_tl1_continuation_blocks),
	    cmocka_unit_test(test_tl1_autonomous_interleaved),
	    cmocka_unit_test(test_tl1_ack_in_progress),
	    cmocka_unit_test(test_tl1_truncated_needs_more),
	    cmocka_unit_test(test_tl1_garbage_rejected),
	    cmocka_unit_test(test_tl1_server_format_roundtrip),
	    cmocka_unit_test(test_tl1_cmd_parse),
	    cmocka_unit_test(test_tl1_aid_lists),
	    cmocka_unit_test(test_tl1_aid_format),
	    cmocka_unit_test(test_tl1_capture_drops),
	};

	return (cmocka_run_group_tests_name("tl1", tests, NULL, NULL));
}

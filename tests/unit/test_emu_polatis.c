/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_emu_polatis.c: conformance of ocs-emu's Polatis TL1
 * face.  Commands as real clients send them (the Polatis SDK, tcdona3,
 * Quali's cloudshell-L1-polatis, the Polatis TL1 test-suite), each with
 * the exact reply a Polatis gives (issue 12; testbed/ocs-emu/PROTOCOLS.md
 * says which are confirmed and which inferred), run through the
 * emulator's own command path.  Every expected reply is also run through
 * the driver's parser (tl1.c), which must read it as the device meant.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocs-drivers/tl1.h"
#include "proto/base/log.h"
#include "proto/base/version.h"
#include "tests/lib/emutest.h"
#include "testbed/ocs-emu/emu.h"

#define H  "\r\n\n   OCS-EMU 00-00-00 00:00:00\r\n"
#define HN "\r\n\n   Polatis OXC 00-00-00 00:00:00\r\n"

/* A command and the exact bytes the switch sends back (header time
 * zeroed). */
struct conv {
	const char *in, *out;
};

static const struct conv polatis[] = {
    /* Before the login: the text clients match to log in again. */
    {"RTRV-PATCH:::1:;",
     H "M  1 DENY\r\n   PLNA\r\n   /* Not logged in */\r\n;"},
    {"ACT-USER::root:2::root;", H "M  2 COMPLD\r\n;"},
    /* Parse errors count from 1. */
    {"INIT-SYS::ALARM:::1;",
     H "M  0 DENY\r\n   IICT\r\n   /* Parse error at offset 17 in command "
       "*/\r\n;"},
    {"ACT-USER::admin::123::root;",
     H "M  0 DENY\r\n   IICT\r\n   /* Parse error at offset 17 in command "
       "*/\r\n;"},
    {"RTRV-HDR:@#@#::3:;",
     H "M  0 DENY\r\n   IITA\r\n   /* Parse error at offset 10 in command "
       "*/\r\n;"},
    {"RTRV-HDR:9942::3:;",
     H "M  0 DENY\r\n   IITA\r\n   /* Parse error at offset 10 in command "
       "*/\r\n;"},
    {"RTRV-HDR:OTHER::3:;",
     H "M  3 DENY\r\n   IITA\r\n   /* Mismatched TID */\r\n;"},
    {"RTRV-NETYPE:::4:;",
     H "M  4 COMPLD\r\n   \"Polatis,N-OCS-EMU-8x8,OCS," OCS_VERSION "\"\r\n;"},
    {"RTRV-EQPT::SYSTEM:5:::PARAMETER=SIZE;",
     H "M  5 COMPLD\r\n   \"SYSTEM:SIZE=8x8\"\r\n;"},
    {"OPR-ARC-EQPT::REPMGR:6::IND;", H "M  6 COMPLD\r\n;"},
    {"RTRV-ARC-EQPT::ALL:7:;", H "M  7 COMPLD\r\n   \"REPMGR:IND,,\"\r\n;"},
    {"RLS-ARC-EQPT::ALL:8:;", H "M  8 COMPLD\r\n;"},
    {"RTRV-ARC-EQPT::REPMGR:9:;", H "M  9 COMPLD\r\n   \"REPMGR:ALW,,\"\r\n;"},
    {"RTRV-ARC-EQPT::FOO:9:;",
     H "M  9 DENY\r\n   IIAC\r\n   /* Invalid AID FOO */\r\n;"},
    /* Parameters: ranges, garbage, names. */
    {"ED-EQPT::TIMEOUT:10:::ADMIN=61;",
     H "M  10 DENY\r\n   IPNV\r\n   /* Parameter not valid */\r\n;"},
    {"ED-EQPT::TIMEOUT:10:::ADMIN=-2;",
     H "M  10 DENY\r\n   IPNV\r\n   /* Parameter not valid */\r\n;"},
    {"ED-EQPT::TIMEOUT:10:::ADMIN=@#$;",
     H "M  10 DENY\r\n   IPNV\r\n   /* Parameter not valid */\r\n;"},
    {"ED-EQPT::TIMEOUT:10:::adm=5;",
     H "M  10 DENY\r\n   IPNV\r\n   /* Unexpected parameter adm in block 2 "
       "*/\r\n;"},
    {"ED-EQPT::TIMEOUT:11:::ADMIN=60;", H "M  11 COMPLD\r\n;"},
    {"RTRV-EQPT::TIMEOUT:12:::PARAMETER=ADMIN;",
     H "M  12 COMPLD\r\n   \"TIMEOUT:ADMIN=60\"\r\n;"},
    {"ED-EQPT::TIMEOUT:11:::ADMIN=0;", H "M  11 COMPLD\r\n;"},
    {"RTRV-EQPT::BOOT:13:::PARAMETER=12345;",
     H "M  13 DENY\r\n   IPNV\r\n   /* Parameter not valid */\r\n;"},
    {"ED-EQPT::BOOT:13:::MODE=12345;",
     H "M  13 DENY\r\n   IPNV\r\n   /* Parameter not valid */\r\n;"},
    {"ED-EQPT::BOOT:13:::MODE=sun;",
     H "M  13 DENY\r\n   IDNV\r\n   /* Invalid value sun */\r\n;"},
    {"RTRV-EQPT::9999:14:;",
     H "M  14 DENY\r\n   IIAC\r\n   /* Invalid AID 9999 */\r\n;"},
    /* One rule for port lists. */
    {"RTRV-PORT-POWER::1&&17:15:;",
     H "M  15 DENY\r\n   IIAC\r\n   /* Too many ports */\r\n;"},
    {"RTRV-PORT-POWER::17:15:;",
     H "M  15 DENY\r\n   IDNV\r\n   /* Invalid OXC port: 17 */\r\n;"},
    {"ENT-PATCH::1000,9:16:;",
     H "M  16 DENY\r\n   IDNV\r\n   /* Invalid OXC port: 1000 */\r\n;"},
    {"ENT-PATCH::a,b:16:;",
     H "M  16 DENY\r\n   IDNV\r\n   /* Invalid OXC port: a */\r\n;"},
    {"ENT-PATCH::,:16:;",
     H "M  16 DENY\r\n   IIAC\r\n   /* Empty parameters */\r\n;"},
    {"ENT-PATCH::1&2,9&10:17:;", H "M  17 COMPLD\r\n;"},
    {"RTRV-PATCH:::18:;", H "M  18 COMPLD\r\n   \"1,9\"\r\n   \"2,10\"\r\n;"},
    {"RTRV-PATCH::10:18:;", H "M  18 COMPLD\r\n   \"2,10\"\r\n;"},
    {"DLT-PATCH::1:19:;", H "M  19 COMPLD\r\n;"},
    /* What the SDK and Quali's autoload call. */
    {"RTRV-PORT-PMON::1&2:20:;",
     H "M  20 COMPLD\r\n   \"1:1550,0.00,1\"\r\n   \"2:1550,0.00,1\"\r\n;"},
    {"SET-PORT-PMON::2:21:::WAVE=1310,OFFSET=0.5,ATIME=3;",
     H "M  21 COMPLD\r\n;"},
    {"RTRV-PORT-PMON::2:22:;", H "M  22 COMPLD\r\n   \"2:1310,0.50,3\"\r\n;"},
    {"SET-PORT-PMON::2:21:::ATIME=9;",
     H "M  21 DENY\r\n   IPNV\r\n   /* Parameter not valid */\r\n;"},
    {"RTRV-PORT-REVPOWER::3:23:;", H "M  23 COMPLD\r\n   \"3:-99.00\"\r\n;"},
    {"SET-PORT-LABEL::3:24:::LABEL=\"h1-tx\";", H "M  24 COMPLD\r\n;"},
    {"RTRV-PORT-LABEL::3&4:25:;",
     H "M  25 COMPLD\r\n   \"3:h1-tx\"\r\n   \"4:\"\r\n;"},
    {"SET-PORT-LABEL::3:24:::LABEL=\"0123456789012345678901234567890123\";",
     H "M  24 DENY\r\n   IPNV\r\n   /* Parameter not valid */\r\n;"},
    {"RTRV-PORT-ATTEN::8&&9:26:;",
     H "M  26 COMPLD\r\n   \"9:MODE=NONE,LEVEL=0.00\"\r\n;"},
    {"SET-PORT-ATTEN::9:27:::MODE=ABSOLUTE,LEVEL=3;", H "M  27 COMPLD\r\n;"},
    {"SET-PORT-ATTEN::1:27:::MODE=ABSOLUTE;",
     H "M  27 DENY\r\n   IDNV\r\n   /* Not an output port: 1 */\r\n;"},
    {"RTRV-EQPT::PMON:28:::PARAMETER=CONFIG;",
     H "M  28 COMPLD\r\n   \"PMON::PORT=1,MODE=INPUT\"\r\n"
       "   \"PMON::PORT=2,MODE=INPUT\"\r\n   \"PMON::PORT=3,MODE=INPUT\"\r\n"
       "   \"PMON::PORT=4,MODE=INPUT\"\r\n   \"PMON::PORT=5,MODE=INPUT\"\r\n"
       "   \"PMON::PORT=6,MODE=INPUT\"\r\n   \"PMON::PORT=7,MODE=INPUT\"\r\n"
       "   \"PMON::PORT=8,MODE=INPUT\"\r\n   \"PMON::PORT=9,MODE=OUTPUT\"\r\n"
       "   \"PMON::PORT=10,MODE=OUTPUT\"\r\n"
       "   \"PMON::PORT=11,MODE=OUTPUT\"\r\n"
       "   \"PMON::PORT=12,MODE=OUTPUT\"\r\n"
       "   \"PMON::PORT=13,MODE=OUTPUT\"\r\n"
       "   \"PMON::PORT=14,MODE=OUTPUT\"\r\n"
       "   \"PMON::PORT=15,MODE=OUTPUT\"\r\n"
       "   \"PMON::PORT=16,MODE=OUTPUT\"\r\n;"},
    {"RTRV-ALM-ALL:::29:;", H "M  29 COMPLD\r\n;"},
    {"RTRV-ALM-ENV:::29:;", H "M  29 COMPLD\r\n;"},
    {"ED-DAT:::30::26-13-01,00-00-00;",
     H "M  30 DENY\r\n   IPNV\r\n   /* Parameter not valid */\r\n;"},
    {"INIT-SYS::ALARM:31::8;",
     H "M  31 DENY\r\n   IPNV\r\n   /* Parameter not valid */\r\n;"},
    /* A SID of up to 20 characters, blanks and quotes allowed. */
    {"SET-SID:::32::\"Polatis OXC\";", HN "M  32 COMPLD\r\n;"},
    {"SET-SID:::33::ABCDEFGHIJKLMNOPQRSTU;",
     HN "M  33 DENY\r\n   IPNV\r\n   /* Parameter not valid */\r\n;"},
    {"SET-SID:::34::Polatis OXC;", HN "M  34 COMPLD\r\n;"},
    {"SET-SID:::35::OCS-EMU;", H "M  35 COMPLD\r\n;"},
    {"FROB-NICATE:::36:;",
     H "M  36 DENY\r\n   IICM\r\n   /* Invalid command */\r\n;"},
    /* Logging out keeps the connection; another user's is refused. */
    {"CANC-USER::admin:37:;",
     H "M  37 DENY\r\n   PICC\r\n   /* Permission denied */\r\n;"},
    {"CANC-USER::root:38:;", H "M  38 COMPLD\r\n;"},
    {"RTRV-HDR:::39:;",
     H "M  39 DENY\r\n   PLNA\r\n   /* Not logged in */\r\n;"},
    {"ACT-USER::root:40::root;", H "M  40 COMPLD\r\n;"},
    {"ACT-USER::root:41::wrong;",
     H "M  41 DENY\r\n   PICC\r\n   /* Permission denied */\r\n;"},
};

/* The reply, parsed as the driver parses it, says what was meant. */
static void
driver_reads(const char *out)
{
	struct tl1_resp r;
	ssize_t         n = tl1_resp_parse(out, strlen(out), &r);
	const char     *dl = strstr(out, "DENY\r\n   ");
	char            code[8] = "";

	if (n != (ssize_t)strlen(out))
		fail_msg("the driver reads %zd of %zu bytes of: %s", n,
		         strlen(out), out);
	assert_int_equal(r.kind, TL1_RESP);
	if (dl != NULL) {
		sscanf(dl + 9, "%7[A-Z]", code);
		assert_int_equal(r.status, TL1_DENY);
		assert_string_equal(r.code, code);
		assert_non_null(strstr(out, r.comment));
	} else
		assert_int_equal(r.status, TL1_COMPLD);
	tl1_resp_free(&r);
}

/* All the commands in one session, as a client sends them; the replies
 * come back in order, one each. */
static void
converse(struct emu *e, const struct emu_tl1_dialect *d, const struct conv *c,
         size_t n)
{
	struct tl1_buf in = {0}, out = {0};
	char          *p, *next;
	size_t         i;

	for (i = 0; i < n; i++)
		assert_int_equal(tl1_buf_printf(&in, "%s\r\n", c[i].in), 0);
	assert_int_equal(emu_tl1_feed(e, d, in.p, in.len, &out), 0);
	assert_int_equal(tl1_buf_put(&out, "", 1), 0);
	emutest_zero_time(out.p);
	for (p = out.p, i = 0; i < n; i++, p = next) {
		/* A reply runs to its ";" line, the next starts "\r\n\n". */
		next = strstr(p + 1, "\r\n\n   ");
		if (next != NULL)
			*next = '\0';
		if (strcmp(p, c[i].out) != 0)
			fail_msg("%s\n  got:  %s\n  want: %s", c[i].in, p,
			         c[i].out);
		driver_reads(c[i].out);
		if (next == NULL) {
			assert_int_equal(i, n - 1);
			break;
		}
		*next = '\r';
	}
	tl1_buf_free(&in);
	tl1_buf_free(&out);
}

/* One session throughout, as a client would keep one. */
static void
test_emu_polatis_conformance(void **state)
{
	struct emu *e = emutest_new(8, 1000000, "root", "root");

	(void)state;
	converse(e, &emu_tl1_polatis, polatis,
	         sizeof(polatis) / sizeof(polatis[0]));
	emutest_del(e);
}

/* Whatever ends a line: \r\n, \n, \r alone, or nothing. */
static void
test_emu_polatis_terminators(void **state)
{
	static const char *const ends[] = {"\r\n", "\n", "\r", ""};
	struct emu              *e = emutest_new(8, 1000000, "root", "root");
	struct tl1_buf           out = {0};
	char                     in[256];
	size_t                   i;

	(void)state;
	for (i = 0; i < 4; i++) {
		out.len = 0;
		snprintf(in, sizeof(in),
		         "ACT-USER::root:1::root;%sRTRV-PATCH:::2:;%s",
		         ends[i], ends[i]);
		assert_int_equal(
		    emu_tl1_feed(e, &emu_tl1_polatis, in, strlen(in), &out),
		    0);
		assert_int_equal(tl1_buf_put(&out, "", 1), 0);
		assert_non_null(strstr(out.p, "M  1 COMPLD"));
		assert_non_null(strstr(out.p, "M  2 COMPLD"));
	}
	tl1_buf_free(&out);
	emutest_del(e);
}

/* An unnamed switch calls itself "( nil )": the driver's parser still
 * finds the SID and the reply. */
static void
test_emu_polatis_nil_sid(void **state)
{
	const char     *s = "\r\n\n   ( nil ) 24-01-02 03:04:05\r\n"
	                    "M  7 COMPLD\r\n   \"SYSTEM:SIZE=16x32\"\r\n;";
	struct tl1_resp r;

	(void)state;
	assert_int_equal(tl1_resp_parse(s, strlen(s), &r), (ssize_t)strlen(s));
	assert_string_equal(r.sid, "( nil )");
	assert_string_equal(r.tag, "7");
	assert_int_equal(r.nlines, 1);
	tl1_resp_free(&r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_emu_polatis_conformance),
	    cmocka_unit_test(test_emu_polatis_terminators),
	    cmocka_unit_test(test_emu_polatis_nil_sid),
	};

	log_init("test", 1, -1);
	return (cmocka_run_group_tests_name("emu_polatis", tests, NULL, NULL));
}

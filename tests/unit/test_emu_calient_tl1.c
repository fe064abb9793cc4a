/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_emu_calient_tl1.c: conformance of ocs-emu's CALIENT TL1
 * face.  Commands as Quali's cloudshell-L1-calient and labvault's
 * ocs_tl1.py send them (Quali ends lines with \r alone, labvault leaves
 * the CTAG out), each with the exact reply the emulator gives, in one
 * session through the emulator's own command path.  Every reply is also
 * read by the calient-tl1 driver's parsers (tl1.c for the frame, cal_tl1.c
 * for the data lines), which must read what was meant.
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

#include "ocs-drivers/cal_tl1.h"
#include "ocs-drivers/tl1.h"
#include "proto/base/version.h"
#include "tests/lib/emutest.h"
#include "testbed/ocs-emu/emu.h"

#define H "\r\n\n   OCS-EMU 00-00-00 00:00:00\r\n"
/* The device transcripts' prompt, with its blank. */
#define END ";\r\nagent> "

struct conv {
	const char *in, *out;
};

static const struct conv calient[] = {
    {"RTRV-NE;",
     H "M  0 DENY\r\n   PLNA\r\n   /* Login Not Active */\r\n" END},
    {"ACT-USER::admin:1::pxc;",
     H "M  1 COMPLD\r\n   \"admin:admin,2\"\r\n   /* NOTICE This is an "
       "emulated switch (ocs-emu). Unauthorized access or use may lead to "
       "prosecution. */\r\n" END},
    {"ACT-USER::admin:2::pxc;",
     H "M  2 DENY\r\n   IIAC\r\n   /* Already logged in */\r\n" END},
    {"RTRV-NE;",
     H "M  0 COMPLD\r\n   "
       "\"OCS-EMU:SERIALNUMBER=EMU000020,SWPACKAGE=" OCS_VERSION
       ",STATUS=OK,CHASSISTYPE=OCS-EMU-20x20,PLATFORM=VERSION2\"\r\n" END},
    /* Quali's two steps, in its group. */
    {"ENT-CRS::1.1.1,1.1.2:3::Quali,2WAY;", H "M  3 COMPLD\r\n" END},
    {"ACT-CRS::1.1.1,1.1.2:4::1.1.1-1.1.2,Quali;", H "M  4 COMPLD\r\n" END},
    /* labvault's, without CTAGs. */
    {"ENT-CRS::1.1.3,1.2.1:::,1WAY;", H "M  0 COMPLD\r\n" END},
    {"ACT-CRS::::1.1.3>1.2.1;", H "M  0 COMPLD\r\n" END},
    {"ENT-CRS::1.1.2,1.1.5:5::Quali,1WAY;",
     H "M  5 DENY\r\n   SROF\r\n   /* Failed: Ports are being used: 1.1.2 "
       "is in 1.1.1-1.1.2 */\r\n" END},
    {"ENT-CRS::1.1.5,9.9.9:6::Quali,1WAY;",
     H "M  6 DENY\r\n   IDNV\r\n   /* Invalid port in 1.1.5,9.9.9 */\r\n" END},
    {"RTRV-CRS:::::ALL;",
     H "M  0 COMPLD\r\n   \"1.1.1-1.1.2:SRCPORT=1.1.1,DSTPORT=1.1.2,GRPNAME="
       "Quali,CONNNAME=1.1.1-1.1.2,CONNTYPE=2WAY,AS=UMA,OS=RDY,OC=OK,PS=UPR,"
       "AL=CL\"\r\n   \"1.1.3>1.2.1:SRCPORT=1.1.3,DSTPORT=1.2.1,GRPNAME="
       "SYSTEM,CONNNAME=1.1.3>1.2.1,CONNTYPE=1WAY,AS=UMA,OS=RDY,OC=OK,PS="
       "UPR,AL=CL\"\r\n" END},
    /* One connection as clients ask after listing: GROUP,NAME (and
     * Quali's NAME,GROUP); an unknown one is IENE. */
    {"RTRV-CRS:::9::Quali,1.1.1-1.1.2;",
     H "M  9 COMPLD\r\n   \"1.1.1-1.1.2:SRCPORT=1.1.1,DSTPORT=1.1.2,GRPNAME="
       "Quali,CONNNAME=1.1.1-1.1.2,CONNTYPE=2WAY,AS=UMA,OS=RDY,OC=OK,PS=UPR,"
       "AL=CL\"\r\n" END},
    {"RTRV-CRS:::9::SYSTEM,1.1.3>1.2.1;",
     H "M  9 COMPLD\r\n   \"1.1.3>1.2.1:SRCPORT=1.1.3,DSTPORT=1.2.1,GRPNAME="
       "SYSTEM,CONNNAME=1.1.3>1.2.1,CONNTYPE=1WAY,AS=UMA,OS=RDY,OC=OK,PS="
       "UPR,AL=CL\"\r\n" END},
    {"RTRV-CRS:::9::1.1.1-1.1.2,Quali;",
     H "M  9 COMPLD\r\n   \"1.1.1-1.1.2:SRCPORT=1.1.1,DSTPORT=1.1.2,GRPNAME="
       "Quali,CONNNAME=1.1.1-1.1.2,CONNTYPE=2WAY,AS=UMA,OS=RDY,OC=OK,PS=UPR,"
       "AL=CL\"\r\n" END},
    {"RTRV-CRS:::9::Other,1.1.1-1.1.2;",
     H "M  9 DENY\r\n   IENE\r\n   /* Invalid connection Other */\r\n" END},
    {"RTRV-PORT-SUM::1.1.3;",
     H "M  0 COMPLD\r\n   \"1.1.3:ALIAS=NONE,INPWR=-3.0,OUTPWR=NONE,CONNNAME1="
       "1.1.3>1.2.1,CONNSTATE1=ACT,CONNNAME2=NONE,CONNSTATE2=NONE\"\r\n" END},
    /* A uni A>B holds A's in half and B's out half. */
    {"RTRV-PORT::1.2.1;",
     H "M  0 COMPLD\r\n   \"1.2.1:WX,NONE,TRANSIT:INAS=OOS-NP,INOS=OOS,INOC="
       "OK,INRS=NPR,OUTAS=IS,OUTOS=IS,OUTOC=OK,OUTRS=NPR\"\r\n" END},
    /* Quali's take-down, as its code and as its tests write it. */
    {"CANC-CRS:::::1.1.3>1.2.1;", H "M  0 COMPLD\r\n" END},
    {"RTRV-PORT-SUM::1.1.3;",
     H "M  0 COMPLD\r\n   \"1.1.3:ALIAS=NONE,INPWR=-3.0,OUTPWR=NONE,CONNNAME1="
       "1.1.3>1.2.1,CONNSTATE1=NONE,CONNNAME2=NONE,CONNSTATE2=NONE\"\r\n" END},
    {"DLT-CRS:::::1.1.3>1.2.1;", H "M  0 COMPLD\r\n" END},
    {"CANC-CRS::1.1.1,1.1.2:7::,Quali,1.1.1-1.1.2;", H "M  7 COMPLD\r\n" END},
    {"DLT-CRS::1.1.1,1.1.2:8::,Quali,1.1.1-1.1.2;", H "M  8 COMPLD\r\n" END},
    {"DLT-CRS::1.1.1-1.1.2;", H "M  0 DENY\r\n   IENE\r\n   /* Invalid "
                                "connection 1.1.1-1.1.2 */\r\n" END},
    {"RTRV-CRS;", H "M  0 COMPLD\r\n" END},
    {"DLT-CRS-ALL:::;", H "M  0 COMPLD\r\n" END},
    {"CANC-USER:::;", H "M  0 COMPLD\r\n" END},
    {"RTRV-CRS;",
     H "M  0 DENY\r\n   PLNA\r\n   /* Login Not Active */\r\n" END},
};

/* The frame as the driver reads it, and each data line by cal_tl1.c. */
static void
driver_reads(struct emu *e, const char *out)
{
	struct tl1_resp    r;
	struct cal_tl1_crs k;
	size_t             len = strlen(out) - strlen("\r\nagent> "), i;
	ssize_t            n = tl1_resp_parse(out, len, &r);
	char               nm[REST_NAME_MAX], err[300];
	uint32_t           p;
	double             in, o;
	int                fail;

	if (n != (ssize_t)len)
		fail_msg("the driver reads %zd of %zu bytes of: %s", n, len,
		         out);
	assert_int_equal(r.kind, TL1_RESP);
	for (i = 0; i < r.nlines; i++) {
		const char *l = r.lines[i];

		if (strstr(l, "SRCPORT="))
			assert_int_equal(
			    cal_tl1_crs(l, &e->names, &k, err, sizeof(err)),
			    0);
		else if (strstr(l, "CONNNAME1="))
			assert_int_equal(cal_tl1_sum(l, &e->names, &p, &in, &o,
			                             err, sizeof(err)),
			                 0);
		else if (strstr(l, ":WX,"))
			assert_int_equal(cal_tl1_port(l, nm, sizeof(nm), &fail,
			                              err, sizeof(err)),
			                 0);
	}
	tl1_resp_free(&r);
}

static void
test_emu_calient_tl1_conformance(void **state)
{
	struct emu    *e = emutest_new(20, 0, "admin", "pxc");
	struct tl1_buf in = {0}, out = {0};
	size_t         i, n = sizeof(calient) / sizeof(calient[0]);
	char          *p, *next;

	(void)state;
	/* Quali ends every command with \r alone. */
	for (i = 0; i < n; i++)
		assert_int_equal(tl1_buf_printf(&in, "%s\r", calient[i].in),
		                 0);
	assert_int_equal(emu_tl1_feed(e, &emu_tl1_calient, in.p, in.len, &out),
	                 0);
	assert_int_equal(tl1_buf_put(&out, "", 1), 0);
	emutest_zero_time(out.p);
	for (p = out.p, i = 0; i < n; i++, p = next) {
		next = strstr(p + 1, "\r\n\n   ");
		if (next != NULL)
			*next = '\0';
		if (strcmp(p, calient[i].out) != 0)
			fail_msg("%s\n  got:  %s\n  want: %s", calient[i].in,
			         p, calient[i].out);
		driver_reads(e, calient[i].out);
		if (next == NULL) {
			assert_int_equal(i, n - 1);
			break;
		}
		*next = '\r';
	}
	tl1_buf_free(&in);
	tl1_buf_free(&out);
	emutest_del(e);
}

/* The fixtures of Quali's driver tests (a real S162), read by ours. */
static void
test_cal_tl1_real_lines(void **state)
{
	static const char  names[][REST_NAME_MAX] = {"1.1.1", "1.1.2", "1.2.1",
	                                             "2.3.3", "2.3.6", "2.8.5",
	                                             "3.2.5", "6.1.1"};
	struct rest_names  t;
	struct cal_tl1_crs k;
	char               nm[REST_NAME_MAX], err[300];
	uint32_t           p;
	double             in, out;
	int                fail;

	(void)state;
	assert_int_equal(rest_names_set(&t, names, 8, err, sizeof(err)), 0);
	assert_int_equal(
	    cal_tl1_port("6.1.1:WX,TRANSIT,TRANSIT:INAS=IS,INOS=IS,INOC=OK,"
	                 "INRS=NPR,OUTAS=IS,OUTOS=IS,OUTOC=OK,OUTRS=NPR",
	                 nm, sizeof(nm), &fail, err, sizeof(err)),
	    0);
	assert_string_equal(nm, "6.1.1");
	assert_false(fail);
	assert_int_equal(
	    cal_tl1_crs("2.3.6-3.2.5:SRCPORT=2.3.6,DSTPORT=3.2.5,GRPNAME="
	                "DSTRAUB,CONNNAME=2.3.6-3.2.5,CONNTYPE=2WAY,AS=UMA,OS="
	                "RDY,OC=OK,PS=UPR,AL=CL",
	                &t, &k, err, sizeof(err)),
	    0);
	assert_true(k.x.bi && k.x.a == 5 && k.x.b == 7 && k.active && !k.fail);
	assert_string_equal(k.group, "DSTRAUB");
	assert_int_equal(
	    cal_tl1_crs("2.8.5>2.3.3:SRCPORT=2.8.5,DSTPORT=2.3.3,GRPNAME="
	                "DSTRAUB,CONNNAME=2.8.5>2.3.3,CONNTYPE=1WAY,AS=UMA,OS="
	                "RDY,OC=FAIL,PS=UPR,AL=CL",
	                &t, &k, err, sizeof(err)),
	    0);
	assert_true(!k.x.bi && k.x.a == 6 && k.x.b == 4 && k.fail);
	assert_int_equal(
	    cal_tl1_sum("1.1.1:ALIAS=NONE,INPWR=NONE,OUTPWR=-4.5,CONNNAME1="
	                "1.1.1>1.1.2,CONNSTATE1=ACT,CONNNAME2=NONE,CONNSTATE2="
	                "NONE",
	                &t, &p, &in, &out, err, sizeof(err)),
	    0);
	assert_true(p == 1 && in <= -90 && out > -4.6 && out < -4.4);
	/* What is refused, and says why. */
	assert_int_equal(cal_tl1_crs("x:SRCPORT=9.9.9,DSTPORT=1.1.1,CONNTYPE="
	                             "2WAY",
	                             &t, &k, err, sizeof(err)),
	                 -REST_EVALUE);
	assert_non_null(strstr(err, "SRCPORT=9.9.9"));
	assert_int_equal(cal_tl1_crs("x:SRCPORT=1.1.1,DSTPORT=1.1.2,CONNTYPE="
	                             "3WAY",
	                             &t, &k, err, sizeof(err)),
	                 -REST_EVALUE);
	assert_non_null(strstr(err, "CONNTYPE"));
	assert_int_equal(cal_tl1_sum("1.1.1:INPWR=hot,OUTPWR=NONE", &t, &p,
	                             &in, &out, err, sizeof(err)),
	                 -REST_EVALUE);
	assert_int_equal(
	    cal_tl1_port("no colon", nm, sizeof(nm), &fail, err, sizeof(err)),
	    -REST_EVALUE);
	rest_names_free(&t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_emu_calient_tl1_conformance),
	    cmocka_unit_test(test_cal_tl1_real_lines),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_emu_calient.c: conformance of ocs-emu's CALIENT REST
 * face.  Requests as real clients send them (RENAT's form-encoded add
 * and DELETE ?conn=, its port detail read as json()[0]; labvault's JSON
 * add with the owner's conn and group, delete and activate with
 * conn/group/name, its identity reads), each with the exact body the
 * emulator answers, run through the emulator's own resources (what the
 * HTTP server hands them).  Every answer is also read by the driver's
 * parsers (rest.c), which must read what was meant.
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

#include "ocs-drivers/rest.h"
#include "proto/base/version.h"
#include "tests/lib/emutest.h"
#include "testbed/ocs-emu/emu_rest_int.h"

#define OK  "[{\"status\":\"1\",\"msg\":\"Success\",\"description\":\"\"}]"
#define ERR "[{\"status\":\"0\",\"msg\":\"Failed\",\"description\":"

/* A lit path reads -3.0 dBm in, -4.0 out (1 dB through the switch). */
#define HALF(c)                                                               \
	"{\"conn\":\"" c "\",\"inp\":\"-3.0\",\"outp\":\"-4.0\",\"loss\":"    \
	"\"1.0\",\"alarm\":\"\",\"as\":\"IS\",\"os\":\"IS\",\"oc\":\"OK\","   \
	"\"state\":\"ACT\"}"
#define IDLE(c)                                                               \
	"{\"conn\":\"" c "\",\"inp\":\"-3.0\",\"outp\":\"NONE\",\"loss\":"    \
	"\"0.0\",\"alarm\":\"\",\"as\":\"OOS\",\"os\":\"OOS\",\"oc\":\"OK\"," \
	"\"state\":\"IDLE\"}"

struct step {
	const char *method, *uri, *body;
	int         form;
	const char *want;
};

static const struct step steps[] = {
    /* RENAT's bi link: two uni adds, form-encoded, to the collection. */
    {"POST", "/rest/crossconnects/", "id=add&in=1.1.1&out=1.1.2&dir=uni", 1,
     OK},
    {"POST", "/rest/crossconnects/", "id=add&in=1.1.2&out=1.1.1&dir=uni", 1,
     OK},
    /* A uni A>B runs through A's in half and B's out half (item 14). */
    {"GET", "/rest/ports/?id=detail&port=1.1.1", NULL, 0,
     "[{\"port\":\"1.1.1\",\"inas\":\"IS\",\"inos\":\"IS\",\"inoc\":\"OK\","
     "\"inpower\":\"-3.0\",\"incircuit\":\"1.1.1>1.1.2\",\"inowner\":"
     "\"TRANSIT\",\"inalias\":\"\",\"outas\":\"IS\",\"outos\":\"IS\","
     "\"outoc\":\"OK\",\"outpower\":\"-4.0\",\"outcircuit\":\"1.1.2>1.1.1\","
     "\"outowner\":\"TRANSIT\",\"outalias\":\"\"}]"},
    /* The two stay two uni connections, not one bi. */
    {"GET", "/rest/crossconnects/?id=list", NULL, 0,
     "[{\"name\":\"1.1.1>1.1.2\",\"group\":\"SYSTEM\",\"dir\":\"uni\","
     "\"band\":\"CBAND\",\"half1\":" HALF(
         "1.1.1>1.1.2") "},"
                        "{\"name\":\"1.1.2>1.1.1\",\"group\":\"SYSTEM\","
                        "\"dir\":\"uni\","
                        "\"band\":\"CBAND\",\"half1\":" HALF(
                            "1.1.2>1.1.1") "}]"},
    /* RENAT's delete, by the circuit a port detail showed. */
    {"DELETE", "/rest/crossconnects/?conn=1.1.1%3E1.1.2", NULL, 0, OK},
    {"DELETE", "/rest/crossconnects/?conn=1.1.1%3E1.1.2", NULL, 0,
     ERR "\"Connection 1.1.1>1.1.2 does not exist\"}]"},
    {"GET", "/rest/ports/?id=detail&port=1.1.1", NULL, 0,
     "[{\"port\":\"1.1.1\",\"inas\":\"OOS-NP\",\"inos\":\"OOS\",\"inoc\":"
     "\"OK\",\"inpower\":\"-3.0\",\"incircuit\":\"\",\"inowner\":\"NONE\","
     "\"inalias\":\"\",\"outas\":\"IS\",\"outos\":\"IS\",\"outoc\":\"OK\","
     "\"outpower\":\"-4.0\",\"outcircuit\":\"1.1.2>1.1.1\",\"outowner\":"
     "\"TRANSIT\",\"outalias\":\"\"}]"},
    /* labvault's add: the owner's name and group are kept (item 15). */
    {"POST", "/rest/crossconnects/?id=add",
     "{\"in\":\"1.1.3/1\",\"out\":\"1.2.1/1\",\"group\":\"Quali\",\"conn\":"
     "\"lab_a\",\"dir\":\"bi\",\"band\":\"CBAND\"}",
     0, OK},
    {"POST", "/rest/crossconnects/?id=add",
     "{\"in\":\"1.1.3\",\"out\":\"1.1.4\",\"conn\":\"lab_b\",\"dir\":\"uni\"}",
     0, ERR "\"Ports are being used: 1.1.3 is in lab_a\"}]"},
    {"GET", "/rest/crossconnects/?id=detail&conn=lab_a", NULL, 0,
     "[{\"name\":\"lab_a\",\"group\":\"Quali\",\"dir\":\"bi\",\"band\":"
     "\"CBAND\",\"half1\":" HALF("1.1.3>1.2.1") ",\"half2\":" HALF(
         "1.2.1>1.1.3") "}]"},
    /* Deactivate by labvault's parameters: it holds its ports, dark. */
    {"POST",
     "/rest/crossconnects/"
     "?id=deactivate&conn=1.1.3-1.2.1&group=Quali&name=lab_a",
     NULL, 0, OK},
    {"GET", "/rest/crossconnects/?id=detail&conn=1.1.3-1.2.1", NULL, 0,
     "[{\"name\":\"lab_a\",\"group\":\"Quali\",\"dir\":\"bi\",\"band\":"
     "\"CBAND\",\"half1\":" IDLE("1.1.3>1.2.1") ",\"half2\":" IDLE(
         "1.2.1>1.1.3") "}]"},
    {"POST", "/rest/crossconnects/?id=badd",
     "[{\"in\":\"1.2.1\",\"out\":\"1.1.5\",\"dir\":\"uni\"},{\"in\":"
     "\"1.1.6\",\"out\":\"1.1.7\",\"dir\":\"bi\"}]",
     0,
     "[{\"response\":{\"status\":\"0\",\"msg\":\"Failed\",\"description\":"
     "\"Ports are being used: 1.2.1 is in lab_a\"}},{\"response\":{"
     "\"status\":\"1\",\"msg\":\"Success\",\"description\":\"\"}}]"},
    {"POST",
     "/rest/crossconnects/"
     "?id=activate&conn=1.1.3-1.2.1&group=Quali&name=lab_a",
     NULL, 0, OK},
    {"POST", "/rest/crossconnects/?id=bdel",
     "[{\"conn\":\"lab_a\"},{\"conn\":\"1.1.6-1.1.7\"},{\"conn\":\"x\"}]", 0,
     "[{\"response\":{\"status\":\"1\",\"msg\":\"Success\",\"description\":"
     "\"\"}},{\"response\":{\"status\":\"1\",\"msg\":\"Success\","
     "\"description\":\"\"}},{\"response\":{\"status\":\"0\",\"msg\":"
     "\"Failed\",\"description\":\"Connection x does not exist\"}}]"},
    {"DELETE",
     "/rest/crossconnects/?id=delete&conn=1.1.2%3E1.1.1&group=SYSTEM&name="
     "1.1.2%3E1.1.1",
     NULL, 0, OK},
    {"GET", "/rest/crossconnects/?id=list", NULL, 0, "[]"},
    /* Port config: an alias and an admin state (fields inferred). */
    {"POST", "/rest/ports/?id=config",
     "{\"port\":\"1.1.4\",\"inalias\":\"h0-tx\",\"outas\":\"OOS\"}", 0, OK},
    {"POST", "/rest/ports/?id=config", "{\"port\":\"1.1.4\",\"inas\":\"UP\"}",
     0, ERR "\"Invalid value for inas of 1.1.4\"}]"},
    {"GET", "/rest/ports/?id=detail&port=1.1.4", NULL, 0,
     "[{\"port\":\"1.1.4\",\"inas\":\"OOS-NP\",\"inos\":\"OOS\",\"inoc\":"
     "\"OK\",\"inpower\":\"-3.0\",\"incircuit\":\"\",\"inowner\":\"NONE\","
     "\"inalias\":\"h0-tx\",\"outas\":\"OOS\",\"outos\":\"OOS\",\"outoc\":"
     "\"OK\",\"outpower\":\"NONE\",\"outcircuit\":\"\",\"outowner\":"
     "\"NONE\",\"outalias\":\"\"}]"},
    /* Identity as labvault reads it (item 16). */
    {"GET", "/rest/info/?id=softwareversion", NULL, 0,
     "{\"version\":\"ocs-emu " OCS_VERSION "\"}"},
    {"GET", "/rest/node/?id=summary&detail=SOFTWARE", NULL, 0,
     "[{\"name\":\"ocs-emu\",\"version\":\"" OCS_VERSION "\"}]"},
    {"GET", "/rest/node/?id=summary&detail=SYSCFG", NULL, 0,
     "{\"serialnumber\":\"EMU000020\",\"partnumber\":\"OCS-EMU-20x20\","
     "\"ports\":20}"},
    {"GET", "/rest/node/?id=summary&detail=HARDWARE", NULL, 0,
     "{\"nodeSysConfigInfo\":{\"serialnumber\":\"EMU000020\",\"partnumber\":"
     "\"OCS-EMU-20x20\",\"ports\":20}}"},
    {"GET", "/rest/info/?id=restversion", NULL, 0,
     "[{\"restversion\":\"1.0\"}]"},
    /* Refusals name the value. */
    {"POST", "/rest/crossconnects/", "id=add&in=1.1.1&out=9.9.9&dir=uni", 1,
     ERR "\"Bad request: form field out: \\\"9.9.9\\\" is not a port of "
         "this switch\"}]"},
    {"GET", "/rest/ports/?id=detail&port=1.9.1", NULL, 0,
     ERR "\"Invalid port 1.9.1\"}]"},
};

/* As the HTTP face does: the target in origin form, then by resource. */
static void
serve(struct emu *e, const struct step *s, struct answer *a)
{
	const char     *uri = emu_rest_origin(s->uri);
	struct rest_req q = {.method = s->method,
	                     .uri = uri,
	                     .body = s->body,
	                     .len = s->body ? strlen(s->body) : 0,
	                     .form = s->form};

	memset(a, 0, sizeof(*a));
	a->status = 500;
	if (strncmp(uri, "/rest/crossconnects", 19) == 0)
		emu_rest_crossconnects(e, &q, a);
	else if (strncmp(uri, "/rest/ports", 11) == 0)
		emu_rest_ports(e, &q, a);
	else
		emu_rest_info(e, &q, a);
}

/* The driver's parsers read the answer as it was meant. */
static void
driver_reads(struct emu *e, const struct step *s)
{
	struct rest_result *r;
	struct rest_xc     *x;
	struct rest_port    p;
	size_t              n;
	char                err[300];
	const char         *w = s->want;

	if (strstr(w, "\"status\"") != NULL) {
		assert_int_equal(rest_result_parse(w, strlen(w), 0, &r, &n,
		                                   err, sizeof(err)),
		                 0);
		const char *one = strstr(w, "\"status\":\"1\"");
		const char *zero = strstr(w, "\"status\":\"0\"");

		assert_int_equal(r[0].ok,
		                 one != NULL && (zero == NULL || one < zero));
		free(r);
	} else if (strstr(s->uri, "crossconnects/?id=")) {
		assert_int_equal(rest_list_parse(w, strlen(w), &e->names, &x,
		                                 &n, err, sizeof(err)),
		                 0);
		free(x);
	} else if (strstr(s->uri, "ports/?id=detail")) {
		assert_int_equal(rest_detail_parse(w, strlen(w), &e->names, &p,
		                                   err, sizeof(err)),
		                 0);
		assert_string_equal(p.inconn, strstr(w, "\"incircuit\":\"1")
		                                  ? "1.1.1>1.1.2"
		                                  : "");
	}
}

static void
test_emu_calient_steps(void **state)
{
	struct emu   *e = emutest_new(20, 0, "", "");
	struct answer a;
	size_t        i;

	(void)state;
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		serve(e, &steps[i], &a);
		if (a.body == NULL || strcmp(a.body, steps[i].want) != 0)
			fail_msg("step %zu: %s %s\n got: %s\nwant: %s", i,
			         steps[i].method, steps[i].uri,
			         a.body ? a.body : "(null)", steps[i].want);
		assert_int_equal(a.status, 200);
		driver_reads(e, &steps[i]);
		free(a.body);
	}
	emutest_del(e);
}

/*
 * CALIENT's own sample for port power sends absolute-form targets ("GET
 * http://HOST/rest/crossconnects/?id=detail&conn=..."); a server must
 * take them (RFC 7230 sect. 5.3.2): every resource and method answers
 * as it does to the origin form.
 */
static void
test_emu_calient_absolute_form(void **state)
{
	static const struct step add = {
	    "POST", "http://192.0.2.7/rest/crossconnects/?id=add",
	    "{\"in\":\"1.1.1\",\"out\":\"1.1.2\",\"dir\":\"bi\","
	    "\"group\":\"G1\",\"conn\":\"c1\"}",
	    0, OK};
	static const char *const pairs[][2] = {
	    {"http://192.0.2.7/rest/crossconnects/?id=detail&conn=c1",
	     "/rest/crossconnects/?id=detail&conn=c1"},
	    {"HTTP://switch:8080/rest/crossconnects/?id=list",
	     "/rest/crossconnects/?id=list"},
	    {"http://[2001:db8::1]/rest/ports/?id=summary",
	     "/rest/ports/?id=summary"},
	    {"https://switch/rest/ports/?id=detail&port=1.1.1",
	     "/rest/ports/?id=detail&port=1.1.1"},
	    {"http://switch/rest/info/?id=softwareversion",
	     "/rest/info/?id=softwareversion"},
	};
	struct emu   *e = emutest_new(20, 0, "", "");
	struct answer a, b;
	struct step   sa = {"GET", NULL, NULL, 0, NULL}, sb = sa;
	size_t        i;

	(void)state;
	assert_string_equal(emu_rest_origin("/rest/ports/?id=x"),
	                    "/rest/ports/?id=x");
	assert_string_equal(emu_rest_origin("http://h"), "/");
	assert_string_equal(emu_rest_origin("http://h?id=list"), "/");
	serve(e, &add, &a);
	assert_string_equal(a.body, OK);
	free(a.body);
	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		sa.uri = pairs[i][0];
		sb.uri = pairs[i][1];
		serve(e, &sa, &a);
		serve(e, &sb, &b);
		assert_int_equal(a.status, 200);
		if (strcmp(a.body, b.body) != 0 || strstr(a.body, "Unknown"))
			fail_msg("%s\n got: %s\nwant: %s", sa.uri, a.body,
			         b.body);
		free(a.body);
		free(b.body);
	}
	/* And a change: DELETE in absolute form. */
	sa.method = "DELETE";
	sa.uri = "http://192.0.2.7/rest/crossconnects/?id=delete&conn=c1";
	serve(e, &sa, &a);
	assert_string_equal(a.body, OK);
	free(a.body);
	emutest_del(e);
}

/* The summary is what the driver numbers its ports by, and patches made
 * by the other faces show as connections named by their ports. */
static void
test_emu_calient_summary(void **state)
{
	struct emu       *e = emutest_new(20, 0, "", "");
	struct step       s = {"GET", "/rest/ports/?id=summary", NULL, 0, ""};
	struct drv_patch  p = {3, 20 + 17};
	struct oxc_err    oe;
	struct answer     a;
	struct rest_names t;
	struct rest_port *rows;
	char              err[300];

	(void)state;
	assert_int_equal(oxc_connect(&e->x, &p, 1, 0, &oe), 0);
	serve(e, &s, &a);
	assert_int_equal(rest_ports_parse(a.body, strlen(a.body), &t, &rows,
	                                  err, sizeof(err)),
	                 0);
	assert_int_equal(t.n, 20);
	assert_string_equal(t.name[16], "1.2.1");
	assert_string_equal(rows[2].inconn, "1.1.3>1.2.1");
	assert_string_equal(rows[16].inconn, "1.1.3>1.2.1"); /* "conn" */
	free(rows);
	rest_names_free(&t);
	free(a.body);
	emutest_del(e);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_emu_calient_steps),
	    cmocka_unit_test(test_emu_calient_summary),
	    cmocka_unit_test(test_emu_calient_absolute_form),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}

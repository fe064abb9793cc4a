/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_rest.c: the CALIENT REST codec on the shapes real
 * switches send (RENAT's port detail, labvault's list rows with
 * half1/half2, status "0"/"1" single and bulk results) and on malformed
 * JSON, missing fields, wrong types and oversized bodies.
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

#include "ocs-drivers/rest.h"

#define S(x) (x), strlen(x)

static void
test_port_names(void **state)
{
	char     b[REST_NAME_MAX];
	uint32_t p;

	(void)state;
	assert_string_equal(rest_port_fmt(1, b, sizeof(b)), "1.1.1");
	assert_string_equal(rest_port_fmt(16, b, sizeof(b)), "1.1.16");
	assert_string_equal(rest_port_fmt(17, b, sizeof(b)), "1.2.1");
	assert_string_equal(rest_port_fmt(4096, b, sizeof(b)), "1.256.16");
	assert_int_equal(rest_port_parse("1.2.1", &p), 0);
	assert_int_equal(p, 17);
	assert_int_equal(rest_port_parse("1.2.7/1", &p), 0);
	assert_int_equal(p, 23);
	/* Other shelves, sub-ports, junk and overflow are refused. */
	assert_int_equal(rest_port_parse("3.1.4", &p), -REST_EVALUE);
	assert_int_equal(rest_port_parse("1.1.4/2", &p), -REST_EVALUE);
	assert_int_equal(rest_port_parse("1.1.17", &p), -REST_EVALUE);
	assert_int_equal(rest_port_parse("1.0.1", &p), -REST_EVALUE);
	assert_int_equal(rest_port_parse("10.3a.1", &p), -REST_EVALUE);
	assert_int_equal(rest_port_parse("1.1.1 ", &p), -REST_EVALUE);
	assert_int_equal(rest_port_parse("1.99999999.1", &p), -REST_EVALUE);
	assert_int_equal(rest_port_parse("", &p), -REST_EVALUE);
	assert_int_equal(rest_port_parse("-1.1.1", &p), -REST_EVALUE);
}

static void
test_conn_names(void **state)
{
	struct rest_xc x;
	char           b[2 * REST_NAME_MAX];

	(void)state;
	assert_int_equal(rest_conn_parse("1.1.1-1.2.1", &x), 0);
	assert_true(x.bi && x.a == 1 && x.b == 17);
	assert_string_equal(rest_conn_fmt(&x, b, sizeof(b)), "1.1.1-1.2.1");
	assert_int_equal(rest_conn_parse("3.3.1>3.3.2", &x), -REST_EVALUE);
	assert_int_equal(rest_conn_parse("1.3.1>1.3.2", &x), 0);
	assert_true(!x.bi && x.a == 33 && x.b == 34);
	assert_int_equal(rest_conn_parse("1.1.1", &x), -REST_EVALUE);
	assert_int_equal(rest_conn_parse("1.1.1--1.1.2", &x), -REST_EVALUE);
}

/* RENAT's docstring, verbatim apart from the shelf (we use shelf 1). */
static const char renat_detail[] =
    "{\"port\":\"1.3.1\",\"inas\":\"IS\",\"inos\":\"OOS\",\"inoc\":\"NOHW\","
    "\"inpower\":\"-3.4\",\"inopt\":\"-17.0\",\"inopth\":\"13.0\","
    "\"inoptc\":\"-20.0\",\"incircuit\":\"1.3.1>1.3.2\",\"inowner\":"
    "\"TRANSIT\",\"inalias\":\"\",\"outas\":\"OOS-NP\",\"outos\":\"OOS\","
    "\"outoc\":\"NOHW\",\"outpower\":\"-4.8\",\"outopwdh\":\"-20.0\","
    "\"outopwct\":\"-23.0\",\"outcircuit\":\"\",\"outowner\":\"NONE\","
    "\"outalias\":\"\"}";

static void
test_detail(void **state)
{
	struct rest_port p, q;
	char             err[200], *s;

	(void)state;
	assert_int_equal(
	    rest_detail_parse(S(renat_detail), &p, err, sizeof(err)), 0);
	assert_int_equal(p.port, 33);
	assert_true(p.inpower > -3.41 && p.inpower < -3.39);
	assert_true(p.outpower > -4.81 && p.outpower < -4.79);
	assert_string_equal(p.conn, "1.3.1>1.3.2");
	assert_true(p.fail); /* NOHW */
	/* Round trip through our formatter, as a 1-element array too. */
	p.fail = 0;
	s = rest_detail_fmt(&p);
	assert_int_equal(rest_detail_parse(S(s), &q, err, sizeof(err)), 0);
	assert_int_equal(q.port, 33);
	assert_false(q.fail);
	free(s);
	assert_int_equal(rest_detail_parse(S("[{\"port\":\"1.1.2\","
	                                     "\"inpower\":\"NONE\"}]"),
	                                   &q, err, sizeof(err)),
	                 0);
	assert_true(q.port == 2 && q.inpower <= -90);
	assert_int_equal(rest_detail_parse(S("{\"port\":\"1.1.2\","
	                                     "\"inpower\":\"-3x\"}"),
	                                   &q, err, sizeof(err)),
	                 -REST_EVALUE);
	assert_non_null(strstr(err, "inpower"));
	assert_int_equal(
	    rest_detail_parse(S("{\"port\":7}"), &q, err, sizeof(err)),
	    -REST_ESHAPE);
	assert_non_null(strstr(err, "port"));
}

/* labvault-style rows: a bi connection has half1 and half2. */
static const char list_real[] =
    "[{\"name\":\"1.1.1-1.2.1\",\"group\":\"SYSTEM\",\"dir\":\"bi\","
    "\"band\":\"CBAND\",\"half1\":{\"conn\":\"1.1.1>1.2.1\",\"inp\":"
    "\"-3.1\",\"outp\":\"-4.2\",\"loss\":\"1.1\",\"alarm\":\"\",\"as\":"
    "\"IS\",\"os\":\"IS\",\"oc\":\"OK\",\"state\":\"ACT\"},\"half2\":{"
    "\"conn\":\"1.2.1>1.1.1\",\"inp\":\"-3.0\",\"outp\":\"-4.0\",\"loss\":"
    "\"1.0\",\"oc\":\"OK\"}},"
    "{\"name\":\"\",\"group\":\"Quali\",\"half1\":{\"conn\":\"1.1.5>1.1.6\","
    "\"oc\":\"FAIL\"},\"half2\":null}]";

static void
test_list(void **state)
{
	struct rest_xc *x;
	size_t          n;
	char            err[200];

	(void)state;
	assert_int_equal(
	    rest_list_parse(S(list_real), 64, &x, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 2);
	assert_true(x[0].bi && x[0].a == 1 && x[0].b == 17);
	assert_true(!x[1].bi && x[1].a == 5 && x[1].b == 6);
	free(x);
	/* Size check: port 17 on a 16-port switch. */
	assert_int_equal(
	    rest_list_parse(S(list_real), 16, &x, &n, err, sizeof(err)),
	    -REST_EVALUE);
	assert_non_null(strstr(err, "list[0].name"));
	/* Direction disagreeing with the name. */
	assert_int_equal(
	    rest_list_parse(S("[{\"name\":\"1.1.1-1.1.2\",\"dir\":\"uni\"}]"),
	                    0, &x, &n, err, sizeof(err)),
	    -REST_EVALUE);
	assert_non_null(strstr(err, "dir"));
	/* half1 of another connection. */
	assert_int_equal(
	    rest_list_parse(S("[{\"name\":\"1.1.1-1.1.2\",\"half1\":{\"conn\":"
	                      "\"1.1.3>1.1.2\"}}]"),
	                    0, &x, &n, err, sizeof(err)),
	    -REST_EVALUE);
	assert_non_null(strstr(err, "half1.conn"));
	/* No name at all; a bi connection of a port to itself. */
	assert_int_equal(rest_list_parse(S("[{\"group\":\"SYSTEM\"}]"), 0, &x,
	                                 &n, err, sizeof(err)),
	                 -REST_ESHAPE);
	assert_int_equal(rest_list_parse(S("[{\"name\":\"1.1.1-1.1.1\"}]"), 0,
	                                 &x, &n, err, sizeof(err)),
	                 -REST_EVALUE);
	assert_int_equal(rest_list_parse(S("{}"), 0, &x, &n, err, sizeof(err)),
	                 -REST_ESHAPE);
	assert_int_equal(rest_list_parse(S("[]"), 0, &x, &n, err, sizeof(err)),
	                 0);
	assert_int_equal(n, 0);
	free(x);
}

static void
test_bulk_bodies(void **state)
{
	struct rest_xc in[3] = {{1, 17, 1}, {2, 3, 0}, {4, 5, 1}}, *x;
	size_t         n;
	char           err[200], *s;

	(void)state;
	s = rest_badd_fmt(in, 3);
	assert_string_equal(s, "[{\"in\":\"1.1.1\",\"out\":\"1.2.1\",\"dir\":"
	                       "\"bi\"},{\"in\":\"1.1.2\",\"out\":\"1.1.3\","
	                       "\"dir\":\"uni\"},{\"in\":\"1.1.4\",\"out\":"
	                       "\"1.1.5\",\"dir\":\"bi\"}]");
	assert_int_equal(rest_badd_parse(S(s), 32, &x, &n, err, sizeof(err)),
	                 0);
	assert_int_equal(n, 3);
	assert_memory_equal(x, in, sizeof(in));
	free(x);
	free(s);
	/* The single add of the spec, with its extra fields. */
	assert_int_equal(
	    rest_badd_parse(S("{\"in\":\"1.1.1\",\"out\":\"1.2.1\",\"group\":"
	                      "\"SYSTEM\",\"conn\":\"lab_a\",\"dir\":\"bi\","
	                      "\"band\":\"CBAND\"}"),
	                    0, &x, &n, err, sizeof(err)),
	    0);
	assert_true(n == 1 && x[0].bi && x[0].b == 17);
	free(x);
	assert_int_equal(rest_badd_parse(S("[{\"in\":\"1.1.1\",\"out\":"
	                                   "\"1.2.1\",\"dir\":\"both\"}]"),
	                                 0, &x, &n, err, sizeof(err)),
	                 -REST_EVALUE);
	assert_non_null(strstr(err, "crossconnects[0].dir"));
	assert_int_equal(rest_badd_parse(S("[{\"in\":1,\"out\":\"1.2.1\","
	                                   "\"dir\":\"bi\"}]"),
	                                 0, &x, &n, err, sizeof(err)),
	                 -REST_ESHAPE);
	assert_non_null(strstr(err, "crossconnects[0].in"));
	assert_int_equal(rest_badd_parse(S("[{\"in\":\"1.1.1\",\"dir\":"
	                                   "\"bi\"}]"),
	                                 0, &x, &n, err, sizeof(err)),
	                 -REST_ESHAPE);
	assert_non_null(strstr(err, "\"out\" missing"));
	s = rest_bdel_fmt(in, 2);
	assert_string_equal(s, "[{\"conn\":\"1.1.1-1.2.1\"},{\"conn\":"
	                       "\"1.1.2>1.1.3\"}]");
	assert_int_equal(rest_bdel_parse(S(s), 32, &x, &n, err, sizeof(err)),
	                 0);
	assert_int_equal(n, 2);
	assert_memory_equal(x, in, 2 * sizeof(*x));
	free(x);
	free(s);
	assert_int_equal(rest_bdel_parse(S("[{\"conn\":\"lab_a\"}]"), 0, &x,
	                                 &n, err, sizeof(err)),
	                 -REST_EVALUE);
	assert_non_null(strstr(err, "lab_a"));
}

static void
test_results(void **state)
{
	struct rest_result *r;
	size_t              n;
	char                err[200];

	(void)state;
	/* RENAT: single add/delete. */
	assert_int_equal(
	    rest_result_parse(S("[{\"status\":\"1\",\"msg\":\"ok\","
	                        "\"description\":\"\"}]"),
	                      1, &r, &n, err, sizeof(err)),
	    0);
	assert_true(n == 1 && r[0].ok);
	free(r);
	/* Ryu app: bulk, one refused with its text. */
	assert_int_equal(
	    rest_result_parse(
	        S("[{\"response\":{\"status\":\"1\"}},{\"response\""
	          ":{\"status\":\"0\",\"msg\":\"Failed\","
	          "\"description\":\"Ports are being used\"}}]"),
	        2, &r, &n, err, sizeof(err)),
	    0);
	assert_true(n == 2 && r[0].ok && !r[1].ok);
	assert_string_equal(r[1].text, "Failed: Ports are being used");
	free(r);
	/* Status as a number; a control character in the text. */
	assert_int_equal(
	    rest_result_parse(S("{\"status\":0,\"msg\":\"a\\nb\"}"), 0, &r, &n,
	                      err, sizeof(err)),
	    0);
	assert_true(!r[0].ok);
	assert_string_equal(r[0].text, "a b");
	free(r);
	assert_int_equal(rest_result_parse(S("[{\"status\":\"2\"}]"), 1, &r,
	                                   &n, err, sizeof(err)),
	                 -REST_ESHAPE);
	assert_int_equal(rest_result_parse(S("[{\"status\":\"1\"}]"), 2, &r,
	                                   &n, err, sizeof(err)),
	                 -REST_ESHAPE);
	assert_non_null(strstr(err, "1 items for 2 sent"));
	assert_int_equal(rest_result_parse(S("<html>500</html>"), 1, &r, &n,
	                                   err, sizeof(err)),
	                 -REST_EJSON);
	assert_non_null(strstr(err, "not JSON"));
	assert_int_equal(rest_result_parse("", 0, 1, &r, &n, err, sizeof(err)),
	                 -REST_EJSON);
}

static void
test_hostile(void **state)
{
	struct rest_xc *x;
	size_t          n, k;
	char            err[200], *big;

	(void)state;
	/* Over the size limit: refused before parsing. */
	big = malloc(REST_BODY_MAX + 2);
	memset(big, ' ', REST_BODY_MAX + 1);
	big[0] = '[';
	big[REST_BODY_MAX] = ']';
	assert_int_equal(rest_list_parse(big, REST_BODY_MAX + 1, 0, &x, &n,
	                                 err, sizeof(err)),
	                 -REST_ESIZE);
	assert_non_null(strstr(err, "limit"));
	free(big);
	/* Deep nesting. */
	big = malloc(4001);
	for (k = 0; k < 2000; k++) {
		big[k] = '[';
		big[4000 - 1 - k] = ']';
	}
	big[4000] = '\0';
	assert_int_equal(
	    rest_list_parse(big, 4000, 0, &x, &n, err, sizeof(err)),
	    -REST_EJSON);
	free(big);
	/* Duplicate keys, embedded NUL in a name, truncated JSON. */
	assert_int_equal(rest_list_parse(S("[{\"name\":\"1.1.1-1.1.2\","
	                                   "\"name\":\"1.1.3-1.1.4\"}]"),
	                                 0, &x, &n, err, sizeof(err)),
	                 -REST_EJSON);
	assert_int_equal(rest_badd_parse(S("[{\"in\":\"1.1.1\\u0000\",\"out\":"
	                                   "\"1.1.2\",\"dir\":\"bi\"}]"),
	                                 0, &x, &n, err, sizeof(err)),
	                 -REST_ESHAPE);
	assert_int_equal(
	    rest_list_parse(S("[{\"name\":"), 0, &x, &n, err, sizeof(err)),
	    -REST_EJSON);
}

static void
test_ports_summary(void **state)
{
	struct rest_port p[20];
	uint32_t         n, i;
	char             err[200], *s;

	(void)state;
	memset(p, 0, sizeof(p));
	for (i = 0; i < 20; i++)
		p[i].port = i + 1;
	s = rest_ports_fmt(p, 20);
	assert_int_equal(rest_ports_parse(S(s), &n, NULL, err, sizeof(err)),
	                 0);
	assert_int_equal(n, 20);
	free(s);
	/* A gap or a repeat in the numbering. */
	p[5].port = 30;
	s = rest_ports_fmt(p, 20);
	assert_int_equal(rest_ports_parse(S(s), &n, NULL, err, sizeof(err)),
	                 -REST_EVALUE);
	assert_non_null(strstr(err, "ports[5].port"));
	free(s);
	p[5].port = 5;
	s = rest_ports_fmt(p, 20);
	assert_int_equal(rest_ports_parse(S(s), &n, NULL, err, sizeof(err)),
	                 -REST_EVALUE);
	assert_non_null(strstr(err, "twice"));
	free(s);
	assert_int_equal(rest_ports_parse(S("[]"), &n, NULL, err, sizeof(err)),
	                 -REST_ESHAPE);
}

static void
test_query(void **state)
{
	char b[64];

	(void)state;
	assert_int_equal(rest_query_get("/rest/crossconnects/?id=detail&conn="
	                                "1.1.1%3E1.2.1",
	                                "conn", b, sizeof(b)),
	                 0);
	assert_string_equal(b, "1.1.1>1.2.1");
	assert_int_equal(rest_query_get("/x/?id=list", "id", b, sizeof(b)), 0);
	assert_string_equal(b, "list");
	assert_int_equal(rest_query_get("/x/?xid=list", "id", b, sizeof(b)),
	                 -ENOENT);
	assert_int_equal(rest_query_get("/x/", "id", b, sizeof(b)), -ENOENT);
	assert_int_equal(rest_query_get("/x/?id=%zz", "id", b, sizeof(b)),
	                 -EINVAL);
	assert_int_equal(rest_query_get("/x/?id=%00", "id", b, sizeof(b)),
	                 -EINVAL);
	assert_int_equal(rest_query_get("/x/?id=%4", "id", b, sizeof(b)),
	                 -EINVAL);
	assert_int_equal(rest_query_get("/x/?id=0123456789", "id", b, 5),
	                 -EINVAL);
}

static void
test_map_pairing(void **state)
{
	uint16_t       map[9] = {0}, back[9] = {0};
	struct rest_xc x[8];
	size_t         n, i;

	(void)state;
	/* N = 8: 1<->3 duplex, 2->6 one way, 4->12 (4>4 loopback). */
	map[1] = 8 + 3;
	map[3] = 8 + 1;
	map[2] = 8 + 6;
	map[4] = 8 + 4;
	n = rest_xc_from_map(map, 8, x);
	assert_int_equal(n, 3);
	assert_true(x[0].bi && x[0].a == 1 && x[0].b == 3);
	assert_true(!x[1].bi && x[1].a == 2 && x[1].b == 6);
	assert_true(!x[2].bi && x[2].a == 4 && x[2].b == 4);
	for (i = 0; i < n; i++)
		assert_int_equal(rest_xc_to_map(&x[i], 8, back), 0);
	assert_memory_equal(map, back, sizeof(map));
	/* A clash: egress of 6 already used by 2. */
	x[0] = (struct rest_xc){5, 6, 0};
	assert_int_equal(rest_xc_to_map(&x[0], 8, back), -REST_EVALUE);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_port_names),
	    cmocka_unit_test(test_conn_names),
	    cmocka_unit_test(test_detail),
	    cmocka_unit_test(test_list),
	    cmocka_unit_test(test_bulk_bodies),
	    cmocka_unit_test(test_results),
	    cmocka_unit_test(test_hostile),
	    cmocka_unit_test(test_ports_summary),
	    cmocka_unit_test(test_query),
	    cmocka_unit_test(test_map_pairing),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}

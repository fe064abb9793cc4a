/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_rest.c: the CALIENT REST codec on the shapes real
 * switches send (RENAT's port detail, labvault's list rows with
 * half1/half2 and owners' names, ports on other shelves with gaps, RENAT's
 * form-encoded add, status "0"/"1" single and bulk results) and on
 * malformed JSON, missing fields, wrong types and oversized bodies.
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

/* The emulator's names, 16 ports per module on shelf 1. */
static struct rest_names emu;
/* A real switch's: other shelves, 8 per module, gaps (labvault renders
 * 6 shelves of banks of 8; RENAT's detail is of 3.3.1). */
static struct rest_names dev;
static const char        dev_names[][REST_NAME_MAX] = {
           "6.1.1", "3.3.2", "1.1.1", "3.3.1", "1.1.8", "1.2.1", "3.3.8/1", "1.1.2"};

static int
setup(void **state)
{
	char err[200];

	(void)state;
	if (rest_names_default(&emu, 64) != 0)
		return (-1);
	return (rest_names_set(&dev, dev_names, 8, err, sizeof(err)));
}

static int
teardown(void **state)
{
	(void)state;
	rest_names_free(&emu);
	rest_names_free(&dev);
	return (0);
}

static void
test_port_names(void **state)
{
	char     b[REST_NAME_MAX], err[200];
	uint32_t p;

	(void)state;
	assert_string_equal(rest_port_fmt(&emu, 1, b, sizeof(b)), "1.1.1");
	assert_string_equal(rest_port_fmt(&emu, 16, b, sizeof(b)), "1.1.16");
	assert_string_equal(rest_port_fmt(&emu, 17, b, sizeof(b)), "1.2.1");
	assert_string_equal(rest_port_fmt(&emu, 65, b, sizeof(b)), "?");
	assert_int_equal(rest_port_parse(&emu, "1.2.1", &p), 0);
	assert_int_equal(p, 17);
	assert_int_equal(rest_port_parse(&emu, "1.2.7/1", &p), 0);
	assert_int_equal(p, 23);
	/* Sorted by shelf, module, port: 1.1.1 1.1.2 1.1.8 1.2.1 3.3.1
	 * 3.3.2 3.3.8 6.1.1, as the device spells them. */
	assert_string_equal(rest_port_fmt(&dev, 1, b, sizeof(b)), "1.1.1");
	assert_string_equal(rest_port_fmt(&dev, 3, b, sizeof(b)), "1.1.8");
	assert_string_equal(rest_port_fmt(&dev, 7, b, sizeof(b)), "3.3.8/1");
	assert_string_equal(rest_port_fmt(&dev, 8, b, sizeof(b)), "6.1.1");
	assert_int_equal(rest_port_parse(&dev, "3.3.1", &p), 0);
	assert_int_equal(p, 5);
	assert_int_equal(rest_port_parse(&dev, "3.3.8", &p), 0);
	assert_int_equal(p, 7);
	assert_int_equal(rest_port_parse(&dev, "6.1.1/1", &p), 0);
	assert_int_equal(p, 8);
	/* Not on this switch; malformed. */
	assert_int_equal(rest_port_parse(&dev, "3.3.3", &p), -REST_EVALUE);
	assert_int_equal(rest_port_parse(&emu, "3.1.4", &p), -REST_EVALUE);
	assert_int_equal(rest_port_parse(&emu, "1.1.4/2", &p), -REST_EVALUE);
	assert_int_equal(rest_port_parse(&emu, "1.0.1", &p), -REST_EVALUE);
	assert_int_equal(rest_port_parse(&emu, "10.3a.1", &p), -REST_EVALUE);
	assert_int_equal(rest_port_parse(&emu, "1.1.1 ", &p), -REST_EVALUE);
	assert_int_equal(rest_port_parse(&emu, "1.99999999.1", &p),
	                 -REST_EVALUE);
	assert_int_equal(rest_port_parse(&emu, "", &p), -REST_EVALUE);
	assert_int_equal(rest_port_parse(&emu, "-1.1.1", &p), -REST_EVALUE);
	assert_int_equal(rest_port_parse(NULL, "1.1.1", &p), -REST_EVALUE);
	/* A table refuses repeats (1.1.1 and 1.1.1/1) and junk. */
	{
		struct rest_names t;
		const char        rep[][REST_NAME_MAX] = {"1.1.1", "2.1.1",
		                                          "1.1.1/1"};
		const char        bad[][REST_NAME_MAX] = {"1.1.1", "1.a.1"};

		assert_int_equal(rest_names_set(&t, rep, 3, err, sizeof(err)),
		                 -REST_EVALUE);
		assert_non_null(strstr(err, "ports[2].port"));
		assert_non_null(strstr(err, "twice"));
		assert_int_equal(rest_names_set(&t, bad, 2, err, sizeof(err)),
		                 -REST_EVALUE);
		assert_non_null(strstr(err, "1.a.1"));
		assert_int_equal(rest_names_set(&t, bad, 0, err, sizeof(err)),
		                 -REST_EVALUE);
	}
}

static void
test_conn_names(void **state)
{
	struct rest_xc  x;
	struct rest_ref r;
	char            b[REST_CONN_MAX];

	(void)state;
	assert_int_equal(rest_conn_parse(&emu, "1.1.1-1.2.1", &x), 0);
	assert_true(x.bi && x.a == 1 && x.b == 17);
	assert_string_equal(rest_conn_fmt(&emu, &x, b, sizeof(b)),
	                    "1.1.1-1.2.1");
	assert_int_equal(rest_conn_parse(&emu, "3.3.1>3.3.2", &x),
	                 -REST_EVALUE);
	assert_int_equal(rest_conn_parse(&dev, "3.3.1>3.3.2", &x), 0);
	assert_true(!x.bi && x.a == 5 && x.b == 6);
	assert_int_equal(rest_conn_parse(&emu, "1.1.1", &x), -REST_EVALUE);
	assert_int_equal(rest_conn_parse(&emu, "1.1.1--1.1.2", &x),
	                 -REST_EVALUE);
	assert_int_equal(rest_conn_parse(&emu, "1.1.1-1.1.1", &x),
	                 -REST_EVALUE);
	/* A reference is ports or an owner's name. */
	assert_int_equal(rest_ref_parse(&emu, "lab_a", &r), 0);
	assert_true(r.named);
	assert_string_equal(r.text, "lab_a");
	assert_int_equal(rest_ref_parse(&emu, "1.1.1>1.1.2", &r), 0);
	assert_false(r.named);
	assert_true(r.x.a == 1 && r.x.b == 2 && !r.x.bi);
	assert_int_equal(rest_ref_parse(&emu, "a b", &r), -REST_EVALUE);
	assert_int_equal(rest_ref_parse(&emu, "", &r), -REST_EVALUE);
}

/* RENAT's docstring, verbatim. */
static const char renat_detail[] =
    "{\"port\":\"3.3.1\",\"inas\":\"IS\",\"inos\":\"OOS\",\"inoc\":\"NOHW\","
    "\"inpower\":\"-3.4\",\"inopt\":\"-17.0\",\"inopth\":\"13.0\","
    "\"inoptc\":\"-20.0\",\"incircuit\":\"3.3.1>3.3.2\",\"inowner\":"
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
	    rest_detail_parse(S(renat_detail), &dev, &p, err, sizeof(err)), 0);
	assert_int_equal(p.port, 5);
	assert_true(p.inpower > -3.41 && p.inpower < -3.39);
	assert_true(p.outpower > -4.81 && p.outpower < -4.79);
	assert_string_equal(p.inconn, "3.3.1>3.3.2");
	assert_string_equal(p.outconn, "");
	assert_true(p.fail); /* NOHW */
	/* Our formatter answers a 1-element array, as RENAT indexes it. */
	p.fail = 0;
	s = rest_detail_fmt(&dev, &p);
	assert_true(s[0] == '[');
	assert_non_null(strstr(s, "\"incircuit\":\"3.3.1>3.3.2\""));
	assert_non_null(strstr(s, "\"outcircuit\":\"\""));
	assert_non_null(strstr(s, "\"inowner\":\"TRANSIT\""));
	assert_non_null(strstr(s, "\"outas\":\"OOS-NP\""));
	assert_int_equal(rest_detail_parse(S(s), &dev, &q, err, sizeof(err)),
	                 0);
	assert_int_equal(q.port, 5);
	assert_string_equal(q.inconn, "3.3.1>3.3.2");
	assert_false(q.fail);
	free(s);
	assert_int_equal(rest_detail_parse(S("[{\"port\":\"1.1.2\","
	                                     "\"inpower\":\"NONE\"}]"),
	                                   &emu, &q, err, sizeof(err)),
	                 0);
	assert_true(q.port == 2 && q.inpower <= -90);
	assert_int_equal(rest_detail_parse(S("{\"port\":\"1.1.2\","
	                                     "\"inpower\":\"-3x\"}"),
	                                   &emu, &q, err, sizeof(err)),
	                 -REST_EVALUE);
	assert_non_null(strstr(err, "power"));
	assert_int_equal(
	    rest_detail_parse(S("{\"port\":7}"), &emu, &q, err, sizeof(err)),
	    -REST_ESHAPE);
	assert_non_null(strstr(err, "port"));
	assert_int_equal(rest_detail_parse(S("[{\"port\":\"1.1.1\"},{}]"),
	                                   &emu, &q, err, sizeof(err)),
	                 -REST_ESHAPE);
}

/* labvault-style rows: a bi connection has half1 and half2; the name is
 * the owner's, whatever it says. */
static const char list_real[] =
    "[{\"name\":\"lab_a\",\"group\":\"SYSTEM\",\"dir\":\"bi\","
    "\"band\":\"CBAND\",\"half1\":{\"conn\":\"1.1.1>3.3.1\",\"inp\":"
    "\"-3.1\",\"outp\":\"-4.2\",\"loss\":\"1.1\",\"alarm\":\"\",\"as\":"
    "\"IS\",\"os\":\"IS\",\"oc\":\"OK\",\"state\":\"ACT\"},\"half2\":{"
    "\"conn\":\"3.3.1>1.1.1\",\"inp\":\"-3.0\",\"outp\":\"-4.0\",\"loss\":"
    "\"1.0\",\"oc\":\"OK\"}},"
    "{\"name\":\"\",\"group\":\"Quali\",\"half1\":{\"conn\":\"6.1.1>1.1.8\","
    "\"oc\":\"FAIL\"},\"half2\":null},"
    "{\"name\":\"1.1.2-1.2.1\",\"group\":\"DSTRAUB\",\"dir\":\"uni\","
    "\"half1\":{\"conn\":\"1.1.2>1.2.1\"}}]";

static void
test_list(void **state)
{
	struct rest_xc *x;
	size_t          n;
	char            err[200];

	(void)state;
	assert_int_equal(
	    rest_list_parse(S(list_real), &dev, &x, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 3);
	assert_true(x[0].bi && x[0].a == 1 && x[0].b == 5);
	assert_true(!x[1].bi && x[1].a == 8 && x[1].b == 3);
	/* A row whose name says bi but whose halves say uni is uni. */
	assert_true(!x[2].bi && x[2].a == 2 && x[2].b == 4);
	free(x);
	/* Ports not of the switch. */
	assert_int_equal(
	    rest_list_parse(S(list_real), &emu, &x, &n, err, sizeof(err)),
	    -REST_EVALUE);
	assert_non_null(strstr(err, "list[0].half1.conn"));
	/* Direction disagreeing with the halves. */
	assert_int_equal(rest_list_parse(S("[{\"dir\":\"bi\",\"half1\":{"
	                                   "\"conn\":\"1.1.1>1.1.2\"}}]"),
	                                 &emu, &x, &n, err, sizeof(err)),
	                 -REST_EVALUE);
	assert_non_null(strstr(err, "list[0].dir"));
	/* half2 that is not the way back. */
	assert_int_equal(
	    rest_list_parse(S("[{\"half1\":{\"conn\":\"1.1.1>1.1.2\"},"
	                      "\"half2\":{\"conn\":\"1.1.3>1.1.1\"}}]"),
	                    &emu, &x, &n, err, sizeof(err)),
	    -REST_EVALUE);
	assert_non_null(strstr(err, "half2.conn"));
	/* half1 written as a bi name; no half1 at all. */
	assert_int_equal(rest_list_parse(S("[{\"half1\":{\"conn\":"
	                                   "\"1.1.1-1.1.2\"}}]"),
	                                 &emu, &x, &n, err, sizeof(err)),
	                 -REST_EVALUE);
	assert_int_equal(rest_list_parse(S("[{\"name\":\"1.1.1-1.1.2\"}]"),
	                                 &emu, &x, &n, err, sizeof(err)),
	                 -REST_ESHAPE);
	assert_non_null(strstr(err, "list[0].half1"));
	assert_int_equal(
	    rest_list_parse(S("{}"), &emu, &x, &n, err, sizeof(err)),
	    -REST_ESHAPE);
	assert_int_equal(
	    rest_list_parse(S("[]"), &emu, &x, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 0);
	free(x);
}

/* Our rows keep the owner's name and group, and read back. */
static void
test_list_fmt(void **state)
{
	struct rest_row r[2];
	struct rest_xc *x;
	size_t          n;
	char            err[200], *s;

	(void)state;
	memset(r, 0, sizeof(r));
	r[0].x = (struct rest_xc){1, 5, 1};
	r[0].active = 1;
	snprintf(r[0].name, sizeof(r[0].name), "lab_a");
	snprintf(r[0].group, sizeof(r[0].group), "Quali");
	r[1].x = (struct rest_xc){8, 3, 0};
	s = rest_list_fmt(&dev, r, 2);
	assert_non_null(strstr(s, "{\"name\":\"lab_a\",\"group\":\"Quali\","
	                          "\"dir\":\"bi\""));
	assert_non_null(strstr(s, "\"half1\":{\"conn\":\"1.1.1>3.3.1\""));
	assert_non_null(strstr(s, "\"half2\":{\"conn\":\"3.3.1>1.1.1\""));
	assert_non_null(strstr(s, "{\"name\":\"6.1.1>1.1.8\",\"group\":"
	                          "\"SYSTEM\",\"dir\":\"uni\""));
	assert_non_null(strstr(s, "\"state\":\"IDLE\""));
	assert_int_equal(rest_list_parse(S(s), &dev, &x, &n, err, sizeof(err)),
	                 0);
	assert_int_equal(n, 2);
	assert_memory_equal(&x[0], &r[0].x, sizeof(x[0]));
	assert_memory_equal(&x[1], &r[1].x, sizeof(x[1]));
	free(x);
	free(s);
}

static void
test_bulk_bodies(void **state)
{
	struct rest_xc   in[3] = {{1, 17, 1}, {2, 3, 0}, {4, 5, 1}};
	struct rest_add *x, one;
	struct rest_ref *r;
	size_t           n, i;
	char             err[200], *s;

	(void)state;
	s = rest_badd_fmt(&emu, in, 3);
	assert_string_equal(s, "[{\"in\":\"1.1.1\",\"out\":\"1.2.1\",\"dir\":"
	                       "\"bi\"},{\"in\":\"1.1.2\",\"out\":\"1.1.3\","
	                       "\"dir\":\"uni\"},{\"in\":\"1.1.4\",\"out\":"
	                       "\"1.1.5\",\"dir\":\"bi\"}]");
	assert_int_equal(rest_badd_parse(S(s), &emu, &x, &n, err, sizeof(err)),
	                 0);
	assert_int_equal(n, 3);
	for (i = 0; i < 3; i++) {
		assert_memory_equal(&x[i].x, &in[i], sizeof(in[i]));
		assert_string_equal(x[i].name, "");
	}
	free(x);
	free(s);
	/* labvault's single add, with its extra fields and /1 ports. */
	assert_int_equal(
	    rest_badd_parse(S("{\"in\":\"1.1.1/1\",\"out\":\"1.2."
	                      "1/1\",\"group\":\"SYSTEM\",\"conn\":"
	                      "\"lab_a\",\"dir\":\"bi\","
	                      "\"band\":\"CBAND\",\"nolight\":"
	                      "\"false\"}"),
	                    &emu, &x, &n, err, sizeof(err)),
	    0);
	assert_true(n == 1 && x[0].x.bi && x[0].x.b == 17);
	assert_string_equal(x[0].name, "lab_a");
	assert_string_equal(x[0].group, "SYSTEM");
	free(x);
	/* A name that reads as other ports; a name with a blank. */
	assert_int_equal(
	    rest_badd_parse(S("{\"in\":\"1.1.1\",\"out\":\"1.1.2\","
	                      "\"dir\":\"uni\",\"conn\":\"1.1.1>"
	                      "1.1.3\"}"),
	                    &emu, &x, &n, err, sizeof(err)),
	    -REST_EVALUE);
	assert_non_null(strstr(err, "crossconnects[0].conn"));
	assert_int_equal(
	    rest_badd_parse(S("{\"in\":\"1.1.1\",\"out\":\"1.1.2\","
	                      "\"dir\":\"uni\",\"group\":\"a b\"}"),
	                    &emu, &x, &n, err, sizeof(err)),
	    -REST_EVALUE);
	assert_non_null(strstr(err, "crossconnects[0].group"));
	assert_int_equal(rest_badd_parse(S("[{\"in\":\"1.1.1\",\"out\":"
	                                   "\"1.2.1\",\"dir\":\"both\"}]"),
	                                 &emu, &x, &n, err, sizeof(err)),
	                 -REST_EVALUE);
	assert_non_null(strstr(err, "crossconnects[0].dir"));
	assert_int_equal(rest_badd_parse(S("[{\"in\":1,\"out\":\"1.2.1\","
	                                   "\"dir\":\"bi\"}]"),
	                                 &emu, &x, &n, err, sizeof(err)),
	                 -REST_ESHAPE);
	assert_non_null(strstr(err, "crossconnects[0].in"));
	assert_int_equal(rest_badd_parse(S("[{\"in\":\"1.1.1\",\"dir\":"
	                                   "\"bi\"}]"),
	                                 &emu, &x, &n, err, sizeof(err)),
	                 -REST_ESHAPE);
	assert_non_null(strstr(err, "\"out\" missing"));
	/* RENAT's form. */
	assert_int_equal(rest_add_form_parse(S("id=add&in=3.3.1&out=3.3.2&dir="
	                                       "uni"),
	                                     &dev, &one, err, sizeof(err)),
	                 0);
	assert_true(!one.x.bi && one.x.a == 5 && one.x.b == 6);
	assert_int_equal(
	    rest_add_form_parse(S("in=1.1.1&out=1.1.2&conn=x%2Fy"), &emu, &one,
	                        err, sizeof(err)),
	    0);
	assert_true(one.x.bi);
	assert_string_equal(one.name, "x/y");
	assert_int_equal(rest_add_form_parse(S("id=add&in=9.9.9&out=1.1.2"),
	                                     &emu, &one, err, sizeof(err)),
	                 -REST_EVALUE);
	assert_non_null(strstr(err, "form field in"));
	assert_int_equal(rest_add_form_parse(S("id=add&in=1.1.1&out=1.1.2&dir="
	                                       "x"),
	                                     &emu, &one, err, sizeof(err)),
	                 -REST_EVALUE);
	assert_non_null(strstr(err, "dir"));
	/* Deletes name connections by ports or by their owners' names. */
	s = rest_bdel_fmt(&emu, in, 2);
	assert_string_equal(s, "[{\"conn\":\"1.1.1-1.2.1\"},{\"conn\":"
	                       "\"1.1.2>1.1.3\"}]");
	assert_int_equal(rest_bdel_parse(S(s), &emu, &r, &n, err, sizeof(err)),
	                 0);
	assert_int_equal(n, 2);
	assert_memory_equal(&r[0].x, &in[0], sizeof(in[0]));
	assert_memory_equal(&r[1].x, &in[1], sizeof(in[1]));
	free(r);
	free(s);
	assert_int_equal(rest_bdel_parse(S("[{\"conn\":\"lab_a\"}]"), &emu, &r,
	                                 &n, err, sizeof(err)),
	                 0);
	assert_true(n == 1 && r[0].named);
	free(r);
	assert_int_equal(rest_bdel_parse(S("[{\"conn\":\"lab a\"}]"), &emu, &r,
	                                 &n, err, sizeof(err)),
	                 -REST_EVALUE);
	assert_non_null(strstr(err, "lab a"));
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
	struct rest_xc  *x;
	struct rest_add *a;
	size_t           n, k;
	char             err[200], *big;

	(void)state;
	/* Over the size limit: refused before parsing. */
	big = malloc(REST_BODY_MAX + 2);
	memset(big, ' ', REST_BODY_MAX + 1);
	big[0] = '[';
	big[REST_BODY_MAX] = ']';
	assert_int_equal(rest_list_parse(big, REST_BODY_MAX + 1, &emu, &x, &n,
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
	    rest_list_parse(big, 4000, &emu, &x, &n, err, sizeof(err)),
	    -REST_EJSON);
	free(big);
	/* Duplicate keys, embedded NUL in a name, truncated JSON. */
	assert_int_equal(rest_list_parse(S("[{\"name\":\"1.1.1-1.1.2\","
	                                   "\"name\":\"1.1.3-1.1.4\"}]"),
	                                 &emu, &x, &n, err, sizeof(err)),
	                 -REST_EJSON);
	assert_int_equal(rest_badd_parse(S("[{\"in\":\"1.1.1\\u0000\",\"out\":"
	                                   "\"1.1.2\",\"dir\":\"bi\"}]"),
	                                 &emu, &a, &n, err, sizeof(err)),
	                 -REST_ESHAPE);
	assert_int_equal(
	    rest_list_parse(S("[{\"name\":"), &emu, &x, &n, err, sizeof(err)),
	    -REST_EJSON);
}

static void
test_ports_summary(void **state)
{
	struct rest_port  p[20], *rows;
	struct rest_names t;
	uint32_t          i;
	char              err[200], *s;

	(void)state;
	memset(p, 0, sizeof(p));
	for (i = 0; i < 8; i++)
		p[i].port = i + 1;
	snprintf(p[4].inconn, sizeof(p[4].inconn), "3.3.1>3.3.2");
	snprintf(p[5].outconn, sizeof(p[5].outconn), "3.3.1>3.3.2");
	snprintf(p[7].inalias, sizeof(p[7].inalias), "h0-tx");
	s = rest_ports_fmt(&dev, p, 8);
	assert_int_equal(rest_ports_parse(S(s), &t, &rows, err, sizeof(err)),
	                 0);
	assert_int_equal(t.n, 8);
	for (i = 0; i < 8; i++)
		assert_string_equal(t.name[i], dev.name[i]);
	assert_string_equal(rows[4].inconn, "3.3.1>3.3.2");
	assert_string_equal(rows[5].inconn, "3.3.1>3.3.2"); /* "conn" */
	assert_string_equal(rows[7].inalias, "h0-tx");
	free(rows);
	rest_names_free(&t);
	free(s);
	/* labvault's rows, in the device's order, gaps and all. */
	assert_int_equal(
	    rest_ports_parse(S("[{\"port\":\"6.1.1\",\"conn\":\"\",\"power\":"
	                       "\"NONE\"},{\"port\":\"1.1.1\",\"connid\":\"\","
	                       "\"power\":\"-2.5\"}]"),
	                     &t, &rows, err, sizeof(err)),
	    0);
	assert_int_equal(t.n, 2);
	assert_string_equal(t.name[0], "1.1.1");
	assert_true(rows[0].inpower > -2.6 && rows[0].inpower < -2.4);
	assert_true(rows[1].inpower <= -90);
	free(rows);
	rest_names_free(&t);
	/* A repeat. */
	assert_int_equal(rest_ports_parse(S("[{\"port\":\"1.1.1\"},{\"port\":"
	                                    "\"1.1.1/1\"}]"),
	                                  &t, NULL, err, sizeof(err)),
	                 -REST_EVALUE);
	assert_non_null(strstr(err, "twice"));
	assert_int_equal(rest_ports_parse(S("[{\"port\":\"1.1.1\"},{\"port\":"
	                                    "\"1.1\"}]"),
	                                  &t, NULL, err, sizeof(err)),
	                 -REST_EVALUE);
	assert_non_null(strstr(err, "ports[1].port"));
	assert_int_equal(rest_ports_parse(S("[]"), &t, NULL, err, sizeof(err)),
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
	assert_int_equal(
	    rest_form_get(S("id=add&in=1.1.1&dir=uni"), "dir", b, sizeof(b)),
	    0);
	assert_string_equal(b, "uni");
	/* The body is not NUL-terminated: the value ends with it. */
	assert_int_equal(rest_form_get("in=1.1.1XYZ", 8, "in", b, sizeof(b)),
	                 0);
	assert_string_equal(b, "1.1.1");
	assert_int_equal(rest_form_get(S("id=add"), "in", b, sizeof(b)),
	                 -ENOENT);
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
	    cmocka_unit_test(test_list_fmt),
	    cmocka_unit_test(test_bulk_bodies),
	    cmocka_unit_test(test_results),
	    cmocka_unit_test(test_hostile),
	    cmocka_unit_test(test_ports_summary),
	    cmocka_unit_test(test_query),
	    cmocka_unit_test(test_map_pairing),
	};

	return (cmocka_run_group_tests(tests, setup, teardown));
}

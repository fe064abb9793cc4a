/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_emu_netconf.c: what of ocs-emu's NETCONF face is ours,
 * without a socket: requests parsed by libyang as libnetconf2 parses
 * them (the exact XML tcdona3's and ONOS's clients send), then mapped to
 * one batch of patches (emu_nc_edit) or answered through the subtree
 * filter (emu_nc_filter) from the switch's data (emu_nc_data).
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

#include <nc_server.h>

#include "testbed/ocs-emu/emu_nc.h"
#include "tests/lib/emutest.h"

#define NS  "http://www.polatis.com/yang/optical-switch"
#define NCB "urn:ietf:params:xml:ns:netconf:base:1.0"
#define EDIT(body)                                                            \
	"<rpc xmlns=\"" NCB "\" message-id=\"1\"><edit-config><target>"       \
	"<running/></target><config><cross-connects xmlns=\"" NS "\" "        \
	"xmlns:nc=\"" NCB "\">" body                                          \
	"</cross-connects></config></edit-config></rpc>"
#define PAIR(i, e)                                                            \
	"<pair><ingress>" #i "</ingress><egress>" #e "</egress></pair>"

struct fx {
	struct ly_ctx    *srv, *data;
	struct emu       *e;
	struct lyd_node  *env, *op;
	uint16_t         *disc;
	struct drv_patch *conn;
	size_t            nd, nc;
	struct emu_nc_err err;
};

static int
setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	char       err[300];

	if (f == NULL || emu_nc_ctx_new(EMU_NC_YANG_DIR, &f->srv, &f->data,
	                                err, sizeof(err)) != 0) {
		fprintf(stderr, "%s\n", err);
		return (-1);
	}
	f->e = emutest_new(16, 0, "root", "root");
	*state = f;
	return (0);
}

static int
teardown(void **state)
{
	struct fx *f = *state;

	lyd_free_all(f->env);
	lyd_free_all(f->op);
	free(f->disc);
	free(f->conn);
	emutest_del(f->e);
	ly_ctx_destroy(f->srv);
	ly_ctx_destroy(f->data);
	free(f);
	return (0);
}

/* An RPC as libnetconf2 reads it; the content of its anyxml arg. */
static const struct lyd_node *
rpc_arg(struct fx *f, const char *xml, const char *name)
{
	struct ly_in          *in;
	const struct lyd_node *c;

	lyd_free_all(f->env);
	lyd_free_all(f->op);
	f->env = f->op = NULL;
	assert_int_equal(ly_in_new_memory(xml, &in), LY_SUCCESS);
	assert_int_equal(lyd_parse_op(f->srv, NULL, in, LYD_XML,
	                              LYD_TYPE_RPC_NETCONF, &f->env, &f->op),
	                 LY_SUCCESS);
	ly_in_free(in, 0);
	LY_LIST_FOR(lyd_child(f->op), c)
	if (strcmp(LYD_NAME(c), name) == 0)
		return (((const struct lyd_node_any *)c)->value.tree);
	return (NULL);
}

/* Parse and plan an edit against the switch: 0 or the -EINVAL. */
static int
edit(struct fx *f, const char *xml, enum emu_nc_op dflt)
{
	struct emu_nc_edit ed;
	int                rv;

	free(f->disc);
	free(f->conn);
	f->disc = NULL;
	f->conn = NULL;
	f->nd = f->nc = 0;
	memset(&f->err, 0, sizeof(f->err));
	rv = emu_nc_edit_parse(rpc_arg(f, xml, "config"), dflt, f->e->x.n, &ed,
	                       &f->err);
	if (rv != 0)
		return (rv);
	rv = emu_nc_edit_plan(&ed, &f->e->x, &f->disc, &f->nd, &f->conn,
	                      &f->nc, &f->err);
	emu_nc_edit_free(&ed);
	return (rv);
}

static void
patch(struct fx *f, uint16_t in, uint16_t out)
{
	struct drv_patch p = {in, out};
	struct oxc_err   oe;

	assert_int_equal(oxc_connect(&f->e->x, &p, 1, 0, &oe), 0);
}

/* tcdona3's apply_patch_list: one edit, a list of pairs, merged. */
static void
test_emu_nc_edit_batch(void **state)
{
	struct fx *f = *state;

	assert_int_equal(edit(f, EDIT(PAIR(1, 18) PAIR(2, 17)), EMU_NC_MERGE),
	                 0);
	assert_int_equal(f->nd, 0);
	assert_int_equal(f->nc, 2);
	assert_int_equal(f->conn[0].in, 1);
	assert_int_equal(f->conn[0].out, 18);
	assert_int_equal(f->conn[1].out, 17);
}

/* tcdona3's delete by ingress (nc:operation), ONOS's with an operation
 * attribute of no namespace. */
static void
test_emu_nc_edit_delete(void **state)
{
	struct fx *f = *state;

	patch(f, 1, 18);
	patch(f, 2, 17);
	assert_int_equal(edit(f,
	                      EDIT("<pair nc:operation=\"delete\"><ingress>1"
	                           "</ingress></pair>"),
	                      EMU_NC_MERGE),
	                 0);
	assert_int_equal(f->nd, 1);
	assert_int_equal(f->disc[0], 1);
	assert_int_equal(edit(f,
	                      EDIT("<pair operation=\"delete\"><ingress>2"
	                           "</ingress><egress>17</egress></pair>"),
	                      EMU_NC_MERGE),
	                 0);
	assert_int_equal(f->nd, 1);
	assert_int_equal(f->disc[0], 2);
	/* A delete of what is not there is refused, a remove is not. */
	assert_int_equal(edit(f,
	                      EDIT("<pair nc:operation=\"delete\"><ingress>5"
	                           "</ingress></pair>"),
	                      EMU_NC_MERGE),
	                 -EINVAL);
	assert_int_equal(f->err.tag, NC_ERR_DATA_MISSING);
	assert_int_equal(edit(f,
	                      EDIT("<pair nc:operation=\"remove\"><ingress>5"
	                           "</ingress></pair>"),
	                      EMU_NC_MERGE),
	                 0);
	assert_int_equal(f->nd + f->nc, 0);
}

/* A busy port refuses the whole batch, naming the port and its peer. */
static void
test_emu_nc_edit_busy(void **state)
{
	struct fx *f = *state;

	patch(f, 1, 17);
	assert_int_equal(edit(f, EDIT(PAIR(2, 18) PAIR(3, 17)), EMU_NC_MERGE),
	                 -EINVAL);
	assert_int_equal(f->err.tag, NC_ERR_IN_USE);
	assert_string_equal(f->err.msg, "Port 17 already patched to 1");
	assert_string_equal(f->err.elem, "egress");
	assert_null(f->conn);
	/* The ingress side too; and create of an existing patch. */
	assert_int_equal(edit(f, EDIT(PAIR(1, 20)), EMU_NC_MERGE), -EINVAL);
	assert_string_equal(f->err.msg, "Port 1 already patched to 17");
	assert_int_equal(edit(f,
	                      EDIT("<pair nc:operation=\"create\"><ingress>1"
	                           "</ingress><egress>17</egress></pair>"),
	                      EMU_NC_MERGE),
	                 -EINVAL);
	assert_int_equal(f->err.tag, NC_ERR_DATA_EXISTS);
}

/* Ports that move among each other in one edit: no conflict, whatever
 * the order (the first pass frees, the second makes). */
static void
test_emu_nc_edit_permutation(void **state)
{
	struct fx *f = *state;

	patch(f, 1, 17);
	patch(f, 2, 18);
	assert_int_equal(
	    edit(
	        f,
	        EDIT(
	            "<pair nc:operation=\"replace\"><ingress>1</ingress>"
	            "<egress>18</egress></pair><pair nc:operation=\"replace\">"
	            "<ingress>2</ingress><egress>17</egress></pair>"),
	        EMU_NC_MERGE),
	    0);
	assert_int_equal(f->nd, 2);
	assert_int_equal(f->nc, 2);
	/* default-operation replace: the list is the new map. */
	assert_int_equal(edit(f, EDIT(PAIR(3, 19)), EMU_NC_REPLACE), 0);
	assert_int_equal(f->nd, 2);
	assert_int_equal(f->nc, 1);
	/* The container deleted: everything goes. */
	assert_int_equal(
	    edit(f,
	         "<rpc xmlns=\"" NCB
	         "\" message-id=\"1\"><edit-config><target>"
	         "<running/></target><config><cross-connects xmlns=\"" NS
	         "\" xmlns:nc=\"" NCB "\" nc:operation=\"delete\"/></config>"
	         "</edit-config></rpc>",
	         EMU_NC_MERGE),
	    0);
	assert_int_equal(f->nd, 2);
	assert_int_equal(f->nc, 0);
}

/* Bad input gets the error a client reads, naming the element. */
static void
test_emu_nc_edit_refusals(void **state)
{
	struct fx *f = *state;
	char      *big;
	size_t     i, len = 0;

	assert_int_equal(edit(f, EDIT(PAIR(40, 50)), EMU_NC_MERGE), -EINVAL);
	assert_int_equal(f->err.tag, NC_ERR_INVALID_VALUE);
	assert_string_equal(f->err.msg, "Invalid OXC port: 40");
	assert_string_equal(f->err.elem, "ingress");
	assert_int_equal(edit(f, EDIT(PAIR(1, 1000000)), EMU_NC_MERGE),
	                 -EINVAL);
	assert_string_equal(f->err.msg, "Invalid OXC port: 1000000");
	assert_int_equal(edit(f, EDIT(PAIR(abc, 17)), EMU_NC_MERGE), -EINVAL);
	assert_int_equal(edit(f, EDIT(PAIR(1, 17) PAIR(1, 18)), EMU_NC_MERGE),
	                 -EINVAL);
	assert_string_equal(f->err.msg, "Port 1 repeated");
	assert_int_equal(
	    edit(f, EDIT("<pair><egress>17</egress></pair>"), EMU_NC_MERGE),
	    -EINVAL);
	assert_int_equal(f->err.tag, NC_ERR_MISSING_ELEM);
	assert_int_equal(
	    edit(f, EDIT("<pairs><ingress>1</ingress></pairs>"), EMU_NC_MERGE),
	    -EINVAL);
	assert_int_equal(f->err.tag, NC_ERR_UNKNOWN_ELEM);
	assert_string_equal(f->err.elem, "pairs");
	assert_int_equal(edit(f,
	                      EDIT("<pair nc:operation=\"frobnicate\">"
	                           "<ingress>1</ingress></pair>"),
	                      EMU_NC_MERGE),
	                 -EINVAL);
	assert_int_equal(f->err.tag, NC_ERR_BAD_ATTR);
	assert_int_equal(
	    edit(f,
	         "<rpc xmlns=\"" NCB
	         "\" message-id=\"1\"><edit-config><target>"
	         "<running/></target><config><w xmlns=\"urn:example\"/>"
	         "</config></edit-config></rpc>",
	         EMU_NC_MERGE),
	    -EINVAL);
	assert_int_equal(f->err.tag, NC_ERR_UNKNOWN_NS);
	assert_string_equal(f->err.ns, "urn:example");
	assert_int_equal(
	    edit(f,
	         "<rpc xmlns=\"" NCB
	         "\" message-id=\"1\"><edit-config><target>"
	         "<running/></target><config><opm-power xmlns=\"" NS "\"/>"
	         "</config></edit-config></rpc>",
	         EMU_NC_MERGE),
	    -EINVAL);
	assert_int_equal(f->err.tag, NC_ERR_INVALID_VALUE);
	/* More pairs than the switch has ingress ports: refused before
	 * any is read. */
	big = malloc(64 * 40 + 512);
	len = (size_t)sprintf(big, "%s", EDIT(""));
	len -= strlen("</cross-connects></config></edit-config></rpc>");
	for (i = 1; i <= 40; i++)
		len += (size_t)sprintf(big + len, PAIR(1, 17));
	sprintf(big + len, "</cross-connects></config></edit-config></rpc>");
	assert_int_equal(edit(f, big, EMU_NC_MERGE), -EINVAL);
	assert_int_equal(f->err.tag, NC_ERR_TOO_BIG);
	free(big);
}

static void
test_emu_nc_edit_labels(void **state)
{
	struct fx         *f = *state;
	struct emu_nc_edit ed;
	const char        *ok =
	    "<rpc xmlns=\"" NCB "\" message-id=\"1\"><edit-config>"
	    "<target><running/></target><config><port-config "
	    "xmlns=\"" NS "\"><port><port-id>3</port-id><label>"
	    "rack1-a</label></port></port-config></config>"
	    "</edit-config></rpc>";
	const char *bad =
	    "<rpc xmlns=\"" NCB "\" message-id=\"1\"><edit-config>"
	    "<target><running/></target><config><port-config "
	    "xmlns=\"" NS "\"><port><port-id>3</port-id><label>"
	    "a;b</label></port></port-config></config>"
	    "</edit-config></rpc>";

	assert_int_equal(emu_nc_edit_parse(rpc_arg(f, ok, "config"),
	                                   EMU_NC_MERGE, 16, &ed, &f->err),
	                 0);
	assert_int_equal(ed.nport, 1);
	assert_int_equal(ed.port[0].port, 3);
	assert_string_equal(ed.port[0].label, "rack1-a");
	emu_nc_edit_free(&ed);
	assert_int_equal(emu_nc_edit_parse(rpc_arg(f, bad, "config"),
	                                   EMU_NC_MERGE, 16, &ed, &f->err),
	                 -EINVAL);
	assert_int_equal(f->err.tag, NC_ERR_INVALID_VALUE);
	assert_string_equal(f->err.elem, "label");
}

/* An edit of one list's ports against the switch: 0 or -EINVAL. */
static int
ports(struct fx *f, const char *list, const char *body, int apply)
{
	struct emu_nc_edit ed;
	char               xml[1024];
	int                rv;

	snprintf(xml, sizeof(xml),
	         "<rpc xmlns=\"" NCB
	         "\" message-id=\"1\"><edit-config><target>"
	         "<running/></target><config><%s xmlns=\"" NS "\">%s</%s>"
	         "</config></edit-config></rpc>",
	         list, body, list);
	rv = emu_nc_edit_parse(rpc_arg(f, xml, "config"), EMU_NC_MERGE, 16,
	                       &ed, &f->err);
	if (rv == 0)
		rv = emu_nc_ports_apply(&ed, f->e, apply, &f->err);
	emu_nc_edit_free(&ed);
	return (rv);
}

/* tcdona3's set_voa and set_opm_config, ONOS's setTargetPower: the
 * attenuators and monitors TL1's SET-PORT-ATTEN and -PMON set, with
 * their rules. */
static void
test_emu_nc_edit_voa(void **state)
{
	struct fx *f = *state;

	assert_int_equal(
	    ports(f, "voa",
	          "<port><port-id>17</port-id><atten-mode>VOA_MODE_ABSOLUTE"
	          "</atten-mode><atten-level>3.00</atten-level></port>",
	          1),
	    0);
	assert_int_equal(f->e->port[17].amode, EMU_ATTEN_ABSOLUTE);
	assert_true(f->e->port[17].alevel == 3.0);
	/* A level alone keeps the mode. */
	assert_int_equal(ports(f, "voa",
	                       "<port><port-id>17</port-id><atten-level>4.5"
	                       "</atten-level></port>",
	                       1),
	                 0);
	assert_true(f->e->port[17].alevel == 4.5);
	assert_int_equal(ports(f, "voa",
	                       "<port><port-id>18</port-id><atten-mode>"
	                       "VOA_MODE_RELATIVE</atten-mode></port>",
	                       1),
	                 -EINVAL);
	assert_int_equal(f->err.tag, NC_ERR_MISSING_ELEM);
	assert_int_equal(ports(f, "voa",
	                       "<port><port-id>18</port-id><atten-mode>"
	                       "VOA_MODE_MAXIMUM</atten-mode><atten-level>3"
	                       "</atten-level></port>",
	                       1),
	                 -EINVAL);
	assert_int_equal(f->err.tag, NC_ERR_INVALID_VALUE);
	assert_int_equal(ports(f, "voa",
	                       "<port><port-id>2</port-id><atten-mode>"
	                       "VOA_MODE_MAXIMUM</atten-mode></port>",
	                       1),
	                 -EINVAL);
	assert_string_equal(f->err.msg, "Not an output port: 2");
	assert_int_equal(ports(f, "voa",
	                       "<port><port-id>18</port-id><atten-level>70"
	                       "</atten-level></port>",
	                       1),
	                 -EINVAL);
	assert_int_equal(f->e->port[18].amode, EMU_ATTEN_NONE);
	assert_int_equal(ports(f, "opm-config",
	                       "<port><port-id>3</port-id><wavelength>1310.00"
	                       "</wavelength><offset>0.50</offset></port>",
	                       1),
	                 0);
	assert_int_equal(f->e->port[3].wave, 1310);
	assert_int_equal(ports(f, "opm-config",
	                       "<port><port-id>3</port-id><wavelength>900"
	                       "</wavelength></port>",
	                       1),
	                 -EINVAL);
	assert_string_equal(f->err.elem, "wavelength");
	assert_int_equal(f->e->port[3].wave, 1310);
}

/* A <get> through the filter: the data printed as XML. */
static char *
get(struct fx *f, const char *filter)
{
	char                   xml[2048], *s = NULL;
	const struct lyd_node *fc;
	struct lyd_node       *data, *out;

	snprintf(xml, sizeof(xml),
	         "<rpc xmlns=\"" NCB "\" message-id=\"1\"><get><filter "
	         "type=\"subtree\">%s</filter></get></rpc>",
	         filter);
	fc = rpc_arg(f, xml, "filter");
	assert_int_equal(
	    emu_nc_data(f->e, f->data, emu_nc_want(fc), 0, 0, &data), 0);
	assert_int_equal(emu_nc_filter(data, fc, &out), 0);
	lyd_free_all(data);
	if (out != NULL)
		assert_int_equal(
		    lyd_print_mem(&s, out, LYD_XML,
		                  LYD_PRINT_WITHSIBLINGS | LYD_PRINT_SHRINK),
		    LY_SUCCESS);
	lyd_free_all(out);
	return (s ? s : strdup(""));
}

static void
test_emu_nc_filter(void **state)
{
	struct fx *f = *state;
	char      *s;

	patch(f, 1, 18);
	patch(f, 3, 19);
	/* tcdona3's connection_exists: a content match and a selection. */
	s = get(f, "<cross-connects xmlns=\"" NS "\"><pair><ingress>3"
	           "</ingress><egress/></pair></cross-connects>");
	assert_string_equal(s, "<cross-connects xmlns=\"" NS "\"><pair>"
	                       "<ingress>3</ingress><egress>19</egress>"
	                       "</pair></cross-connects>");
	free(s);
	/* ONOS's getPortPowerFilter(port): port-id alone brings its
	 * siblings. */
	s = get(f, "<opm-power xmlns=\"" NS "\"><port><port-id>18</port-id>"
	           "</port></opm-power>");
	assert_string_equal(s, "<opm-power xmlns=\"" NS "\"><port><port-id>18"
	                       "</port-id><power>-4.0</power></port>"
	                       "</opm-power>");
	free(s);
	/* tcdona3's get_port_status: one leaf of one port. */
	s = get(f, "<port-config xmlns=\"" NS "\"><port><port-id>2</port-id>"
	           "<status/></port></port-config>");
	assert_string_equal(s, "<port-config xmlns=\"" NS "\"><port><port-id>"
	                       "2</port-id><status>ENABLED</status></port>"
	                       "</port-config>");
	free(s);
	/* An empty or foreign filter selects nothing. */
	s = get(f, "");
	assert_string_equal(s, "");
	free(s);
	s = get(f, "<cross-connects xmlns=\"urn:example\"/>");
	assert_string_equal(s, "");
	free(s);
	/* A selection node: the whole container. */
	s = get(f, "<cross-connects xmlns=\"" NS "\"/>");
	assert_non_null(strstr(s, "<ingress>1</ingress><egress>18</egress>"));
	assert_non_null(strstr(s, "<ingress>3</ingress><egress>19</egress>"));
	free(s);
}

/* An empty namespace declaration, however written and wherever the
 * reads split it, is seen; the same bytes without it are not. */
static void
test_emu_nc_guard(void **state)
{
	static const char *bad[] = {
	    "<a xmlns=\"\"><b/><b/></a>",
	    "<a xmlns = '' />",
	    "<a xmlns:p=\"\"><p:b/></a>",
	    "<x xxmlns=\"\"/>",
	};
	static const char *good[] = {
	    "<a xmlns=\"urn:x\"><b/><b/></a>",
	    "<a xmlns:p=\"urn:p\" q=\"\"/>",
	    "<xmlns>\"\"</xmlns>",
	    "<a xmlnsx=\"\"/>",
	};
	struct emu_nc_guard g;
	size_t              i, k;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&g, 0, sizeof(g));
		assert_int_equal(emu_nc_guard(&g, bad[i], strlen(bad[i])), 1);
		/* One byte a read: seen at its closing quote, and from
		 * then on. */
		memset(&g, 0, sizeof(g));
		for (k = 0; bad[i][k] && !emu_nc_guard(&g, bad[i] + k, 1); k++)
			;
		assert_true(k > 0 && bad[i][k] == bad[i][k - 1]);
		assert_int_equal(emu_nc_guard(&g, "<b/>", 4), 1);
	}
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		memset(&g, 0, sizeof(g));
		assert_int_equal(emu_nc_guard(&g, good[i], strlen(good[i])),
		                 0);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_emu_nc_edit_batch, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_emu_nc_edit_delete, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_emu_nc_edit_busy, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_emu_nc_edit_permutation,
	                                    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_emu_nc_edit_refusals, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_emu_nc_edit_labels, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_emu_nc_edit_voa, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_emu_nc_filter, setup,
	                                    teardown),
	    cmocka_unit_test(test_emu_nc_guard),
	};

	return (cmocka_run_group_tests_name("emu_netconf", tests, NULL, NULL));
}

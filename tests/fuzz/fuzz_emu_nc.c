/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: what of the NETCONF face and driver is ours, on the
 * trees libyang makes of arbitrary bytes.  The bytes are an RPC as
 * ocs-emu's server parses it: an edit-config's content is mapped to a
 * batch and held against a small switch with patches (emu_nc_edit), a
 * get's filter is run over the switch's data (emu_nc_filter).  The same
 * bytes as a <get> reply's data go through the driver's reading
 * (pnc_tree).  Bytes the server's guard refuses (emu_nc_guard: an empty
 * namespace, on which Debian 12's libyang crashes) end there, as the
 * session does.  Errors are fine; crashes, leaks and a batch that
 * breaks the model's rules are not.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ocs-drivers/pnc_tree.h"
#include "testbed/ocs-emu/emu.h"
#include "testbed/ocs-emu/emu_nc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

static struct ly_ctx *srv, *dctx;
static struct emu     e;

static void
quiet(LY_LOG_LEVEL l, const char *m, const char *p)
{
	(void)l, (void)m, (void)p;
}

static void
init(void)
{
	static const struct drv_patch p[3] = {{1, 9}, {2, 10}, {5, 16}};
	struct oxc_err                oe;
	char                          err[300];

	ly_set_log_clb(quiet, 0);
	if (emu_nc_ctx_new(EMU_NC_YANG_DIR, &srv, &dctx, err, sizeof(err)))
		abort();
	strcpy(e.c.user, "root");
	strcpy(e.c.password, "root");
	strcpy(e.sid, "EMU");
	e.c.ports = 8;
	pthread_mutex_init(&e.mtx, NULL);
	if (emu_model_init(&e) != 0 || oxc_connect(&e.x, p, 3, 0, &oe) != 0)
		abort();
}

static const struct lyd_node *
arg(const struct lyd_node *op, const char *name)
{
	const struct lyd_node *c;

	LY_LIST_FOR(lyd_child(op), c)
	if (strcmp(LYD_NAME(c), name) == 0 && c->schema &&
	    (c->schema->nodetype & LYD_NODE_ANY) &&
	    ((const struct lyd_node_any *)c)->value_type ==
	        LYD_ANYDATA_DATATREE)
		return (((const struct lyd_node_any *)c)->value.tree);
	return (NULL);
}

/* The batch must be what the model takes: every disconnect a patched
 * ingress, every connect free once they are done. */
static void
edit(const struct lyd_node *cfg)
{
	struct emu_nc_edit ed;
	struct emu_nc_err  er;
	struct oxc         x;
	struct oxc_err     oe;
	struct drv_patch  *conn;
	uint16_t          *disc;
	size_t             nd, nc;

	if (emu_nc_edit_parse(cfg, EMU_NC_MERGE, e.x.n, &ed, &er) != 0)
		return;
	emu_nc_ports_apply(&ed, &e, 0, &er);
	if (emu_nc_edit_plan(&ed, &e.x, &disc, &nd, &conn, &nc, &er) == 0) {
		if (oxc_init(&x, e.x.n, 0) != 0)
			abort();
		memcpy(x.out_of, e.x.out_of, (e.x.n + 1) * sizeof(*x.out_of));
		memcpy(x.in_of, e.x.in_of, (2 * e.x.n + 1) * sizeof(*x.in_of));
		if ((nd && oxc_disconnect(&x, disc, nd, 0, &oe) != 0) ||
		    (nc && oxc_connect(&x, conn, nc, 0, &oe) != 0))
			abort();
		oxc_free(&x);
		free(disc);
		free(conn);
	}
	emu_nc_edit_free(&ed);
}

static void
get(const struct lyd_node *flt)
{
	struct lyd_node *d, *out;

	if (emu_nc_data(&e, dctx, emu_nc_want(flt), 0, 0, &d) != 0 ||
	    emu_nc_filter(d, flt, &out) != 0)
		abort();
	lyd_free_all(d);
	lyd_free_all(out);
}

/* The driver's reading of the same bytes as data. */
static void
reply(const char *xml)
{
	struct lyd_node      *t = NULL;
	uint16_t              map[9], ports[3] = {1, 9, 16};
	struct drv_port_state st[3];
	char                  err[300];

	if (lyd_parse_data_mem(dctx, xml, LYD_XML,
	                       LYD_PARSE_ONLY | LYD_PARSE_OPAQ, 0,
	                       &t) == LY_SUCCESS) {
		pnc_count_ports(t, err, sizeof(err));
		pnc_map(t, 8, map, err, sizeof(err));
		pnc_port_states(t, ports, 3, st, err, sizeof(err));
	}
	lyd_free_all(t);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct lyd_node *env = NULL, *op = NULL;
	struct ly_in    *in;
	char            *xml;

	struct emu_nc_guard g = {0};

	if (srv == NULL)
		init();
	if (emu_nc_guard(&g, data, len))
		return (0);
	if ((xml = malloc(len + 1)) == NULL)
		return (0);
	memcpy(xml, data, len);
	xml[len] = '\0';
	if (ly_in_new_memory(xml, &in) == LY_SUCCESS) {
		if (lyd_parse_op(srv, NULL, in, LYD_XML, LYD_TYPE_RPC_NETCONF,
		                 &env, &op) == LY_SUCCESS &&
		    op != NULL) {
			if (strcmp(LYD_NAME(op), "edit-config") == 0)
				edit(arg(op, "config"));
			else
				get(arg(op, "filter"));
		}
		ly_in_free(in, 0);
	}
	lyd_free_all(env);
	lyd_free_all(op);
	reply(xml);
	free(xml);
	return (0);
}

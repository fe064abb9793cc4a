/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The switch as optical-switch data: what <get> and <get-config> read.
 * Built fresh for each request from the model under the emulator's
 * mutex, so every face sees the same switch at the same moment.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "proto/base/version.h"
#include "testbed/ocs-emu/emu.h"
#include "testbed/ocs-emu/emu_nc.h"

static const struct {
	const char *name;
	unsigned    bit;
} tops[] = {
    {"product-information", EMU_NC_PRODINF},
    {"cross-connects", EMU_NC_XC},
    {"port-config", EMU_NC_PORTS},
    {"opm-power", EMU_NC_OPM},
    {"voa", EMU_NC_VOA},
    {"opm-config", EMU_NC_OPMCFG},
};

/* The namespace of a data or opaque node ("" if it has none). */
static const char *
node_ns(const struct lyd_node *n)
{
	const struct lyd_node_opaq *o = (const struct lyd_node_opaq *)n;

	if (n->schema != NULL)
		return (n->schema->module->ns);
	return (o->name.module_ns ? o->name.module_ns : "");
}

unsigned
emu_nc_want(const struct lyd_node *filter)
{
	const struct lyd_node *f;
	unsigned               want = 0;
	size_t                 i;

	LY_LIST_FOR(filter, f)
	{
		if (strcmp(node_ns(f), EMU_NC_NS) != 0)
			continue;
		for (i = 0; i < sizeof(tops) / sizeof(tops[0]); i++)
			if (strcmp(LYD_NAME(f), tops[i].name) == 0)
				want |= tops[i].bit;
	}
	return (want);
}

static int
prodinf(struct emu *e, const struct lys_module *m, struct lyd_node **tree)
{
	struct lyd_node *c;
	char             model[64];

	snprintf(model, sizeof(model), "N-OCS-EMU-%ux%u", e->x.n, e->x.n);
	if (lyd_new_inner(NULL, m, "product-information", 0, &c) ||
	    lyd_new_term(c, m, "manufacturer", "Polatis", 0, NULL) ||
	    lyd_new_term(c, m, "serial-number", e->sid, 0, NULL) ||
	    lyd_new_term(c, m, "model-name", model, 0, NULL) ||
	    lyd_new_term(c, m, "software-version", OCS_VERSION, 0, NULL))
		return (-ENOMEM);
	return (lyd_insert_sibling(*tree, c, tree) ? -ENOMEM : 0);
}

static int
xconns(struct emu *e, const struct lys_module *m, struct lyd_node **tree)
{
	struct lyd_node *c, *p;
	char             in[16], out[16];
	uint32_t         i;

	if (lyd_new_inner(NULL, m, "cross-connects", 0, &c) ||
	    lyd_insert_sibling(*tree, c, tree))
		return (-ENOMEM);
	for (i = 1; i <= e->x.n; i++) {
		if (e->x.out_of[i] == 0)
			continue;
		snprintf(in, sizeof(in), "%u", i);
		snprintf(out, sizeof(out), "%u", e->x.out_of[i]);
		if (lyd_new_list(c, m, "pair", 0, &p, in) ||
		    lyd_new_term(p, m, "egress", out, 0, NULL))
			return (-ENOMEM);
	}
	return (0);
}

static const char *
status(const struct emu *e, uint32_t p)
{
	if (e->x.failed[p])
		return ("FAILED");
	return (e->x.closed[p] ? "DISABLED" : "ENABLED");
}

static int
ports(struct emu *e, const struct lys_module *m, int config_only,
      struct lyd_node **tree)
{
	struct lyd_node *c, *p;
	char             id[16];
	uint32_t         i;

	if (lyd_new_inner(NULL, m, "port-config", 0, &c) ||
	    lyd_insert_sibling(*tree, c, tree))
		return (-ENOMEM);
	for (i = 1; i <= 2 * e->x.n; i++) {
		snprintf(id, sizeof(id), "%u", i);
		if (lyd_new_list(c, m, "port", 0, &p, id) ||
		    lyd_new_term(p, m, "label", e->port[i].label, 0, NULL))
			return (-ENOMEM);
		/* The switch knows no peers: an empty peer-port, which
		 * ONOS's link discovery reads as "none". */
		if (!config_only &&
		    (lyd_new_term(p, m, "status", status(e, i), 0, NULL) ||
		     lyd_new_term(p, m, "peer-port", "", 0, NULL)))
			return (-ENOMEM);
	}
	return (0);
}

static int
power(struct emu *e, const struct lys_module *m, uint64_t now,
      struct lyd_node **tree)
{
	struct lyd_node *c, *p;
	char             id[16], dbm[32];
	uint32_t         i;

	if (lyd_new_inner(NULL, m, "opm-power", 0, &c) ||
	    lyd_insert_sibling(*tree, c, tree))
		return (-ENOMEM);
	for (i = 1; i <= 2 * e->x.n; i++) {
		snprintf(id, sizeof(id), "%u", i);
		snprintf(dbm, sizeof(dbm), "%.2f", emu_port_power(e, i, now));
		if (lyd_new_list(c, m, "port", 0, &p, id) ||
		    lyd_new_term(p, m, "power", dbm, 0, NULL))
			return (-ENOMEM);
	}
	return (0);
}

/* Every egress port's attenuator: its mode, and the level and reference
 * where the mode has them (as RTRV-PORT-ATTEN leaves them empty). */
static int
voa(struct emu *e, const struct lys_module *m, struct lyd_node **tree)
{
	struct lyd_node *c, *p;
	char             id[16], v[32];
	uint32_t         i;

	if (lyd_new_inner(NULL, m, "voa", 0, &c) ||
	    lyd_insert_sibling(*tree, c, tree))
		return (-ENOMEM);
	for (i = e->x.n + 1; i <= 2 * e->x.n; i++) {
		const struct emu_port *ep = &e->port[i];

		snprintf(id, sizeof(id), "%u", i);
		if (lyd_new_list(c, m, "port", 0, &p, id) ||
		    lyd_new_term(p, m, "atten-mode",
		                 emu_nc_atten_mode(ep->amode), 0, NULL))
			return (-ENOMEM);
		snprintf(v, sizeof(v), "%.2f", ep->alevel);
		if (ep->amode != EMU_ATTEN_NONE &&
		    ep->amode != EMU_ATTEN_MAXIMUM &&
		    lyd_new_term(p, m, "atten-level", v, 0, NULL))
			return (-ENOMEM);
		snprintf(v, sizeof(v), "%u", ep->aref);
		if (ep->amode == EMU_ATTEN_RELATIVE && ep->aref &&
		    lyd_new_term(p, m, "reference-port", v, 0, NULL))
			return (-ENOMEM);
	}
	return (0);
}

/* Every port's power monitor: its wavelength and offset. */
static int
opm_config(struct emu *e, const struct lys_module *m, struct lyd_node **tree)
{
	struct lyd_node *c, *p;
	char             id[16], w[32], o[32];
	uint32_t         i;

	if (lyd_new_inner(NULL, m, "opm-config", 0, &c) ||
	    lyd_insert_sibling(*tree, c, tree))
		return (-ENOMEM);
	for (i = 1; i <= 2 * e->x.n; i++) {
		snprintf(id, sizeof(id), "%u", i);
		snprintf(w, sizeof(w), "%u.00", e->port[i].wave);
		snprintf(o, sizeof(o), "%.2f", e->port[i].offset);
		if (lyd_new_list(c, m, "port", 0, &p, id) ||
		    lyd_new_term(p, m, "wavelength", w, 0, NULL) ||
		    lyd_new_term(p, m, "offset", o, 0, NULL))
			return (-ENOMEM);
	}
	return (0);
}

int
emu_nc_data(struct emu *e, const struct ly_ctx *ctx, unsigned want,
            int config_only, uint64_t now, struct lyd_node **tree)
{
	const struct lys_module *m;
	int                      rv = 0;

	*tree = NULL;
	if ((m = ly_ctx_get_module_implemented(ctx, "optical-switch")) == NULL)
		return (-ENOMEM);
	if (!config_only && (want & EMU_NC_PRODINF))
		rv = prodinf(e, m, tree);
	if (rv == 0 && (want & EMU_NC_XC))
		rv = xconns(e, m, tree);
	if (rv == 0 && (want & EMU_NC_PORTS))
		rv = ports(e, m, config_only, tree);
	if (rv == 0 && !config_only && (want & EMU_NC_OPM))
		rv = power(e, m, now, tree);
	if (rv == 0 && (want & EMU_NC_VOA))
		rv = voa(e, m, tree);
	if (rv == 0 && (want & EMU_NC_OPMCFG))
		rv = opm_config(e, m, tree);
	if (rv != 0) {
		lyd_free_all(*tree);
		*tree = NULL;
	}
	return (rv);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The per-port lists of an edit-config: port-config (labels), voa (the
 * attenuators, as TL1's SET-PORT-ATTEN sets them) and opm-config (the
 * power monitors' wavelength and offset, TL1's SET-PORT-PMON).  Read
 * (emu_nc_ports_parse: names, ranges), then held against the switch's
 * ports and applied (emu_nc_ports_apply), all or nothing with the
 * patches of the same edit.
 */
#include <errno.h>
#include <math.h>
#include <nc_server.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testbed/ocs-emu/emu.h"
#include "testbed/ocs-emu/emu_nc.h"

#define MAX_ATTEN_DB 60.0 /* TL1's MAX */

/* atten-mode's names, in EMU_ATTEN_ order. */
static const char *const modes[] = {
    [EMU_ATTEN_NONE] = "VOA_MODE_NONE",
    [EMU_ATTEN_FIXED] = "VOA_MODE_FIXED",
    [EMU_ATTEN_MAXIMUM] = "VOA_MODE_MAXIMUM",
    [EMU_ATTEN_ABSOLUTE] = "VOA_MODE_ABSOLUTE",
    [EMU_ATTEN_CONVERGED] = "VOA_MODE_CONVERGED",
    [EMU_ATTEN_RELATIVE] = "VOA_MODE_RELATIVE",
};
#define NMODES (sizeof(modes) / sizeof(modes[0]))

const char *
emu_nc_atten_mode(int mode)
{
	return (mode >= 0 && (size_t)mode < NMODES ? modes[mode] : "?");
}

/* Do NONE, FIX and MAX take a level (no), the others (yes)? */
static int
takes_level(int mode)
{
	return (mode == EMU_ATTEN_ABSOLUTE || mode == EMU_ATTEN_CONVERGED ||
	        mode == EMU_ATTEN_RELATIVE);
}

static int
bad(const struct lyd_node *c, const char *v, const char *want,
    struct emu_nc_err *err)
{
	emu_nc_fail(err, NC_ERR_INVALID_VALUE, "%s \"%.40s\": %s", LYD_NAME(c),
	            v ? v : "", want);
	snprintf(err->elem, sizeof(err->elem), "%s", LYD_NAME(c));
	return (-EINVAL);
}

static int
number(const struct lyd_node *c, double lo, double hi, double *d,
       const char *want, struct emu_nc_err *err)
{
	const char *v = lyd_get_value(c);
	char       *end;

	if (v == NULL || *v == '\0')
		return (bad(c, v, want, err));
	*d = strtod(v, &end);
	if (*end != '\0' || !isfinite(*d) || *d < lo || *d > hi)
		return (bad(c, v, want, err));
	return (0);
}

static int
port_leaf(const struct lyd_node *c, uint32_t n, struct emu_nc_port *q,
          struct emu_nc_err *err)
{
	const char *v = lyd_get_value(c), *name = LYD_NAME(c);
	size_t      m;

	if (q->list == EMU_NC_PORTS && strcmp(name, "label") == 0) {
		if (v == NULL || !emu_label_ok(v))
			return (bad(c, v,
			            "up to 32 printable characters, none of "
			            "\"\\:;,&",
			            err));
		snprintf(q->label, sizeof(q->label), "%s", v);
		q->has |= EMU_NC_HAS_LABEL;
	} else if (q->list == EMU_NC_VOA && strcmp(name, "atten-mode") == 0) {
		for (m = 0; m < NMODES && (!v || strcmp(v, modes[m])); m++)
			;
		if (m == NMODES)
			return (bad(c, v,
			            "expected VOA_MODE_NONE, _FIXED, "
			            "_MAXIMUM, _ABSOLUTE, _CONVERGED or "
			            "_RELATIVE",
			            err));
		q->mode = (int)m;
		q->has |= EMU_NC_HAS_MODE;
	} else if (q->list == EMU_NC_VOA && strcmp(name, "atten-level") == 0) {
		if (number(c, 0, MAX_ATTEN_DB, &q->level, "expected 0..60 dB",
		           err))
			return (-EINVAL);
		q->has |= EMU_NC_HAS_LEVEL;
	} else if (q->list == EMU_NC_VOA &&
	           strcmp(name, "reference-port") == 0) {
		if (emu_nc_port_of(c, 1, 2 * n, &q->ref, err) != 0)
			return (-EINVAL);
		q->has |= EMU_NC_HAS_REF;
	} else if (q->list == EMU_NC_OPMCFG &&
	           strcmp(name, "wavelength") == 0) {
		if (number(c, 1250, 1650, &q->wave, "expected 1250..1650 nm",
		           err))
			return (-EINVAL);
		q->has |= EMU_NC_HAS_WAVE;
	} else if (q->list == EMU_NC_OPMCFG && strcmp(name, "offset") == 0) {
		if (number(c, -20, 20, &q->offset, "expected -20..20 dB", err))
			return (-EINVAL);
		q->has |= EMU_NC_HAS_OFFSET;
	} else if (q->list == EMU_NC_PORTS && (strcmp(name, "status") == 0 ||
	                                       strcmp(name, "peer-port") == 0))
		return (bad(c, v, "state data: not configurable", err));
	else
		return (emu_nc_unknown(c, "port", err));
	return (0);
}

static int
one_port(const struct lyd_node *pn, enum emu_nc_op inh, uint32_t n,
         struct emu_nc_port *q, struct emu_nc_err *err)
{
	const struct lyd_node *c;
	enum emu_nc_op         lop;
	int                    have_id = 0;

	if (emu_nc_op_of(pn, inh, &q->op, err) != 0)
		return (-EINVAL);
	LY_LIST_FOR(emu_nc_kids(pn), c)
	{
		if (emu_nc_ours(c, err) != 0)
			return (-EINVAL);
		if (strcmp(LYD_NAME(c), "port-id") == 0) {
			if (emu_nc_port_of(c, 1, 2 * n, &q->port, err) != 0)
				return (-EINVAL);
			have_id = 1;
			continue;
		}
		if (port_leaf(c, n, q, err) != 0 ||
		    emu_nc_op_of(c, q->op, &lop, err) != 0)
			return (-EINVAL);
		/* A leaf deleted: the label cleared, an attenuator or a
		 * monitor back to its defaults. */
		if (lop == EMU_NC_DELETE || lop == EMU_NC_REMOVE) {
			q->label[0] = '\0';
			q->op = q->list == EMU_NC_PORTS ? q->op : lop;
		}
	}
	if (!have_id) {
		emu_nc_fail(err, NC_ERR_MISSING_ELEM, "port: port-id missing");
		snprintf(err->elem, sizeof(err->elem), "port-id");
		return (-EINVAL);
	}
	if (q->list == EMU_NC_VOA && q->port <= n) {
		emu_nc_fail(err, NC_ERR_INVALID_VALUE,
		            "Not an output port: %u", q->port);
		snprintf(err->elem, sizeof(err->elem), "port-id");
		return (-EINVAL);
	}
	return (0);
}

int
emu_nc_ports_parse(const struct lyd_node *t, enum emu_nc_op dflt, uint32_t n,
                   struct emu_nc_edit *ed, struct emu_nc_err *err)
{
	const struct lyd_node *c;
	unsigned               list = emu_nc_want(t);
	size_t                 k = emu_nc_count(emu_nc_kids(t)), li;
	struct emu_nc_port    *np;

	li = list == EMU_NC_PORTS ? 0 : list == EMU_NC_VOA ? 1 : 2;
	if (ed->lists & list)
		return (emu_nc_fail(err, NC_ERR_BAD_ELEM, "%s: twice",
		                    LYD_NAME(t)));
	ed->lists |= list;
	if (emu_nc_op_of(t, dflt, &ed->list_op[li], err) != 0)
		return (-EINVAL);
	/* Counted before anything is kept. */
	if (k > 2 * (size_t)n)
		return (emu_nc_fail(err, NC_ERR_TOO_BIG,
		                    "Too many ports: %zu for %u", k, 2 * n));
	if (k &&
	    (np = realloc(ed->port, (ed->nport + k) * sizeof(*np))) == NULL)
		return (-ENOMEM);
	if (k)
		ed->port = np;
	LY_LIST_FOR(emu_nc_kids(t), c)
	{
		struct emu_nc_port *q = &ed->port[ed->nport];

		if (emu_nc_ours(c, err) != 0)
			return (-EINVAL);
		if (strcmp(LYD_NAME(c), "port") != 0)
			return (emu_nc_unknown(c, LYD_NAME(t), err));
		memset(q, 0, sizeof(*q));
		q->list = list;
		if (one_port(c, ed->list_op[li], n, q, err) != 0)
			return (-EINVAL);
		ed->nport++;
	}
	return (0);
}

/* ---- against the switch ------------------------------------------------- */

/* The attenuator q asks for, from what port p has: 0, or -EINVAL. */
static int
voa_check(const struct emu_port *p, const struct emu_nc_port *q,
          struct emu_nc_err *err)
{
	int mode = q->has & EMU_NC_HAS_MODE ? q->mode : p->amode;

	if (q->op == EMU_NC_DELETE || q->op == EMU_NC_REMOVE ||
	    q->op == EMU_NC_NONE)
		return (0);
	if ((q->has & EMU_NC_HAS_LEVEL) && !takes_level(mode))
		return (emu_nc_fail(err, NC_ERR_INVALID_VALUE,
		                    "port %u: %s takes no atten-level",
		                    q->port, modes[mode]));
	if (takes_level(mode) && !(q->has & EMU_NC_HAS_LEVEL) &&
	    !takes_level(p->amode))
		return (emu_nc_fail(err, NC_ERR_MISSING_ELEM,
		                    "port %u: %s needs an atten-level",
		                    q->port, modes[mode]));
	if ((q->has & EMU_NC_HAS_REF) && mode != EMU_ATTEN_RELATIVE)
		return (emu_nc_fail(err, NC_ERR_INVALID_VALUE,
		                    "port %u: a reference-port is for "
		                    "VOA_MODE_RELATIVE only",
		                    q->port));
	return (0);
}

static void
voa_set(struct emu_port *p, const struct emu_nc_port *q)
{
	int mode = q->has & EMU_NC_HAS_MODE ? q->mode : p->amode;

	if (q->op == EMU_NC_DELETE || q->op == EMU_NC_REMOVE) {
		p->amode = EMU_ATTEN_NONE;
		p->alevel = 0;
		p->aref = 0;
		return;
	}
	/* As SET-PORT-ATTEN: FIX holds the attenuation in force. */
	if (mode == EMU_ATTEN_FIXED && p->amode == EMU_ATTEN_MAXIMUM)
		p->alevel = MAX_ATTEN_DB;
	else if (mode == EMU_ATTEN_FIXED && p->amode == EMU_ATTEN_NONE)
		p->alevel = 0;
	else if (mode == EMU_ATTEN_MAXIMUM)
		p->alevel = MAX_ATTEN_DB;
	else if (mode == EMU_ATTEN_NONE)
		p->alevel = 0;
	else if (q->has & EMU_NC_HAS_LEVEL)
		p->alevel = q->level;
	p->amode = (uint8_t)mode;
	if (q->has & EMU_NC_HAS_REF)
		p->aref = q->ref;
	else if (mode != EMU_ATTEN_RELATIVE)
		p->aref = 0;
}

static void
one_set(struct emu *e, const struct emu_nc_port *q)
{
	struct emu_port *p = &e->port[q->port];
	int gone = q->op == EMU_NC_DELETE || q->op == EMU_NC_REMOVE;

	if (q->op == EMU_NC_NONE)
		return;
	if (q->list == EMU_NC_PORTS) {
		if (gone)
			p->label[0] = '\0';
		else if (q->has & EMU_NC_HAS_LABEL)
			snprintf(p->label, sizeof(p->label), "%s", q->label);
	} else if (q->list == EMU_NC_VOA)
		voa_set(p, q);
	else if (gone) {
		p->wave = 1550;
		p->offset = 0;
	} else {
		if (q->has & EMU_NC_HAS_WAVE)
			p->wave = (uint16_t)lround(q->wave);
		if (q->has & EMU_NC_HAS_OFFSET)
			p->offset = q->offset;
	}
}

int
emu_nc_ports_apply(const struct emu_nc_edit *ed, struct emu *e, int apply,
                   struct emu_nc_err *err)
{
	size_t   i;
	uint32_t p;

	for (i = 0; i < ed->nport; i++)
		if (ed->port[i].list == EMU_NC_VOA &&
		    voa_check(&e->port[ed->port[i].port], &ed->port[i], err) !=
		        0)
			return (-EINVAL);
	if (!apply)
		return (0);
	/* replace of a whole list: what it does not name is cleared. */
	for (p = 1; p <= 2 * e->x.n; p++) {
		if ((ed->lists & EMU_NC_PORTS) &&
		    ed->list_op[0] == EMU_NC_REPLACE)
			e->port[p].label[0] = '\0';
		if ((ed->lists & EMU_NC_VOA) &&
		    ed->list_op[1] == EMU_NC_REPLACE && p > e->x.n)
			voa_set(&e->port[p],
			        &(struct emu_nc_port){.op = EMU_NC_DELETE});
	}
	for (i = 0; i < ed->nport; i++)
		one_set(e, &ed->port[i]);
	return (0);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * An edit-config's <config> mapped to one batch of patches, as ENT-PATCH
 * with a list is on TL1: the whole edit is checked before anything
 * changes, and a refusal names the element and the value.  Read
 * (emu_nc_edit_parse: names, namespaces, operations, values) and held
 * against the switch (emu_nc_edit_plan: busy and missing ports, the
 * final map) separately, so both are pure and fuzzed.
 */
#include <errno.h>
#include <nc_server.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testbed/ocs-emu/emu.h"
#include "testbed/ocs-emu/emu_nc.h"

__attribute__((__format__(printf, 3, 4))) int
emu_nc_fail(struct emu_nc_err *err, int tag, const char *fmt, ...)
{
	va_list ap;

	memset(err, 0, sizeof(*err));
	err->tag = tag;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return (-EINVAL);
}

const char *
emu_nc_ns(const struct lyd_node *n)
{
	const struct lyd_node_opaq *o = (const struct lyd_node_opaq *)n;

	if (n->schema != NULL)
		return (n->schema->module->ns);
	return (o->name.module_ns ? o->name.module_ns : "");
}

const struct lyd_node *
emu_nc_kids(const struct lyd_node *n)
{
	if (n->schema == NULL)
		return (((const struct lyd_node_opaq *)n)->child);
	return (lyd_child(n));
}

int
emu_nc_ours(const struct lyd_node *n, struct emu_nc_err *err)
{
	if (strcmp(emu_nc_ns(n), EMU_NC_NS) == 0)
		return (0);
	emu_nc_fail(err, NC_ERR_UNKNOWN_NS,
	            "%.60s: unknown namespace \"%.80s\"", LYD_NAME(n),
	            emu_nc_ns(n));
	snprintf(err->elem, sizeof(err->elem), "%s", LYD_NAME(n));
	snprintf(err->ns, sizeof(err->ns), "%s", emu_nc_ns(n));
	return (-EINVAL);
}

int
emu_nc_unknown(const struct lyd_node *n, const char *in,
               struct emu_nc_err *err)
{
	emu_nc_fail(err, NC_ERR_UNKNOWN_ELEM, "%.60s: no such element in %s",
	            LYD_NAME(n), in);
	snprintf(err->elem, sizeof(err->elem), "%s", LYD_NAME(n));
	return (-EINVAL);
}

static const char *const op_names[] = {
    [EMU_NC_MERGE] = "merge",   [EMU_NC_REPLACE] = "replace",
    [EMU_NC_CREATE] = "create", [EMU_NC_DELETE] = "delete",
    [EMU_NC_REMOVE] = "remove", [EMU_NC_NONE] = "none",
};

int
emu_nc_op_of(const struct lyd_node *n, enum emu_nc_op inherited,
             enum emu_nc_op *op, struct emu_nc_err *err)
{
	const char *v = NULL;
	size_t      i;

	if (n->schema != NULL) {
		const struct lyd_meta *m;

		for (m = n->meta; m != NULL; m = m->next)
			if (strcmp(m->name, "operation") == 0 &&
			    strcmp(m->annotation->module->name,
			           "ietf-netconf") == 0)
				v = lyd_get_meta_value(m);
	} else {
		const struct lyd_attr *a;

		for (a = ((const struct lyd_node_opaq *)n)->attr; a != NULL;
		     a = a->next)
			/* nc:operation; or operation="..." without a
			 * namespace, as ONOS's Polatis driver writes it
			 * (not RFC 6241's, but what its switches took). */
			if (strcmp(a->name.name, "operation") == 0 &&
			    (a->name.module_ns == NULL ||
			     a->name.module_ns[0] == '\0' ||
			     strcmp(a->name.module_ns, EMU_NC_BASE_NS) == 0))
				v = a->value;
	}
	*op = inherited;
	if (v == NULL)
		return (0);
	for (i = 0; i < EMU_NC_NONE; i++)
		if (strcmp(v, op_names[i]) == 0) {
			*op = (enum emu_nc_op)i;
			return (0);
		}
	emu_nc_fail(
	    err, NC_ERR_BAD_ATTR,
	    "%.60s: operation \"%.40s\": expected merge, replace, create, "
	    "delete or remove",
	    LYD_NAME(n), v);
	snprintf(err->elem, sizeof(err->elem), "%s", LYD_NAME(n));
	return (-EINVAL);
}

int
emu_nc_port_of(const struct lyd_node *n, uint32_t lo, uint32_t hi, uint32_t *p,
               struct emu_nc_err *err)
{
	const char   *v = lyd_get_value(n);
	char         *end;
	unsigned long u;

	if (v == NULL)
		v = "";
	u = strtoul(v, &end, 10);
	if (*v < '0' || *v > '9' || *end != '\0' || u < lo || u > hi) {
		emu_nc_fail(err, NC_ERR_INVALID_VALUE,
		            "Invalid OXC port: %.40s", v);
		snprintf(err->elem, sizeof(err->elem), "%s", LYD_NAME(n));
		return (-EINVAL);
	}
	*p = (uint32_t)u;
	return (0);
}

size_t
emu_nc_count(const struct lyd_node *n)
{
	size_t k = 0;

	for (; n != NULL; n = n->next)
		k++;
	return (k);
}

static int
one_pair(const struct lyd_node *pn, enum emu_nc_op inh, uint32_t n,
         struct emu_nc_pair *p, struct emu_nc_err *err)
{
	const struct lyd_node *c;
	enum emu_nc_op         lop;
	int                    have_in = 0;

	memset(p, 0, sizeof(*p));
	if (emu_nc_op_of(pn, inh, &p->op, err) != 0)
		return (-EINVAL);
	LY_LIST_FOR(emu_nc_kids(pn), c)
	{
		if (emu_nc_ours(c, err) != 0)
			return (-EINVAL);
		if (strcmp(LYD_NAME(c), "ingress") == 0) {
			if (emu_nc_port_of(c, 1, n, &p->in, err) != 0)
				return (-EINVAL);
			have_in = 1;
		} else if (strcmp(LYD_NAME(c), "egress") == 0) {
			if (emu_nc_port_of(c, n + 1, 2 * n, &p->out, err) !=
			        0 ||
			    emu_nc_op_of(c, p->op, &lop, err) != 0)
				return (-EINVAL);
			/* Deleting the egress leaf deletes the patch. */
			if (lop == EMU_NC_DELETE || lop == EMU_NC_REMOVE)
				p->op = lop;
		} else
			return (emu_nc_unknown(c, "pair", err));
	}
	if (!have_in) {
		emu_nc_fail(err, NC_ERR_MISSING_ELEM, "pair: ingress missing");
		snprintf(err->elem, sizeof(err->elem), "ingress");
		return (-EINVAL);
	}
	return (0);
}

static int
xconns(const struct lyd_node *xc, enum emu_nc_op dflt, uint32_t n,
       struct emu_nc_edit *ed, struct emu_nc_err *err)
{
	const struct lyd_node *c;
	size_t                 k = emu_nc_count(emu_nc_kids(xc));

	if (ed->xc)
		return (emu_nc_fail(err, NC_ERR_BAD_ELEM,
		                    "cross-connects: twice"));
	ed->xc = 1;
	if (emu_nc_op_of(xc, dflt, &ed->xc_op, err) != 0)
		return (-EINVAL);
	/* Counted before anything is kept: a list longer than the switch
	 * (a million ports) is refused at once. */
	if (k > n)
		return (emu_nc_fail(
		    err, NC_ERR_TOO_BIG,
		    "Too many ports: %zu pairs for %u ingress ports", k, n));
	if (k && (ed->pair = calloc(k, sizeof(*ed->pair))) == NULL)
		return (-ENOMEM);
	LY_LIST_FOR(emu_nc_kids(xc), c)
	{
		if (emu_nc_ours(c, err) != 0)
			return (-EINVAL);
		if (strcmp(LYD_NAME(c), "pair") != 0)
			return (emu_nc_unknown(c, "cross-connects", err));
		if (one_pair(c, ed->xc_op, n, &ed->pair[ed->npair], err) != 0)
			return (-EINVAL);
		ed->npair++;
	}
	return (0);
}

int
emu_nc_edit_parse(const struct lyd_node *config, enum emu_nc_op dflt,
                  uint32_t n, struct emu_nc_edit *ed, struct emu_nc_err *err)
{
	const struct lyd_node *t;
	int                    rv = 0;

	memset(ed, 0, sizeof(*ed));
	LY_LIST_FOR(config, t)
	{
		const char *name = LYD_NAME(t);

		if ((rv = emu_nc_ours(t, err)) != 0)
			break;
		if (strcmp(name, "cross-connects") == 0)
			rv = xconns(t, dflt, n, ed, err);
		else if (emu_nc_want(t) &
		         (EMU_NC_PORTS | EMU_NC_VOA | EMU_NC_OPMCFG))
			rv = emu_nc_ports_parse(t, dflt, n, ed, err);
		else if (strcmp(name, "product-information") == 0 ||
		         strcmp(name, "opm-power") == 0) {
			rv = emu_nc_fail(err, NC_ERR_INVALID_VALUE,
			                 "%s is state data: not configurable",
			                 name);
			snprintf(err->elem, sizeof(err->elem), "%s", name);
		} else
			rv = emu_nc_unknown(t, "optical-switch", err);
		if (rv != 0)
			break;
	}
	if (rv != 0)
		emu_nc_edit_free(ed);
	return (rv);
}

void
emu_nc_edit_free(struct emu_nc_edit *ed)
{
	free(ed->pair);
	free(ed->port);
	memset(ed, 0, sizeof(*ed));
}

/* ---- against the switch ------------------------------------------------- */

struct plan {
	uint32_t  n;
	uint16_t *fin;  /* [n + 1] ingress -> egress after the edit */
	uint16_t *own;  /* [2n + 1] egress -> ingress after the edit */
	uint8_t  *seen; /* [2n + 1] named by a pair of this edit */
};

static void
unpatch(struct plan *p, uint32_t in)
{
	if (p->fin[in]) {
		p->own[p->fin[in]] = 0;
		p->fin[in] = 0;
	}
}

static int
busy(struct emu_nc_err *err, const char *elem, uint32_t port, uint32_t peer)
{
	emu_nc_fail(err, NC_ERR_IN_USE, "Port %u already patched to %u", port,
	            peer);
	snprintf(err->elem, sizeof(err->elem), "%s", elem);
	return (-EINVAL);
}

/* A patch in -> out that the edit asks for, with ports possibly busy. */
static int
patch(struct plan *p, const struct emu_nc_pair *q, int repoint,
      struct emu_nc_err *err)
{
	uint32_t cur = p->fin[q->in], owner = p->own[q->out];

	if (cur == q->out)
		return (q->op == EMU_NC_CREATE
		            ? emu_nc_fail(err, NC_ERR_DATA_EXISTS,
		                          "Cross-connect %u->%u exists", q->in,
		                          q->out)
		            : 0);
	if (cur && !repoint && q->op != EMU_NC_REPLACE)
		return (busy(err, "ingress", q->in, cur));
	if (owner && owner != q->in && !repoint)
		return (busy(err, "egress", q->out, owner));
	unpatch(p, q->in);
	if (owner)
		unpatch(p, owner);
	p->fin[q->in] = (uint16_t)q->out;
	p->own[q->out] = (uint16_t)q->in;
	return (0);
}

/* First pass, pair q of the edit: ports named once; deletes, removes
 * and the old patch of a replaced pair undone, so that the second pass
 * sees every port the edit frees, whatever the order of its pairs. */
static int
undo(struct plan *p, const struct emu_nc_pair *q, struct emu_nc_err *err)
{
	uint32_t cur = p->fin[q->in];

	if (p->seen[q->in] || (q->out && p->seen[q->out])) {
		emu_nc_fail(err, NC_ERR_INVALID_VALUE, "Port %u repeated",
		            p->seen[q->in] ? q->in : q->out);
		snprintf(err->elem, sizeof(err->elem), "%s",
		         p->seen[q->in] ? "ingress" : "egress");
		return (-EINVAL);
	}
	p->seen[q->in] = 1;
	if (q->out)
		p->seen[q->out] = 1;
	switch (q->op) {
	case EMU_NC_DELETE:
	case EMU_NC_NONE:
		if (!cur || (q->out && cur != q->out))
			return (emu_nc_fail(err, NC_ERR_DATA_MISSING,
			                    "No cross-connect %u->%u", q->in,
			                    q->out ? q->out : cur));
		if (q->op == EMU_NC_DELETE)
			unpatch(p, q->in);
		return (0);
	case EMU_NC_REMOVE:
		if (!q->out || cur == q->out)
			unpatch(p, q->in);
		return (0);
	case EMU_NC_REPLACE:
		if (q->out && cur != q->out)
			unpatch(p, q->in);
		return (0);
	default:
		return (0);
	}
}

/* Second pass: the patches merged, created and replaced. */
static int
redo(struct plan *p, const struct emu_nc_pair *q, int repoint,
     struct emu_nc_err *err)
{
	uint32_t cur = p->fin[q->in];

	if (q->op != EMU_NC_MERGE && q->op != EMU_NC_CREATE &&
	    q->op != EMU_NC_REPLACE)
		return (0);
	if (q->out == 0) {
		if (cur && q->op == EMU_NC_MERGE)
			return (0); /* nothing to change */
		emu_nc_fail(err, NC_ERR_MISSING_ELEM,
		            "pair %u: egress missing", q->in);
		snprintf(err->elem, sizeof(err->elem), "egress");
		return (-EINVAL);
	}
	return (patch(p, q, repoint, err));
}

/* The differences between the map before (x) and after (p) as a batch. */
static int
diff(const struct oxc *x, const struct plan *p, uint16_t **disc, size_t *ndisc,
     struct drv_patch **conn, size_t *nconn)
{
	uint32_t i;

	*disc = calloc(p->n + 1, sizeof(**disc));
	*conn = calloc(p->n + 1, sizeof(**conn));
	if (*disc == NULL || *conn == NULL)
		return (-ENOMEM);
	for (i = 1; i <= p->n; i++) {
		if (x->out_of[i] && x->out_of[i] != p->fin[i])
			(*disc)[(*ndisc)++] = (uint16_t)i;
		if (p->fin[i] && x->out_of[i] != p->fin[i])
			(*conn)[(*nconn)++] =
			    (struct drv_patch){(uint16_t)i, p->fin[i]};
	}
	return (0);
}

static int
plan_pairs(const struct emu_nc_edit *ed, const struct oxc *x, struct plan *p,
           struct emu_nc_err *err)
{
	size_t   k;
	uint32_t i;

	if (!ed->xc)
		return (0);
	/* delete and remove of the container: every patch goes; replace:
	 * every patch the edit does not list. */
	if (ed->xc_op == EMU_NC_DELETE || ed->xc_op == EMU_NC_REMOVE ||
	    ed->xc_op == EMU_NC_REPLACE)
		for (i = 1; i <= x->n; i++)
			unpatch(p, i);
	if (ed->xc_op == EMU_NC_DELETE || ed->xc_op == EMU_NC_REMOVE)
		return (0);
	for (k = 0; k < ed->npair; k++)
		if (undo(p, &ed->pair[k], err) != 0)
			return (-EINVAL);
	for (k = 0; k < ed->npair; k++)
		if (redo(p, &ed->pair[k], x->busy_replace, err) != 0)
			return (-EINVAL);
	return (0);
}

int
emu_nc_edit_plan(const struct emu_nc_edit *ed, const struct oxc *x,
                 uint16_t **disc, size_t *ndisc, struct drv_patch **conn,
                 size_t *nconn, struct emu_nc_err *err)
{
	struct plan p = {.n = x->n};
	int         rv = -ENOMEM;

	*disc = NULL;
	*conn = NULL;
	*ndisc = *nconn = 0;
	p.fin = calloc(x->n + 1, sizeof(*p.fin));
	p.own = calloc(2 * x->n + 1, sizeof(*p.own));
	p.seen = calloc(2 * x->n + 1, 1);
	if (!p.fin || !p.own || !p.seen)
		goto done;
	memcpy(p.fin, x->out_of, (x->n + 1) * sizeof(*p.fin));
	memcpy(p.own, x->in_of, (2 * x->n + 1) * sizeof(*p.own));
	if ((rv = plan_pairs(ed, x, &p, err)) == 0)
		rv = diff(x, &p, disc, ndisc, conn, nconn);
done:
	if (rv != 0) {
		free(*disc);
		free(*conn);
		*disc = NULL;
		*conn = NULL;
		*ndisc = *nconn = 0;
	}
	free(p.fin);
	free(p.own);
	free(p.seen);
	return (rv);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* Reading optical-switch data trees (pnc_tree.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocs-drivers/pnc_tree.h"

static const char *
ns_of(const struct lyd_node *n)
{
	const struct lyd_node_opaq *o = (const struct lyd_node_opaq *)n;

	if (n->schema != NULL)
		return (n->schema->module->ns);
	return (o->name.module_ns ? o->name.module_ns : "");
}

static const struct lyd_node *
kids(const struct lyd_node *n)
{
	if (n->schema == NULL)
		return (((const struct lyd_node_opaq *)n)->child);
	return (lyd_child(n));
}

static int
is(const struct lyd_node *n, const char *name)
{
	return (strcmp(LYD_NAME(n), name) == 0 &&
	        strcmp(ns_of(n), PNC_NS) == 0);
}

/* The value of child name of n as a number in lo..hi: 1, 0 (no such
 * child), -1 (not such a number). */
static int
num(const struct lyd_node *n, const char *name, uint32_t lo, uint32_t hi,
    uint32_t *v)
{
	const struct lyd_node *c;
	const char            *s;
	char                  *end;
	unsigned long          u;

	LY_LIST_FOR(kids(n), c)
	{
		if (!is(c, name))
			continue;
		s = lyd_get_value(c);
		if (s == NULL || *s < '0' || *s > '9')
			return (-1);
		u = strtoul(s, &end, 10);
		if (*end != '\0' || u < lo || u > hi)
			return (-1);
		*v = (uint32_t)u;
		return (1);
	}
	return (0);
}

static const char *
text(const struct lyd_node *n, const char *name)
{
	const struct lyd_node *c;

	LY_LIST_FOR(kids(n), c)
	if (is(c, name))
		return (lyd_get_value(c));
	return (NULL);
}

int
pnc_count_ports(const struct lyd_node *data, char *err, size_t len)
{
	const struct lyd_node *t, *p;
	uint32_t               id;
	int                    k = 0;

	LY_LIST_FOR(data, t)
	{
		if (!is(t, "port-config"))
			continue;
		LY_LIST_FOR(kids(t), p)
		{
			if (!is(p, "port"))
				continue;
			if (num(p, "port-id", 1, 2 * DRV_MAX_PORTS, &id) !=
			    1) {
				snprintf(err, len,
				         "port-config: a port without "
				         "a port-id in 1..8192");
				return (-DRV_EPROTO);
			}
			k++;
		}
	}
	if (k == 0 || k % 2 != 0) {
		snprintf(err, len,
		         "port-config: %d ports: not an N x N switch's 2N", k);
		return (-DRV_EPROTO);
	}
	return (k);
}

int
pnc_map(const struct lyd_node *data, uint32_t n, uint16_t *map, char *err,
        size_t len)
{
	const struct lyd_node *t, *p;
	uint8_t               *used;
	uint32_t               in = 0, out = 0;

	memset(map, 0, (n + 1) * sizeof(*map));
	if ((used = calloc(2 * (size_t)n + 1, 1)) == NULL)
		return (-ENOMEM);
	LY_LIST_FOR(data, t)
	{
		if (!is(t, "cross-connects"))
			continue;
		LY_LIST_FOR(kids(t), p)
		{
			if (!is(p, "pair"))
				continue;
			if (num(p, "ingress", 1, n, &in) != 1 ||
			    num(p, "egress", n + 1, 2 * n, &out) != 1 ||
			    map[in] || used[out]) {
				snprintf(err, len,
				         "cross-connects: a pair %s (ingress "
				         "1..%u, egress %u..%u, each once)",
				         map[in] || used[out] ? "twice"
				                              : "out of range",
				         n, n + 1, 2 * n);
				free(used);
				return (-DRV_EPROTO);
			}
			map[in] = (uint16_t)out;
			used[out] = 1;
		}
	}
	free(used);
	return (0);
}

/* Index k + 1 of every asked port, chained for repeats. */
struct idx {
	uint32_t *at, *next;
};

static void
mark(struct drv_port_state *st, const struct idx *ix, uint32_t port,
     double dbm, int failed)
{
	uint32_t k;

	for (k = port <= 2 * DRV_MAX_PORTS ? ix->at[port] : 0; k > 0;
	     k = ix->next[k - 1]) {
		if (failed)
			st[k - 1].failed = 1;
		else
			st[k - 1].dbm = dbm;
	}
}

static int
walk(const struct lyd_node *data, struct drv_port_state *st,
     const struct idx *ix, char *err, size_t len)
{
	const struct lyd_node *t, *p;
	const char            *v;
	uint32_t               id;
	char                  *end;
	double                 dbm;

	LY_LIST_FOR(data, t)
	{
		int opm = is(t, "opm-power"), cfg = is(t, "port-config");

		if (!opm && !cfg)
			continue;
		LY_LIST_FOR(kids(t), p)
		{
			if (!is(p, "port") ||
			    num(p, "port-id", 1, 2 * DRV_MAX_PORTS, &id) != 1)
				continue;
			if (cfg) {
				v = text(p, "status");
				if (v && strcmp(v, "FAILED") == 0)
					mark(st, ix, id, 0, 1);
				continue;
			}
			if ((v = text(p, "power")) == NULL)
				continue;
			dbm = strtod(v, &end);
			if (end == v || *end != '\0' || !(dbm >= -200) ||
			    !(dbm <= 50)) {
				snprintf(err, len,
				         "opm-power: port %u: power \"%.40s\"",
				         id, v);
				return (-DRV_EPROTO);
			}
			mark(st, ix, id, dbm, 0);
		}
	}
	return (0);
}

int
pnc_port_states(const struct lyd_node *data, const uint16_t *ports, size_t n,
                struct drv_port_state *st, char *err, size_t len)
{
	struct idx ix;
	size_t     k;
	int        rv;

	ix.at = calloc(2 * DRV_MAX_PORTS + 1, sizeof(*ix.at));
	ix.next = calloc(n + 1, sizeof(*ix.next));
	if (ix.at == NULL || ix.next == NULL) {
		free(ix.at);
		free(ix.next);
		return (-ENOMEM);
	}
	for (k = n; k-- > 0;) {
		st[k] = (struct drv_port_state){DRV_NO_READING, 0};
		if (ports[k] <= 2 * DRV_MAX_PORTS) {
			ix.next[k] = ix.at[ports[k]];
			ix.at[ports[k]] = (uint32_t)k + 1;
		}
	}
	rv = walk(data, st, &ix, err, len);
	free(ix.at);
	free(ix.next);
	return (rv);
}

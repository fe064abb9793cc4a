/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A reconfiguration in CALIENT's terms, for both calient drivers: the
 * connections a switch lists, the batch of patches asked for, and the
 * connections to take down and to make.  Pure.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ocs-drivers/rest.h"
#include "proto/base/errf.h"

int
rest_map_of(const struct rest_names *t, const struct rest_xc *x, size_t n,
            uint16_t *map, char *err, size_t errlen)
{
	char   nm[REST_CONN_MAX];
	size_t i;

	memset(map, 0, (t->n + 1) * sizeof(*map));
	for (i = 0; i < n; i++)
		if (rest_xc_to_map(&x[i], t->n, map) != 0)
			return (errf(-REST_EVALUE, err, errlen,
			             "%s overlaps another connection",
			             rest_conn_fmt(t, &x[i], nm, sizeof(nm))));
	return (0);
}

/* Would a port of patch p clash with the map?  (Named in err.) */
static int
busy(uint32_t n, const uint16_t *map, const struct drv_patch *p, char *err,
     size_t errlen)
{
	uint32_t i;

	if (map[p->in] != 0)
		return (errf(-DRV_EBUSY, err, errlen,
		             "ingress %u is already patched to %u", p->in,
		             map[p->in]));
	for (i = 1; i <= n; i++)
		if (map[i] == p->out)
			return (errf(-DRV_EBUSY, err, errlen,
			             "egress %u is already patched from %u",
			             p->out, i));
	return (0);
}

int
rest_plan(const struct rest_names *t, const struct rest_xc *cur, size_t ncur,
          const struct drv_batch *b, struct rest_xc *del, size_t *ndel,
          struct rest_xc *add, size_t *nadd, uint16_t *map, uint16_t *rest,
          char *err, size_t errlen)
{
	uint32_t n = t->n, i, j;
	size_t   k;
	int      rv;

	if ((rv = rest_map_of(t, cur, ncur, map, err, errlen)) != 0)
		return (rv);
	for (k = 0; k < b->ndisconnect; k++) {
		uint32_t pt = b->disconnect[k];

		if (pt <= n)
			map[pt] = 0;
		else
			for (i = 1; i <= n; i++)
				if (map[i] == pt)
					map[i] = 0;
	}
	for (k = 0; k < b->nconnect; k++) {
		if ((rv = busy(n, map, &b->connect[k], err, errlen)) != 0)
			return (rv);
		map[b->connect[k].in] = b->connect[k].out;
	}
	/* Keep every listed connection whose patches all survive. */
	memcpy(rest, map, (n + 1) * sizeof(*map));
	*ndel = 0;
	for (k = 0; k < ncur; k++) {
		i = cur[k].a;
		j = cur[k].b;
		if (map[i] == n + j && (!cur[k].bi || map[j] == n + i)) {
			rest[i] = 0;
			if (cur[k].bi)
				rest[j] = 0;
		} else
			del[(*ndel)++] = cur[k];
	}
	*nadd = rest_xc_from_map(rest, n, add);
	return (0);
}

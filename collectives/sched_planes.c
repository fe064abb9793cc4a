/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Transceiver planes of a schedule (sched.h): which plane each port's
 * transmitter is on, and which planes a phase's configuration changes.
 * A fabric has one switch a plane, and a link is made on its sender's
 * switch, so a plane's circuits are the links its transmitters send on;
 * a phase that changes only some of them leaves the others lit.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/sched.h"

int
sched_set_planes(struct sched *s, uint32_t nplanes, const uint8_t *plane)
{
	uint32_t p;

	if (nplanes < 1 || nplanes > SCHED_MAX_PLANES ||
	    (nplanes > 1 && s->ports > SCHED_MAX_PLANES))
		return (-EINVAL);
	for (p = 0; nplanes > 1 && p < s->ports; p++)
		if (plane[p] >= nplanes)
			return (-EINVAL);
	memset(s->plane, 0, sizeof(s->plane));
	for (p = 0; nplanes > 1 && p < s->ports; p++)
		s->plane[p] = plane[p];
	s->nplanes = nplanes;
	return (0);
}

/* What each transmitter of configuration c sends into: tx[node * ports +
 * port] = the receiving transceiver, or SCHED_NONE. */
static int
tx_of(const struct sched *s, int32_t c, uint32_t *tx)
{
	uint32_t np = s->n * s->ports, i;

	for (i = 0; i < np; i++)
		tx[i] = SCHED_NONE;
	if (c < 0)
		return (0);
	for (i = 0; i < s->cfg[c].ncirc; i++) {
		const struct sched_circuit *e =
		    &s->circ[s->cfg[c].circ_off + i];
		uint64_t a = (uint64_t)e->a * s->ports + e->pa,
		         b = (uint64_t)e->b * s->ports + e->pb;

		if (e->a >= s->n || e->b >= s->n || e->pa >= s->ports ||
		    e->pb >= s->ports)
			return (-COLL_EPORT);
		tx[a] = (uint32_t)b;
		if (!e->oneway)
			tx[b] = (uint32_t)a;
	}
	return (0);
}

int
sched_planes_changed(const struct sched *s, uint32_t k, uint32_t *mask)
{
	uint32_t  np = s->n * s->ports, i, all;
	uint32_t *old, *cur;
	int       rv;

	all = s->nplanes > 1 ? (1u << s->nplanes) - 1 : 1;
	*mask = 0;
	if (k >= s->nph || s->ph[k].cfg < 0)
		return (0);
	if (k == 0) {
		*mask = all;
		return (0);
	}
	old = malloc((size_t)np * sizeof(*old));
	cur = malloc((size_t)np * sizeof(*cur));
	if (old == NULL || cur == NULL) {
		rv = -ENOMEM;
		goto out;
	}
	if ((rv = tx_of(s, sched_cfg_of(s, k - 1), old)) != 0 ||
	    (rv = tx_of(s, s->ph[k].cfg, cur)) != 0)
		goto out;
	for (i = 0; i < np; i++)
		if (old[i] != cur[i])
			*mask |= 1u << (s->nplanes > 1 ? s->plane[i % s->ports]
			                               : 0);
out:
	free(old);
	free(cur);
	return (rv);
}

int
sched_apart(struct sched *s)
{
	uint32_t k, m;
	int      rv;

	if (s->nplanes < 2)
		return (-EINVAL);
	for (k = 0; k < s->nph; k++) {
		if ((rv = sched_planes_changed(s, k, &m)) != 0)
			return (rv);
		s->ph[k].planes = m;
	}
	return (0);
}

int
sched_is_apart(const struct sched *s)
{
	uint32_t k;

	for (k = 0; s->nplanes > 1 && k < s->nph; k++)
		if (s->ph[k].planes != 0)
			return (1);
	return (0);
}

static int
pfail(struct sched_verr *err, uint32_t k, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL) {
		memset(err, 0, sizeof(*err));
		err->code = -COLL_EPLANE;
		err->phase = (int32_t)k;
		err->node = -1;
		err->block = -1;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return (-COLL_EPLANE);
}

int
sched_validate_planes(const struct sched *s, struct sched_verr *err)
{
	uint32_t k, m, all, p;
	int      rv;

	all = s->nplanes > 1 ? (1u << s->nplanes) - 1 : 0;
	for (k = 0; k < s->nph; k++) {
		const struct sched_phase *ph = &s->ph[k];

		if (ph->planes == 0)
			continue;
		if (s->nplanes < 2)
			return (pfail(err, k,
			              "phase %u names planes 0x%x, but the "
			              "schedule has one plane",
			              k, ph->planes));
		if (ph->cfg < 0)
			return (pfail(err, k,
			              "phase %u names planes 0x%x but sets no "
			              "circuits",
			              k, ph->planes));
		if (ph->planes & ~all)
			return (pfail(err, k,
			              "phase %u names planes 0x%x, but there "
			              "are only %u",
			              k, ph->planes, s->nplanes));
		if ((rv = sched_planes_changed(s, k, &m)) != 0)
			return (rv);
		for (p = 0; p < s->nplanes; p++)
			if ((m & ~ph->planes) & (1u << p))
				return (pfail(err, k,
				              "phase %u changes plane %u's "
				              "circuits but does not name it "
				              "(planes 0x%x)",
				              k, p, ph->planes));
	}
	return (0);
}

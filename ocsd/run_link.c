/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A run's links.  On real optics a NIC has a carrier only while light
 * reaches its receiver, and after light returns (a circuit made, or moved
 * to another sender) it retrains before it carries a frame: tens of
 * microseconds on research optics, milliseconds to seconds on commodity
 * 100G/400G NICs.  So after the switch has settled a phase's circuits,
 * the runner releases the phase only once every link the phase lights is
 * up, as the agents say (they watch their carriers and say every change
 * at once); a link whose light came from elsewhere must have come up
 * again since (its carrier count has moved), or a report of "up" from
 * before the switch moved would be taken for the new link.  Once
 * released, a lit link that loses its carrier ends the run, named.
 *
 * The relay's agents say theirs as ocs-emu's relay tells them (its LINK
 * watches); agents that say nothing of their links (a relay without
 * watches) are not waited for.
 */
#include <stdio.h>
#include <string.h>

#include "ocsd/map.h"
#include "ocsd/run_int.h"

static const char *
iface_of(const struct agent *a, uint32_t t, char *buf, size_t len)
{
	if (a->links[t].iface[0])
		snprintf(buf, len, "interface %s (transceiver %u)",
		         a->links[t].iface, t);
	else
		snprintf(buf, len, "transceiver %u", t);
	return (buf);
}

void
run_links_plan(struct ocsd *d, struct run *r, const struct map *tm)
{
	uint32_t i, t, eg, in;

	for (i = 0; i < r->n; i++) {
		const struct agent *a = r->node[i];
		struct run_links   *lk = &r->lk[i];

		memset(lk, 0, sizeof(*lk));
		if (a == NULL || !a->has_links)
			continue;
		for (t = 0; t < a->ntrx && t < AGENT_MAX_TRX; t++) {
			const struct sw *s;

			eg = a->out[t];
			/* Egress ports are numbered past the ingresses, on
			 * the transceiver's own switch (a fabric's plane). */
			if (eg == 0 || a->sw[t] >= d->nsw ||
			    (in = map_in_of(&tm[a->sw[t]], eg)) == 0)
				continue;
			s = &d->sw[a->sw[t]];
			lk->lit |= 1u << t;
			/* Light from another sender, or none before: the
			 * receiver loses lock and trains again. */
			if (!s->have_live || map_in_of(&s->live, eg) != in)
				lk->chg |= 1u << t;
			lk->ups[t] = a->links[t].ups;
		}
	}
}

int
run_links_up(const struct run *r, char *why, size_t len)
{
	return (run_links_up_sw(r, UINT32_MAX, why, len));
}

int
run_links_up_sw(const struct run *r, uint32_t mask, char *why, size_t len)
{
	uint32_t i, t;
	char     nm[48];

	for (i = 0; i < r->n; i++) {
		const struct agent     *a = r->node[i];
		const struct run_links *lk = &r->lk[i];

		for (t = 0; a != NULL && t < AGENT_MAX_TRX; t++) {
			if (!(lk->lit & (1u << t)) || a->sw[t] >= 32 ||
			    !((mask >> a->sw[t]) & 1))
				continue;
			if (a->links[t].state != AGL_UP) {
				snprintf(why, len, "%s %s: %s", a->host,
				         iface_of(a, t, nm, sizeof(nm)),
				         a->links[t].state == AGL_NO_CARRIER
				             ? "no carrier"
				         : a->links[t].state == AGL_DOWN
				             ? "down"
				             : "unplugged");
				return (0);
			}
			if ((lk->chg & (1u << t)) &&
			    a->links[t].ups == lk->ups[t]) {
				snprintf(why, len,
				         "%s %s: its carrier has not come "
				         "back since the switch moved",
				         a->host,
				         iface_of(a, t, nm, sizeof(nm)));
				return (0);
			}
		}
	}
	return (1);
}

void
run_links_mark(struct run *r, uint32_t mask)
{
	uint32_t i, t;

	for (i = 0; i < r->n; i++)
		for (t = 0; r->node[i] != NULL && t < AGENT_MAX_TRX; t++)
			if (r->node[i]->sw[t] < 32 &&
			    ((mask >> r->node[i]->sw[t]) & 1))
				r->lk[i].ups[t] = r->node[i]->links[t].ups;
}

int
run_links_broken(const struct run *r, const struct agent *a, char *why,
                 size_t len)
{
	const struct run_links *lk;
	uint32_t                t;
	char                    nm[48];

	if (a->node < 0 || (uint32_t)a->node >= r->n)
		return (0);
	lk = &r->lk[a->node];
	for (t = 0; t < AGENT_MAX_TRX; t++) {
		if (!(lk->lit & (1u << t)))
			continue;
		if (a->links[t].state != AGL_UP) {
			snprintf(why, len, "%s %s lost its carrier (%s)",
			         a->host, iface_of(a, t, nm, sizeof(nm)),
			         a->links[t].state == AGL_NO_CARRIER
			             ? "no light, or the link failed"
			         : a->links[t].state == AGL_DOWN
			             ? "set down"
			             : "unplugged");
			return (1);
		}
		if (a->links[t].ups != lk->ups[t]) {
			snprintf(why, len,
			         "%s %s lost its carrier and got it back "
			         "(frames in flight were lost)",
			         a->host, iface_of(a, t, nm, sizeof(nm)));
			return (1);
		}
	}
	return (0);
}

int
run_links_mtu(const struct run *r, char *err, size_t len)
{
	const struct agent *first = NULL;
	uint32_t            i, t, ft = 0;

	for (i = 0; i < r->n; i++) {
		const struct agent *a = r->node[i];

		for (t = 0; a != NULL && t < a->ntrx && t < AGENT_MAX_TRX;
		     t++) {
			if (a->links[t].mtu == 0)
				continue;
			if (first == NULL) {
				first = a;
				ft = t;
				continue;
			}
			if (a->links[t].mtu == first->links[ft].mtu)
				continue;
			snprintf(err, len,
			         "MTUs differ: %s %s has %u, %s %s has %u; "
			         "every transceiver of a run needs the same",
			         first->host,
			         first->links[ft].iface[0]
			             ? first->links[ft].iface
			             : "transceiver",
			         first->links[ft].mtu, a->host,
			         a->links[t].iface[0] ? a->links[t].iface
			                              : "transceiver",
			         a->links[t].mtu);
			return (-OCSD_EUSAGE);
		}
	}
	return (0);
}

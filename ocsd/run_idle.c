/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Light while idle ([run] idle_lit).  On real optics a NIC without light
 * loses its carrier and must retrain when light returns (milliseconds to
 * seconds on commodity 100G/400G optics), so a run that starts from a
 * dark switch pays that in its phase 0.  With idle_lit the map a run puts
 * back afterwards loops each of its hosts' transceivers that the map
 * leaves dark to one another (TX of one into RX of the next, on the same
 * switch; a host with one such transceiver on a switch: into its own
 * RX), so every NIC keeps light and stays trained between runs.  What
 * the operator patched is never changed; the cost is that idle light, and
 * whatever the hosts send while idle goes back to themselves.
 */
#include "ocsd/map.h"
#include "ocsd/run_int.h"

/* Loop agent a's dark transceivers on switch sw in map m. */
static void
loop_host(const struct agent *a, uint8_t sw, struct map *m)
{
	uint32_t t, k = 0, free_t[AGENT_MAX_TRX];

	for (t = 0; t < a->ntrx && t < AGENT_MAX_TRX; t++) {
		uint32_t in = a->in[t], out = a->out[t];

		/* Cabled to this switch, its TX unpatched and nothing lit
		 * into its RX. */
		if (a->sw[t] != sw || in == 0 || in > m->n || out <= m->n ||
		    out > 2 * m->n || m->out[in] != 0 ||
		    map_in_of(m, out) != 0)
			continue;
		free_t[k++] = t;
	}
	for (t = 0; t < k; t++)
		m->out[a->in[free_t[t]]] = a->out[free_t[(t + 1) % k]];
}

void
run_idle_loops(struct ocsd *d, const struct run *r, struct map *maps)
{
	uint32_t i, s;

	for (s = 0; s < d->nsw; s++)
		for (i = 0; i < r->n; i++)
			if (r->node[i] != NULL)
				loop_host(r->node[i], (uint8_t)s, &maps[s]);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The agents' transceiver links as their hosts say them (a Poll's links,
 * an unasked LinkState at every change): checked and kept here, and put
 * into ocsd's word for ocsctl agents.  A transceiver without light has
 * no carrier: that is dark when nothing is patched to its receiver, and
 * no carrier (a fault, or a link still retraining) when something is.
 */
#include <stdio.h>
#include <string.h>

#include "ocsd/agents.h"
#include "ocsd/map.h"

int
agents_links_take(struct agent *a, Ocs__TrxLink *const *l, size_t n, char *err,
                  size_t len)
{
	struct agent_link was[AGENT_MAX_TRX];
	size_t            i;

	/* All checked before any is taken. */
	for (i = 0; i < n; i++) {
		if (l[i]->trx >= a->ntrx || l[i]->trx >= AGENT_MAX_TRX) {
			snprintf(err, len,
			         "links: transceiver %u of a host with %u",
			         l[i]->trx, a->ntrx);
			return (-MSG_EFIELD);
		}
		if (l[i]->state < OCS__TRX_LINK__STATE__UP ||
		    l[i]->state > OCS__TRX_LINK__STATE__GONE) {
			snprintf(err, len, "links: transceiver %u: state %d",
			         l[i]->trx, (int)l[i]->state);
			return (-MSG_EFIELD);
		}
		if (l[i]->iface != NULL &&
		    (!msg_str_ok(l[i]->iface) || strlen(l[i]->iface) > 15)) {
			snprintf(
			    err, len,
			    "links: transceiver %u: not an interface name",
			    l[i]->trx);
			return (-MSG_EFIELD);
		}
	}
	memcpy(was, a->links, sizeof(was));
	for (i = 0; i < n; i++) {
		struct agent_link *k = &a->links[l[i]->trx];

		k->state = (int)l[i]->state;
		if (l[i]->has_mtu)
			k->mtu = l[i]->mtu;
		if (l[i]->has_carrier_ups)
			k->ups = l[i]->carrier_ups;
		if (l[i]->iface != NULL)
			snprintf(k->iface, sizeof(k->iface), "%s",
			         l[i]->iface);
	}
	if (n > 0)
		a->has_links = 1;
	return (memcmp(was, a->links, sizeof(was)) != 0);
}

const char *
agents_link_word(const struct ocsd *d, const struct agent *a, uint32_t t)
{
	if (!a->has_links || t >= a->ntrx || t >= AGENT_MAX_TRX)
		return ("");
	switch (a->links[t].state) {
	case OCS__TRX_LINK__STATE__UP:
		return ("up");
	case OCS__TRX_LINK__STATE__NO_CARRIER:
		/* Dark is normal: nothing lights its receiver. */
		if (d->have_live && a->out[t] != 0 &&
		    map_in_of(&d->live, a->out[t]) == 0)
			return ("dark");
		return ("no carrier");
	case OCS__TRX_LINK__STATE__DOWN:
		return ("down");
	case OCS__TRX_LINK__STATE__GONE:
		return ("unplugged");
	default:
		return ("unknown");
	}
}

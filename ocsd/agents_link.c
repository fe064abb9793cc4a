/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The agents' transceiver links as their hosts say them (a Poll's links,
 * an unasked LinkState at every change; agents.c takes them), put into
 * ocsd's word for ocsctl agents.  A transceiver without light has
 * no carrier: that is dark when nothing is patched to its receiver, and
 * no carrier (a fault, or a link still retraining) when something is.
 */
#include <stdio.h>
#include <string.h>

#include "ocsd/agents.h"
#include "ocsd/map.h"

const char *
agents_link_word(const struct ocsd *d, const struct agent *a, uint32_t t)
{
	if (!a->has_links || t >= a->ntrx || t >= AGENT_MAX_TRX)
		return ("");
	switch (a->links[t].state) {
	case AGL_UP:
		return ("up");
	case AGL_NO_CARRIER:
		/* Dark is normal: nothing lights its receiver. */
		/* (On its own switch: a fabric's planes each have one.) */
		if (a->sw[t] < d->nsw && d->sw[a->sw[t]].have_live &&
		    a->out[t] != 0 &&
		    map_in_of(&d->sw[a->sw[t]].live, a->out[t]) == 0)
			return ("dark");
		return ("no carrier");
	case AGL_DOWN:
		return ("down");
	case AGL_GONE:
		return ("unplugged");
	default:
		return ("unknown");
	}
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the runner and the operator see of the registry (agents.c keeps
 * it): who may take part in a run, why the others may not, a snapshot
 * for the operator.  All with d->mtx held.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocsd/agents_int.h"
#include "proto/base/mono.h"

static int
by_host(const void *x, const void *y)
{
	return (strcmp((*(struct agent *const *)x)->host,
	               (*(struct agent *const *)y)->host));
}

uint32_t
agents_active(struct ocsd *d, struct agent **out, uint32_t cap)
{
	struct agents *ag = d->ag;
	uint32_t       i, n = 0;

	/* An agent whose fibres are out cannot take part in a run. */
	for (i = 0; ag && i < ag->na && n < cap; i++)
		if (!ag->a[i]->lost && ag->a[i]->link != NULL &&
		    ag->a[i]->fibres_up >= ag->a[i]->ntrx)
			out[n++] = ag->a[i];
	/* By host: stable node numbering (host names are unique). */
	qsort(out, n, sizeof(*out), by_host);
	return (n);
}

uint32_t
agents_left_out(struct ocsd *d, char *buf, size_t len)
{
	struct agents *ag = d->ag;
	struct agent **v = ag && ag->na ? calloc(ag->na, sizeof(*v)) : NULL;
	uint32_t       i, joined = 0;
	size_t         at = 0;

	if (len)
		buf[0] = '\0';
	for (i = 0; v && i < ag->na; i++)
		if (!ag->a[i]->lost)
			v[joined++] = ag->a[i];
	if (v)
		qsort(v, joined, sizeof(*v), by_host);
	for (i = 0; i < joined; i++) {
		const struct agent *a = v[i];
		char                why[64];

		if (a->link == NULL)
			snprintf(why, sizeof(why), "not attached");
		else if (a->fibres_up < a->ntrx)
			snprintf(why, sizeof(why), "fibres %u of %u up",
			         a->fibres_up, a->ntrx);
		else
			continue;
		if (at < len)
			at += (size_t)snprintf(buf + at, len - at, "%s%s (%s)",
			                       at ? ", " : "", a->host, why);
	}
	free(v);
	return (joined);
}

struct agent *
agents_get(struct ocsd *d, uint32_t id)
{
	struct agent *a = d->ag ? idmap_get(&d->ag->byid, id) : NULL;

	return (a != NULL && !a->lost && a->link != NULL ? a : NULL);
}

uint32_t
agents_count(struct ocsd *d)
{
	return (d->ag ? d->ag->na : 0);
}

uint32_t
agents_snapshot(struct ocsd *d, struct agent_info *out, uint32_t cap)
{
	struct agents *ag = d->ag;
	uint64_t       now = mono_ms();
	uint32_t       i, t;

	for (i = 0; ag != NULL && i < ag->na && i < cap; i++) {
		const struct agent *a = ag->a[i];
		struct agent_info  *o = &out[i];

		memset(o, 0, sizeof(*o));
		o->id = a->id;
		o->ntrx = a->ntrx;
		o->fibres_up = a->fibres_up;
		snprintf(o->host, sizeof(o->host), "%s", a->host);
		snprintf(o->state, sizeof(o->state), "%s",
		         a->lost        ? "lost"
		         : a->node >= 0 ? "running"
		                        : "idle");
		o->seen_ms_ago = now - a->seen_ms;
		o->mem_limit = a->mem_limit;
		o->readys = a->readys;
		o->attach_refused = a->attach_refused;
		o->link = a->link != NULL;
		memcpy(o->transport, a->transport, sizeof(o->transport));
		memcpy(o->ifaces, a->ifaces, sizeof(o->ifaces));
		memcpy(o->down, a->down, sizeof(o->down));
		memcpy(o->peer, a->peer, sizeof(o->peer));
		memcpy(o->links, a->links, sizeof(o->links));
		for (t = 0; t < a->ntrx && t < AGENT_MAX_TRX; t++)
			snprintf(o->shown[t], sizeof(o->shown[t]), "%s",
			         agents_link_word(d, a, t));
	}
	return (i);
}

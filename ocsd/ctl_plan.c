/* SPDX-License-Identifier: BSD-2-Clause */
/* Operator requests as switch targets (see ctl_plan.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocsd/ctl_plan.h"
#include "ocsd/ocsd.h"
#include "ocsd/run.h"
#include "ocsd/xc.h"
#include "proto/msg.h"

/*
 * ctl.c refuses a change while a run is in progress, but a run may have
 * started while the change waited for the worker: it is refused here,
 * when it is about to be made, under the lock (the caller's).
 */
static int
no_run(const struct ocsd *d, const void *arg, char *err, size_t len)
{
	uint64_t id;
	uint32_t phase;

	if (((const struct ctl_plan_arg *)arg)->dry)
		return (0);
	if (!run_where(d, &id, &phase))
		return (0);
	snprintf(err, len,
	         "run %llu started before this change; it waits "
	         "for the run to end",
	         (unsigned long long)id);
	return (-OCSD_EBUSY);
}

/*
 * A delta (ingress ports to clear, then patches to make) changes both
 * maps: the switch keeps whatever else it holds even when it differs from
 * the desired map (reconcile = hold), and the desired map keeps its other
 * patches even where the switch lost them.
 */
static int
delta(const struct sw *s, const uint16_t *ins, size_t nin,
      const struct drv_patch *p, size_t np, struct sw_target *t)
{
	int rv;

	if ((rv = map_copy(&t->desired, &s->desired)) != 0 ||
	    (rv = map_copy(&t->sw, &s->live)) != 0)
		return (rv);
	xc_delta(&t->desired, ins, nin, p, np);
	xc_delta(&t->sw, ins, nin, p, np);
	return (0);
}

int
ctl_plan_connect(const struct ocsd *d, const struct sw *s, const void *arg,
                 struct sw_target *t, char *err, size_t len)
{
	const Ocs__CtlRequest *q = ((const struct ctl_plan_arg *)arg)->q;
	struct drv_patch       p[2];
	size_t                 np = 0;
	int                    rv;

	if (no_run(d, arg, err, len) != 0)
		return (-OCSD_EBUSY);
	if (q->n_pairs != 1) {
		snprintf(err, len,
		         "connect: expected one pair of endpoints, got %zu",
		         q->n_pairs);
		return (-OCSD_EREQUEST);
	}
	rv = xc_connect(d->conf, s->idx, &s->desired, &s->live, q->pairs[0]->a,
	                q->pairs[0]->b, p, &np, err, len);
	return (rv != 0 ? rv : delta(s, NULL, 0, p, np, t));
}

int
ctl_plan_disconnect(const struct ocsd *d, const struct sw *s, const void *arg,
                    struct sw_target *t, char *err, size_t len)
{
	const Ocs__CtlRequest *q = ((const struct ctl_plan_arg *)arg)->q;
	uint16_t              *ins;
	size_t                 nin = 0, i, n1;
	int                    rv = 0;

	if (no_run(d, arg, err, len) != 0)
		return (-OCSD_EBUSY);
	if (q->n_ports == 0) {
		snprintf(err, len, "disconnect: no endpoint given");
		return (-OCSD_EREQUEST);
	}
	/* xc_disconnect names at most 4 ingress ports per endpoint. */
	if ((ins = calloc(4 * q->n_ports, sizeof(*ins))) == NULL)
		return (-ENOMEM);
	for (i = 0; i < q->n_ports && rv == 0; i++) {
		rv = xc_disconnect(d->conf, s->idx, &s->desired, &s->live,
		                   q->ports[i], ins + nin, &n1, err, len);
		nin += rv == 0 ? n1 : 0;
	}
	if (rv == 0)
		rv = delta(s, ins, nin, NULL, 0, t);
	free(ins);
	return (rv);
}

int
ctl_plan_apply(const struct ocsd *d, const struct sw *s, const void *arg,
               struct sw_target *t, char *err, size_t len)
{
	const Ocs__CtlRequest *q = ((const struct ctl_plan_arg *)arg)->q;
	char                 **a, **b;
	size_t                 i, k;
	int                    rv;

	if (no_run(d, arg, err, len) != 0)
		return (-OCSD_EBUSY);
	a = calloc(q->n_pairs + 1, sizeof(*a));
	b = calloc(q->n_pairs + 1, sizeof(*b));
	if (a == NULL || b == NULL) {
		free(a);
		free(b);
		return (-ENOMEM);
	}
	/* For every switch at once, each takes the pairs whose first end
	 * is cabled to it (the whole desired map is per switch). */
	for (i = 0, k = 0; i < q->n_pairs; i++) {
		const struct conf_trx *x =
		    conf_trx_find(d->conf, q->pairs[i]->a);

		if (((const struct ctl_plan_arg *)arg)->split && x != NULL &&
		    x->sw != s->idx)
			continue;
		a[k] = q->pairs[i]->a;
		b[k++] = q->pairs[i]->b;
	}
	rv = xc_build(d->conf, s->idx, s->nports, a, b, k, &t->sw, err, len);
	free(a);
	free(b);
	return (rv);
}

int
ctl_plan_clear(const struct ocsd *d, const struct sw *s, const void *arg,
               struct sw_target *t, char *err, size_t len)
{
	(void)arg;
	if (no_run(d, arg, err, len) != 0)
		return (-OCSD_EBUSY);
	return (map_init(&t->sw, s->nports));
}

int
ctl_plan_sync(const struct ocsd *d, const struct sw *s, const void *arg,
              struct sw_target *t, char *err, size_t len)
{
	(void)arg;
	if (no_run(d, arg, err, len) != 0)
		return (-OCSD_EBUSY);
	return (map_copy(&t->sw, &s->desired));
}

int
ctl_plan_adopt(const struct ocsd *d, const struct sw *s, const void *arg,
               struct sw_target *t, char *err, size_t len)
{
	(void)t;
	(void)s;
	return (no_run(d, arg, err, len) != 0 ? -OCSD_EBUSY : 0);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* A skewed All-to-All plan as the schedule IR (SCHED_ALLTOALLV). */
#include <errno.h>
#include <stdlib.h>

#include "collectives/coll.h"
#include "collectives/skew.h"

int
skew_build(const struct skew_plan *p, const struct tmat *m, struct sched *s)
{
	uint64_t *sent;
	uint32_t  n = p->n, k, i, b;
	int       rv;

	if ((rv = sched_init_v(s, p->algo, n, 1, m->b)) != 0)
		return (rv);
	if ((sent = calloc((size_t)n * n, sizeof(*sent))) == NULL)
		return (-ENOMEM);
	for (k = 0; k < p->nst; k++) {
		const uint32_t *perm = skew_perm(p, k);
		const uint64_t *real = skew_real(p, k);

		if ((rv = sched_add_phase(s, 1, 0)) < 0)
			goto out;
		for (i = 0; i < n; i++)
			if (perm[i] != SKEW_IDLE &&
			    (rv = sched_add_link(s, i, 0, perm[i], 0)) != 0)
				goto out;
		for (i = 0; i < n; i++) {
			struct sched_seg seg = {i, 0, 0, 1};
			uint64_t        *at;

			if (perm[i] == SKEW_IDLE || real[i] == 0)
				continue;
			at = &sent[(size_t)i * n + perm[i]];
			if ((rv = sched_add_vblk(s, i, perm[i], *at,
			                         real[i])) < 0)
				goto out;
			b = (uint32_t)rv;
			*at += real[i];
			if ((rv = sched_add_xfer(s, i, perm[i], &b, 1, &seg,
			                         1)) != 0)
				goto out;
		}
	}
	rv = 0;
out:
	free(sent);
	return (rv);
}

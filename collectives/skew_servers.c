/* SPDX-License-Identifier: BSD-2-Clause */
/* FAST with several GPUs a server: the server-level matrix and pipeline. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/skew.h"

int
skew_servers(const struct tmat *m, const struct skew_params *sp,
             struct tmat *srv, struct skew_su *su)
{
	uint32_t  g = sp->gpus, ns, a, b, k, j;
	uint64_t *sent, *eg, busiest = 0;
	int       rv;

	memset(su, 0, sizeof(*su));
	if (g < 1 || m->n % g != 0 || m->n / g < 2)
		return (-EINVAL);
	ns = m->n / g;
	if ((rv = tmat_alloc(srv, ns)) != 0)
		return (rv);
	sent = malloc(g * sizeof(*sent));
	eg = malloc(g * sizeof(*eg));
	if (sent == NULL || eg == NULL) {
		free(sent);
		free(eg);
		tmat_free(srv);
		return (-ENOMEM);
	}
	su->servers = ns;
	su->gpus = g;
	for (a = 0; a < ns; a++) {
		/* eg[k]: what GPU k of server a sends over scale-up. */
		memset(eg, 0, g * sizeof(*eg));
		for (b = 0; b < ns; b++) {
			uint64_t tot = 0, share;

			for (k = 0; k < g; k++) {
				sent[k] = 0;
				for (j = b * g; j < b * g + g; j++)
					if (j != a * g + k)
						sent[k] +=
						    tmat_at(m, a * g + k, j);
				tot += sent[k];
			}
			if (b == a) {
				/* Stays in the server: all over scale-up. */
				for (k = 0; k < g; k++)
					eg[k] += sent[k];
				continue;
			}
			share = (tot + g - 1) / g;
			srv->b[(size_t)a * ns + b] = share;
			for (k = 0; k < g; k++)
				eg[k] += sent[k] > share ? sent[k] - share : 0;
		}
		for (k = 0; k < g; k++)
			busiest = eg[k] > busiest ? eg[k] : busiest;
	}
	su->balance_bytes = busiest;
	su->intra_s =
	    busiest ? sp->su_alpha + sp->su_beta * (double)busiest : 0;
	free(sent);
	free(eg);
	return (0);
}

double
skew_cost_pipeline(const struct skew_plan *p, const struct skew_params *sp,
                   const struct skew_su *su)
{
	const struct cost_params *cp = &sp->cp;
	double                    t = 0, redist = su->intra_s, st;
	uint32_t                  k, i;

	for (k = 0; k < p->nst; k++) {
		const uint64_t *real = skew_real(p, k);
		uint64_t        mx = 0;

		for (i = 0; i < p->n; i++)
			mx = real[i] > mx ? real[i] : mx;
		st = cp->alpha_s + cp->alpha_h + cp->beta * (double)mx +
		     (k > 0 ? cp->delta : 0);
		/* The scale-up part of the previous step runs meanwhile. */
		t += st > redist ? st : redist;
		redist = su->gpus > 1
		             ? sp->su_alpha + sp->su_beta * (double)mx *
		                                  (su->gpus - 1) / su->gpus
		             : 0;
	}
	return (t + redist);
}

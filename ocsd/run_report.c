/* SPDX-License-Identifier: BSD-2-Clause */
/* A run's report (see run.h): measured times beside the model's. */
#include <string.h>

#include "ocsd/run_int.h"
#include "proto/base/mono.h"

/* Phase k's planes, where a barrier released them apart. */
static void
plane_report(const struct run *r, uint32_t k, struct run_phase_report *p)
{
	uint32_t i;

	if (!r->apart || r->s.ph[k].planes == 0)
		return;
	p->apart = 1;
	p->pmask = r->s.ph[k].planes;
	for (i = 0; i < r->nplanes && i < 8; i++) {
		p->plane_reconf_s[i] = r->plane_reconf_ms[k][i] / 1e3;
		p->plane_release_s[i] = r->plane_release_ms[k][i] / 1e3;
	}
}

void
run_report(const struct run *r, struct run_report *o)
{
	uint32_t k;

	memset(o, 0, sizeof(*o));
	o->id = r->id;
	o->algo = r->algo;
	o->matrix = r->matrix_name[0] ? r->matrix_name : NULL;
	o->topology = r->has_topo ? r->topo.name : NULL;
	o->nodes = r->n;
	o->joined = r->joined;
	o->left_out = r->left_out[0] ? r->left_out : NULL;
	o->bytes = r->bytes;
	o->delta_s = r->cp.delta;
	o->switch_s = r->switch_s;
	o->link_up_s = r->link_up_s;
	o->bandwidth_bps = 8.0 / r->cp.beta;
	o->alpha_s = r->cp.alpha_s;
	o->alpha_h = r->cp.alpha_h;
	for (k = 1; k < r->nph; k++)
		if (r->before[k])
			o->before[o->nbefore++] = k;
	o->nph = r->nph;
	for (k = 0; k < r->nph; k++) {
		struct run_phase_report *p = &o->ph[k];

		p->reconfigured = k == 0 || r->before[k];
		p->reconf_s = r->reconf_ms[k] / 1e3;
		p->link_s = r->link_ms[k] / 1e3;
		p->data_s = r->data_ns[k] / 1e9;
		p->barrier_s = r->barrier_ms[k] / 1e3;
		p->bytes = r->pbytes[k];
		p->predicted_s = r->pc[k].total;
		p->planned_bytes = r->by[k].local + r->by[k].circuit;
		p->local_bytes = r->by[k].local;
		/* Control time is measured from one barrier to the next,
		 * so it belongs to the phases that start with one. */
		p->has_control = p->reconfigured;
		p->control_s = r->control_ms[k] / 1e3;
		plane_report(r, k, p);
	}
	if (r->planes != PLANES_NONE) {
		o->planes = r->apart ? "apart" : "together";
		o->pred_together_s = r->pred_together;
		o->pred_apart_s = r->pred_apart;
		o->nplanes = r->nplanes;
		o->plane_name = (const char(*)[16])r->plane_name;
	}
	o->total_s = r->t_end > r->t_start ? (r->t_end - r->t_start) / 1e6 : 0;
	o->predicted_s = r->predicted;
	o->gpus = r->gpus;
	o->su_bps = r->su_bps;
	o->verified = r->verified;
	o->errors = r->errors;
	o->hosts = (const char(*)[64])r->host;
	o->nt = r->nt;
	o->started_unix_ms = r->started_unix_ms;
	o->wall_s = (mono_us() - r->t_req) / 1e6;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocs-plan --topology: load the topology (a file, a generator or a shipped
 * name), synthesise, validate, time with the real latencies, bound, and
 * print (text or JSON, optionally every slot).  This is the tool side: it
 * reads files; the library under it does not.
 */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collectives/coll.h"
#include "collectives/plan_cli.h"
#include "collectives/topo_taccl.h"
#include "collectives/topo_teccl.h"
#include "collectives/msccl.h"
#include "collectives/tplan.h"
#include "collectives/tsyn.h"
#include "proto/base/mono.h"
#include "proto/base/path.h"
#include "proto/base/units.h"

#ifndef OCS_TOPO_DIR
#define OCS_TOPO_DIR "collectives/topologies"
#endif

/* Where the shipped files are: $OCS_TOPOLOGY_DIR, the source tree this
 * was built from, or next to the program (bin/../collectives/...). */
static int
builtin_path(const char *file, char *out, size_t len)
{
	const char *env = getenv("OCS_TOPOLOGY_DIR");
	char        exe[PATH_MAX];
	ssize_t     n;
	char       *slash;

	if (env != NULL && *env) {
		snprintf(out, len, "%.3000s/%s", env, file);
		return (access(out, R_OK) == 0 ? 0 : -ENOENT);
	}
	snprintf(out, len, "%s/%s", OCS_TOPO_DIR, file);
	if (access(out, R_OK) == 0)
		return (0);
	if ((n = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) > 0) {
		exe[n] = '\0';
		if ((slash = strrchr(exe, '/')) != NULL)
			*slash = '\0';
		snprintf(out, len, "%.3000s/../collectives/topologies/%s", exe,
		         file);
		return (access(out, R_OK) == 0 ? 0 : -ENOENT);
	}
	return (-ENOENT);
}

/* A TE-CCL input read: its topology (shipped, or its Mesh built). */
static int
load_teccl(const char *spec, const struct topo_teccl *x, struct topo *t,
           char *err, size_t errlen)
{
	char     why[400];
	uint32_t i;
	int      rv;

	if (x->builtin[0] == '\0')
		rv = topo_teccl_mesh(x, t, why, sizeof(why));
	else if ((rv = tplan_load(x->builtin, t, why, sizeof(why))) == 0 &&
	         x->alpha_links)
		for (i = 0; i < t->nlink; i++)
			t->link[i].alpha = x->alpha;
	if (rv != 0)
		snprintf(err, errlen, "--topology \"%s\": %s", spec, why);
	return (rv);
}

/* PROFILE,SKETCH: a TACCL profile and its sketch. */
static int
load_taccl_pair(const char *spec, struct topo *t, char *note, size_t notelen,
                char *err, size_t errlen)
{
	char  *pf = strdup(spec), *sk, *pb = NULL, *sb = NULL, why[400];
	size_t pl = 0, sl = 0;
	int    rv;

	if (pf == NULL)
		return (-ENOMEM);
	sk = strchr(pf, ',');
	*sk++ = '\0';
	if ((rv = path_read(pf, 16u << 20, &pb, &pl, why, sizeof(why))) == 0 &&
	    (rv = path_read(sk, 16u << 20, &sb, &sl, why, sizeof(why))) == 0 &&
	    (rv = topo_taccl_parse(pb, pl, sb, sl, t, note, notelen, why,
	                           sizeof(why))) == -ENOENT)
		snprintf(why, sizeof(why),
		         "%s: not a TACCL profile (PROFILE,SKETCH)", pf);
	if (rv != 0)
		snprintf(err, errlen, "--topology \"%s\": %s", spec, why);
	free(pf);
	free(pb);
	free(sb);
	return (rv);
}

int
tplan_load(const char *spec, struct topo *t, char *err, size_t errlen)
{
	return (tplan_load_teccl(spec, t, NULL, NULL, 0, err, errlen));
}

int
tplan_load_teccl(const char *spec, struct topo *t, struct topo_teccl *inst,
                 char *note, size_t notelen, char *err, size_t errlen)
{
	struct topo_teccl x;
	char              file[64], path[PATH_MAX + 64], why[400];
	char             *buf = NULL;
	size_t            len = 0;
	int               rv;
	const char       *src = spec;

	if (note != NULL && notelen > 0)
		note[0] = '\0';
	if ((rv = topo_generate(spec, t, why, sizeof(why))) != -ENOENT) {
		if (rv != 0)
			snprintf(err, errlen, "--topology \"%s\": %s", spec,
			         why);
		return (rv);
	}
	if (strchr(spec, ',') != NULL)
		return (load_taccl_pair(spec, t, note, notelen, err, errlen));
	if (topo_builtin_file(spec, file, sizeof(file)) != NULL) {
		if (builtin_path(file, path, sizeof(path)) != 0) {
			snprintf(err, errlen,
			         "--topology \"%s\": the shipped file %s is "
			         "not found (set OCS_TOPOLOGY_DIR)",
			         spec, file);
			return (-ENOENT);
		}
		src = path;
	} else if (strchr(spec, '/') == NULL && strchr(spec, '.') == NULL) {
		snprintf(err, errlen,
		         "--topology \"%s\": not a file, a generator "
		         "(ring:, mesh:, torus:) or a shipped topology (%s)",
		         spec, topo_builtin_names());
		return (-ENOENT);
	}
	if ((rv = path_read(src, 64u << 20, &buf, &len, why, sizeof(why))) !=
	    0) {
		snprintf(err, errlen, "--topology \"%s\": %s", spec, why);
		return (rv);
	}
	if ((rv = topo_teccl_parse(buf, len, &x, why, sizeof(why))) !=
	    -ENOENT) {
		free(buf);
		if (rv == 0 && inst != NULL)
			*inst = x;
		if (rv == 0 && note != NULL)
			snprintf(note, notelen, "%s", x.note);
		if (rv == 0)
			return (load_teccl(spec, &x, t, err, errlen));
		snprintf(err, errlen, "--topology \"%s\": %s", spec, why);
		return (rv);
	}
	if ((rv = topo_taccl_parse(buf, len, NULL, 0, t, note, notelen, why,
	                           sizeof(why))) == -ENOENT)
		rv = topo_parse(buf, len, t, why, sizeof(why));
	free(buf);
	if (rv != 0)
		snprintf(err, errlen, "--topology \"%s\": %s: %s", spec, src,
		         why);
	return (rv);
}

static enum sched_coll
coll_of(const char *s)
{
	if (strcmp(s, "allgather") == 0)
		return (SCHED_ALLGATHER);
	if (strcmp(s, "reducescatter") == 0)
		return (SCHED_REDUCESCATTER);
	return (SCHED_ALLREDUCE);
}

static void
print_steps(const struct sched *s, FILE *out)
{
	const struct topo *t = s->topo;
	uint32_t           ph, i;

	for (ph = 0; ph < s->nph; ph++) {
		const struct sched_phase *p = &s->ph[ph];

		if (p->nxfer == 0)
			continue;
		fprintf(out, "slot %u%s:", ph,
		        s->coll == SCHED_ALLREDUCE
		            ? (ph < s->ag_from ? " (rs)" : " (ag)")
		            : "");
		for (i = 0; i < p->nxfer; i++) {
			const struct sched_xfer *x = &s->xf[p->xfer_off + i];
			uint32_t                 c = s->blk[x->blk_off];

			fprintf(out, " %s>%s:%s.%u", t->node[x->src].name,
			        t->node[x->dst].name,
			        t->node[t->gpu_node[c / s->parts]].name,
			        c % s->parts);
		}
		fputc('\n', out);
	}
}

static json_t *
steps_json(const struct sched *s)
{
	const struct topo *t = s->topo;
	json_t            *a = json_array();
	uint32_t           ph, i;

	for (ph = 0; a && ph < s->nph; ph++) {
		const struct sched_phase *p = &s->ph[ph];

		for (i = 0; i < p->nxfer; i++) {
			const struct sched_xfer *x = &s->xf[p->xfer_off + i];
			uint32_t                 c = s->blk[x->blk_off];

			json_array_append_new(
			    a, json_pack(
			           "{s:i,s:s,s:s,s:s,s:i}", "slot",
			           (json_int_t)ph, "src", t->node[x->src].name,
			           "dst", t->node[x->dst].name, "owner",
			           t->node[t->gpu_node[c / s->parts]].name,
			           "chunk", (json_int_t)(c % s->parts)));
		}
	}
	return (a);
}

/* Long syntheses say how far they are, on stderr, after a second. */
struct prog {
	double t0, shown;
	int    any;
};

static void
progress(void *arg, double done)
{
	struct prog *p = arg;
	double       now = mono_s();

	if (now - p->t0 < 1 || now - p->shown < 0.5)
		return;
	p->shown = now;
	p->any = 1;
	fprintf(stderr, "\rocs-plan: synthesising, %3.0f%% delivered",
	        done * 100);
	fflush(stderr);
}

/* A TE-CCL input's instance: its chunks and sizes unless given, and
 * what it asks for said. */
static int
teccl_instance(const struct plan_opts *o, const struct topo_teccl *x,
               const struct topo *t, struct tsyn_params *q)
{
	char b[32];

	if (x->alltoall) {
		fprintf(stderr,
		        "ocs-plan: --topology \"%s\": "
		        "InstanceParams.collective 2 is an AllToAll; "
		        "ocs-plan synthesises allgather, reducescatter "
		        "and allreduce on a topology (All-to-All is "
		        "--nodes or --matrix)\n",
		        o->topology);
		return (2);
	}
	if (!o->chunks_set)
		q->chunks = x->num_chunks;
	if (!o->bytes_set)
		q->bytes = (uint64_t)llround(x->chunk_bytes * x->num_chunks *
		                             t->ngpu);
	fprintf(
	    stderr, "ocs-plan: TE-CCL input: %s, %u chunk%s of %s a GPU%s\n",
	    x->name, q->chunks, q->chunks == 1 ? "" : "s",
	    unit_fmt_size(
	        (uint64_t)llround((double)q->bytes / t->ngpu / q->chunks), b,
	        sizeof(b)),
	    o->bytes_set || o->chunks_set ? " (as given on the command line)"
	                                  : "");
	return (0);
}

/* What a synthesis gave, for printing and exporting. */
struct tplan_res {
	const struct topo        *t;
	const struct sched       *s;
	const struct tsyn_params *q;
	const char               *note, *err;
	double                    syn_s, done_s, bound;
	uint32_t                  slots;
	int                       valid, exh;
};

static int
tplan_json(const struct plan_opts *o, const struct tplan_res *r)
{
	const struct sched *s = r->s;
	int                 rv = 0;
	json_t             *j = json_pack(
	                "{s:s,s:s,s:s,s:i,s:i,s:f,s:i,s:f,s:f,s:f,s:f,s:b,s:b}", "algo",
	                o->algo, "collective", o->collective, "topology", r->t->name,
	                "gpus", (json_int_t)r->t->ngpu, "chunks", (json_int_t)r->q->chunks,
	                "slot_s", s->slot_s, "slots", (json_int_t)r->slots, "completion_s",
	                r->done_s, "algbw_GBps",
            r->done_s > 0 ? (double)r->q->bytes / r->done_s / 1e9 : 0.0,
	                "synthesis_s", r->syn_s, "lower_bound_s", r->bound,
	                "lower_bound_exhaustive", r->exh, "valid", r->valid);

	if (j != NULL && !r->valid)
		json_object_set_new(j, "invalid", json_string(r->err));
	if (j != NULL && s->horizon)
		json_object_set_new(j, "horizon", json_integer(s->horizon));
	if (j != NULL && r->note[0] != '\0')
		json_object_set_new(j, "import_note", json_string(r->note));
	if (j != NULL && o->steps)
		json_object_set_new(j, "steps", steps_json(s));
	if (j == NULL || json_dumpf(j, stdout, JSON_INDENT(1)) != 0)
		rv = 1;
	json_decref(j);
	putchar('\n');
	return (rv);
}

static void
tplan_text(const struct plan_opts *o, const struct tplan_res *r)
{
	const struct sched *s = r->s;
	char                b1[32], b2[32], b3[32];

	printf("%s %s on %s: %u GPUs, %u nodes, %u links, %u "
	       "chunk%s per GPU\n",
	       o->algo, o->collective, r->t->name, r->t->ngpu, r->t->n,
	       r->t->nlink, r->q->chunks, r->q->chunks == 1 ? "" : "s");
	printf("slots %u x %s = %s; with real latencies %s "
	       "(%.3f GB/s)\n",
	       r->slots, unit_fmt_time(s->slot_s, b1, sizeof(b1)),
	       unit_fmt_time(r->slots * s->slot_s, b2, sizeof(b2)),
	       unit_fmt_time(r->done_s, b3, sizeof(b3)),
	       r->done_s > 0 ? (double)r->q->bytes / r->done_s / 1e9 : 0.0);
	printf("cut lower bound %s (%s), ratio %.3f\n",
	       unit_fmt_time(r->bound, b1, sizeof(b1)),
	       r->exh ? "every cut" : "a family of cuts",
	       r->bound > 0 ? r->done_s / r->bound : 0.0);
	printf("synthesis %s; valid\n",
	       unit_fmt_time(r->syn_s, b1, sizeof(b1)));
	if (s->horizon)
		printf("time-expanded horizon %u slots\n", s->horizon);
	if (o->steps)
		print_steps(s, stdout);
}

/* --export of a valid schedule; 0, or 1 said on stderr. */
static int
tplan_export(const struct plan_opts *o, const struct sched *s, uint64_t bytes)
{
	struct msccl_opts mo;
	char              err[600];

	if (o->export_fmt == NULL)
		return (0);
	if (strcmp(o->export_fmt, "msccl") == 0) {
		plan_msccl_opts(o, &mo);
		if (msccl_write(s, bytes, &mo, o->export_file, err,
		                sizeof(err)) != 0) {
			fprintf(stderr, "ocs-plan: --export %s\n", err);
			return (1);
		}
	} else if (o->chakra &&
	           o->chakra(s, 0, o->export_file, err, sizeof(err)) != 0) {
		fprintf(stderr, "ocs-plan: --export chakra: %s\n", err);
		return (1);
	}
	return (0);
}

/* The topology and the synthesis's parameters from the options; 0, or
 * ocs-plan's exit status said on stderr. */
static int
tplan_setup(const struct plan_opts *o, struct topo *t, struct tsyn_params *q,
            char *note, size_t nlen)
{
	struct topo_teccl tx;
	char              err[600];
	int               rv;

	memset(q, 0, sizeof(*q));
	if (tsyn_algo_parse(o->algo, &q->algo) != 0)
		return (2); /* plan_parse checked it */
	q->coll = coll_of(o->collective);
	q->bytes = o->bytes;
	q->chunks = o->chunks;
	memset(&tx, 0, sizeof(tx));
	if (tplan_load_teccl(o->topology, t, &tx, note, nlen, err,
	                     sizeof(err)) != 0) {
		fprintf(stderr, "ocs-plan: %s\n", err);
		return (2);
	}
	if (note[0] != '\0')
		fprintf(stderr, "ocs-plan: --topology \"%s\": note: %s\n",
		        o->topology, note);
	if (tx.num_chunks && (rv = teccl_instance(o, &tx, t, q)) != 0) {
		topo_free(t);
		return (rv);
	}
	return (0);
}

int
tplan_run(const struct plan_opts *o)
{
	struct prog        pr = {0, 0, 0};
	struct tsyn_params q;
	struct topo        t;
	struct sched       s;
	struct tplan_res   r;
	char               err[600], note[600];
	double             t0;
	int                rv;

	note[0] = '\0';
	if ((rv = tplan_setup(o, &t, &q, note, sizeof(note))) != 0)
		return (rv);
	t0 = mono_s();
	pr.t0 = t0;
	q.progress = progress;
	q.progress_arg = &pr;
	rv = tsyn_synth(&t, &q, &s, err, sizeof(err));
	memset(&r, 0, sizeof(r));
	r.syn_s = mono_s() - t0;
	if (pr.any)
		fprintf(stderr, "\rocs-plan: synthesised in %.1f s%20s\n",
		        r.syn_s, "");
	if (rv != 0) {
		fprintf(stderr, "ocs-plan: %s on %s: %s\n", o->algo, t.name,
		        err);
		topo_free(&t);
		return (rv == -COLL_EALGO ? 2 : 1);
	}
	r.t = &t;
	r.s = &s;
	r.q = &q;
	r.note = note;
	r.err = err;
	r.valid = tsyn_validate(&s, &r.slots, err, sizeof(err)) == 0;
	r.done_s = tsyn_replay(&s);
	r.bound = tsyn_cut_bound(&t, q.coll, q.bytes, &r.exh);
	if (o->json)
		rv = tplan_json(o, &r);
	else if (r.valid)
		tplan_text(o, &r);
	/* Never a result from a schedule that fails validation, asked
	 * for or not. */
	if (!r.valid) {
		fprintf(stderr, "ocs-plan: invalid schedule: %s\n", err);
		rv = 1;
	} else if (rv == 0)
		rv = tplan_export(o, &s, q.bytes);
	sched_free(&s);
	topo_free(&t);
	return (rv != 0 ? 1 : 0);
}

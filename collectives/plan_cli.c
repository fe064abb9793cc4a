/* SPDX-License-Identifier: BSD-2-Clause */
/* ocs-plan option parsing: getopt_long plus strict value parsers. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/a2a.h"
#include "collectives/cmodel.h"
#include "collectives/msccl.h"
#include "collectives/plan_cli.h"
#include "collectives/skew.h"
#include "collectives/tsyn.h"
#include "proto/base/errf.h"
#include "proto/base/units.h"

enum {
	OPT_ALPHA_S = 256,
	OPT_ALPHA_H,
	OPT_SIMULATE,
	OPT_CHUNK,
	OPT_TOPOLOGY,
	OPT_COLLECTIVE,
	OPT_CHUNKS,
	OPT_STEPS,
	OPT_MATRIX,
	OPT_GPUS,
	OPT_SU_BW,
	OPT_SU_ALPHA,
	OPT_TRX,
	OPT_PLANES,
	OPT_RADIX,
	OPT_EXPORT,
	OPT_MODEL,
	OPT_DIALECT,
	OPT_MAX_STEPS,
};

static const struct option plan_longopts[] = {
    {"algo", required_argument, NULL, 'a'},
    {"nodes", required_argument, NULL, 'n'},
    {"bytes", required_argument, NULL, 'b'},
    {"delay", required_argument, NULL, 'd'},
    {"alpha-s", required_argument, NULL, OPT_ALPHA_S},
    {"alpha-h", required_argument, NULL, OPT_ALPHA_H},
    {"bandwidth", required_argument, NULL, 'B'},
    {"reconfig", required_argument, NULL, 'r'},
    {"validate", no_argument, NULL, 'V'},
    {"phases", no_argument, NULL, 'p'},
    {"json", no_argument, NULL, 'j'},
    {"simulate", no_argument, NULL, OPT_SIMULATE},
    {"chunk", required_argument, NULL, OPT_CHUNK},
    {"topology", required_argument, NULL, OPT_TOPOLOGY},
    {"collective", required_argument, NULL, OPT_COLLECTIVE},
    {"chunks", required_argument, NULL, OPT_CHUNKS},
    {"steps", no_argument, NULL, OPT_STEPS},
    {"matrix", required_argument, NULL, OPT_MATRIX},
    {"gpus-per-server", required_argument, NULL, OPT_GPUS},
    {"scaleup-bandwidth", required_argument, NULL, OPT_SU_BW},
    {"scaleup-alpha", required_argument, NULL, OPT_SU_ALPHA},
    {"transceivers", required_argument, NULL, OPT_TRX},
    {"planes", required_argument, NULL, OPT_PLANES},
    {"radix", required_argument, NULL, OPT_RADIX},
    {"export", required_argument, NULL, OPT_EXPORT},
    {"msccl-dialect", required_argument, NULL, OPT_DIALECT},
    {"max-steps", required_argument, NULL, OPT_MAX_STEPS},
    {"model", required_argument, NULL, OPT_MODEL},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

const char *
plan_usage(void)
{
	return (
	    "usage: ocs-plan --algo retri|bridge|static|bruck|bruck2 --nodes "
	    "N "
	    "[--bytes SIZE]\n"
	    "                [--radix 3|5|7|9] (retri: radix - 1 "
	    "transceivers a node) [--export msccl FILE | chakra PREFIX]\n"
	    "                [--msccl-dialect current|legacy] [--max-steps "
	    "N] (MSCCL's runtime)\n"
	    "                [--delay TIME[,TIME...]] [--alpha-s TIME] "
	    "[--alpha-h TIME]\n"
	    "                [--bandwidth RATE] [--model FILE] [--reconfig "
	    "auto|none|all|k1,k2,...]\n"
	    "                [--validate] [--phases] [--json] [--simulate "
	    "[--chunk SIZE]]\n"
	    "                [--planes together|apart|auto [--transceivers "
	    "T]] (T a multiple of\n"
	    "                the rings' transceivers: planes of them, each "
	    "its own switch)\n"
	    "SIZE: B KB MB GB KiB MiB GiB; TIME: ns us ms s; RATE: bps Kbps "
	    "Mbps Gbps\n"
	    "defaults: --bytes 1MiB --delay 1us --alpha-s 1.7us --alpha-h 1us "
	    "--bandwidth 400Gbps --reconfig auto\n"
	    "       ocs-plan --algo ten|mteg|scalecc|sph|spt|ring --topology "
	    "FILE|GENERATOR|NAME\n"
	    "                --collective allgather|reducescatter|allreduce "
	    "--bytes SIZE\n"
	    "                [--chunks C] [--json] [--validate] [--steps] "
	    "[--export msccl FILE | chakra PREFIX]\n"
	    "GENERATOR: ring:N:RATE:TIME mesh:RxC:RATE:TIME "
	    "torus:AxBxC:RATE:TIME\n"
	    "           subring:N:S1[,S2...]:RATE:TIME\n"
	    "NAME: dgx1 dgx2 amd ndv2:1|2|4|8|10 wan2 wan3 wan2p wan3p wan4p "
	    "(collectives/topologies)\n"
	    "       ocs-plan --algo "
	    "fast|spreadout|solstice|eclipse|sorted|auto "
	    "--matrix FILE|GENERATOR\n"
	    "                [--bytes SIZE] [--delay TIME] "
	    "[--gpus-per-server G]\n"
	    "                [--scaleup-bandwidth RATE] [--scaleup-alpha "
	    "TIME]\n"
	    "                [--transceivers T] [--json] [--validate] "
	    "[--phases] [--export chakra PREFIX]\n"
	    "MATRIX: a CSV or JSON file, uniform:N:BYTES zipf:N:S:SEED[:MAX]\n"
	    "        moe:N:EXPERTS:TOPK:TOKENS:SEED hotspot:N:K:FACTOR "
	    "(SIZE: bytes a node)\n"
	    "       ocs-plan --help | --version\n");
}

/* Strict unsigned decimal: digits only, no sign, fits max. */
static int
parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (*s == '\0')
		return (-COLL_ENONUM);
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return (-COLL_ENONUM);
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > max)
			return (-COLL_ERANGE);
	}
	*out = v;
	return (0);
}

static int
parse_delays(const char *arg, struct plan_opts *o, char *err, size_t len)
{
	char buf[4096], *tok, *save = NULL;
	int  rv;

	if (strlen(arg) >= sizeof(buf))
		return (errf(-EINVAL, err, len,
		             "--delay \"%.40s...\": list too long", arg));
	snprintf(buf, sizeof(buf), "%s", arg);
	o->ndelay = 0;
	if (buf[0] == '\0' || buf[strlen(buf) - 1] == ',')
		return (errf(-EINVAL, err, len, "--delay \"%s\": empty value",
		             arg));
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (o->ndelay == PLAN_MAX_PHASES)
			return (errf(-EINVAL, err, len,
			             "--delay \"%s\": more than %d values",
			             arg, PLAN_MAX_PHASES));
		if ((rv = unit_parse_time(tok, &o->delay[o->ndelay])) != 0)
			return (
			    errf(-EINVAL, err, len,
			         "--delay \"%s\": \"%s\": %s (ns, us, ms, s)",
			         arg, tok, coll_strerror(rv)));
		o->ndelay++;
	}
	if (strstr(arg, ",,") != NULL || arg[0] == ',')
		return (errf(-EINVAL, err, len, "--delay \"%s\": empty value",
		             arg));
	return (0);
}

static int
parse_reconf(const char *arg, struct plan_opts *o, char *err, size_t len)
{
	char     buf[1024], *tok, *save = NULL;
	uint64_t v;
	int      rv;

	o->nrlist = 0;
	if (strcmp(arg, "auto") == 0) {
		o->reconf = PLAN_RECONF_AUTO;
		return (0);
	}
	if (strcmp(arg, "none") == 0) {
		o->reconf = PLAN_RECONF_NONE;
		return (0);
	}
	if (strcmp(arg, "all") == 0) {
		o->reconf = PLAN_RECONF_ALL;
		return (0);
	}
	if (strlen(arg) >= sizeof(buf) || arg[0] == '\0' || arg[0] == ',' ||
	    arg[strlen(arg) - 1] == ',' || strstr(arg, ",,") != NULL)
		return (
		    errf(-EINVAL, err, len,
		         "--reconfig \"%s\": expected auto, none, all or an "
		         "ascending list of phase indices",
		         arg));
	snprintf(buf, sizeof(buf), "%s", arg);
	o->reconf = PLAN_RECONF_LIST;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if ((rv = parse_uint(tok, PLAN_MAX_PHASES, &v)) != 0)
			return (errf(
			    -EINVAL, err, len,
			    "--reconfig \"%s\": \"%s\" is not a phase index "
			    "(expected auto, none, all or k1,k2,...)",
			    arg, tok));
		if (v == 0)
			return (errf(
			    -EINVAL, err, len,
			    "--reconfig \"%s\": phase 0's circuits are set "
			    "before the collective; indices start at 1",
			    arg));
		if (o->nrlist > 0 && v <= o->rlist[o->nrlist - 1])
			return (
			    errf(-EINVAL, err, len,
			         "--reconfig \"%s\": indices must be strictly "
			         "ascending",
			         arg));
		if (o->nrlist == PLAN_MAX_PHASES)
			return (errf(-EINVAL, err, len,
			             "--reconfig \"%s\": too long", arg));
		o->rlist[o->nrlist++] = (uint32_t)v;
	}
	return (0);
}

/* The options of --matrix mode. */
static int
matrix_opt(int c, const char *arg, struct plan_opts *o, char *err, size_t len)
{
	uint64_t v;
	int      rv;

	switch (c) {
	case OPT_MATRIX:
		if (*arg == '\0')
			return (errf(-EINVAL, err, len, "--matrix: empty"));
		o->matrix = arg;
		return (0);
	case OPT_GPUS:
		if ((rv = parse_uint(arg, 1024, &v)) != 0 || v < 1)
			return (errf(-EINVAL, err, len,
			             "--gpus-per-server \"%s\": expected "
			             "1..1024",
			             arg));
		o->gpus = (uint32_t)v;
		return (0);
	case OPT_RADIX:
		if ((rv = parse_uint(arg, 99, &v)) != 0 || v < 3 || v > 9 ||
		    v % 2 == 0)
			return (errf(-EINVAL, err, len,
			             "--radix \"%s\": expected 3, 5, 7 or 9 "
			             "(ReTri uses radix - 1 transceivers)",
			             arg));
		o->radix = (uint32_t)v;
		return (0);
	case OPT_PLANES:
		if (planes_parse(arg, &o->planes_mode) != 0)
			return (errf(-EINVAL, err, len,
			             "--planes \"%s\": expected together, "
			             "apart or auto",
			             arg));
		return (0);
	case OPT_TRX:
		if ((rv = parse_uint(arg, 8, &v)) != 0 || v < 1)
			return (errf(-EINVAL, err, len,
			             "--transceivers \"%s\": expected 1..8",
			             arg));
		o->planes = (uint32_t)v;
		return (0);
	case OPT_SU_BW:
		o->su_rate_set = 1;
		if ((rv = unit_parse_rate(arg, &o->su_rate)) != 0)
			return (errf(-EINVAL, err, len,
			             "--scaleup-bandwidth \"%s\": %s (bps, "
			             "Kbps, Mbps, Gbps)",
			             arg, coll_strerror(rv)));
		return (0);
	case OPT_SU_ALPHA:
		o->su_rate_set = 1;
		if ((rv = unit_parse_time(arg, &o->su_alpha)) != 0)
			return (errf(-EINVAL, err, len,
			             "--scaleup-alpha \"%s\": %s (ns, us, ms, "
			             "s)",
			             arg, coll_strerror(rv)));
		return (0);
	}
	return (errf(-EINVAL, err, len, "unknown option"));
}

/* The MSCCL runtime the export is for. */
static int
msccl_opt(int c, const char *arg, struct plan_opts *o, char *err, size_t len)
{
	enum msccl_dialect d;
	uint64_t           v;

	switch (c) {
	case OPT_DIALECT:
		if (msccl_dialect_parse(arg, &d) != 0)
			return (
			    errf(-EINVAL, err, len,
			         "--msccl-dialect \"%s\": expected current "
			         "(msccl-executor-nccl, RCCL) or legacy "
			         "(microsoft/msccl)",
			         arg));
		o->msccl_legacy = d == MSCCL_LEGACY;
		return (0);
	case OPT_MAX_STEPS:
		if (parse_uint(arg, MSCCL_STEPS_MAX, &v) != 0 || v < 1)
			return (errf(-EINVAL, err, len,
			             "--max-steps \"%s\": expected 1..%d (the "
			             "runtime's MSCCL_MAX_NUM_STEPS)",
			             arg, MSCCL_STEPS_MAX));
		o->max_steps = (uint32_t)v;
		return (0);
	}
	return (matrix_opt(c, arg, o, err, len));
}

/* The options of --topology mode. */
static int
topo_opt(int c, const char *arg, struct plan_opts *o, char *err, size_t len)
{
	uint64_t v;
	int      rv;

	switch (c) {
	case OPT_TOPOLOGY:
		if (*arg == '\0')
			return (errf(-EINVAL, err, len, "--topology: empty"));
		o->topology = arg;
		return (0);
	case OPT_COLLECTIVE:
		if (strcmp(arg, "allgather") && strcmp(arg, "reducescatter") &&
		    strcmp(arg, "allreduce"))
			return (errf(-EINVAL, err, len,
			             "--collective \"%s\": expected "
			             "allgather, reducescatter or "
			             "allreduce",
			             arg));
		o->collective = arg;
		return (0);
	case OPT_CHUNKS:
		if ((rv = parse_uint(arg, 4096, &v)) != 0 || v < 1)
			return (errf(-EINVAL, err, len,
			             "--chunks \"%s\": expected 1..4096",
			             arg));
		o->chunks = (uint32_t)v;
		o->chunks_set = 1;
		return (0);
	case OPT_STEPS:
		o->steps = 1;
		return (0);
	}
	return (msccl_opt(c, arg, o, err, len));
}

/* --model FILE: its rate and latencies (options after it override), its
 * reconfiguration overhead on top of every --delay, and its frame (the
 * store-and-forward term): every parameter, as ocs-sweep and ocsd read
 * the same file. */
static int
load_model(const char *arg, struct plan_opts *o, char *err, size_t len)
{
	struct cmodel m = {
	    .bps = o->rate, .alpha_s = o->alpha_s, .alpha_h = o->alpha_h};
	char why[400];

	if (cmodel_load(&m, arg, why, sizeof(why)) != 0)
		return (errf(-EINVAL, err, len, "--model %s", why));
	o->rate = m.bps;
	o->alpha_s = m.alpha_s;
	o->alpha_h = m.alpha_h;
	o->reconf_s = m.reconf_s;
	o->frame = m.frame;
	return (0);
}

static int
parse_opt(int c, const char *arg, struct plan_opts *o, char *err, size_t len)
{
	uint64_t v;
	int      rv;

	switch (c) {
	case 'a':
		/* Checked once the mode (--topology or not) is
		 * known. */
		o->algo = arg;
		return (0);
	case 'n':
		if ((rv = parse_uint(arg, PLAN_MAX_NODES, &v)) != 0)
			return (errf(-EINVAL, err, len,
			             "--nodes \"%s\": %s (2..%u)", arg,
			             rv == -COLL_ERANGE ? "too large"
			                                : "not a whole number",
			             PLAN_MAX_NODES));
		if (v < 2)
			return (errf(-EINVAL, err, len,
			             "--nodes \"%s\": at least 2 nodes", arg));
		o->nodes = (uint32_t)v;
		return (0);
	case 'b':
		o->bytes_set = 1;
		if ((rv = unit_parse_size(arg, &o->bytes)) != 0)
			return (errf(-EINVAL, err, len,
			             "--bytes \"%s\": %s (B, KB, MB, GB, KiB, "
			             "MiB, GiB)",
			             arg, coll_strerror(rv)));
		return (0);
	case 'd':
		if ((rv = parse_delays(arg, o, err, len)) != 0)
			return (rv);
		o->delay_arg = arg;
		return (0);
	case OPT_ALPHA_S:
	case OPT_ALPHA_H:
		rv = unit_parse_time(arg, c == OPT_ALPHA_S ? &o->alpha_s
		                                           : &o->alpha_h);
		if (rv != 0)
			return (errf(-EINVAL, err, len,
			             "--%s \"%s\": %s (ns, us, ms, s)",
			             c == OPT_ALPHA_S ? "alpha-s" : "alpha-h",
			             arg, coll_strerror(rv)));
		return (0);
	case 'B':
		if ((rv = unit_parse_rate(arg, &o->rate)) != 0)
			return (
			    errf(-EINVAL, err, len,
			         "--bandwidth \"%s\": %s (bps, Kbps, Mbps, "
			         "Gbps)",
			         arg, coll_strerror(rv)));
		return (0);
	case 'r':
		if ((rv = parse_reconf(arg, o, err, len)) != 0)
			return (rv);
		o->reconf_arg = arg;
		return (0);
	case 'V':
		o->validate = 1;
		return (0);
	case OPT_MODEL:
		return (load_model(arg, o, err, len));
	case 'p':
		o->phases = 1;
		return (0);
	case 'j':
		o->json = 1;
		return (0);
	case OPT_SIMULATE:
		o->simulate = 1;
		return (0);
	case OPT_CHUNK:
		if ((rv = unit_parse_size(arg, &o->chunk)) != 0 ||
		    o->chunk == 0)
			return (errf(-EINVAL, err, len,
			             "--chunk \"%s\": %s (a size > 0)", arg,
			             rv ? coll_strerror(rv) : "out of range"));
		return (0);
	}
	return (topo_opt(c, arg, o, err, len));
}

/* What --matrix mode needs and allows. */
static int
check_matrix(struct plan_opts *o, char *err, size_t len)
{
	if (o->topology || o->collective || o->chunks || o->steps || o->radix)
		return (errf(-EINVAL, err, len, "%s: not with --matrix",
		             o->radix        ? "--radix"
		             : o->topology   ? "--topology"
		             : o->collective ? "--collective"
		             : o->chunks     ? "--chunks"
		                             : "--steps"));
	if (o->algo == NULL ||
	    (skew_lookup(o->algo) == NULL && strcmp(o->algo, "auto") != 0))
		return (errf(-EINVAL, err, len,
		             "--algo \"%s\": %s with --matrix (%s)",
		             o->algo ? o->algo : "",
		             o->algo ? "unknown" : "missing", skew_names()));
	if (o->nodes)
		return (errf(-EINVAL, err, len,
		             "--nodes: the matrix gives the nodes"));
	if (o->ndelay != 1 || o->reconf_arg || o->simulate || o->chunk)
		return (errf(-EINVAL, err, len, "%s: not with --matrix",
		             o->ndelay != 1  ? "--delay with several values"
		             : o->reconf_arg ? "--reconfig"
		             : o->simulate   ? "--simulate"
		                             : "--chunk"));
	/* --bytes scales the generators that take it; a file (or
	 * uniform:N:BYTES) holds its own counts, and an option that would
	 * change nothing is refused rather than ignored. */
	if (o->bytes_set && o->matrix != NULL &&
	    (strchr(o->matrix, ':') == NULL ||
	     strncmp(o->matrix, "uniform:", 8) == 0))
		return (errf(-EINVAL, err, len,
		             "--bytes: not with --matrix %.100s (its byte "
		             "counts are its own; --bytes scales zipf, moe "
		             "and hotspot)",
		             o->matrix));
	if (o->gpus == 0)
		o->gpus = 1;
	if (o->planes == 0)
		o->planes = 1;
	if (o->planes > 1 && o->gpus > 1)
		return (errf(-EINVAL, err, len,
		             "--transceivers %u: not with --gpus-per-server "
		             "(FAST's planes are its GPUs)",
		             o->planes));
	return (0);
}

/* What the mode (--topology or the ring algorithms) needs, and allows. */
static int
check_mode(struct plan_opts *o, char *err, size_t len)
{
	if ((o->msccl_legacy || o->max_steps) &&
	    (o->export_fmt == NULL || strcmp(o->export_fmt, "msccl") != 0))
		return (
		    errf(-EINVAL, err, len, "%s: only with --export msccl",
		         o->max_steps ? "--max-steps" : "--msccl-dialect"));
	if (o->msccl_legacy && o->max_steps > MSCCL_STEPS_LEGACY)
		return (
		    errf(-EINVAL, err, len,
		         "--max-steps %u: the legacy runtime takes at most "
		         "%d",
		         o->max_steps, MSCCL_STEPS_LEGACY));
	if (o->export_fmt && strcmp(o->export_fmt, "msccl") == 0 && o->matrix)
		return (errf(-EINVAL, err, len,
		             "--export msccl: not with --matrix (MSCCL's "
		             "chunks are equal shares of the buffer, a skewed "
		             "All-to-All's blocks are not)"));
	if (o->planes_mode && (o->matrix != NULL || o->topology != NULL))
		return (errf(-EINVAL, err, len,
		             "--planes: only with the ring algorithms (a "
		             "skewed planner's stages already sit on planes "
		             "apart)"));
	if (o->matrix != NULL)
		return (check_matrix(o, err, len));
	if (o->gpus || o->su_rate_set || (o->planes && !o->planes_mode))
		return (errf(-EINVAL, err, len, "%s: only with --matrix",
		             o->gpus ? "--gpus-per-server"
		             : o->planes
		                 ? "--transceivers"
		                 : "--scaleup-bandwidth/--scaleup-alpha"));
	if (o->topology != NULL) {
		enum tsyn_algo ta;

		if (o->algo == NULL || tsyn_algo_parse(o->algo, &ta) != 0)
			return (errf(-EINVAL, err, len,
			             "--algo \"%s\": %s with --topology (ten, "
			             "mteg, scalecc, sph, spt, ring)",
			             o->algo ? o->algo : "",
			             o->algo ? "unknown" : "missing"));
		if (o->collective == NULL)
			return (errf(-EINVAL, err, len,
			             "--collective: missing (allgather, "
			             "reducescatter, allreduce)"));
		if (o->nodes)
			return (errf(-EINVAL, err, len,
			             "--nodes: the topology gives the nodes"));
		if (o->radix)
			return (errf(-EINVAL, err, len,
			             "--radix: not with --topology"));
		if (o->chunks == 0)
			o->chunks = 1;
		return (0);
	}
	if (o->collective || o->chunks || o->steps)
		return (errf(-EINVAL, err, len, "%s: only with --topology",
		             o->collective ? "--collective"
		             : o->chunks   ? "--chunks"
		                           : "--steps"));
	if (o->algo == NULL)
		return (errf(-EINVAL, err, len, "--algo: missing (%s)",
		             a2a_names()));
	if (o->export_fmt && o->simulate)
		return (
		    errf(-EINVAL, err, len, "--export: not with --simulate"));
	if (o->radix && strcmp(o->algo, "retri") != 0)
		return (errf(-EINVAL, err, len,
		             "--radix %u: only with --algo retri", o->radix));
	if (a2a_lookup(o->algo) == NULL)
		return (errf(-EINVAL, err, len,
		             "--algo \"%s\": unknown algorithm (%s)", o->algo,
		             a2a_names()));
	if (o->nodes == 0)
		return (errf(-EINVAL, err, len, "--nodes: missing"));
	return (0);
}

int
plan_parse(int argc, char **argv, struct plan_opts *o, char *err, size_t len)
{
	int c, rv;

	memset(o, 0, sizeof(*o));
	o->bytes = 1024 * 1024;
	o->delay[0] = 1e-6;
	o->ndelay = 1;
	o->alpha_s = 1.7e-6;
	o->alpha_h = 1e-6;
	o->rate = 400e9;
	o->reconf = PLAN_RECONF_AUTO;
	o->su_rate = 2400e9; /* NVLink-class scale-up */
	o->su_alpha = 0.7e-6;
	err[0] = '\0';

	optind = 0; /* GNU: full re-initialisation, so tests can reparse */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":a:n:b:d:B:r:Vpjh", plan_longopts,
	                        NULL)) != -1) {
		if (c == 'h') {
			o->help = 1;
			return (0);
		}
		if (c == ':')
			return (errf(-EINVAL, err, len, "%s: missing value",
			             argv[optind - 1]));
		if (c == '?')
			return (errf(-EINVAL, err, len,
			             "\"%s\": unknown option",
			             argv[optind - 1]));
		if (c == OPT_EXPORT) {
			/* Two values: the format, then the file. */
			if (strcmp(optarg, "msccl") != 0 &&
			    strcmp(optarg, "chakra") != 0)
				return (errf(-EINVAL, err, len,
				             "--export \"%s\": expected msccl "
				             "FILE or chakra PREFIX",
				             optarg));
			if (optind >= argc || argv[optind][0] == '\0' ||
			    strncmp(argv[optind], "--", 2) == 0)
				return (errf(-EINVAL, err, len,
				             "--export %s: missing %s", optarg,
				             optarg[0] == 'm' ? "FILE"
				                              : "PREFIX"));
			o->export_fmt = optarg;
			o->export_file = argv[optind++];
			continue;
		}
		if ((rv = parse_opt(c, optarg, o, err, len)) != 0)
			return (rv);
	}
	if (optind < argc)
		return (errf(-EINVAL, err, len, "\"%s\": unexpected argument",
		             argv[optind]));
	for (c = 0; c < (int)o->ndelay; c++)
		o->delay[c] += o->reconf_s;
	return (check_mode(o, err, len));
}

void
plan_msccl_opts(const struct plan_opts *o, struct msccl_opts *m)
{
	m->dialect = o->msccl_legacy ? MSCCL_LEGACY : MSCCL_CURRENT;
	m->max_steps = o->max_steps;
}

int
plan_check(const struct plan_opts *o, uint32_t nph, char *err, size_t len)
{
	uint32_t i;

	if (o->ndelay != 1 && o->ndelay != nph - 1)
		return (
		    errf(-EINVAL, err, len,
		         "--delay \"%s\": %u values, expected %s%u (one per "
		         "phase boundary: %s with %u nodes has %u phases)",
		         o->delay_arg ? o->delay_arg : "", o->ndelay,
		         nph > 2 ? "1 or " : "", nph > 1 ? nph - 1 : 1,
		         o->algo, o->nodes, nph));
	for (i = 0; o->reconf == PLAN_RECONF_LIST && i < o->nrlist; i++)
		if (o->rlist[i] >= nph)
			return (errf(
			    -EINVAL, err, len,
			    "--reconfig \"%s\": phase %u out of range 1..%u "
			    "(%s with %u nodes has %u phases)",
			    o->reconf_arg, o->rlist[i], nph - 1, o->algo,
			    o->nodes, nph));
	return (0);
}

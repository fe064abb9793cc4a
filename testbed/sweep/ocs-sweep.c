/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocs-sweep: the model (and with --simulate the link simulator) at every
 * point of algo x nodes x bytes x delay, one CSV row a point, resumable,
 * with gnuplot heatmaps (see sweep.h and the README).
 *
 *	ocs-sweep --algo retri,bridge,static --nodes 9,27 --bytes 1KiB..1GiB*4
 *	          --delay 1us..100ms*10 [--simulate] [--model FILE]
 *	          [--bandwidth R --alpha-s T --alpha-h T] [--reconfig auto|none|all]
 *	          [--out DIR] [--plots] [--compare A:N/B:M,...] [--jobs J]
 *	          [--measure (--local [--netns] [--rate R] | --ocsd ADDRESS)
 *	           [--repeat K]]
 *	ocs-sweep --calibrate (--local | --ocsd ADDRESS) --out FILE
 *	ocs-sweep --preset retri-paper --out DIR [--plots]
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>

#include <jansson.h>

#include "collectives/a2a.h"
#include "proto/base/mono.h"
#include "proto/base/units.h"
#include "proto/base/version.h"
#include "testbed/sweep/sweep.h"
#include "testbed/sweep/sweep_list.h"

static volatile sig_atomic_t stop;

/* The first Ctrl-C lets the point in hand finish (the testbed's
 * processes are in process groups of their own, so the terminal's signal
 * does not reach them); a second one is the default: the sweep dies, and
 * the CSV is still whole up to its last line. */
static void
on_signal(int sig)
{
	stop = 1;
	signal(sig, SIG_DFL);
}

static int
usage(FILE *f, int rv)
{
	fputs(
	    "usage: ocs-sweep --algo A[,A...] --nodes LIST --bytes LIST "
	    "--delay LIST\n"
	    "         [--simulate [ours|ns3|both]]\n"
	    "         [--model FILE | --bandwidth RATE --alpha-s TIME "
	    "--alpha-h TIME]\n"
	    "         [--reconfig auto|none|all] [--out DIR] [--plots]\n"
	    "         [--compare A:N/B:M,...] [--jobs J]\n"
	    "         [--measure (--local [--netns] [--rate RATE] | "
	    "--ocsd ADDRESS) [--repeat K]]\n"
	    "       ocs-sweep --calibrate (--local [--netns] [--rate RATE] | "
	    "--ocsd ADDRESS)\n"
	    "         --out FILE [--nodes N] [--bytes S1,S2]\n"
	    "       ocs-sweep --preset retri-paper [--out DIR] [--plots]\n"
	    "  LIST: values and ranges, 1KiB,64KiB or 1KiB..256MiB*4, "
	    "1us..100ms*10, 3..81*3\n",
	    f);
	return (rv);
}

static int
bad(const char *opt, const char *val, const char *why)
{
	fprintf(stderr, "ocs-sweep: %s \"%s\": %s\n", opt, val, why);
	return (2);
}

static int
load_model(struct sweep *s, const char *path)
{
	char err[400];

	s->model_given = 1;
	if (cmodel_load(&s->m, path, err, sizeof(err)) != 0) {
		fprintf(stderr, "ocs-sweep: --model %s\n", err);
		return (2);
	}
	return (0);
}

/* "retri:81/static:64,..." into s->pair. */
static int
parse_pairs(struct sweep *s, const char *spec)
{
	char        copy[512], *item, *save = NULL;
	const char *why = "expected A:N/B:M[,...] (algorithms and node "
	                  "counts)";

	if (strlen(spec) >= sizeof(copy))
		return (bad("--compare", spec, "too long"));
	snprintf(copy, sizeof(copy), "%s", spec);
	s->npair = 0;
	for (item = strtok_r(copy, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		struct sweep_pair *p = &s->pair[s->npair];

		if (s->npair == SWEEP_MAX_PAIRS ||
		    sscanf(item, "%15[a-z0-9]:%u/%15[a-z0-9]:%u", p->a, &p->na,
		           p->b, &p->nb) != 4 ||
		    !a2a_lookup(p->a) || !a2a_lookup(p->b))
			return (bad("--compare", item, why));
		s->npair++;
	}
	return (s->npair ? 0 : bad("--compare", spec, why));
}

/* The ReTri paper's model sweeps (spec/alltoall-ocs.md). */
static int
preset(struct sweep *s, const char *name)
{
	char err[200];

	if (strcmp(name, "retri-paper") != 0)
		return (bad("--preset", name, "expected retri-paper"));
	s->algo[0] = "retri";
	s->algo[1] = "bridge";
	s->algo[2] = "static";
	s->nalgo = 3;
	snprintf(s->m.name, sizeof(s->m.name), "retri-paper");
	s->m.bps = 400e9;
	s->m.alpha_s = 1.7e-6;
	s->m.alpha_h = 1e-6;
	if (sweep_list_parse("8,9,64,81,243,256", SWEEP_COUNT, &s->nodes,
	                     &s->nnodes, err, sizeof(err)) != 0 ||
	    sweep_list_parse("1KiB..256MiB*4", SWEEP_SIZE, &s->bytes,
	                     &s->nbytes, err, sizeof(err)) != 0 ||
	    sweep_list_parse("1us..100ms*10,150ms", SWEEP_TIME, &s->delay,
	                     &s->ndelay, err, sizeof(err)) != 0)
		return (bad("--preset", name, err));
	s->preset = name;
	s->model_given = 1;
	return (parse_pairs(s, "retri:81/static:64,retri:81/bridge:64,"
	                       "retri:9/static:8,retri:243/static:256"));
}

/* Every pair of the sweep's algorithms at each node count. */
static void
default_pairs(struct sweep *s)
{
	static const char *const order[][2] = {
	    {"retri", "static"}, {"retri", "bridge"}, {"bridge", "static"}};
	size_t i, j, a, b;

	for (i = 0; i < 3; i++) {
		for (a = 0; a < s->nalgo && strcmp(s->algo[a], order[i][0]);
		     a++)
			;
		for (b = 0; b < s->nalgo && strcmp(s->algo[b], order[i][1]);
		     b++)
			;
		for (j = 0; a < s->nalgo && b < s->nalgo && j < s->nnodes &&
		            s->npair < SWEEP_MAX_PAIRS;
		     j++) {
			struct sweep_pair *p = &s->pair[s->npair++];

			snprintf(p->a, sizeof(p->a), "%s", order[i][0]);
			snprintf(p->b, sizeof(p->b), "%s", order[i][1]);
			p->na = p->nb = (uint32_t)s->nodes[j];
		}
	}
}

static int
parse_algos(struct sweep *s, const char *arg)
{
	char spec[256], *a, *save = NULL;

	if (strlen(arg) >= sizeof(spec))
		return (bad("--algo", arg, "too long"));
	snprintf(spec, sizeof(spec), "%s", arg);
	s->nalgo = 0;
	for (a = strtok_r(spec, ",", &save); a;
	     a = strtok_r(NULL, ",", &save)) {
		if (s->nalgo == SWEEP_MAX_ALGOS || a2a_lookup(a) == NULL) {
			fprintf(stderr,
			        "ocs-sweep: --algo \"%s\": expected %s, at "
			        "most %d\n",
			        a, a2a_names(), SWEEP_MAX_ALGOS);
			return (2);
		}
		s->algo[s->nalgo++] = a2a_lookup(a)->name;
	}
	return (s->nalgo ? 0 : bad("--algo", "", "empty"));
}

static int
parse_list(const char *opt, const char *v, enum sweep_kind k, double **out,
           size_t *n)
{
	char err[300];

	free(*out);
	if (sweep_list_parse(v, k, out, n, err, sizeof(err)) != 0)
		return (bad(opt, v, err));
	return (0);
}

static const struct option longopts[] = {
    {"algo", required_argument, NULL, 'a'},
    {"nodes", required_argument, NULL, 'n'},
    {"bytes", required_argument, NULL, 'b'},
    {"delay", required_argument, NULL, 'd'},
    {"simulate", no_argument, NULL, 'S'},
    {"model", required_argument, NULL, 'm'},
    {"bandwidth", required_argument, NULL, 'B'},
    {"alpha-s", required_argument, NULL, 's'},
    {"alpha-h", required_argument, NULL, 'h'},
    {"reconfig", required_argument, NULL, 'r'},
    {"out", required_argument, NULL, 'o'},
    {"plots", no_argument, NULL, 'P'},
    {"compare", required_argument, NULL, 'c'},
    {"preset", required_argument, NULL, 'p'},
    {"measure", no_argument, NULL, 'M'},
    {"local", no_argument, NULL, 'L'},
    {"netns", no_argument, NULL, 'N'},
    {"ocsd", required_argument, NULL, 'O'},
    {"repeat", required_argument, NULL, 'R'},
    {"rate", required_argument, NULL, 'T'},
    {"calibrate", no_argument, NULL, 'C'},
    {"jobs", required_argument, NULL, 'J'},
    {"help", no_argument, NULL, 'H'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

/* A model parameter given on the command line; 0 or 2. */
static int
model_opt(struct sweep *s, int ch, const char *v)
{
	double x;

	snprintf(s->m.name, sizeof(s->m.name), "custom");
	s->model_given = 1;
	if (ch == 'B')
		return (unit_parse_rate(v, &s->m.bps) != 0
		            ? bad("--bandwidth", v, "a rate (400Gbps)")
		            : 0);
	if (unit_parse_time(v, &x) != 0 || x >= 1)
		return (bad(ch == 's' ? "--alpha-s" : "--alpha-h", v,
		            "a time under 1s"));
	*(ch == 's' ? &s->m.alpha_s : &s->m.alpha_h) = x;
	return (0);
}

static int measure_opt(struct sweep *, int, char *);

static int
one_opt(struct sweep *s, int ch, char *v)
{
	switch (ch) {
	case 'a':
		return (parse_algos(s, v));
	case 'n':
		return (parse_list("--nodes", v, SWEEP_COUNT, &s->nodes,
		                   &s->nnodes));
	case 'b':
		return (parse_list("--bytes", v, SWEEP_SIZE, &s->bytes,
		                   &s->nbytes));
	case 'd':
		return (parse_list("--delay", v, SWEEP_TIME, &s->delay,
		                   &s->ndelay));
	case 'm':
		return (load_model(s, v));
	case 'B':
	case 's':
	case 'h':
		return (model_opt(s, ch, v));
	case 'r':
		if (strcmp(v, "auto") && strcmp(v, "none") && strcmp(v, "all"))
			return (bad("--reconfig", v, "auto, none or all"));
		s->reconf = v[0] == 'a' && v[1] == 'u' ? SWEEP_AUTO
		            : v[0] == 'n'              ? SWEEP_NONE
		                                       : SWEEP_ALL;
		return (0);
	case 'o':
		if (*v == '\0' || strlen(v) >= sizeof(s->out) - 40)
			return (bad("--out", v, "a directory path"));
		snprintf(s->out, sizeof(s->out), "%s", v);
		s->cal_out = s->out;
		return (0);
	case 'P':
		s->plots = 1;
		return (0);
	case 'c':
		return (parse_pairs(s, v));
	case 'p':
		return (preset(s, v));
	case 'M':
		s->measure = 1;
		return (0);
	case 'C':
		s->calibrate = 1;
		return (0);
	case 'L':
		s->local = 1;
		return (0);
	case 'N':
		s->local = s->netns = 1;
		return (0);
	case 'O':
		if (*v == '\0' || strlen(v) > 400)
			return (bad("--ocsd", v, "ocsd's control address"));
		s->ocsd = v;
		return (0);
	}
	return (measure_opt(s, ch, v));
}

static int
measure_opt(struct sweep *s, int ch, char *v)
{
	double x;
	char  *end;
	long   k;

	switch (ch) {
	case 'R':
		k = strtol(v, &end, 10);
		if (*v == '\0' || *end != '\0' || k < 1 || k > 100)
			return (bad("--repeat", v, "1..100 runs a point"));
		s->repeat = (uint32_t)k;
		return (0);
	case 'J':
		k = strtol(v, &end, 10);
		if (*v == '\0' || *end != '\0' || k < 1 || k > SWEEP_MAX_JOBS)
			return (bad("--jobs", v, "1..64 threads"));
		s->jobs = (unsigned)k;
		return (0);
	case 'T':
		if (strcmp(v, "auto") != 0 &&
		    (unit_parse_rate(v, &x) != 0 || x < 1e6 || x > 16e9))
			return (bad("--rate", v,
			            "a rate of 1Mbps..16Gbps, or auto"));
		snprintf(s->rate, sizeof(s->rate), "%s", v);
		return (0);
	}
	return (usage(stderr, 2));
}

/* --measure, --calibrate and their options together; 0 or 2. */
static int
check_measure(struct sweep *s)
{
	size_t i;

	if (s->measure && s->calibrate)
		return (bad("--calibrate", "", "not with --measure"));
	if (s->jobs > 1 && (s->measure || s->calibrate))
		return (bad("--jobs", "",
		            "model and simulator points only "
		            "(a testbed runs one point at a "
		            "time)"));
	if ((s->measure || s->calibrate) && s->local == !!s->ocsd) {
		fprintf(stderr,
		        "ocs-sweep: --%s: one of --local or --ocsd "
		        "ADDRESS (where the runs are)\n",
		        s->measure ? "measure" : "calibrate");
		return (2);
	}
	if (s->netns && geteuid() != 0)
		return (bad("--netns", "",
		            "needs root (network namespaces, tc); --local "
		            "runs the same in user space"));
	if (!s->measure && !s->calibrate && (s->local || s->ocsd))
		return (bad(s->local ? "--local" : "--ocsd",
		            s->ocsd ? s->ocsd : "",
		            "with --measure or --calibrate"));
	if (s->repeat == 0)
		s->repeat = 1;
	/* A local testbed's rate is the fastest the CPU keeps up with,
	 * unless given (sweep_probe.c). */
	if (s->rate[0] == '\0')
		snprintf(s->rate, sizeof(s->rate), "%s",
		         s->local ? "auto" : "100Mbps");
	for (i = 0; s->local && i < s->nnodes; i++)
		if (s->nodes[i] > BED_MAX_AGENTS)
			return (bad("--nodes", "",
			            "at most 96 agents on the "
			            "local testbed"));
	if (s->calibrate) {
		if (s->cal_out == NULL)
			return (bad("--calibrate", "",
			            "--out FILE: where the model goes"));
		return (0);
	}
	return (0);
}

/* The model at the local testbed's rate, once the rate is known: with
 * no --model the relay's rate and guessed latencies; a model calibrated
 * at another rate has its bandwidth scaled to this one (the latencies
 * are the machine's, not the rate's). */
static void
model_at_rate(struct sweep *s)
{
	double bps = 0;
	char   a[32], b[32];

	if (!s->measure || !s->local || unit_parse_rate(s->rate, &bps) != 0)
		return;
	if (!s->model_given) {
		snprintf(s->m.name, sizeof(s->m.name), "guess");
		s->m.bps = bps;
		s->m.alpha_s = 1e-3;
		s->m.alpha_h = 300e-6;
		fprintf(stderr, "ocs-sweep: no --model: the model is the "
		                "relay's rate and guessed latencies "
		                "(ocs-sweep --calibrate measures them)\n");
		return;
	}
	if (s->m.cond.rate_bps > 0 &&
	    fabs(bps / s->m.cond.rate_bps - 1) > 1e-9) {
		s->m.bps *= bps / s->m.cond.rate_bps;
		fprintf(stderr,
		        "ocs-sweep: the model was calibrated at %s; at %s its "
		        "bandwidth is scaled to %s\n",
		        unit_fmt_rate(s->m.cond.rate_bps, a, sizeof(a)),
		        s->rate, unit_fmt_rate(s->m.bps, b, sizeof(b)));
		s->m.cond.rate_bps = bps;
	}
}

/* A local testbed's rate: probed (--rate auto), then the model at it
 * and the rows' hash with it.  0, or 1: refused. */
static int
settle_rate(struct sweep *s, struct sweep_bed *b)
{
	uint32_t most = 9;
	size_t   i;

	b->netns = s->netns;
	if (!s->local)
		return (0);
	if (strcmp(s->rate, "auto") == 0) {
		if (s->nnodes)
			for (most = 0, i = 0; i < s->nnodes; i++)
				most = (uint32_t)fmax(most, s->nodes[i]);
		if (sweep_probe(s, b,
		                s->calibrate && s->nnodes
		                    ? (uint32_t)s->nodes[0]
		                    : most) != 0)
			return (1);
	}
	snprintf(b->rate, sizeof(b->rate), "%s", s->rate);
	model_at_rate(s);
	sweep_hash(s);
	return (0);
}

/* bin/ocs-ns3, beside this program: built where ns-3 is installed. */
static int
ns3_prog(struct sweep *s)
{
	char    self[400];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char   *slash;

	if (n <= 0)
		return (bad("--simulate", "ns3", "cannot find this program"));
	self[n] = '\0';
	if ((slash = strrchr(self, '/')) != NULL)
		*slash = '\0';
	snprintf(s->ns3, sizeof(s->ns3), "%s/ocs-ns3", self);
	if (access(s->ns3, X_OK) != 0)
		return (bad("--simulate", "ns3",
		            "bin/ocs-ns3 is not built: ns-3 (libns3-dev) is "
		            "not installed (make deps)"));
	return (0);
}

static int
parse_args(struct sweep *s, int argc, char **argv)
{
	int ch, rv;

	snprintf(s->m.name, sizeof(s->m.name), "default");
	s->m.bps = 400e9;
	s->m.alpha_s = 1.7e-6;
	s->m.alpha_h = 1e-6;
	snprintf(s->out, sizeof(s->out), "sweep");
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (ch == 'H')
			exit(usage(stdout, 0));
		if (ch == 'V') {
			printf("ocs-sweep %s\n", OCS_VERSION);
			exit(0);
		}
		if (ch == '?')
			return (bad("option", argv[optind - 1], "unknown"));
		if (ch == 'S') {
			/* --simulate [ours|ns3|both]: the word, when there
			 * is one, is the next argument. */
			const char *w = optind < argc ? argv[optind] : "";

			s->simulate |= strcmp(w, "ns3") == 0 ? SWEEP_SIM_NS3
			               : strcmp(w, "both") == 0
			                   ? SWEEP_SIM_OURS | SWEEP_SIM_NS3
			                   : SWEEP_SIM_OURS;
			if (strcmp(w, "ns3") == 0 || strcmp(w, "both") == 0 ||
			    strcmp(w, "ours") == 0)
				optind++;
			continue;
		}
		if ((rv = one_opt(s, ch, optarg)) != 0)
			return (rv);
	}
	if (optind != argc)
		return (bad("argument", argv[optind], "unexpected"));
	if ((rv = check_measure(s)) != 0 || s->calibrate)
		return (rv);
	if ((s->simulate & SWEEP_SIM_NS3) && ns3_prog(s) != 0)
		return (2);
	if (!s->nalgo || !s->nnodes || !s->nbytes || !s->ndelay) {
		fprintf(stderr, "ocs-sweep: --algo, --nodes, --bytes and "
		                "--delay are needed (or --preset)\n");
		return (2);
	}
	if (s->npair == 0)
		default_pairs(s);
	sweep_hash(s);
	return (0);
}

/* meta.json keeps every run that wrote rows into the CSV ("runs", the
 * latest last), each with its model, model_hash and backend: a CSV can
 * hold rows of several models, and the file says which made which.  An
 * unreadable old meta.json is started again. */
static int
meta_save(const struct sweep *s, json_t *run)
{
	char    path[600];
	json_t *all, *runs;
	int     rv;

	snprintf(path, sizeof(path), "%s/meta.json", s->out);
	all = json_load_file(path, 0, NULL);
	runs = json_object_get(all, "runs");
	if (!json_is_array(runs)) {
		json_decref(all);
		all = json_object();
		runs = json_array();
		json_object_set_new(all, "runs", runs);
	}
	json_array_append(runs, run);
	/* The latest run's fields at the top too, as before. */
	json_object_update(all, run);
	rv = json_dump_file(all, path, JSON_INDENT(2));
	json_decref(all);
	json_decref(run);
	return (rv);
}

/* meta.json: what made the CSV, on what, with which model. */
static int
write_meta(const struct sweep *s, int argc, char **argv, time_t t0,
           size_t done, size_t total)
{
	json_t        *o = json_object(), *cmd = json_array();
	struct utsname u;
	char           tb[64];
	struct tm      tm;
	int            i;

	for (i = 0; i < argc; i++)
		json_array_append_new(cmd, json_string(argv[i]));
	json_object_set_new(o, "command", cmd);
	json_object_set_new(o, "version", json_string(OCS_VERSION));
	if (uname(&u) == 0)
		json_object_set_new(
		    o, "machine",
		    json_pack("{s:s,s:s,s:s,s:i}", "host", u.nodename,
		              "kernel", u.release, "arch", u.machine, "cores",
		              (int)sysconf(_SC_NPROCESSORS_ONLN)));
	json_object_set_new(o, "model",
	                    json_pack("{s:s,s:f,s:f,s:f,s:f,s:f,s:s}", "name",
	                              s->m.name, "bandwidth_bps", s->m.bps,
	                              "alpha_s", s->m.alpha_s, "alpha_h",
	                              s->m.alpha_h, "reconf_overhead_s",
	                              s->m.reconf_s, "frame_bytes", s->m.frame,
	                              "hash", s->hash));
	json_object_set_new(o, "reconfig",
	                    json_string(s->reconf == SWEEP_AUTO   ? "auto"
	                                : s->reconf == SWEEP_NONE ? "none"
	                                                          : "all"));
	json_object_set_new(o, "backend", json_string(s->backend));
	if (s->measure)
		json_object_set_new(
		    o, "measure",
		    s->local
		        ? json_pack("{s:s,s:s,s:i}", "testbed",
		                    s->netns ? "netns" : "local", "fibre_rate",
		                    s->rate, "repeat", (int)s->repeat)
		        : json_pack("{s:s,s:s,s:i}", "testbed", "ocsd",
		                    "address", s->ocsd, "repeat",
		                    (int)s->repeat));
	gmtime_r(&t0, &tm);
	strftime(tb, sizeof(tb), "%Y-%m-%dT%H:%M:%SZ", &tm);
	json_object_set_new(o, "started", json_string(tb));
	t0 = time(NULL);
	gmtime_r(&t0, &tm);
	strftime(tb, sizeof(tb), "%Y-%m-%dT%H:%M:%SZ", &tm);
	json_object_set_new(o, "ended", json_string(tb));
	json_object_set_new(o, "points", json_integer((json_int_t)total));
	json_object_set_new(o, "points_done_now",
	                    json_integer((json_int_t)done));
	json_object_set_new(o, "interrupted", json_boolean(stop));
	return (meta_save(s, o));
}

static void
progress(size_t k, size_t total, uint64_t t0, int last)
{
	double el = (mono_ns() - t0) / 1e9;

	if (el < 1 && !last)
		return;
	fprintf(stderr, "\rocs-sweep: %zu/%zu points, %.1f s, ETA %.1f s   %s",
	        k, total, el, k ? el / k * (total - k) : 0.0,
	        last ? "\n" : "");
}

struct pt {
	uint32_t ia, in, ib, id;
};

/* Measured on a local testbed: one testbed a delay, so delay first. */
static int
cmp_pt(const void *a, const void *b)
{
	const struct pt *x = a, *y = b;

	if (x->id != y->id)
		return (x->id < y->id ? -1 : 1);
	if (x->ia != y->ia)
		return (x->ia < y->ia ? -1 : 1);
	if (x->in != y->in)
		return (x->in < y->in ? -1 : 1);
	return (x->ib < y->ib ? -1 : x->ib > y->ib);
}

static struct pt *
points(const struct sweep *s, size_t *n)
{
	struct pt *p;
	uint32_t   ia, in, ib, id;
	size_t     k = 0;

	*n = s->nalgo * s->nnodes * s->nbytes * s->ndelay;
	if ((p = calloc(*n, sizeof(*p))) == NULL)
		return (NULL);
	for (ia = 0; ia < s->nalgo; ia++)
		for (in = 0; in < s->nnodes; in++)
			for (ib = 0; ib < s->nbytes; ib++)
				for (id = 0; id < s->ndelay; id++)
					p[k++] = (struct pt){ia, in, ib, id};
	if (s->measure && s->local)
		qsort(p, *n, sizeof(*p), cmp_pt);
	return (p);
}

static void
fill_row(const struct sweep *s, const struct pt *p, struct sweep_row *r)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->algo, sizeof(r->algo), "%s", s->algo[p->ia]);
	r->nodes = (uint32_t)s->nodes[p->in];
	r->bytes = (uint64_t)s->bytes[p->ib];
	r->delta_s = s->delay[p->id];
	snprintf(r->model, sizeof(r->model), "%s", s->m.name);
	snprintf(r->hash, sizeof(r->hash), "%s", s->hash);
	r->simulated_s = r->packet_s = NAN;
	r->measured_s = r->measured_min_s = r->measured_max_s = NAN;
	r->cpu_max = r->cpu_sum = r->cpu_host = NAN;
}

/* Is the row measured?  Locally every point (the testbed brought up at
 * its delay); on a running ocsd those at its switch's delay. */
static int
measured(const struct sweep *s, struct sweep_bed *b, const struct sweep_row *r,
         char *err, size_t len)
{
	double most = 0;
	size_t i;

	if (!s->measure)
		return (0);
	if (!s->local)
		return (fabs(r->delta_s - b->switch_s) <= 1e-9 * b->switch_s);
	if (b->local && b->switch_s == r->delta_s)
		return (1);
	bed_down(b);
	for (i = 0; i < s->nnodes; i++)
		most = fmax(most, s->nodes[i]);
	fprintf(stderr,
	        "\nocs-sweep: a local testbed%s with %g agents, "
	        "switching time %g s, fibres at %s\n",
	        s->netns ? " in namespaces (the kernel's datapath)" : "", most,
	        r->delta_s, s->rate);
	return (bed_up(b, (uint32_t)most, r->delta_s, &s->m, err, len) == 0
	            ? 1
	            : -1);
}

static int
put_row(FILE *csv, const struct sweep_row *r)
{
	char line[1100];

	if (sweep_row_fmt(r, line, sizeof(line)) < 0 ||
	    fputs(line, csv) == EOF || fflush(csv) != 0) {
		fprintf(stderr, "\nocs-sweep: writing the CSV failed\n");
		return (-1);
	}
	return (0);
}

struct jctx {
	const struct sweep      *s;
	const struct pt         *p;
	const struct sweep_done *d;
	FILE                    *csv;
	size_t                  *ndone, total;
	uint64_t                 t0, said;
};

static int
jfill(void *u, size_t k, struct sweep_row *r)
{
	struct jctx *c = u;
	char         key[200];

	fill_row(c->s, &c->p[k], r);
	sweep_row_key(r, key, sizeof(key));
	return (sweep_done_has(c->d, key));
}

static int
jemit(void *u, size_t k, const struct sweep_row *r)
{
	struct jctx *c = u;

	if (put_row(c->csv, r) != 0)
		return (-1);
	(*c->ndone)++;
	if (mono_ns() - c->said > 200000000u) {
		progress(k + 1, c->total, c->t0, 0);
		c->said = mono_ns();
	}
	return (0);
}

/* Model points on s->jobs threads. */
static int
run_jobs(const struct sweep *s, const struct pt *p, size_t total, FILE *csv,
         const struct sweep_done *d, size_t *ndone)
{
	static const struct sweep_jobs_ops ops = {jfill, jemit};
	struct jctx c = {s, p, d, csv, ndone, total, mono_ns(), 0};
	char        err[400];
	int         rv;

	rv = sweep_jobs_run(s, s->jobs, total, &ops, &c, &stop, err,
	                    sizeof(err));
	if (rv != 0 && !stop)
		fprintf(stderr, "\nocs-sweep: %s\n", err);
	progress(stop ? 0 : total, total, c.t0, 1);
	return (stop ? 130 : rv != 0);
}

/* Run every point not yet in the CSV, appending as they come. */
static int
run_points(const struct sweep *s, struct sweep_bed *b, FILE *csv,
           const struct sweep_done *d, size_t *ndone)
{
	struct sweep_row r;
	struct pt       *p;
	size_t           k, total;
	uint64_t         t0 = mono_ns(), said = 0;
	char             key[200], err[1200];
	int              m, rv = 0;

	if ((p = points(s, &total)) == NULL)
		return (1);
	if (s->jobs > 1 && !s->measure) {
		rv = run_jobs(s, p, total, csv, d, ndone);
		free(p);
		return (rv);
	}
	for (k = 0; k < total && !stop && rv == 0; k++) {
		fill_row(s, &p[k], &r);
		sweep_row_key(&r, key, sizeof(key));
		if (sweep_done_has(d, key))
			continue;
		if (sweep_point(s, &r, err, sizeof(err)) != 0 ||
		    (m = measured(s, b, &r, err, sizeof(err))) < 0 ||
		    (m && sweep_measure(s, b, &r, err, sizeof(err)) != 0)) {
			if (!stop)
				fprintf(stderr, "\nocs-sweep: %s: %s\n", key,
				        err);
			rv = 1;
			break;
		}
		if (put_row(csv, &r) != 0) {
			rv = 1;
			break;
		}
		(*ndone)++;
		if (m || mono_ns() - said > 200000000u) {
			progress(k + 1, total, t0, 0);
			said = mono_ns();
		}
	}
	progress(k, total, t0, 1);
	free(p);
	return (stop ? 130 : rv);
}

/* The CSV's rows of this sweep's model and backend (for the plots). */
static int
load_rows(const char *path, const char *hash, struct sweep_row **rows,
          size_t *n)
{
	char   line[1100], err[200];
	FILE  *f = fopen(path, "re");
	size_t cap = 0;

	*rows = NULL;
	*n = 0;
	if (f == NULL)
		return (-1);
	while (fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\r\n")] = '\0';
		if (strcmp(line, SWEEP_CSV_HEADER) == 0)
			continue;
		if (*n == cap) {
			struct sweep_row *nr;

			cap = cap ? 2 * cap : 256;
			if ((nr = realloc(*rows, cap * sizeof(*nr))) == NULL)
				break;
			*rows = nr;
		}
		if (sweep_row_parse(line, &(*rows)[*n], err, sizeof(err)) ==
		        0 &&
		    strcmp((*rows)[*n].hash, hash) == 0)
			(*n)++;
	}
	fclose(f);
	return (0);
}

/* A running ocsd: its agents must be enough, and its switch's delay is
 * where measured rows go (added to the list if missing). */
static int
attach(struct sweep *s, struct sweep_bed *b)
{
	char    err[600];
	double *nd;
	size_t  i;

	if (bed_attach(b, s->ocsd, err, sizeof(err)) != 0) {
		fprintf(stderr, "ocs-sweep: %s\n", err);
		return (1);
	}
	for (i = 0; i < s->nnodes; i++)
		if (s->nodes[i] > b->nagents) {
			fprintf(
			    stderr,
			    "ocs-sweep: --nodes %g: ocsd at %s has %u idle "
			    "agents\n",
			    s->nodes[i], s->ocsd, b->nagents);
			return (2);
		}
	for (i = 0; i < s->ndelay && s->delay[i] < b->switch_s; i++)
		;
	if (i < s->ndelay && s->delay[i] == b->switch_s)
		return (0);
	if ((nd = realloc(s->delay, (s->ndelay + 1) * sizeof(*nd))) == NULL)
		return (1);
	memmove(nd + i + 1, nd + i, (s->ndelay - i) * sizeof(*nd));
	nd[i] = b->switch_s;
	s->delay = nd;
	s->ndelay++;
	fprintf(stderr,
	        "ocs-sweep: the switch's delay %g s added to --delay "
	        "(measured rows are there)\n",
	        b->switch_s);
	return (0);
}

/* What a resumed sweep finds: its own points, and rows of other models
 * or backends, kept beside them. */
static void
resume_note(const struct sweep *s, const struct sweep_done *d,
            const char *path)
{
	size_t i, mine = 0, hl = strlen(s->hash);

	for (i = 0; i < d->n; i++) {
		size_t kl = strlen(d->key[i]);

		mine += kl > hl && strcmp(d->key[i] + kl - hl, s->hash) == 0;
	}
	if (mine)
		fprintf(stderr,
		        "ocs-sweep: %s: %zu points done before, "
		        "resuming\n",
		        path, mine);
	if (d->n > mine)
		fprintf(stderr,
		        "ocs-sweep: %s: %zu rows of another model, --reconfig "
		        "or backend kept (this one's model_hash is %s)\n",
		        path, d->n - mine, s->hash);
}

static int
sweep_main(struct sweep *s, struct sweep_bed *b, int argc, char **argv)
{
	struct sweep_done d;
	struct sweep_row *rows;
	char              path[600], err[400];
	size_t            nrows, ndone = 0;
	time_t            t0 = time(NULL);
	FILE             *csv;
	int               rv, fresh;

	if (s->measure && !s->local && (rv = attach(s, b)) != 0)
		return (rv);
	if (mkdir(s->out, 0755) != 0 && errno != EEXIST)
		return (bad("--out", s->out, strerror(errno)));
	snprintf(path, sizeof(path), "%s/sweep.csv", s->out);
	if (sweep_done_load(&d, path, err, sizeof(err)) != 0) {
		fprintf(stderr, "ocs-sweep: %s\n", err);
		return (1);
	}
	fresh = access(path, F_OK) != 0;
	if ((csv = fopen(path, "ae")) == NULL) {
		sweep_done_free(&d);
		return (bad("--out", s->out, strerror(errno)));
	}
	if (fresh)
		fprintf(csv, "%s\n", SWEEP_CSV_HEADER);
	resume_note(s, &d, path);
	rv = run_points(s, b, csv, &d, &ndone);
	bed_down(b);
	sweep_done_free(&d);
	if (fclose(csv) != 0 && rv == 0)
		rv = 1;
	if (write_meta(s, argc, argv, t0, ndone,
	               s->nalgo * s->nnodes * s->nbytes * s->ndelay) != 0)
		fprintf(stderr, "ocs-sweep: writing %s/meta.json failed\n",
		        s->out);
	if (rv == 130)
		fprintf(stderr,
		        "ocs-sweep: interrupted; %s is whole up to "
		        "the last point (run again to resume)\n",
		        path);
	if (rv != 0 || !s->plots)
		return (rv);
	if (load_rows(path, s->hash, &rows, &nrows) != 0)
		return (1);
	rv = sweep_plots(s, rows, nrows, err, sizeof(err));
	free(rows);
	if (rv != 0) {
		fprintf(stderr, "ocs-sweep: %s\n", err);
		return (1);
	}
	fprintf(stderr, "ocs-sweep: plots in %s\n", s->out);
	return (0);
}

int
main(int argc, char **argv)
{
	struct sweep     s;
	struct sweep_bed b;
	struct sigaction sa;
	char             err[300];
	int              rv;

	memset(&s, 0, sizeof(s));
	if ((rv = parse_args(&s, argc, argv)) == 0 &&
	    (s.simulate & SWEEP_SIM_NS3) &&
	    (s.ns3_cache = sweep_ns3_cache_new()) == NULL)
		rv = 1;
	if (rv == 0) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		/* A child that dies early (ocs-ns3, ocsctl) is an EPIPE
		 * and its exit status, not the end of the sweep. */
		signal(SIGPIPE, SIG_IGN);
		if (bed_init(&b, s.rate, err, sizeof(err)) != 0) {
			fprintf(stderr, "ocs-sweep: %s\n", err);
			rv = 1;
		} else if (settle_rate(&s, &b) != 0)
			rv = 1;
		else if (s.calibrate)
			rv = sweep_calibrate(&s, &b);
		else
			rv = sweep_main(&s, &b, argc, argv);
	}
	sweep_ns3_cache_free(s.ns3_cache);
	free(s.nodes);
	free(s.bytes);
	free(s.delay);
	return (rv);
}

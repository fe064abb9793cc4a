/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocs-sweep: the model (and with --simulate the link simulator) at every
 * point of algo x nodes x bytes x delay, one CSV row a point, resumable,
 * with gnuplot heatmaps (see sweep.h and the README).
 *
 *	ocs-sweep --algo retri,bridge,static --nodes 9,27 --bytes 1KiB..1GiB*4
 *	          --delay 1us..100ms*10 [--simulate] [--model FILE]
 *	          [--bandwidth R --alpha-s T --alpha-h T] [--reconfig auto|none|all]
 *	          [--out DIR] [--plots] [--compare A:N/B:M,...]
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

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int
usage(FILE *f, int rv)
{
	fprintf(f,
	        "usage: ocs-sweep --algo A[,A...] --nodes LIST --bytes LIST "
	        "--delay LIST\n"
	        "                 [--simulate] [--model FILE | --bandwidth "
	        "RATE --alpha-s TIME --alpha-h TIME]\n"
	        "                 [--reconfig auto|none|all] [--out DIR] "
	        "[--plots] [--compare A:N/B:M,...]\n"
	        "       ocs-sweep --preset retri-paper [--out DIR] [--plots]\n"
	        "  LIST: values and ranges, 1KiB,64KiB or 1KiB..256MiB*4, "
	        "1us..100ms*10, 3..81*3\n");
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

	if (sweep_model_load(&s->m, path, err, sizeof(err)) != 0) {
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
	case 'S':
		s->simulate = 1;
		return (0);
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
		return (0);
	case 'P':
		s->plots = 1;
		return (0);
	case 'c':
		return (parse_pairs(s, v));
	case 'p':
		return (preset(s, v));
	case 'M':
		fprintf(stderr, "ocs-sweep: --measure: measured points are "
		                "not in this version; the model and the "
		                "simulator are (--simulate)\n");
		return (2);
	}
	return (usage(stderr, 2));
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
		if ((rv = one_opt(s, ch, optarg)) != 0)
			return (rv);
	}
	if (optind != argc)
		return (bad("argument", argv[optind], "unexpected"));
	if (!s->nalgo || !s->nnodes || !s->nbytes || !s->ndelay) {
		fprintf(stderr, "ocs-sweep: --algo, --nodes, --bytes and "
		                "--delay are needed (or --preset)\n");
		return (2);
	}
	if (s->npair == 0)
		default_pairs(s);
	return (0);
}

/* meta.json: what made the CSV, on what, with which model. */
static int
write_meta(const struct sweep *s, int argc, char **argv, time_t t0,
           size_t done, size_t total)
{
	json_t        *o = json_object(), *cmd = json_array();
	struct utsname u;
	char           path[600], tb[64];
	struct tm      tm;
	int            i, rv;

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
	                    json_pack("{s:s,s:f,s:f,s:f}", "name", s->m.name,
	                              "bandwidth_bps", s->m.bps, "alpha_s",
	                              s->m.alpha_s, "alpha_h", s->m.alpha_h));
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
	snprintf(path, sizeof(path), "%s/meta.json", s->out);
	rv = json_dump_file(o, path, JSON_INDENT(2));
	json_decref(o);
	return (rv);
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

/* Run every point not yet in the CSV, appending as they come. */
static int
run_points(const struct sweep *s, FILE *csv, const struct sweep_done *d,
           size_t *ndone)
{
	struct sweep_row r;
	size_t           ia, in, ib, id, k = 0;
	size_t           total = s->nalgo * s->nnodes * s->nbytes * s->ndelay;
	uint64_t         t0 = mono_ns(), said = 0;
	char             line[1100], key[200], err[300];

	for (ia = 0; ia < s->nalgo; ia++)
		for (in = 0; in < s->nnodes; in++)
			for (ib = 0; ib < s->nbytes; ib++)
				for (id = 0; id < s->ndelay && !stop; id++) {
					memset(&r, 0, sizeof(r));
					snprintf(r.algo, sizeof(r.algo), "%s",
					         s->algo[ia]);
					r.nodes = (uint32_t)s->nodes[in];
					r.bytes = (uint64_t)s->bytes[ib];
					r.delta_s = s->delay[id];
					snprintf(r.model, sizeof(r.model),
					         "%s", s->m.name);
					r.measured_s = r.measured_min_s =
					    r.measured_max_s = NAN;
					k++;
					sweep_row_key(&r, key, sizeof(key));
					if (sweep_done_has(d, key))
						continue;
					if (sweep_point(s, &r, err,
					                sizeof(err)) != 0) {
						fprintf(
						    stderr,
						    "\nocs-sweep: %s: %s\n",
						    key, err);
						return (1);
					}
					if (sweep_row_fmt(&r, line,
					                  sizeof(line)) < 0 ||
					    fputs(line, csv) == EOF ||
					    fflush(csv) != 0) {
						fprintf(stderr,
						        "\nocs-sweep: "
						        "writing the CSV "
						        "failed\n");
						return (1);
					}
					(*ndone)++;
					if (mono_ns() - said > 200000000u) {
						progress(k, total, t0, 0);
						said = mono_ns();
					}
				}
	progress(k, total, t0, 1);
	return (stop ? 130 : 0);
}

/* Every row of the CSV (for the plots). */
static int
load_rows(const char *path, struct sweep_row **rows, size_t *n)
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
		if (sweep_row_parse(line, &(*rows)[*n], err, sizeof(err)) == 0)
			(*n)++;
	}
	fclose(f);
	return (0);
}

static int
sweep_main(struct sweep *s, int argc, char **argv)
{
	struct sweep_done d;
	struct sweep_row *rows;
	char              path[600], err[400];
	size_t            nrows, ndone = 0;
	time_t            t0 = time(NULL);
	FILE             *csv;
	int               rv, fresh;

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
	if (d.n)
		fprintf(stderr,
		        "ocs-sweep: %s: %zu points done before, "
		        "resuming\n",
		        path, d.n);
	rv = run_points(s, csv, &d, &ndone);
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
	if (load_rows(path, &rows, &nrows) != 0)
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
	struct sigaction sa;
	int              rv;

	memset(&s, 0, sizeof(s));
	if ((rv = parse_args(&s, argc, argv)) == 0) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		rv = sweep_main(&s, argc, argv);
	}
	free(s.nodes);
	free(s.bytes);
	free(s.delay);
	return (rv);
}

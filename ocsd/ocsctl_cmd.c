/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocsctl's commands: each checks its own arguments (a usage error is one
 * line naming the argument and exit 2), builds one request and names how
 * its answer prints.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/tmat_load.h"
#include "ocsd/ocsctl.h"
#include "proto/base/units.h"

/*
 * --force anywhere after a command that changes circuits: go ahead even
 * during a run (ocsd aborts it first), and apply even an empty map.
 */
void
ocsctl_take_force(struct opts *o, int *argc, char **argv)
{
	int i, j;

	for (i = j = 1; i < *argc; i++)
		if (strcmp(argv[i], "--force") == 0)
			o->force = 1;
		else
			argv[j++] = argv[i];
	*argc = j;
	argv[j] = NULL;
}

static int
do_simple(struct opts *o, int argc, char **argv, Ocs__CtlRequest__Op op,
          enum out_kind kind)
{
	Ocs__CtlRequest q;

	if (argc != 1)
		return (ocsctl_fail(o, "%s: takes no arguments", argv[0]) + 1);
	ocs__ctl_request__init(&q);
	q.op = op;
	return (ocsctl_request(o, &q, kind, argv[0]));
}

/* show [switch|circuits|patches|cabling|ports]...: ports are read from
 * the switch (power, failed state); the rest is ocsd's state. */
int
ocsctl_show(struct opts *o, int argc, char **argv)
{
	static const struct {
		const char *name;
		unsigned    bit;
	} parts[] = {{"switch", SHOW_SWITCH},
	             {"circuits", SHOW_CIRCUITS},
	             {"patches", SHOW_PATCHES},
	             {"cabling", SHOW_CABLING}};
	Ocs__CtlRequest q;
	int             i, ports = 0;
	size_t          k;

	for (i = 1; i < argc; i++) {
		for (k = 0; k < sizeof(parts) / sizeof(parts[0]); k++)
			if (strcmp(argv[i], parts[k].name) == 0)
				break;
		if (k < sizeof(parts) / sizeof(parts[0]))
			o->po.show |= parts[k].bit;
		else if (strcmp(argv[i], "ports") == 0)
			ports = 1;
		else
			return (ocsctl_fail(o,
			                    "show \"%s\": expected switch, "
			                    "circuits, patches, cabling or "
			                    "ports",
			                    argv[i]) +
			        1);
	}
	if (ports && o->po.show)
		return (ocsctl_fail(o, "show ports: not with other parts") +
		        1);
	ocs__ctl_request__init(&q);
	if (ports) {
		q.op = OCS__CTL_REQUEST__OP__PORTS;
		return (ocsctl_request(o, &q, OUT_PORTS, "show ports"));
	}
	q.op = OCS__CTL_REQUEST__OP__SHOW;
	return (ocsctl_request(o, &q, OUT_SHOW, "show"));
}

int
ocsctl_status(struct opts *o, int argc, char **argv)
{
	return (do_simple(o, argc, argv, OCS__CTL_REQUEST__OP__STATUS,
	                  OUT_STATUS));
}

int
ocsctl_clear(struct opts *o, int argc, char **argv)
{
	ocsctl_take_force(o, &argc, argv);
	return (do_simple(o, argc, argv, OCS__CTL_REQUEST__OP__CLEAR,
	                  OUT_MESSAGE));
}

int
ocsctl_connect(struct opts *o, int argc, char **argv)
{
	Ocs__CtlRequest q;
	Ocs__Endpoints  e, *ep = &e;
	char            what[300];

	ocsctl_take_force(o, &argc, argv);
	if (argc != 3)
		return (
		    ocsctl_fail(o, "connect: expected two endpoints (A B)") +
		    1);
	ocs__ctl_request__init(&q);
	ocs__endpoints__init(&e);
	q.op = OCS__CTL_REQUEST__OP__CONNECT;
	e.a = argv[1];
	e.b = argv[2];
	q.n_pairs = 1;
	q.pairs = &ep;
	/* ocsd's answer names the endpoints: not echoed here again. */
	snprintf(what, sizeof(what), "connect");
	return (ocsctl_request(o, &q, OUT_MESSAGE, what));
}

int
ocsctl_disconnect(struct opts *o, int argc, char **argv)
{
	Ocs__CtlRequest q;
	char            what[300];

	ocsctl_take_force(o, &argc, argv);
	if (argc < 2)
		return (ocsctl_fail(o, "disconnect: expected an endpoint") +
		        1);
	ocs__ctl_request__init(&q);
	q.op = OCS__CTL_REQUEST__OP__DISCONNECT;
	q.n_ports = (size_t)argc - 1;
	q.ports = argv + 1;
	snprintf(what, sizeof(what), "disconnect %.100s%s", argv[1],
	         argc > 2 ? " ..." : "");
	return (ocsctl_request(o, &q, OUT_MESSAGE, what));
}

/* A word ocsd would take: printable ASCII (sscanf split it at spaces). */
static int
printable(const char *w)
{
	for (; *w; w++)
		if ((unsigned char)*w < 0x21 || (unsigned char)*w > 0x7e)
			return (0);
	return (1);
}

/* s with anything unprintable as \xNN, cut to fit: a binary file's bytes
 * are not for the terminal. */
static const char *
escape(const char *s, char *out, size_t len)
{
	size_t n = 0;

	for (; *s && n + 5 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (c >= 0x20 && c < 0x7f)
			out[n++] = (char)c;
		else
			n += (size_t)snprintf(out + n, len - n, "\\x%02x", c);
	}
	out[n] = '\0';
	return (out);
}

/*
 * apply [--force] FILE: lines "A B", '#' comments; "-" is stdin.  The
 * file is the whole map, so a file that cannot be read, or holds no
 * patch, would clear every circuit: that is refused without --force.
 */
int
ocsctl_apply(struct opts *o, int argc, char **argv)
{
	Ocs__CtlRequest q;
	Ocs__Endpoints *e = NULL, **ep = NULL;
	char          **words = NULL, line[512], a[256], b[256], extra[2];
	size_t          n = 0, cap = 0, i;
	unsigned        lineno = 0;
	FILE           *f;
	int             rv;

	ocsctl_take_force(o, &argc, argv);
	if (argc != 2 || argv[1][0] == '\0')
		return (ocsctl_fail(o, "apply: expected [--force] FILE") + 1);
	f = strcmp(argv[1], "-") == 0 ? stdin : fopen(argv[1], "re");
	if (f == NULL)
		return (
		    ocsctl_fail(o, "apply: %s: %s", argv[1], strerror(errno)));
	rv = 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		char *s = line;
		int   k;

		lineno++;
		if (strchr(line, '\n') == NULL && !feof(f)) {
			rv = ocsctl_fail(o, "apply: %s:%u: line too long",
			                 argv[1], lineno);
			break;
		}
		s[strcspn(s, "#\r\n")] = '\0';
		k = sscanf(s, "%255s %255s %1s", a, b, extra);
		if (k <= 0)
			continue;
		if (k != 2 || !printable(a) || !printable(b)) {
			char shown[200];

			rv = ocsctl_fail(
			    o, "apply: %s:%u: expected \"A B\", got \"%s\"",
			    argv[1], lineno, escape(s, shown, sizeof(shown)));
			break;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			words = realloc(words, 2 * cap * sizeof(*words));
			o->lines = realloc(o->lines, cap * sizeof(*o->lines));
			if (words == NULL || o->lines == NULL) {
				rv = ocsctl_fail(o, "apply: out of memory");
				break;
			}
		}
		words[2 * n] = strdup(a);
		words[2 * n + 1] = strdup(b);
		o->lines[n++] = lineno;
	}
	/* A read error (a directory, a device) is not an end of file. */
	if (rv == 0 && ferror(f))
		rv = ocsctl_fail(o, "apply: %s: %s", argv[1],
		                 strerror(errno ? errno : EIO));
	if (f != stdin)
		fclose(f);
	if (rv == 0 && n == 0 && !o->force)
		rv = ocsctl_fail(o,
		                 "apply: %s: no patches; an empty map clears "
		                 "every circuit (apply --force, or ocsctl "
		                 "clear)",
		                 argv[1]);
	if (rv == 0) {
		e = calloc(n ? n : 1, sizeof(*e));
		ep = calloc(n ? n : 1, sizeof(*ep));
		if (e == NULL || ep == NULL)
			rv = ocsctl_fail(o, "apply: out of memory");
	}
	if (rv == 0) {
		for (i = 0; i < n; i++) {
			ocs__endpoints__init(&e[i]);
			e[i].a = words[2 * i];
			e[i].b = words[2 * i + 1];
			ep[i] = &e[i];
		}
		ocs__ctl_request__init(&q);
		q.op = OCS__CTL_REQUEST__OP__APPLY;
		q.n_pairs = n;
		q.pairs = ep;
		o->file = argv[1];
		o->nlines = n;
		rv = ocsctl_request(o, &q, OUT_MESSAGE, "apply");
	}
	for (i = 0; i < 2 * n; i++)
		free(words[i]);
	free(words);
	free(e);
	free(ep);
	return (rv);
}

int
ocsctl_map(struct opts *o, int argc, char **argv)
{
	Ocs__CtlRequest q;
	char            what[64];

	ocsctl_take_force(o, &argc, argv);
	if (argc != 2)
		return (ocsctl_fail(o, "map: expected diff, sync or adopt") +
		        1);
	ocs__ctl_request__init(&q);
	if (strcmp(argv[1], "diff") == 0)
		q.op = OCS__CTL_REQUEST__OP__MAP_DIFF;
	else if (strcmp(argv[1], "sync") == 0)
		q.op = OCS__CTL_REQUEST__OP__MAP_SYNC;
	else if (strcmp(argv[1], "adopt") == 0)
		q.op = OCS__CTL_REQUEST__OP__MAP_ADOPT;
	else
		return (ocsctl_fail(o,
		                    "map \"%s\": expected diff, sync or adopt",
		                    argv[1]) +
		        1);
	snprintf(what, sizeof(what), "map %s", argv[1]);
	return (ocsctl_request(
	    o, &q,
	    q.op == OCS__CTL_REQUEST__OP__MAP_SYNC ? OUT_MESSAGE : OUT_DIFF,
	    what));
}

/* agents, or agents evict HOST. */
int
ocsctl_agents(struct opts *o, int argc, char **argv)
{
	Ocs__CtlRequest q;
	char            what[100];

	if (argc > 1 && strcmp(argv[1], "evict") == 0) {
		if (argc != 3)
			return (
			    ocsctl_fail(o, "agents evict: expected a HOST") +
			    1);
		ocs__ctl_request__init(&q);
		q.op = OCS__CTL_REQUEST__OP__EVICT;
		q.n_ports = 1;
		q.ports = argv + 2;
		snprintf(what, sizeof(what), "agents evict %.64s", argv[2]);
		return (ocsctl_request(o, &q, OUT_MESSAGE, what));
	}
	return (do_simple(o, argc, argv, OCS__CTL_REQUEST__OP__AGENTS,
	                  OUT_AGENTS));
}

int
ocsctl_abort(struct opts *o, int argc, char **argv)
{
	return (do_simple(o, argc, argv, OCS__CTL_REQUEST__OP__ABORT,
	                  OUT_MESSAGE));
}

/* --alpha-s, --alpha-h, --delay: a time.  0, or 2 (said). */
static int
run_opt_time(const struct opts *o, int c, const char *a, Ocs__RunRequest *rq)
{
	double t;

	if (unit_parse_time(a, &t) != 0)
		return (ocsctl_fail(o,
		                    "run: --%s \"%s\": expected a time "
		                    "(ns, us, ms, s)",
		                    c == 's'   ? "alpha-s"
		                    : c == 'h' ? "alpha-h"
		                               : "delay",
		                    a) +
		        1);
	if (c == 's')
		rq->has_alpha_s = 1, rq->alpha_s = t;
	else if (c == 'h')
		rq->has_alpha_h = 1, rq->alpha_h = t;
	else
		rq->has_delta = 1, rq->delta = t;
	return (0);
}

/* One option of run into rq: 0, or 2 after saying what is wrong. */
static int
run_opt(const struct opts *o, int c, const char *a, Ocs__RunRequest *rq)
{
	uint64_t      sz;
	char         *end;
	unsigned long v;

	switch (c) {
	case 'a':
		rq->algo = (char *)(uintptr_t)a;
		return (0);
	case 'x':
		v = strtoul(a, &end, 10);
		if (*a < '0' || *a > '9' || *end || v < 3 || v > 9 ||
		    v % 2 == 0)
			return (ocsctl_fail(o,
			                    "run: --radix \"%s\": 3, 5, 7 "
			                    "or 9",
			                    a) +
			        1);
		rq->has_radix = 1;
		rq->radix = (uint32_t)v;
		return (0);
	case 'P':
		if (strcmp(a, "together") != 0 && strcmp(a, "apart") != 0 &&
		    strcmp(a, "auto") != 0)
			return (ocsctl_fail(o,
			                    "run: --planes \"%s\": together, "
			                    "apart or auto",
			                    a) +
			        1);
		rq->planes = (char *)(uintptr_t)a;
		return (0);
	case 'b':
		if (unit_parse_size(a, &sz) != 0 || sz == 0)
			return (
			    ocsctl_fail(o,
			                "run: --bytes \"%s\": expected a "
			                "size (B, KiB, MiB, GiB, KB, MB, GB)",
			                a) +
			    1);
		rq->bytes = sz;
		return (0);
	case 'r':
		rq->reconfig = (char *)(uintptr_t)a;
		return (0);
	case 'n':
		if (strcmp(a, "all") == 0)
			return (0);
		v = strtoul(a, &end, 10);
		if (*a < '0' || *a > '9' || *end || v < 2 || v > 65535)
			return (ocsctl_fail(o,
			                    "run: --nodes \"%s\": all, or a "
			                    "number of agents (2 or more)",
			                    a) +
			        1);
		rq->has_nodes = 1;
		rq->nodes = (uint32_t)v;
		return (0);
	case 'B':
		if (unit_parse_rate(a, &rq->bandwidth_bps) != 0)
			return (
			    ocsctl_fail(o,
			                "run: --bandwidth \"%s\": expected "
			                "a rate (Gbps, GBps, ...)",
			                a) +
			    1);
		rq->has_bandwidth_bps = 1;
		return (0);
	case 's':
	case 'h':
	case 'd':
		return (run_opt_time(o, c, a, rq));
	case 'c':
		if (unit_parse_size(a, &sz) != 0 || sz < 1024 ||
		    sz > (1u << 20))
			return (
			    ocsctl_fail(o, "run: --chunk \"%s\": 1KiB to 1MiB",
			                a) +
			    1);
		rq->has_chunk = 1;
		rq->chunk = (uint32_t)sz;
		return (0);
	}
	return (2);
}

/* --matrix: a file or generator (scaled by --bytes), read here and sent
 * whole, so ocsd need not see the operator's files.  0, or 2. */
static int
run_matrix(const struct opts *o, const char *spec, Ocs__RunRequest *rq,
           struct tmat *m)
{
	char err[512];

	if (tmat_load(spec, rq->bytes, m, err, sizeof(err)) != 0)
		return (ocsctl_fail(o, "run: %s", err) + 1);
	rq->n_matrix = (size_t)m->n * m->n;
	rq->matrix = m->b;
	rq->matrix_name = (char *)(uintptr_t)spec;
	return (0);
}

/* --collective and --chunks: 0, or 2. */
static int
run_coll_opt(const struct opts *o, int c, const char *a, Ocs__RunRequest *rq)
{
	char         *end;
	unsigned long v;

	if (c == 'o') {
		if (strcmp(a, "allgather") && strcmp(a, "reducescatter") &&
		    strcmp(a, "allreduce"))
			return (ocsctl_fail(o,
			                    "run: --collective \"%s\": "
			                    "allgather, reducescatter or "
			                    "allreduce",
			                    a) +
			        1);
		rq->collective = (char *)(uintptr_t)a;
		return (0);
	}
	v = strtoul(a, &end, 10);
	if (*a < '0' || *a > '9' || *end || v < 1 || v > CTL_MAX_CHUNKS)
		return (ocsctl_fail(o, "run: --chunks \"%s\": 1 to %u", a,
		                    CTL_MAX_CHUNKS) +
		        1);
	rq->has_chunks = 1;
	rq->chunks = (uint32_t)v;
	return (0);
}

/* Servers: --gpus-per-server, --scaleup-bandwidth, --scaleup-alpha.
 * 0, or 2. */
static int
run_srv_opt(const struct opts *o, int c, const char *a, Ocs__RunRequest *rq)
{
	char         *end;
	unsigned long v;

	if (c == 'U') {
		if (unit_parse_rate(a, &rq->scaleup_bps) != 0)
			return (
			    ocsctl_fail(o,
			                "run: --scaleup-bandwidth \"%s\": "
			                "expected a rate (Mbps, Gbps, ...)",
			                a) +
			    1);
		rq->has_scaleup_bps = 1;
		return (0);
	}
	if (c == 'u') {
		if (unit_parse_time(a, &rq->scaleup_alpha) != 0)
			return (ocsctl_fail(o,
			                    "run: --scaleup-alpha \"%s\": "
			                    "expected a time (ns, us, ms, s)",
			                    a) +
			        1);
		rq->has_scaleup_alpha = 1;
		return (0);
	}
	v = strtoul(a, &end, 10);
	if (*a < '0' || *a > '9' || *end || v < 1 || v > 8)
		return (ocsctl_fail(o, "run: --gpus-per-server \"%s\": 1 to 8",
		                    a) +
		        1);
	rq->has_gpus_per_server = 1;
	rq->gpus_per_server = (uint32_t)v;
	return (0);
}

/* --topology: a file's JSON is read here and sent whole (ocsd need not
 * see the operator's files); anything else is a generator ocsd reads.
 * 0, or 2. */
static int
run_topology(const struct opts *o, const char *spec, Ocs__RunRequest *rq,
             char **text)
{
	FILE  *f;
	size_t n;

	if (rq->collective == NULL)
		return (ocsctl_fail(o, "run: --topology is for --collective") +
		        1);
	if ((f = fopen(spec, "r")) == NULL) {
		if (strchr(spec, ':') == NULL)
			return (ocsctl_fail(o,
			                    "run: --topology \"%s\": no "
			                    "such file, nor a generator "
			                    "(ring:N, subring:N:S,..., "
			                    "mesh:RxC, torus:AxB)",
			                    spec) +
			        1);
		rq->topology = (char *)(uintptr_t)spec;
		return (0);
	}
	if ((*text = malloc(CTL_MAX_TOPOLOGY + 1)) == NULL) {
		fclose(f);
		return (ocsctl_fail(o, "run: out of memory") + 1);
	}
	n = fread(*text, 1, CTL_MAX_TOPOLOGY + 1, f);
	if (ferror(f) || n > CTL_MAX_TOPOLOGY) {
		fclose(f);
		return (ocsctl_fail(o, "run: --topology %s: %s", spec,
		                    n > CTL_MAX_TOPOLOGY ? "more than 1 MiB"
		                                         : "read error") +
		        1);
	}
	fclose(f);
	(*text)[n] = '\0';
	rq->topology = *text;
	return (0);
}

int
ocsctl_run(struct opts *o, int argc, char **argv)
{
	static const struct option lo[] = {
	    {"algo", required_argument, NULL, 'a'},
	    {"bytes", required_argument, NULL, 'b'},
	    {"reconfig", required_argument, NULL, 'r'},
	    {"nodes", required_argument, NULL, 'n'},
	    {"bandwidth", required_argument, NULL, 'B'},
	    {"alpha-s", required_argument, NULL, 's'},
	    {"alpha-h", required_argument, NULL, 'h'},
	    {"delay", required_argument, NULL, 'd'},
	    {"chunk", required_argument, NULL, 'c'},
	    {"keep", no_argument, NULL, 'K'},
	    {"matrix", required_argument, NULL, 'm'},
	    {"radix", required_argument, NULL, 'x'},
	    {"planes", required_argument, NULL, 'P'},
	    {"capture", no_argument, NULL, 'C'},
	    {"collective", required_argument, NULL, 'o'},
	    {"topology", required_argument, NULL, 'T'},
	    {"chunks", required_argument, NULL, 'k'},
	    {"gpus-per-server", required_argument, NULL, 'g'},
	    {"scaleup-bandwidth", required_argument, NULL, 'U'},
	    {"scaleup-alpha", required_argument, NULL, 'u'},
	    {NULL, 0, NULL, 0},
	};
	Ocs__CtlRequest q;
	Ocs__RunRequest rq;
	const char     *matrix = NULL, *topo = NULL;
	char           *text = NULL;
	struct tmat     m = {0, NULL};
	int             c, rv, capture = 0;

	ocs__ctl_request__init(&q);
	ocs__run_request__init(&rq);
	q.op = OCS__CTL_REQUEST__OP__RUN;
	q.run = &rq;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", lo, NULL)) != -1) {
		if (c == ':')
			return (ocsctl_fail(o, "run: %s: missing value",
			                    argv[optind - 1]) +
			        1);
		if (c == 'K') {
			rq.has_keep = rq.keep = 1;
			continue;
		}
		if (c == 'C') {
			capture = 1;
			continue;
		}
		if (c == 'm') {
			matrix = optarg;
			continue;
		}
		if (c == 'T') {
			topo = optarg;
			continue;
		}
		if (c == 'o' || c == 'k') {
			if ((rv = run_coll_opt(o, c, optarg, &rq)) != 0)
				return (rv);
			continue;
		}
		if (c == 'g' || c == 'U' || c == 'u') {
			if ((rv = run_srv_opt(o, c, optarg, &rq)) != 0)
				return (rv);
			continue;
		}
		if (c == '?' || strchr("abrnBshdcxP", c) == NULL)
			return (ocsctl_fail(o, "run: \"%s\": unknown option",
			                    argv[optind - 1]) +
			        1);
		if ((rv = run_opt(o, c, optarg, &rq)) != 0)
			return (rv);
	}
	if (optind != argc)
		return (ocsctl_fail(o, "run: \"%s\": unexpected argument",
		                    argv[optind]) +
		        1);
	if (rq.algo == NULL || rq.bytes == 0)
		return (
		    ocsctl_fail(o, "run: --algo and --bytes are required") +
		    1);
	if (matrix != NULL && (rv = run_matrix(o, matrix, &rq, &m)) != 0)
		return (rv);
	if (topo != NULL && (rv = run_topology(o, topo, &rq, &text)) != 0) {
		free(text);
		tmat_free(&m);
		return (rv);
	}
	/* A run takes as long as it takes: wait longer than for the rest. */
	if (!o->timeout_set)
		o->timeout_ms = 3600 * 1000;
	rv = capture ? ocsctl_run_capture(o, &q)
	             : ocsctl_request(o, &q, OUT_REPORT, "run");
	tmat_free(&m);
	free(text);
	return (rv);
}

/* runs [ID]: the kept runs, or one whole. */
int
ocsctl_runs(struct opts *o, int argc, char **argv)
{
	Ocs__CtlRequest q;
	char           *end;
	char            what[64];

	ocs__ctl_request__init(&q);
	q.op = OCS__CTL_REQUEST__OP__RUNS;
	if (argc > 2)
		return (ocsctl_fail(o, "runs: expected at most one run id") +
		        1);
	if (argc == 1)
		return (ocsctl_request(o, &q, OUT_RUNS, "runs"));
	q.run_id = strtoull(argv[1], &end, 10);
	if (argv[1][0] < '0' || argv[1][0] > '9' || *end || q.run_id == 0)
		return (
		    ocsctl_fail(o, "runs \"%s\": expected a run id", argv[1]) +
		    1);
	q.has_run_id = 1;
	snprintf(what, sizeof(what), "runs %llu",
	         (unsigned long long)q.run_id);
	return (ocsctl_request(o, &q, OUT_REPORT, what));
}

/* watch [--count N]: what ocsd's state does, as it happens. */
int
ocsctl_watch(struct opts *o, int argc, char **argv)
{
	uint64_t count = 0;
	char    *end;

	if (argc == 3 && strcmp(argv[1], "--count") == 0) {
		count = strtoull(argv[2], &end, 10);
		if (argv[2][0] < '0' || argv[2][0] > '9' || *end || count == 0)
			return (ocsctl_fail(o,
			                    "watch: --count \"%s\": a number "
			                    "of events",
			                    argv[2]) +
			        1);
	} else if (argc != 1)
		return (ocsctl_fail(o, "watch: expected [--count N]") + 1);
	return (ocsctl_watch_loop(o, count));
}

/* fault SPEC: for rehearsals on ocs-emu; a real switch refuses it. */
int
ocsctl_fault(struct opts *o, int argc, char **argv)
{
	Ocs__CtlRequest q;

	if (argc != 2 || argv[1][0] == '\0')
		return (ocsctl_fail(o,
		                    "fault: expected one SPEC (none, login, "
		                    "drop=K, delay=TIME, deny-half, garbage, "
		                    "slow[=F], lose=P, restore=P; "
		                    "comma-separated)") +
		        1);
	ocs__ctl_request__init(&q);
	q.op = OCS__CTL_REQUEST__OP__FAULT;
	q.fault = argv[1];
	return (ocsctl_request(o, &q, OUT_MESSAGE, "fault"));
}

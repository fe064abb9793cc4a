/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocsctl: the operator's command line for ocsd.  Commands are a table
 * (iproute2's ip.c) that also holds each one's help; every command prints
 * text, -br one line per object, or JSON with -j; an error is one line
 * naming the object and the reason (with the switch's own text) and a
 * non-zero exit: 1 for failures, 2 for usage.
 *
 * A command may be shortened to any prefix that names only it ("sh" is
 * show; "s" is refused as show or status).  iproute2 takes the first
 * match of a prefix, which silently changes meaning when a command is
 * added; here an ambiguous prefix is an error that lists the candidates.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nng/nng.h>

#include "ocsd/ocsctl.h"
#include "proto/base/path.h"
#include "proto/base/units.h"
#include "proto/base/version.h"

static const struct cmd {
	const char *name;
	int (*fn)(struct opts *, int, char **);
	const char *args; /* after the name, for usage lines */
	const char *help; /* what it does, and what to know */
} cmds[] = {
    {"show", ocsctl_show, "[switch|circuits|patches|cabling|ports]...",
     "the switch, its circuits and patches, the cabling; ports: every\n"
     "port's power in dBm, FAILED ports, peers and transceivers, read\n"
     "from the switch"},
    {"status", ocsctl_status, "",
     "ocsd and the switch: connected, in sync with the desired map,\n"
     "warnings, the run in progress and its phase"},
    {"connect", ocsctl_connect, "[--force] A B",
     "a duplex circuit between two transceivers (h0.0 h1.0), or one\n"
     "patch from an ingress to an egress port (3 70)"},
    {"disconnect", ocsctl_disconnect, "[--force] A [B...]",
     "remove what each transceiver or port is patched with"},
    {"apply", ocsctl_apply, "[--force] FILE",
     "make FILE the whole map, one batch: lines \"A B\", # comments,\n"
     "- for stdin.  A file that cannot be read is an error; one with\n"
     "no patches would clear every circuit and needs --force"},
    {"clear", ocsctl_clear, "[--force]", "remove every patch"},
    {"map", ocsctl_map, "diff|sync|adopt [--force]",
     "diff: read the switch back and compare; sync: make the switch\n"
     "hold the desired map; adopt: make the switch's map the desired one"},
    {"agents", ocsctl_agents, "[evict HOST]",
     "the joined host agents, their state and fibres; evict: forget one\n"
     "(a live one joins again)"},
    {"run", ocsctl_run,
     "--algo retri|bridge|static|bruck|bruck2 --bytes SIZE [--reconfig "
     "auto|none|all|k,...]\n"
     "       [--nodes all|N] [--bandwidth RATE] [--alpha-s TIME] "
     "[--alpha-h TIME]\n"
     "       [--delay TIME] [--chunk SIZE] [--keep] [--matrix "
     "FILE|GENERATOR]\n"
     "       [--radix 3|5|7|9] (retri: radix - 1 transceivers a host)\n"
     "       [--planes together|apart|auto] (a fabric: planes released "
     "apart)\n"
     "       [--capture] (ocs-emu's capture of the run, on the "
     "namespace testbed)\n"
     "   run --algo fast|spreadout|solstice|eclipse|sorted|auto --matrix "
     "FILE|GENERATOR\n"
     "       --bytes SIZE [...]\n"
     "       [--gpus-per-server G [--scaleup-bandwidth RATE] "
     "[--scaleup-alpha TIME]]\n"
     "       (servers of G agents: FAST's balancing and "
     "redistribution over local links)\n"
     "   run --algo ten|mteg|ring|spt|sph|scalecc --collective "
     "allgather|reducescatter|allreduce\n"
     "       --bytes SIZE [--topology GENERATOR|FILE] [--chunks C] "
     "[...]",
     "an All-to-All on the agents, verified; the report per phase\n"
     "beside the model (-j: with each agent's timeline).  Afterwards\n"
     "the switch goes back to the operator's map (--keep: the run's).\n"
     "--matrix: a skewed one, n x n bytes (CSV or JSON file, or a\n"
     "generator of ocs-plan scaled to --bytes a node); the skewed\n"
     "planners run one circuit configuration per stage.\n"
     "--collective: a synthesised AllGather, ReduceScatter or AllReduce\n"
     "of int32 sums on a topology of the hosts (default ring:N; RATE:TIME\n"
     "optional), --bytes the output per node; a configuration per\n"
     "stretch of slots the transceivers can carry"},
    {"abort", ocsctl_abort, "", "abort the run in progress"},
    {"runs", ocsctl_runs, "[ID]",
     "the runs ocsd kept (STATE/runs.jsonl), or one whole"},
    {"fault", ocsctl_fault, "SPEC",
     "arm faults on an emulated switch, for rehearsals (ocs-emu only;\n"
     "a real switch refuses): none, login, drop=K, delay=TIME,\n"
     "deny-half, garbage, slow[=F], lose=P, restore=P, comma-separated"},
    {"watch", ocsctl_watch, "[--count N]",
     "what ocsd does as it happens, a line an event: circuits changed,\n"
     "agents joined, lost or dark, runs started, phases, runs ended\n"
     "(-j: a JSON answer a line); --count: stop after N events"},
    {"check", ocsctl_check, "",
     "every transceiver of the cabling: light in from its transmitter\n"
     "and out to its receiver at the switch, its host's link and MTU,\n"
     "the peer its receiver heard (a probe across each idle-patched\n"
     "circuit, 500 ms); every problem named (exit 1 if any)"},
};
#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))

int
ocsctl_fail(const struct opts *o, const char *fmt, ...)
{
	struct out out = {.json = o != NULL && o->json};
	va_list    ap;
	char       msg[1024];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return (out_error(&out, msg));
}

/* On stdout for -h (exit 0), on stderr for a usage error (exit 2). */
static int
usage(FILE *f, int rv)
{
	size_t i;

	fprintf(f,
	        "usage: ocsctl [-j|--json] [-br|--brief] [-C CA_FILE] "
	        "[-k SECRET_FILE]\n"
	        "              [-s ADDRESS] [-t TIMEOUT] [-S SWITCH] COMMAND "
	        "[ARGS]\n"
	        "       ocsctl help [COMMAND] | -h|--help | --version\n"
	        "commands (any unique prefix will do):\n");
	/* Each description whole: a line cut short misleads. */
	for (i = 0; i < NCMDS; i++) {
		const char *h = cmds[i].help;
		int         n, first = 1;

		for (; *h; h += n + (h[n] == '\n'), first = 0) {
			n = (int)strcspn(h, "\n");
			fprintf(f, "  %-11s %.*s\n", first ? cmds[i].name : "",
			        n, h);
		}
	}
	fprintf(f, "ocsctl help COMMAND, or ocsctl COMMAND help, tells "
	           "more.\n");
	return (rv);
}

static int
cmd_usage(const struct cmd *c)
{
	const char *h;
	int         n;

	printf("usage: ocsctl %s%s%s\n", c->name, c->args[0] ? " " : "",
	       c->args);
	for (h = c->help; *h; h += n + (h[n] == '\n')) {
		n = (int)strcspn(h, "\n");
		printf("  %.*s\n", n, h);
	}
	return (0);
}

/* The command name names: itself, or the one command it is a prefix of.
 * NULL after saying why (unknown, or which commands it could be). */
static const struct cmd *
lookup(const struct opts *o, const char *name)
{
	const struct cmd *hit = NULL;
	char              list[256] = "";
	size_t            i, n = strlen(name), k = 0;

	for (i = 0; i < NCMDS; i++)
		if (strcmp(cmds[i].name, name) == 0)
			return (&cmds[i]);
	for (i = 0; n > 0 && i < NCMDS; i++)
		if (strncmp(cmds[i].name, name, n) == 0) {
			hit = &cmds[i];
			snprintf(list + strlen(list),
			         sizeof(list) - strlen(list), "%s%s",
			         k++ ? ", " : "", cmds[i].name);
		}
	if (k == 1)
		return (hit);
	if (k > 1) {
		ocsctl_fail(o, "\"%s\": ambiguous (%s)", name, list);
		return (NULL);
	}
	for (i = 0; i < NCMDS; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list),
		         "%s%s", i ? ", " : "", cmds[i].name);
	ocsctl_fail(o, "\"%s\": unknown command (%s)", name, list);
	return (NULL);
}

static int
is_help(const char *a)
{
	return (strcmp(a, "help") == 0 || strcmp(a, "-h") == 0 ||
	        strcmp(a, "--help") == 0);
}

/* help [COMMAND] */
static int
help(const struct opts *o, int argc, char **argv)
{
	const struct cmd *c;

	if (argc < 2)
		return (usage(stdout, 0));
	if ((c = lookup(o, argv[1])) == NULL)
		return (2);
	return (cmd_usage(c));
}

static const struct option longopts[] = {
    {"json", no_argument, NULL, 'j'},
    {"brief", no_argument, NULL, 'b'},
    {"switch", required_argument, NULL, 'S'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

/* getopt would read -json as -j -s on and -br as -b -r: the first is a
 * mistake said as such, the second iproute2's spelling of --brief. */
static int
single_dash_words(const struct opts *o, int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "-json") == 0)
			return (ocsctl_fail(
			            o, "-json: did you mean --json (or -j)?") +
			        1);
		if (strcmp(argv[i], "-br") == 0 ||
		    strcmp(argv[i], "-brief") == 0)
			argv[i] = "--brief";
		/* Options with a value take the next word too. */
		if (strchr("CkstS", argv[i][1]) && argv[i][2] == '\0')
			i++;
	}
	return (0);
}

/* The global options; the index of the command, or -(exit status). */
static int
options(struct opts *o, int argc, char **argv, const char **secret)
{
	double t;
	int    ch;

	while ((ch = getopt_long(argc, argv, "+hjbC:k:s:S:t:", longopts,
	                         NULL)) != -1) {
		switch (ch) {
		case 'h':
			return (-usage(stdout, 0));
		case 'V':
			printf("ocsctl %s\n", OCS_VERSION);
			return (0);
		case 'j':
			o->json = 1;
			break;
		case 'b':
			o->po.brief = 1;
			break;
		case 'k':
			*secret = optarg;
			break;
		case 'C':
			o->ca = optarg;
			break;
		case 's':
			o->url = optarg;
			break;
		case 'S':
			/* A fabric's switch: ocsd checks the name. */
			o->sw = optarg;
			break;
		case 't':
			if (unit_parse_time(optarg, &t) != 0 || t < 0.001 ||
			    t > 3600)
				return (-(ocsctl_fail(o,
				                      "-t \"%s\": expected a "
				                      "time between 1ms and "
				                      "1h (ms, s)",
				                      optarg) +
				          1));
			o->timeout_ms = (int)(t * 1000);
			o->timeout_set = 1;
			break;
		default:
			return (-usage(stderr, 2));
		}
	}
	return (optind);
}

int
main(int argc, char **argv)
{
	const struct cmd *c;
	struct opts       o;
	const char       *secret;
	int               rv;

	/* A server that hangs up mid-write (a refused TLS handshake) is an
	 * error to report, not a reason to die. */
	signal(SIGPIPE, SIG_IGN);
	memset(&o, 0, sizeof(o));
	o.timeout_ms = 30000;
	path_default_control(o.defurl, sizeof(o.defurl));
	o.url = getenv("OCSD_CONTROL") ? getenv("OCSD_CONTROL") : o.defurl;
	secret = getenv("OCSD_SECRET_FILE");
	o.ca = getenv("OCSD_TLS_CA");
	/* -j before anything can fail: its errors are JSON too. */
	for (rv = 1; rv < argc && argv[rv][0] == '-'; rv++)
		if (strcmp(argv[rv], "-j") == 0 ||
		    strcmp(argv[rv], "--json") == 0)
			o.json = 1;
	if ((rv = single_dash_words(&o, argc, argv)) != 0)
		return (rv);
	if ((rv = options(&o, argc, argv, &secret)) <= 0)
		return (-rv);
	argc -= rv;
	argv += rv;
	if (argc < 1)
		return (usage(stderr, 2));
	if (strcmp(argv[0], "help") == 0)
		return (help(&o, argc, argv));
	if ((c = lookup(&o, argv[0])) == NULL)
		return (2);
	if (argc == 2 && is_help(argv[1]))
		return (cmd_usage(c));
	if (secret != NULL && *secret != '\0') {
		char err[300];

		if (auth_read_secret(secret, o.secret, &o.slen, err,
		                     sizeof(err)) != 0)
			return (ocsctl_fail(&o, "-k: %s", err));
	}
	argv[0] = (char *)(uintptr_t)c->name;
	rv = c->fn(&o, argc, argv);
	free(o.lines);
	/* No nng_fini(): after a TLS dial that failed its handshake, nng
	 * 1.5.2 may still be tearing the connection down on its own threads,
	 * and nng_fini() then panics ("pthread_mutex_lock: Invalid
	 * argument", abort; test_security, 1 run in ~30).  nng documents the
	 * call as needed only for leak debugging, and the process exits. */
	return (rv);
}

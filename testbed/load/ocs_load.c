/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocs-load: join many simulated agents to ocsd from one process and
 * serve its runs without moving data, to load its control path (see
 * load.h).  It reports the join storm, then a line every few seconds
 * (heartbeats, plans, barriers released, runs finished), until
 * --duration passes or a signal comes.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "proto/base/mono.h"
#include "proto/base/units.h"
#include "proto/base/version.h"
#include "testbed/load/load.h"

static void
usage(FILE *f, int rv)
{
	fprintf(f, "usage: ocs-load --controller URL --secret FILE "
	           "--agents N [--transceivers T]\n"
	           "                [--prefix NAME] [--width DIGITS] "
	           "[--tls-ca FILE] [--duration TIME]\n"
	           "       ocs-load -h|--help | --version\n"
	           "Agent i joins as host NAME<i> (default h, i zero-padded "
	           "to DIGITS, default 2),\n"
	           "as ocsd's [cabling] names them.\n");
	exit(rv);
}

struct args {
	struct load_opts o;
	const char      *secret;
	double           duration; /* s; 0: until a signal */
};

static long
num(const char *opt, const char *s, long lo, long hi)
{
	char *end;
	long  v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < lo || v > hi) {
		fprintf(stderr, "ocs-load: %s \"%s\": %ld..%ld\n", opt, s, lo,
		        hi);
		exit(2);
	}
	return (v);
}

static void
parse(int argc, char **argv, struct args *a)
{
	static const struct option lo[] = {
	    {"controller", required_argument, NULL, 'c'},
	    {"secret", required_argument, NULL, 's'},
	    {"agents", required_argument, NULL, 'n'},
	    {"transceivers", required_argument, NULL, 'T'},
	    {"prefix", required_argument, NULL, 'p'},
	    {"width", required_argument, NULL, 'w'},
	    {"tls-ca", required_argument, NULL, 'C'},
	    {"duration", required_argument, NULL, 'd'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0}};
	int c;

	memset(a, 0, sizeof(*a));
	a->o.prefix = "h";
	a->o.width = 2;
	a->o.ntrx = 2;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1)
		switch (c) {
		case 'c':
			a->o.controller = optarg;
			break;
		case 's':
			a->secret = optarg;
			break;
		case 'n':
			a->o.n =
			    (uint32_t)num("--agents", optarg, 1, LOAD_MAX);
			break;
		case 'T':
			a->o.ntrx =
			    (uint32_t)num("--transceivers", optarg, 1, 8);
			break;
		case 'p':
			if (strlen(optarg) > 32) {
				fprintf(stderr,
				        "ocs-load: --prefix \"%.40s...\": at "
				        "most 32 characters\n",
				        optarg);
				exit(2);
			}
			a->o.prefix = optarg;
			break;
		case 'w':
			a->o.width = (int)num("--width", optarg, 0, 9);
			break;
		case 'C':
			a->o.tls_ca = optarg;
			break;
		case 'd':
			if (unit_parse_time(optarg, &a->duration) != 0 ||
			    a->duration < 0 || a->duration > 86400) {
				fprintf(stderr,
				        "ocs-load: --duration \"%s\": 0..1d\n",
				        optarg);
				exit(2);
			}
			break;
		case 'h':
			usage(stdout, 0);
			break;
		case 'V':
			printf("ocs-load %s\n", OCS_VERSION);
			exit(0);
		default:
			usage(stderr, 2);
		}
	if (optind != argc || a->o.controller == NULL || a->secret == NULL ||
	    a->o.n == 0)
		usage(stderr, 2);
}

/* Every agent is a connection: ask for the descriptors they take. */
static void
raise_nofile(uint32_t n)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= 2 * n + 64)
		return;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur < 2 * n + 64)
		fprintf(stderr,
		        "ocs-load: warning: %u agents need %u descriptors (a "
		        "join connection and an agent link each), "
		        "the limit is %llu\n",
		        n, 2 * n + 64, (unsigned long long)rl.rlim_cur);
}

static void
say(const char *what, const struct load_stats *s, double secs)
{
	printf("ocs-load: %s%.1f s: %u joined, %u failed, %llu idle "
	       "answers, %llu plans, %llu releases, %llu finished, %llu "
	       "aborted\n",
	       what, secs, s->joined, s->failed, (unsigned long long)s->idles,
	       (unsigned long long)s->plans, (unsigned long long)s->releases,
	       (unsigned long long)s->finished, (unsigned long long)s->aborts);
	fflush(stdout);
}

int
main(int argc, char **argv)
{
	struct args       a;
	struct load      *ld;
	struct load_stats st;
	sigset_t          ss;
	struct timespec   ts = {5, 0};
	char              err[300];
	uint64_t          t0;
	int               sig = 0;

	parse(argc, argv, &a);
	if (auth_read_secret(a.secret, a.o.secret, &a.o.secret_len, err,
	                     sizeof(err)) != 0) {
		fprintf(stderr, "ocs-load: %s\n", err);
		return (1);
	}
	raise_nofile(a.o.n);
	/* Signals are waited for here, never delivered to nng's threads. */
	sigemptyset(&ss);
	sigaddset(&ss, SIGINT);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGHUP);
	sigprocmask(SIG_BLOCK, &ss, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (load_start(&a.o, &ld, err, sizeof(err)) != 0) {
		fprintf(stderr, "ocs-load: %s\n", err);
		return (1);
	}
	t0 = mono_us();
	if (load_wait_joined(ld, 60000) != 0) {
		load_stats(ld, &st);
		fprintf(stderr, "ocs-load: %u of %u agents joined%s%s\n",
		        st.joined, a.o.n, st.err[0] ? "; " : "", st.err);
		load_stop(ld);
		return (1);
	}
	load_stats(ld, &st);
	printf("ocs-load: %u agents joined in %.3f s (%llu told to try "
	       "again)\n",
	       a.o.n, st.join_last_us / 1e6,
	       (unsigned long long)st.join_retries);
	fflush(stdout);
	while (sig <= 0) {
		double left = a.duration - (mono_us() - t0) / 1e6;

		if (a.duration > 0 && left <= 0)
			break;
		if (a.duration > 0 && left < 5) {
			ts.tv_sec = (time_t)left;
			ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
		}
		sig = sigtimedwait(&ss, NULL, &ts);
		if (sig < 0 && errno != EAGAIN && errno != EINTR)
			break;
		load_stats(ld, &st);
		say("", &st, (mono_us() - t0) / 1e6);
		if (st.failed)
			fprintf(stderr, "ocs-load: %s\n", st.err);
		/* Nothing left to load (ocsd went away): say so and stop. */
		if (st.failed == a.o.n) {
			fprintf(stderr, "ocs-load: every agent failed\n");
			break;
		}
	}
	load_stop(ld);
	return (st.failed ? 1 : 0);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocs-agent: one per host.  Joins ocsd with a proof of the shared
 * secret, plugs its transceivers into the switch's fibres as the port map
 * says, then waits for runs: for each it executes its plan phase by phase,
 * asking for a release before each phase that needs a barrier, and
 * reports what it sent, relayed, received and verified.  A failure ends
 * the run for everybody with this agent's precise reason.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/exec.h"
#include "proto/plan.h"
#include "agent/session.h"
#include "proto/base/log.h"
#include "proto/base/mono.h"
#include "proto/base/net.h"
#include "proto/base/units.h"
#include "proto/base/version.h"

static volatile sig_atomic_t quit;

/*
 * The agent keeps nothing that outlives it, so a signal ends it at once,
 * even in the middle of a held request or a phase: ocsd sees the
 * connection close and ends a run in progress with that reason.
 */
static void
on_signal(int sig)
{
	(void)sig;
	quit = 1;
	_exit(0);
}

struct agent {
	struct session          s;
	const struct xport_ops *ops; /* fibre (ocs-emu's relay) or kernel */
	char                    fibre[256];
	char                    iface[EXEC_MAX_PORTS][16]; /* kernel */
	struct xport            x[EXEC_MAX_PORTS];
	int                     plugged;
	int unplugged_said; /* a failure to plug was logged */
	int once;           /* exit after one run (tests) */
};

static void
usage(FILE *f, int rv)
{
	fprintf(f, "usage: ocs-agent [-dv] --controller URL --host NAME "
	           "--secret-file FILE\n"
	           "                 (--fibre ADDR:PORT|unix:PATH "
	           "[--transceivers N] |\n"
	           "                  --transport kernel --iface "
	           "IF[,IF...]) [--timeout TIME]\n"
	           "                 [--mem-limit SIZE] [--tls-ca FILE] "
	           "(tls+tcp:// controllers)\n"
	           "       ocs-agent --help | --version\n");
	exit(rv);
}

static void
unplug(struct agent *a)
{
	uint32_t i;

	for (i = 0; i < a->s.ntrx; i++)
		xport_close(&a->x[i]);
	a->plugged = 0;
}

static int
plug(struct agent *a)
{
	char     err[300];
	uint32_t i;
	int      rv;

	for (i = 0; i < a->s.ntrx; i++) {
		rv = xport_open(
		    &a->x[i], a->ops,
		    a->ops == &xport_kernel_ops ? a->iface[i] : a->fibre,
		    a->s.ingress[i], a->s.egress[i], 5000, err, sizeof(err));
		if (rv != 0) {
			/* ocsd shows it beside the agent (ocsctl agents). */
			snprintf(a->s.down, sizeof(a->s.down), "%s.%u: %.*s",
			         a->s.host, i, 120, err);
			/* Said once, not at every retry while it lasts. */
			if (!a->unplugged_said)
				log_warnx("%s.%u: %s; retrying", a->s.host, i,
				          err);
			a->unplugged_said = 1;
			while (i-- > 0)
				xport_close(&a->x[i]);
			return (rv);
		}
	}
	a->plugged = 1;
	a->unplugged_said = 0;
	a->s.down[0] = '\0';
	if (a->ops == &xport_kernel_ops)
		log_info("%u transceivers on interfaces %s", a->s.ntrx,
		         a->s.ifaces);
	else
		log_info("plugged %u transceivers into %s", a->s.ntrx,
		         a->fibre);
	return (0);
}

/*
 * The last barrier: the node holds exactly its blocks, and its buffers
 * are freed before the final Ready so the report can say what that took.
 * The end checks are verification: the last phase's data time and its
 * verify time include them, so that ocsd does not count them as control.
 */
static int
finish(struct exec **e, uint64_t *teardown_ns, struct plan_done *last,
       char *err, size_t len)
{
	uint64_t t0 = mono_ns(), v;
	int      rv;

	if ((rv = exec_finish(*e, &v, err, len)) != 0)
		return (rv);
	if (last != NULL) {
		last->verified += v;
		last->data_ns += mono_ns() - t0;
		last->verify_ns += mono_ns() - t0;
	}
	t0 = mono_ns();
	exec_free(*e);
	*e = NULL;
	*teardown_ns = mono_ns() - t0;
	return (0);
}

/* One run.  Errors end it; the agent stays joined for the next. */
static void
run(struct agent *a, struct session_plan *sp)
{
	const struct plan *p = &sp->p;
	struct exec       *e = NULL;
	struct plan_done   done[PLAN_MAX_DONE];
	struct exec_abort  ab = {session_events_fd(&a->s), session_abort_check,
	                         &a->s};
	size_t             nd = 0;
	uint32_t           k;
	uint64_t           sent = 0, verified = 0, t0 = mono_ns();
	uint64_t           setup_ns = 0, teardown_ns = 0, wait_ns = 0;
	char               err[512] = "";
	int                rv;

	if ((rv = sp->rv) != 0)
		snprintf(err, sizeof(err), "%s", sp->err);
	else if (plan_buffer_bytes(p->max_blocks, p->bytes, p->n, p->parts,
	                           p->nports, p->chunk) > a->s.mem_limit) {
		snprintf(err, sizeof(err),
		         "the plan needs %llu bytes of buffers, more than "
		         "the limit of %llu",
		         (unsigned long long)plan_buffer_bytes(
		             p->max_blocks, p->bytes, p->n, p->parts,
		             p->nports, p->chunk),
		         (unsigned long long)a->s.mem_limit);
		rv = -ENOMEM;
	} else
		rv = exec_new(&e, p, a->x, &ab, err, sizeof(err));
	if (rv != 0) {
		if (rv == -ENOMEM && err[0] == '\0')
			snprintf(err, sizeof(err),
			         "out of memory for the plan");
		log_warnx("run %llu: %s", (unsigned long long)sp->run, err);
		session_abort(&a->s, 0, err);
		return;
	}
	setup_ns = mono_ns() - t0;
	log_info("run %llu: node %u of %u, %s, %llu bytes, %u phases, "
	         "%zu bytes of buffers",
	         (unsigned long long)sp->run, p->node, p->n, sp->algo,
	         (unsigned long long)p->bytes, p->nph, exec_mem(e));
	exec_drain(a->x, a->s.ntrx);
	for (k = 0; k <= p->nph && !quit; k++) {
		if (k == p->nph || p->ph[k].barrier) {
			/* What the end checks counts with the last phase. */
			if (k == p->nph &&
			    (rv = finish(&e, &teardown_ns,
			                 nd ? &done[nd - 1] : NULL, err,
			                 sizeof(err))) != 0) {
				session_abort(&a->s, k, err);
				break;
			}
			t0 = mono_ns();
			rv =
			    session_ready(&a->s, k, done, nd, k ? 0 : setup_ns,
			                  teardown_ns, err, sizeof(err));
			wait_ns = mono_ns() - t0;
			nd = 0;
			if (rv == 1)
				break; /* finished */
			if (rv != 0) {
				log_warnx("run %llu: phase %u: %s",
				          (unsigned long long)sp->run, k, err);
				break;
			}
		}
		if (k == p->nph)
			break;
		/* exec_check holds every stretch to PLAN_MAX_DONE phases. */
		if (nd == PLAN_MAX_DONE) {
			snprintf(
			    err, sizeof(err),
			    "phase %u: more than %u phases since the last "
			    "barrier",
			    k, PLAN_MAX_DONE);
			session_abort(&a->s, k, err);
			break;
		}
		rv = exec_phase(e, k, &done[nd], err, sizeof(err));
		if (rv != 0) {
			log_warnx("run %llu: %s", (unsigned long long)sp->run,
			          err);
			if (rv != -ECANCELED)
				session_abort(&a->s, k, err);
			break;
		}
		done[nd].wait_ns = wait_ns;
		wait_ns = 0;
		sent += done[nd].sent;
		verified += done[nd].verified;
		log_debug("run %llu: phase %u done in %.3f ms",
		          (unsigned long long)sp->run, k,
		          done[nd].data_ns / 1e6);
		nd++;
	}
	if (k == p->nph && rv == 1)
		log_info("run %llu: done, %llu bytes sent, %llu blocks "
		         "verified",
		         (unsigned long long)sp->run, (unsigned long long)sent,
		         (unsigned long long)verified);
	exec_free(e);
	if (exec_drain(a->x, a->s.ntrx) > 0)
		unplug(a); /* plugged in again before the next poll */
}

static const struct option longopts[] = {
    {"controller", required_argument, NULL, 'c'},
    {"host", required_argument, NULL, 'H'},
    {"secret-file", required_argument, NULL, 'S'},
    {"fibre", required_argument, NULL, 'F'},
    {"transceivers", required_argument, NULL, 'T'},
    {"transport", required_argument, NULL, 'X'},
    {"iface", required_argument, NULL, 'I'},
    {"timeout", required_argument, NULL, 't'},
    {"once", no_argument, NULL, '1'},
    {"tls-ca", required_argument, NULL, 'C'},
    {"mem-limit", required_argument, NULL, 'M'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

/* --iface t0,t1: one interface a transceiver, in order. */
static int
parse_ifaces(struct agent *a, const char *arg)
{
	const char *p = arg;
	size_t      n;
	uint32_t    k = 0;

	if (strlen(arg) >= sizeof(a->s.ifaces))
		goto bad;
	while (*p) {
		n = strcspn(p, ",");
		if (n == 0 || n >= sizeof(a->iface[0]) || k == EXEC_MAX_PORTS)
			goto bad;
		memcpy(a->iface[k], p, n);
		a->iface[k++][n] = '\0';
		p += n + (p[n] == ',');
	}
	if (k == 0)
		goto bad;
	a->s.ntrx = k;
	snprintf(a->s.ifaces, sizeof(a->s.ifaces), "%s", arg);
	return (0);
bad:
	fprintf(stderr,
	        "ocs-agent: --iface \"%s\": interface names (up to 15 "
	        "characters), comma-separated, 1..%d of them\n",
	        arg, EXEC_MAX_PORTS);
	return (2);
}

/* The options into a; 0, or the exit status after saying why. */
static int
parse_args(struct agent *a, int argc, char **argv, const char **secret,
           int *verbose)
{
	char  *end;
	double t;
	long   v;
	int    ch;

	while ((ch = getopt_long(argc, argv, "dvh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'h':
			usage(stdout, 0);
			break;
		case 'V':
			printf("ocs-agent %s\n", OCS_VERSION);
			exit(0);
		case 'd':
			break;
		case 'v':
			(*verbose)++;
			break;
		case 'c':
			snprintf(a->s.controller, sizeof(a->s.controller),
			         "%s", optarg);
			break;
		case 'H':
			if (optarg[0] == '\0' || strlen(optarg) >= 64 ||
			    strpbrk(optarg, ". \t\r\n")) {
				fprintf(stderr,
				        "ocs-agent: --host \"%s\": "
				        "letters, digits, - and _\n",
				        optarg);
				return (2);
			}
			snprintf(a->s.host, sizeof(a->s.host), "%s", optarg);
			break;
		case 'S':
			*secret = optarg;
			break;
		case 'C':
			if (strlen(optarg) >= sizeof(a->s.tls_ca)) {
				fprintf(stderr,
				        "ocs-agent: --tls-ca \"%s\": too "
				        "long\n",
				        optarg);
				return (2);
			}
			snprintf(a->s.tls_ca, sizeof(a->s.tls_ca), "%s",
			         optarg);
			break;
		case 'F':
			snprintf(a->fibre, sizeof(a->fibre), "%s", optarg);
			break;
		case 'X':
			if (strcmp(optarg, "fibre") &&
			    strcmp(optarg, "kernel")) {
				fprintf(stderr,
				        "ocs-agent: --transport \"%s\": "
				        "fibre or kernel\n",
				        optarg);
				return (2);
			}
			a->ops = strcmp(optarg, "kernel") == 0
			             ? &xport_kernel_ops
			             : &xport_fibre_ops;
			break;
		case 'I':
			if (parse_ifaces(a, optarg) != 0)
				return (2);
			break;
		case 'T':
			v = strtol(optarg, &end, 10);
			if (*end || v < 1 || v > EXEC_MAX_PORTS) {
				fprintf(stderr,
				        "ocs-agent: --transceivers "
				        "\"%s\": 1..%d\n",
				        optarg, EXEC_MAX_PORTS);
				return (2);
			}
			a->s.ntrx = (uint32_t)v;
			break;
		case 't':
			if (unit_parse_time(optarg, &t) != 0 || t < 0.1 ||
			    t > 3600) {
				fprintf(stderr,
				        "ocs-agent: --timeout \"%s\": "
				        "100ms..1h\n",
				        optarg);
				return (2);
			}
			a->s.timeout_ms = (int)(t * 1000);
			break;
		case '1':
			a->once = 1;
			break;
		case 'M':
			if (unit_parse_size(optarg, &a->s.mem_limit) != 0 ||
			    a->s.mem_limit < (1u << 20)) {
				fprintf(
				    stderr,
				    "ocs-agent: --mem-limit \"%s\": a size "
				    "of 1MiB or more (MiB, GiB)\n",
				    optarg);
				return (2);
			}
			break;
		default:
			usage(stderr, 2);
		}
	}
	if (optind != argc || !a->s.controller[0] || !a->s.host[0] || !*secret)
		usage(stderr, 2);
	if (a->ops == &xport_kernel_ops ? !a->s.ifaces[0] || a->fibre[0]
	                                : !a->fibre[0] || a->s.ifaces[0]) {
		fprintf(stderr, "ocs-agent: %s\n",
		        a->ops == &xport_kernel_ops
		            ? "--transport kernel takes --iface, not --fibre"
		            : "--fibre names the switch's relay (--iface "
		              "goes with --transport kernel)");
		return (2);
	}
	snprintf(a->s.transport, sizeof(a->s.transport), "%s", a->ops->name);
	/* Unsaid, what the machine has free now: ocsd refuses a run whose
	 * buffers would not fit, instead of the agent failing in it. */
	if (a->s.mem_limit == 0)
		a->s.mem_limit = (uint64_t)sysconf(_SC_AVPHYS_PAGES) *
		                 (uint64_t)sysconf(_SC_PAGESIZE);
	return (0);
}

/* Join, plug the fibres, take plans and run them, until told to stop.
 * 0, or 1 when ocsd refuses the join for good. */
static int
serve(struct agent *a)
{
	char   err[512];
	int    rv, backoff = 200, said = 0;
	size_t i;

	while (!quit) {
		struct session_plan sp;

		if (a->s.agent_id == 0) {
			/* Said before the first try, which may wait for an
			 * ocsd that is not there yet. */
			if (!said)
				log_info("joining %s as %s", a->s.controller,
				         a->s.host);
			rv = session_join(&a->s, err, sizeof(err));
			if (rv == -AMSG_EREFUSED) {
				log_warnx("join refused: %s", err);
				return (1);
			}
			if (rv != 0) {
				/* Said once at the default level, then
				 * quietly while it lasts. */
				if (!said)
					log_warnx("cannot join %s: %s; "
					          "retrying",
					          a->s.controller, err);
				else
					log_debug("join: %s; retrying", err);
				said = 1;
				mono_sleep_ms((uint32_t)backoff);
				backoff = backoff < 2000 ? backoff * 2 : 2000;
				continue;
			}
			backoff = 200;
			said = 0;
			log_info("joined %s as agent %u (%s)", a->s.controller,
			         a->s.agent_id, a->s.host);
			for (i = 0; i < a->s.ntrx; i++)
				log_debug(
				    "%s.%zu: TX ingress %u, RX egress %u",
				    a->s.host, i, a->s.ingress[i],
				    a->s.egress[i]);
			unplug(a);
		}
		/* A fibre the switch closed (it restarted) is plugged in
		 * again; meanwhile the agent goes on polling, so ocsd knows
		 * it is alive and that its fibres are not. */
		if (a->plugged && exec_drain(a->x, a->s.ntrx) > 0) {
			log_warnx("a fibre was unplugged at %s; plugging in "
			          "again",
			          a->ops == &xport_kernel_ops ? a->s.ifaces
			                                      : a->fibre);
			unplug(a);
		}
		if (!a->plugged)
			(void)plug(a);
		a->s.fibres_up = a->plugged ? a->s.ntrx : 0;
		rv = session_poll(&a->s, &sp, err, sizeof(err));
		if (rv < 0) {
			/* Lost ocsd, or it forgot us: join again. */
			log_warnx("%s; joining again", err);
			a->s.agent_id = 0;
			continue;
		}
		if (rv == 1) {
			run(a, &sp);
			session_plan_free(&sp);
			if (a->once)
				break;
		}
	}
	return (0);
}

int
main(int argc, char **argv)
{
	struct agent    *a;
	struct sigaction sa;
	const char      *secret = NULL;
	char             err[512];
	int              verbose = 0, rv;

	if ((a = calloc(1, sizeof(*a))) == NULL)
		return (1);
	a->s.ntrx = 2;
	a->s.timeout_ms = 120000;
	a->ops = &xport_fibre_ops;
	if ((rv = parse_args(a, argc, argv, &secret, &verbose)) != 0) {
		free(a);
		return (rv);
	}
	log_init("ocs-agent", 1, verbose);
	if (auth_read_secret(secret, a->s.secret, &a->s.secret_len, err,
	                     sizeof(err)) != 0) {
		fprintf(stderr, "ocs-agent: %s\n", err);
		free(a);
		return (1);
	}
	/* A signal ends the agent at once (on_signal says why). */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (session_open(&a->s, err, sizeof(err)) != 0) {
		fprintf(stderr, "ocs-agent: %s\n", err);
		free(a);
		return (1);
	}
	rv = serve(a);
	unplug(a);
	session_close(&a->s);
	/* No nng_fini(): it aborts when a TLS connection is still being
	 * torn down on nng's threads (ocsd.c says more). */
	free(a);
	return (rv);
}

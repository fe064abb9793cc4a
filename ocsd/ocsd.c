/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocsd: the optical circuit switch controller.  Holds the switch driver
 * (on its worker thread), the desired and live cross-connect maps, and
 * answers operators over nng.  -d stays in the foreground with logs on
 * stderr, -n checks the configuration and exits, -v logs more.  SIGTERM
 * and SIGINT shut down in order; SIGHUP reloads the configuration and
 * keeps the old one if the new one is bad.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ocsd/daemon.h"
#include "ocsd/ev.h"
#include "ocsd/ocsd.h"
#include "ocsd/reply.h"
#include "ocsd/run.h"
#include "ocsd/runs.h"
#include "proto/base/log.h"
#include "proto/base/version.h"
#include "proto/base/mono.h"
#include "proto/auth.h"
#include "proto/base/path.h"

#define OCSD_CONF "/etc/ocsd.conf"

static const struct option longopts[] = {
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

static void
usage(void)
{
	fprintf(stderr, "usage: ocsd [-dnv] [-f file] [-p pidfile]\n"
	                "       ocsd -h | -V\n");
	exit(2);
}

/* The secret files ocsd will read at start: what -n must check too. */
static int
check_secrets(const struct conf *c)
{
	uint8_t buf[AUTH_SEC_MAX + 1];
	size_t  len;
	char    err[600];

	if (c->agents[0] && auth_read_secret(c->secret_file, buf, &len, err,
	                                     sizeof(err)) != 0) {
		fprintf(stderr, "ocsd: [agents]: %s\n", err);
		return (-EACCES);
	}
	if (c->ctl_secret_file[0] &&
	    auth_read_secret(c->ctl_secret_file, buf, &len, err,
	                     sizeof(err)) != 0) {
		fprintf(stderr, "ocsd: [control]: %s\n", err);
		return (-EACCES);
	}
	memset(buf, 0, sizeof(buf));
	return (0);
}

/* The configuration as a start would take it, its path made absolute
 * (into path) so that a reload reads the same file.  0, or 1 after
 * saying why on stderr. */
static int
load_conf(const char *file, char *path, struct conf **c)
{
	char err[700];

	if (realpath(file, path) == NULL) {
		fprintf(stderr, "ocsd: conf: %s: %s\n", file, strerror(errno));
		return (1);
	}
	if (conf_load(path, c, err, sizeof(err)) != 0) {
		fprintf(stderr, "ocsd: conf: %s\n", err);
		return (1);
	}
	if (check_secrets(*c) != 0) {
		conf_free(*c);
		return (1);
	}
	return (0);
}

/* The state directory, the runs kept, and each switch's saved desired
 * map (sw_init): a missing one is fine, a bad one is not. */
static int
load_state(struct ocsd *d)
{
	int rv;

	if ((rv = path_mkdirs(d->conf->state_dir, 0750)) != 0) {
		log_warnx("state: creating %s: %s", d->conf->state_dir,
		          strerror(-rv));
		return (rv);
	}
	if (strlen(d->conf->state_dir) + sizeof("/runs.jsonl") >
	    sizeof(d->runs_path)) {
		log_warnx("state: dir %s: path too long", d->conf->state_dir);
		return (-ENAMETOOLONG);
	}
	snprintf(d->run_state_path, sizeof(d->run_state_path), "%s/run.state",
	         d->conf->state_dir);
	snprintf(d->runs_path, sizeof(d->runs_path), "%s/runs.jsonl",
	         d->conf->state_dir);
	runs_recover(d);
	/* After the recovery: the index is of the file as it stays. */
	if ((d->runs_ix = runs_index_new(d->runs_path)) == NULL)
		log_warnx("%s: no index (out of memory): `runs ID` reads it "
		          "whole",
		          d->runs_path);
	return (sw_init(d));
}

/*
 * The main thread's loop (bgpd's shape): SIGHUP reloads, and a file with
 * errors keeps the running configuration; TERM and INT return.  The
 * control and state paths cannot change under a running daemon.
 */
static void
wait_signals(struct ocsd *d, const char *file, const sigset_t *ss)
{
	struct conf *nc;
	char         err[700];
	int          sig;

	for (;;) {
		if (sigwait(ss, &sig) != 0)
			continue;
		if (sig == SIGHUP) {
			if (conf_load(file, &nc, err, sizeof(err)) != 0) {
				log_warnx("config file %s has errors, not "
				          "reloading: %s",
				          file, err);
				continue;
			}
			nng_mtx_lock(d->mtx);
			if (strcmp(nc->control, d->conf->control) != 0 ||
			    strcmp(nc->state_dir, d->conf->state_dir) != 0)
				log_warnx("reload: control and state dir "
				          "changes need a restart; keeping %s "
				          "and %s",
				          d->conf->control,
				          d->conf->state_dir);
			snprintf(nc->control, sizeof(nc->control), "%s",
			         d->conf->control);
			snprintf(nc->state_dir, sizeof(nc->state_dir), "%s",
			         d->conf->state_dir);
			nng_mtx_unlock(d->mtx);
			daemon_notify("RELOADING=1");
			(void)sw_reload(d, nc); /* says why it refused */
			daemon_notify("READY=1");
			continue;
		}
		log_info("signal %d: shutting down", sig);
		break;
	}
}

/*
 * The daemon's parts, bottom up: the saved map, the switch worker, the
 * operator socket, the runner and the agents' socket.  Any failure ends
 * the process with the reason (still on the caller's terminal).
 */
static int
start(struct ocsd *d, struct ctl **ctl, struct agents **ag)
{
	const struct conf     *c = d->conf;
	const struct run_hooks hooks = {
	    .arg = d, .record = runs_keep, .intent = runs_intent};
	int rv;

	d->start_ms = mono_ms();
	if (nng_mtx_alloc(&d->mtx) != 0 || nng_cv_alloc(&d->cv, d->mtx) != 0)
		fatalx("out of memory");
	if (load_state(d) != 0)
		return (1);
	if (ev_open(&d->ev) != 0)
		fatalx("out of memory");
	if ((rv = sw_start(d)) != 0)
		fatalx("starting the switch workers: %s",
		       rv < 0 ? strerror(-rv) : nng_strerror(rv));
	if ((rv = ctl_open(d, c->control, ctl)) != 0) {
		sw_stop(d);
		fatalx("control socket %s: %s", c->control, ocsd_strerror(rv));
	}
	if (c->agents[0] && ((rv = run_init(d, &hooks)) != 0 ||
	                     (rv = agents_open(d, ag)) != 0)) {
		ctl_close(*ctl);
		sw_stop(d);
		fatalx("agents on %s: %s", c->agents, ocsd_strerror(rv));
	}
	if (*ag != NULL)
		run_listen(d, *ag);
	if (c->events[0])
		log_warnx("[agents] events = %s: no longer used (aborts reach "
		          "agents on their link); ignored",
		          c->events);
	if (c->nsw == 1 && c->sw[0].name[0] == '\0')
		log_info(
		    "ready: switch %s %s, control %s, %zu transceivers cabled",
		    c->sw[0].driver,
		    c->sw[0].address[0] ? c->sw[0].address : "(in-process)",
		    c->control, c->ntrx);
	else
		log_info("ready: %u switches (%s ... %s), control %s, %zu "
		         "transceivers cabled",
		         c->nsw, c->sw[0].name, c->sw[c->nsw - 1].name,
		         c->control, c->ntrx);
	return (0);
}

struct opts {
	const char *file, *pidfile;
	int         debug, noaction, verbose;
};

static void
parse_args(int argc, char **argv, struct opts *o)
{
	int ch;

	while ((ch = getopt_long(argc, argv, "df:hnp:vV", longopts, NULL)) !=
	       -1) {
		switch (ch) {
		case 'h':
			printf("usage: ocsd [-dnv] [-f file] [-p pidfile]\n"
			       "       ocsd -h | -V\n");
			exit(0);
		case 'V':
			printf("ocsd %s\n", OCS_VERSION);
			exit(0);
		case 'd':
			o->debug = 1;
			break;
		case 'f':
			o->file = optarg;
			break;
		case 'n':
			o->noaction = 1;
			break;
		case 'p':
			o->pidfile = optarg;
			break;
		case 'v':
			o->verbose++;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	if (optind != argc)
		usage();
}

int
main(int argc, char **argv)
{
	const char    *file, *pidfile;
	char           path[PATH_MAX];
	struct daemon  dm;
	struct conf   *c;
	struct ocsd    d;
	struct ctl    *ctl = NULL;
	struct agents *ag = NULL;
	sigset_t       ss;
	char           err[700];
	struct opts    o = {.file = OCSD_CONF};
	int            debug, noaction, verbose, rv;

	parse_args(argc, argv, &o);
	file = o.file;
	pidfile = o.pidfile;
	debug = o.debug;
	noaction = o.noaction;
	verbose = o.verbose;
	if (load_conf(file, path, &c) != 0)
		return (1);
	file = path;
	if (noaction) {
		fprintf(stderr, "configuration OK\n");
		conf_free(c);
		return (0);
	}
	/* Everything that can fail happens before the caller is let go;
	 * until then errors go to its terminal. */
	if ((rv = daemon_start(&dm, debug, pidfile)) != 0)
		fatalx("detaching: %s", strerror(-rv));
	log_init("ocsd", 1, verbose);

	/* Before nng starts threads, so that all of them inherit it. */
	sigemptyset(&ss);
	sigaddset(&ss, SIGINT);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGHUP);
	sigprocmask(SIG_BLOCK, &ss, NULL);
	signal(SIGPIPE, SIG_IGN);
	{
		unsigned long nofile = daemon_nofile(OCSD_NOFILE);

		if (nofile < OCSD_NOFILE)
			log_warnx("open files limited to %lu: fewer than %d "
			          "agents can join",
			          nofile, AGENTS_MAX);
	}

	memset(&d, 0, sizeof(d));
	d.conf = c;
	if (start(&d, &ctl, &ag) != 0)
		return (1);
	if (daemon_ready(&dm, err, sizeof(err)) != 0)
		fatalx("%s", err);
	if (!debug)
		log_init("ocsd", 0, verbose); /* syslog from now on */

	wait_signals(&d, file, &ss);
	daemon_notify("STOPPING=1");
	/*
	 * Shutdown, top down: the run ends first, so every agent hears why
	 * and the operator waiting for it gets its report; then no agent or
	 * operator can ask for more; then the worker finishes the job it is
	 * in (a batch on its way gets a grace period; waits on a switch
	 * that does not answer are cut short, sw.c) and closes the driver;
	 * only then can no callback reach the runner's aios.
	 */
	if (ag) {
		run_stop(&d);
		agents_close(ag);
	}
	ctl_close(ctl);
	sw_stop(&d);
	run_fini(&d);
	ev_close(d.ev);
	sw_free(&d);
	runs_index_free(d.runs_ix);
	conf_free(d.conf);
	nng_cv_free(d.cv);
	nng_mtx_free(d.mtx);
	/* No nng_fini(), as in ocsctl: with a TLS handshake failing at
	 * shutdown, nng 1.5.2 may still be tearing that connection down on
	 * its own threads, and nng_fini() then aborts ("pthread_mutex_lock:
	 * Invalid argument", or SIGFPE): 25 of 850 stops under load with
	 * strangers dialling, 0 of 800 without it.  The process exits; what
	 * nng holds is still reachable, which valgrind does not count. */
	daemon_stop(&dm);
	log_info("stopped");
	return (0);
}

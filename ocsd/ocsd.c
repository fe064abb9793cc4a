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
#include <time.h>
#include <unistd.h>

#include "collectives/coll.h"
#include "ocsd/log.h"
#include "ocsd/ocsd.h"
#include "ocsd/run.h"

#define OCSD_CONF "/etc/ocsd.conf"

uint64_t
ocsd_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000);
}

void
ocsd_sleep_ms(uint32_t ms)
{
	nng_msleep((nng_duration)ms);
}

uint64_t
ocsd_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000);
}

const char *
ocsd_strerror(int rv)
{
	int e = -rv;

	switch (e) {
	case OCSD_ESWITCH:
		return ("switch unreachable");
	case OCSD_EMISMATCH:
		return ("switch state differs from what was applied");
	case OCSD_EREQUEST:
		return ("bad request");
	case OCSD_ESTATE:
		return ("cannot save state");
	case OCSD_EABORT:
		return ("run aborted");
	case OCSD_EBUSY:
		return ("a run is in progress");
	}
	if (e > DRV_EBASE && e < DRV_EMAX)
		return (drv_strerror(rv));
	if (e > CONF_EBASE && e < CONF_EMAX)
		return ("configuration error");
	if (e > MSG_EBASE && e < MSG_EMAX)
		return (msg_strerror(rv));
	if (e > COLL_EBASE && e < COLL_EMAX)
		return (coll_strerror(rv));
	if (e > 0 && e < 4096)
		return (strerror(e));
	return ("unknown error");
}

static void
usage(void)
{
	fprintf(stderr, "usage: ocsd [-dnv] [-f file]\n");
	exit(2);
}

static int
mkdirs(const char *path, mode_t mode)
{
	char   buf[PATH_MAX];
	size_t i, n;

	snprintf(buf, sizeof(buf), "%s", path);
	n = strlen(buf);
	for (i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		buf[i] = '\0';
		if (mkdir(buf, mode) != 0 && errno != EEXIST)
			return (-errno);
		buf[i] = '/';
	}
	return (0);
}

/* Load the saved desired map; a missing one is fine, a bad one is not. */
static int
load_state(struct ocsd *d)
{
	char err[600];
	int  rv;

	if ((rv = mkdirs(d->conf->state_dir, 0750)) != 0) {
		log_warnx("state: creating %s: %s", d->conf->state_dir,
		          strerror(-rv));
		return (rv);
	}
	if (strlen(d->conf->state_dir) + sizeof("/desired.map") >
	    sizeof(d->desired_path)) {
		log_warnx("state: dir %s: path too long", d->conf->state_dir);
		return (-ENAMETOOLONG);
	}
	memcpy(d->desired_path, d->conf->state_dir,
	       strlen(d->conf->state_dir));
	memcpy(d->desired_path + strlen(d->conf->state_dir), "/desired.map",
	       sizeof("/desired.map"));
	rv = map_load(d->desired_path, &d->desired, err, sizeof(err));
	if (rv == -ENOENT) {
		log_info("state: no %s yet", d->desired_path);
		return (0);
	}
	if (rv != 0) {
		log_warnx("state: %s (fix or remove it; ocsd will not guess "
		          "what the operator wanted)",
		          err);
		return (rv);
	}
	d->have_desired = 1;
	log_info("state: desired map %s: %u patches on a %ux%u switch",
	         d->desired_path, map_count(&d->desired), d->desired.n,
	         d->desired.n);
	return (0);
}

int
main(int argc, char **argv)
{
	const char    *file = OCSD_CONF;
	struct conf   *c, *nc;
	struct ocsd    d;
	struct ctl    *ctl = NULL;
	struct agents *ag = NULL;
	sigset_t       ss;
	char           err[700];
	int            ch, debug = 0, noaction = 0, verbose = 0, sig, rv;

	while ((ch = getopt(argc, argv, "df:nv")) != -1) {
		switch (ch) {
		case 'd':
			debug = 1;
			break;
		case 'f':
			file = optarg;
			break;
		case 'n':
			noaction = 1;
			break;
		case 'v':
			verbose++;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	if (conf_load(file, &c, err, sizeof(err)) != 0) {
		fprintf(stderr, "ocsd: conf: %s\n", err);
		return (1);
	}
	if (noaction) {
		fprintf(stderr, "configuration OK\n");
		conf_free(c);
		return (0);
	}
	log_init("ocsd", debug, verbose);
	if (!debug && daemon(0, 0) != 0)
		fatal("daemon");

	/* Before nng starts threads, so that all of them inherit it. */
	sigemptyset(&ss);
	sigaddset(&ss, SIGINT);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGHUP);
	sigprocmask(SIG_BLOCK, &ss, NULL);
	signal(SIGPIPE, SIG_IGN);

	memset(&d, 0, sizeof(d));
	d.conf = c;
	d.start_ms = ocsd_now_ms();
	if (nng_mtx_alloc(&d.mtx) != 0 || nng_cv_alloc(&d.cv, d.mtx) != 0)
		fatalx("out of memory");
	if (load_state(&d) != 0)
		return (1);
	if ((rv = sw_start(&d)) != 0)
		fatalx("starting the switch worker: %s", nng_strerror(rv));
	if ((rv = ctl_open(&d, c->control, &ctl)) != 0) {
		sw_stop(&d);
		fatalx("control socket %s: %s", c->control, ocsd_strerror(rv));
	}
	if (c->agents[0] &&
	    ((rv = run_init(&d)) != 0 || (rv = agents_open(&d, &ag)) != 0)) {
		ctl_close(ctl);
		sw_stop(&d);
		fatalx("agents on %s: %s", c->agents, ocsd_strerror(rv));
	}
	log_info("ready: switch %s %s, control %s, %zu transceivers cabled",
	         c->driver, c->address[0] ? c->address : "(in-process)",
	         c->control, c->ntrx);

	for (;;) {
		if (sigwait(&ss, &sig) != 0)
			continue;
		if (sig == SIGHUP) {
			if (conf_load(file, &nc, err, sizeof(err)) != 0) {
				log_warnx("config file %s has errors, not "
				          "reloading: %s",
				          file, err);
				continue;
			}
			nng_mtx_lock(d.mtx);
			if (strcmp(nc->control, d.conf->control) != 0 ||
			    strcmp(nc->state_dir, d.conf->state_dir) != 0)
				log_warnx("reload: control and state dir "
				          "changes need a restart; keeping %s "
				          "and %s",
				          d.conf->control, d.conf->state_dir);
			snprintf(nc->control, sizeof(nc->control), "%s",
			         d.conf->control);
			snprintf(nc->state_dir, sizeof(nc->state_dir), "%s",
			         d.conf->state_dir);
			nng_mtx_unlock(d.mtx);
			sw_submit_reload(&d, nc);
			continue;
		}
		log_info("signal %d: shutting down", sig);
		break;
	}
	if (ag) {
		run_stop(&d);
		agents_close(ag);
	}
	ctl_close(ctl);
	sw_stop(&d);
	run_fini(&d);
	map_free(&d.live);
	map_free(&d.desired);
	conf_free(d.conf);
	nng_cv_free(d.cv);
	nng_mtx_free(d.mtx);
	/* Stops nng's own threads, so nothing is left for valgrind. */
	nng_fini();
	log_info("stopped");
	return (0);
}

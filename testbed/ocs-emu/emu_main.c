/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocs-emu: an emulated optical circuit switch.  It speaks Polatis TL1 on
 * --tl1 ADDR:PORT and, with --rest ADDR:PORT, CALIENT REST over HTTP on
 * the same switch model; holds N x N unidirectional patches with a
 * switching time, and keeps its patches in --state FILE across restarts
 * (boot mode restore).  --fault arms injected faults (emu_fault.c).  Once
 * listening it prints "ocs-emu: tl1 ADDR:PORT" (and "ocs-emu: rest ...",
 * "ocs-emu: fibre ...") to stdout, so scripts and tests can use port 0.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "proto/base/log.h"
#include "proto/base/net.h"
#include "proto/base/units.h"
#include "proto/base/version.h"
#include "testbed/ocs-emu/emu.h"
#include "testbed/ocs-emu/emu_kdp.h"
#include "testbed/ocs-emu/emu_nc.h"

static void
usage(void)
{
	fprintf(stdout,
	        "usage: ocs-emu [-dv] [--tl1 ADDR:PORT] "
	        "[--fibre ADDR:PORT|unix:PATH] [--ports N]\n"
	        "               [--switch-time TIME] [--ack compld|immediate] "
	        "[--busy deny|replace]\n"
	        "               [--user U] [--password P] [--state FILE] "
	        "[--boot dark|restore]\n"
	        "               [--sid NAME] [--block-size BYTES] "
	        "[--autonomous]\n"
	        "               [--rest ADDR:PORT] [--viewer USER:PASSWORD] "
	        "[--tl1-calient ADDR:PORT]\n"
	        "               [--tl1-ssh ADDR:PORT] [--netconf ADDR:PORT]\n"
	        "               [--fault SPEC]... [--rate RATE] "
	        "[--datapath netns:PREFIX [--fibre-delay TIME] [--capture]]\n"
	        "               [--login-grace TIME] [--session-timeout "
	        "TIME]\n"
	        "       ocs-emu -h|--help | --version\n"
	        "  SPEC: none|login|drop=K|delay=TIME|deny-half|garbage|"
	        "slow[=F]|lose=P|restore=P, comma-separated\n");
}

LOG_FMT(3, 4)
static int
bad(const char *opt, const char *val, const char *fmt, ...)
{
	va_list ap;
	char    why[256];

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	fprintf(stderr, "ocs-emu: %s \"%s\": %s\n", opt, val, why);
	return (2);
}

enum {
	O_TL1 = 256,
	O_FIBRE,
	O_PORTS,
	O_SWITCH,
	O_ACK,
	O_BUSY,
	O_USER,
	O_PASS,
	O_STATE,
	O_BOOT,
	O_SID,
	O_BLOCK,
	O_AUTO,
	O_REST,
	O_VIEWER,
	O_FAULT,
	O_GRACE,
	O_IDLE,
	O_TL1C,
	O_DATAPATH,
	O_RATE,
	O_FDELAY,
	O_CAPTURE,
	O_TL1SSH,
	O_NETCONF,
};

static const struct option longopts[] = {
    {"tl1", required_argument, NULL, O_TL1},
    {"fibre", required_argument, NULL, O_FIBRE},
    {"ports", required_argument, NULL, O_PORTS},
    {"switch-time", required_argument, NULL, O_SWITCH},
    {"ack", required_argument, NULL, O_ACK},
    {"busy", required_argument, NULL, O_BUSY},
    {"user", required_argument, NULL, O_USER},
    {"password", required_argument, NULL, O_PASS},
    {"state", required_argument, NULL, O_STATE},
    {"boot", required_argument, NULL, O_BOOT},
    {"sid", required_argument, NULL, O_SID},
    {"block-size", required_argument, NULL, O_BLOCK},
    {"autonomous", no_argument, NULL, O_AUTO},
    {"rest", required_argument, NULL, O_REST},
    {"viewer", required_argument, NULL, O_VIEWER},
    {"fault", required_argument, NULL, O_FAULT},
    {"login-grace", required_argument, NULL, O_GRACE},
    {"session-timeout", required_argument, NULL, O_IDLE},
    {"tl1-calient", required_argument, NULL, O_TL1C},
    {"datapath", required_argument, NULL, O_DATAPATH},
    {"rate", required_argument, NULL, O_RATE},
    {"fibre-delay", required_argument, NULL, O_FDELAY},
    {"capture", no_argument, NULL, O_CAPTURE},
    {"tl1-ssh", required_argument, NULL, O_TL1SSH},
    {"netconf", required_argument, NULL, O_NETCONF},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

/* One option with a value into c: 0, or 2 after saying what is wrong. */
/* The REST face, the viewer account and faults. */
static int
face_opt(int ch, const char *a, struct emu_conf *c, char *faults, size_t flen)
{
	double t;

	switch (ch) {
	case O_AUTO:
		c->autonomous = 1;
		return (0);
	case O_REST:
		if (strlen(a) >= sizeof(c->rest))
			return (bad("--rest", a, "too long"));
		snprintf(c->rest, sizeof(c->rest), "%s", a);
		return (0);
	case O_TL1SSH:
		if (strlen(a) >= sizeof(c->tl1_ssh))
			return (bad("--tl1-ssh", a, "too long"));
		snprintf(c->tl1_ssh, sizeof(c->tl1_ssh), "%s", a);
		return (0);
	case O_NETCONF:
		if (strlen(a) >= sizeof(c->netconf))
			return (bad("--netconf", a, "too long"));
		snprintf(c->netconf, sizeof(c->netconf), "%s", a);
		return (0);
	case O_TL1C:
		if (strlen(a) >= sizeof(c->tl1_calient))
			return (bad("--tl1-calient", a, "too long"));
		snprintf(c->tl1_calient, sizeof(c->tl1_calient), "%s", a);
		return (0);
	case O_VIEWER:
		if (strlen(a) >= sizeof(c->viewer) || strchr(a, ':') == NULL ||
		    *a == ':' || strpbrk(a, "\r\n"))
			return (bad("--viewer", a, "expected USER:PASSWORD"));
		snprintf(c->viewer, sizeof(c->viewer), "%s", a);
		return (0);
	case O_GRACE:
		if (unit_parse_time(a, &t) != 0 || t > 3600)
			return (bad("--login-grace", a,
			            "expected a time up to 1h (0: none)"));
		c->login_grace_ms = (uint32_t)(t * 1000 + 0.5);
		return (0);
	case O_IDLE:
		if (unit_parse_time(a, &t) != 0 || t > 3600)
			return (bad("--session-timeout", a,
			            "expected a time up to 60min (0: none)"));
		c->idle_timeout_s = (uint32_t)(t + 0.5);
		return (0);
	case O_CAPTURE:
		c->capture = 1;
		return (0);
	case O_DATAPATH:
		if (strncmp(a, "netns:", 6) != 0 || a[6] == '\0' ||
		    strlen(a + 6) > 20 ||
		    strspn(a + 6, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		                  "abcdefghijklmnopqrstuvwxyz"
		                  "0123456789_") != strlen(a + 6))
			return (
			    bad("--datapath", a,
			        "expected netns:PREFIX (the testbed of "
			        "netns.sh; letters, digits, _, up to 20)"));
		snprintf(c->datapath, sizeof(c->datapath), "%s", a);
		return (0);
	case O_RATE:
		if (unit_parse_rate(a, &t) != 0 || t < 1e6 || t > 16e9)
			return (bad("--rate", a,
			            "expected a rate of 1Mbps..16Gbps "
			            "(Mbps, Gbps, MBps)"));
		c->rate_bps = (uint64_t)t;
		return (0);
	case O_FDELAY:
		if (unit_parse_time(a, &t) != 0 || t > 1)
			return (bad("--fibre-delay", a,
			            "expected a time up to 1s"));
		c->fibre_delay_ns = (uint64_t)(t * 1e9 + 0.5);
		return (0);
	case O_FAULT:
		if (strlen(faults) + strlen(a) + 2 > flen)
			return (bad("--fault", a, "too long"));
		if (*faults)
			strcat(faults, ",");
		strcat(faults, a);
		return (0);
	}
	return (bad("option", a ? a : "", "unknown"));
}

static int
one_opt(int ch, const char *a, struct emu_conf *c, char *faults, size_t flen)
{
	char    *end;
	double   t;
	uint64_t sz;
	long     v;

	switch (ch) {
	case O_TL1:
		if (strlen(a) >= sizeof(c->tl1))
			return (bad("--tl1", a, "too long"));
		snprintf(c->tl1, sizeof(c->tl1), "%s", a);
		return (0);
	case O_FIBRE:
		if (strlen(a) >= sizeof(c->fibre))
			return (bad("--fibre", a, "too long"));
		snprintf(c->fibre, sizeof(c->fibre), "%s", a);
		return (0);
	case O_PORTS:
		v = strtol(a, &end, 10);
		if (*a == '\0' || *end != '\0' || v < 1 || v > DRV_MAX_PORTS)
			return (bad("--ports", a, "expected 1..%d",
			            DRV_MAX_PORTS));
		c->ports = (uint32_t)v;
		return (0);
	case O_SWITCH:
		if (unit_parse_time(a, &t) != 0 || t > 60)
			return (bad("--switch-time", a,
			            "expected a time up to 60s (ns, us, ms, "
			            "s)"));
		c->switch_ns = (uint64_t)(t * 1e9 + 0.5);
		return (0);
	case O_ACK:
		if (strcmp(a, "compld") && strcmp(a, "immediate"))
			return (
			    bad("--ack", a, "expected compld or immediate"));
		c->ack_immediate = strcmp(a, "immediate") == 0;
		return (0);
	case O_BUSY:
		if (strcmp(a, "deny") && strcmp(a, "replace"))
			return (bad("--busy", a, "expected deny or replace"));
		c->busy_replace = strcmp(a, "replace") == 0;
		return (0);
	case O_USER:
	case O_PASS:
		/* The switch's own rules for its accounts. */
		if (ch == O_USER ? !emu_user_name_ok(a)
		                 : (*a == '\0' || !emu_user_pass_ok(a)))
			return (
			    bad(ch == O_USER ? "--user" : "--password", a,
			        "expected letters, digits, '.', '_' and "
			        "'-' (%d at most)",
			        ch == O_USER ? EMU_USER_MAX : EMU_PASS_MAX));
		snprintf(ch == O_USER ? c->user : c->password,
		         ch == O_USER ? sizeof(c->user) : sizeof(c->password),
		         "%s", a);
		return (0);
	case O_STATE:
		if (*a == '\0' || strlen(a) >= sizeof(c->state))
			return (bad("--state", a, "bad path"));
		snprintf(c->state, sizeof(c->state), "%s", a);
		return (0);
	case O_BOOT:
		if (strcmp(a, "dark") && strcmp(a, "restore"))
			return (bad("--boot", a, "expected dark or restore"));
		c->boot =
		    strcmp(a, "dark") == 0 ? OXC_BOOT_DARK : OXC_BOOT_RESTORE;
		return (0);
	case O_SID:
		if (*a == '\0' || strlen(a) >= sizeof(c->sid) ||
		    strpbrk(a, ":;\"\r\n "))
			return (bad("--sid", a, "bad name"));
		snprintf(c->sid, sizeof(c->sid), "%s", a);
		return (0);
	case O_BLOCK:
		if (unit_parse_size(a, &sz) != 0 || sz > (1u << 20))
			return (bad("--block-size", a,
			            "expected a size up to 1MiB (0: never "
			            "split)"));
		c->block_bytes = (size_t)sz;
		return (0);
	}
	return (face_opt(ch, a, c, faults, flen));
}

/* One light path, and shaping only where the kernel carries it. */
static int
check_datapath(const struct emu_conf *c)
{
	if (c->datapath[0] && c->fibre[0]) {
		fprintf(stderr, "ocs-emu: --fibre and --datapath: one light "
		                "path or the other\n");
		return (2);
	}
	if ((c->fibre_delay_ns || c->capture) && !c->datapath[0]) {
		fprintf(stderr, "ocs-emu: --fibre-delay and --capture are for "
		                "the kernel datapath: give --datapath too\n");
		return (2);
	}
	if (c->fibre_delay_ns && !c->rate_bps) {
		fprintf(stderr, "ocs-emu: --fibre-delay needs --rate (the "
		                "delay sits under the line rate)\n");
		return (2);
	}
	return (0);
}

static int
parse_args(int argc, char **argv, struct emu_conf *c, int *verbose,
           char *faults, size_t flen)
{
	int ch, rv;

	memset(c, 0, sizeof(*c));
	snprintf(c->tl1, sizeof(c->tl1), "127.0.0.1:3082");
	c->ports = 64;
	c->switch_ns = 25000000;
	snprintf(c->user, sizeof(c->user), "root");
	snprintf(c->password, sizeof(c->password), "root");
	c->boot = OXC_BOOT_RESTORE;
	snprintf(c->sid, sizeof(c->sid), "OCS-EMU");
	c->block_bytes = 0; /* unconfirmed for Polatis: off unless asked */
	c->login_grace_ms = 10000;
	c->idle_timeout_s = 30 * 60;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":dvh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'd':
			break; /* always in the foreground */
		case 'v':
			(*verbose)++;
			break;
		case 'h':
			usage();
			exit(0);
		case 'V':
			printf("ocs-emu %s\n", OCS_VERSION);
			exit(0);
		case ':':
			fprintf(stderr, "ocs-emu: %s: missing value\n",
			        argv[optind - 1]);
			return (2);
		case '?':
			fprintf(stderr, "ocs-emu: \"%s\": unknown option\n",
			        argv[optind - 1]);
			return (2);
		default:
			if ((rv = one_opt(ch, optarg, c, faults, flen)) != 0)
				return (rv);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "ocs-emu: \"%s\": unexpected argument\n",
		        argv[optind]);
		return (2);
	}
	return (check_datapath(c));
}

struct fibre_arg {
	struct emu *e;
	int         lfd, stopfd, rv;
};

static void *
fibre_main(void *arg)
{
	struct fibre_arg *fa = arg;

	fa->rv = emu_fibre_serve(fa->e, fa->lfd, fa->stopfd);
	if (fa->rv != 0)
		log_warnx("fibre: %s", strerror(-fa->rv));
	return (NULL);
}

/* A TL1 face served by a thread of its own (the Polatis one is main's). */
struct tl1_arg {
	struct emu                   *e;
	const struct emu_tl1_dialect *d;
	int                           lfd, stopfd, rv;
};

static void *
tl1_main(void *arg)
{
	struct tl1_arg *ta = arg;

	ta->rv = emu_tl1_serve(ta->e, ta->d, ta->lfd, ta->stopfd, NULL);
	if (ta->rv != 0)
		log_warnx("tl1-calient: %s", strerror(-ta->rv));
	return (NULL);
}

/* CALIENT's TL1 face on --tl1-calient.  0, or 2 for a bad address. */
static int
start_tl1_calient(struct emu *e, struct tl1_arg *ta, pthread_t *thr,
                  char *bound, size_t blen)
{
	char host[256], port[16];

	if (net_hostport(e->c.tl1_calient, "3083", host, sizeof(host), port,
	                 sizeof(port)) != 0) {
		fprintf(stderr,
		        "ocs-emu: --tl1-calient \"%s\": expected ADDR:PORT\n",
		        e->c.tl1_calient);
		return (2);
	}
	if ((ta->lfd = net_listen(host, port, bound, blen)) < 0) {
		errno = -ta->lfd;
		fatal("tl1-calient: listening on %s", e->c.tl1_calient);
	}
	if ((ta->stopfd = eventfd(0, EFD_CLOEXEC)) < 0)
		fatal("eventfd");
	ta->e = e;
	ta->d = &emu_tl1_calient;
	if (pthread_create(thr, NULL, tl1_main, ta) != 0)
		fatalx("cannot start the CALIENT TL1 thread");
	log_info("CALIENT TL1 on %s", bound);
	return (0);
}

/* Stop a thread that serves until its stop descriptor is readable. */
static void
stop_thread(int stopfd, int lfd, pthread_t thr)
{
	uint64_t one = 1;

	if (stopfd < 0)
		return;
	(void)!write(stopfd, &one, sizeof(one));
	pthread_join(thr, NULL);
	close(stopfd);
	close(lfd);
}

/* The switch model, its counters, armed faults and saved state.  0, or
 * the exit status after saying why. */
static int
setup(struct emu *e, const char *faults)
{
	char err[512];
	int  rv;

	pthread_mutex_init(&e->mtx, NULL);
	if ((rv = emu_model_init(e)) == -EINVAL) {
		fprintf(stderr,
		        "ocs-emu: --user \"%s\" or --password: not "
		        "a user name (letters, digits, . _ -) or "
		        "password (the same, up to %d)\n",
		        e->c.user, EMU_PASS_MAX);
		return (2);
	} else if (rv != 0)
		fatalx("out of memory");
	e->x.busy_replace = e->c.busy_replace;
	e->x.boot = e->c.boot;
	snprintf(e->sid, sizeof(e->sid), "%s", e->c.sid);
	e->idle_timeout_s = e->c.idle_timeout_s;
	if (faults[0] && emu_fault_set(e, faults, err, sizeof(err)) != 0) {
		fprintf(stderr, "ocs-emu: --fault: %s\n", err);
		return (2);
	}
	if (e->c.state[0] == '\0')
		return (0);
	rv = emu_state_load(e, err, sizeof(err));
	if (rv == -ENOENT)
		log_info("no state file %s yet: starting dark", e->c.state);
	else if (rv != 0)
		fatalx("state: %s", err);
	else
		log_info("state %s: boot %s, %u patch%s restored", e->c.state,
		         e->x.boot == OXC_BOOT_RESTORE ? "restore" : "dark",
		         oxc_count(&e->x), oxc_count(&e->x) == 1 ? "" : "es");
	return (0);
}

/* The kernel datapath, opened before any thread (it enters namespaces).
 * 0, or 1 after saying why. */
static int
open_kdp(struct emu *e, struct emu_kdp **kdp)
{
	struct emu_kdp_conf kc = {.rate_bps = e->c.rate_bps,
	                          .delay_ns = e->c.fibre_delay_ns,
	                          .capture = e->c.capture};
	char                err[512];

	snprintf(kc.prefix, sizeof(kc.prefix), "%s", e->c.datapath + 6);
	if (emu_kdp_open(e, &kc, kdp, err, sizeof(err)) != 0) {
		fprintf(stderr, "ocs-emu: --datapath %s: %s\n", e->c.datapath,
		        err);
		return (1);
	}
	return (0);
}

static void
emu_free(struct emu *e)
{
	emu_model_free(e);
	pthread_mutex_destroy(&e->mtx);
	free(e);
}

/* The light path's listener and thread.  0, or 2 for a bad address. */
static int
start_fibre(struct emu *e, struct fibre_arg *fa, pthread_t *thr, char *bound,
            size_t blen)
{
	char host[256], port[16];

	if (strncmp(e->c.fibre, "unix:", 5) != 0 &&
	    net_hostport(e->c.fibre, NULL, host, sizeof(host), port,
	                 sizeof(port)) != 0) {
		fprintf(stderr,
		        "ocs-emu: --fibre \"%s\": expected ADDR:PORT or "
		        "unix:PATH\n",
		        e->c.fibre);
		return (2);
	}
	if ((fa->lfd = net_listen_addr(e->c.fibre, bound, blen)) < 0) {
		errno = -fa->lfd;
		fatal("fibre: listening on %s", e->c.fibre);
	}
	if ((fa->stopfd = eventfd(0, EFD_CLOEXEC)) < 0)
		fatal("eventfd");
	fa->e = e;
	if (pthread_create(thr, NULL, fibre_main, fa) != 0)
		fatalx("cannot start the fibre thread");
	log_info("fibres on %s", bound);
	return (0);
}

static int
tl1_hand(void *ib, int fd, const char *user, enum emu_priv priv)
{
	return (emu_tl1_inbox_put(ib, fd, user, priv));
}

/* TL1 over SSH (--tl1-ssh), sessions handed to the Polatis TL1 server
 * through ib.  0, or the exit status after saying why. */
static int
start_tl1_ssh(struct emu *e, struct emu_tl1_inbox *ib, struct emu_ssh **ssh,
              char *bound, size_t blen)
{
	struct emu_ssh_conf sc = {.what = "ssh",
	                          .opt = "--tl1-ssh",
	                          .addr = e->c.tl1_ssh,
	                          .port = "6252",
	                          .hand = tl1_hand,
	                          .arg = ib};
	char                err[512];
	int                 rv;

	if ((rv = emu_ssh_start(e, &sc, ssh, bound, blen, err, sizeof(err))) !=
	    0) {
		fprintf(stderr, "ocs-emu: %s\n", err);
		return (rv == -EINVAL ? 2 : 1);
	}
	log_info("TL1 over SSH on %s", bound);
	return (0);
}

/* NETCONF over SSH (--netconf): libnetconf2's server, fed by an SSH face
 * of its own ("netconf" subsystem).  0, or the exit status after saying
 * why. */
static int
start_netconf(struct emu *e, struct emu_nc **nc, struct emu_ssh **ssh,
              char *bound, size_t blen)
{
	struct emu_ssh_conf sc = {.what = "netconf-ssh",
	                          .opt = "--netconf",
	                          .addr = e->c.netconf,
	                          .port = "830",
	                          .subsystem = "netconf",
	                          .hand = emu_nc_put,
	                          .guard = emu_nc_guard,
	                          .guard_size = sizeof(struct emu_nc_guard)};
	char                err[512];
	int                 rv;

	if ((rv = emu_nc_start(e, nc, err, sizeof(err))) != 0) {
		fprintf(stderr, "ocs-emu: --netconf: %s\n", err);
		return (1);
	}
	sc.arg = *nc;
	if ((rv = emu_ssh_start(e, &sc, ssh, bound, blen, err, sizeof(err))) !=
	    0) {
		fprintf(stderr, "ocs-emu: %s\n", err);
		emu_nc_stop(*nc);
		*nc = NULL;
		return (rv == -EINVAL ? 2 : 1);
	}
	log_info("NETCONF over SSH on %s", bound);
	return (0);
}

int
main(int argc, char **argv)
{
	struct emu           *e;
	struct fibre_arg      fa = {.lfd = -1, .stopfd = -1};
	struct tl1_arg        ta = {.lfd = -1, .stopfd = -1};
	struct emu_rest      *rest = NULL;
	struct emu_kdp       *kdp = NULL;
	struct emu_ssh       *ssh = NULL, *ncssh = NULL;
	struct emu_nc        *nc = NULL;
	struct emu_tl1_inbox *inbox = NULL;
	char                  faults[512] = "", rbound[300], cbound[300];
	char                  sbound[300], nbound[300];
	pthread_t             fthr, cthr;
	sigset_t              ss;
	char host[256], port[16], bound[300], fbound[300], err[512];
	int  verbose = 0, lfd, sfd, rv;

	if ((e = calloc(1, sizeof(*e))) == NULL)
		return (1);
	if ((rv = parse_args(argc, argv, &e->c, &verbose, faults,
	                     sizeof(faults))) != 0) {
		free(e);
		return (rv);
	}
	log_init("ocs-emu", 1, verbose);
	if (net_hostport(e->c.tl1, "3082", host, sizeof(host), port,
	                 sizeof(port)) != 0) {
		fprintf(stderr, "ocs-emu: --tl1 \"%s\": expected ADDR:PORT\n",
		        e->c.tl1);
		free(e);
		return (2);
	}
	if ((rv = setup(e, faults)) != 0)
		return (rv);
	if (e->c.datapath[0] && (rv = open_kdp(e, &kdp)) != 0)
		return (rv);
	/* Signals arrive on a descriptor the loop polls. */
	sigemptyset(&ss);
	sigaddset(&ss, SIGINT);
	sigaddset(&ss, SIGTERM);
	sigprocmask(SIG_BLOCK, &ss, NULL);
	signal(SIGPIPE, SIG_IGN);
	if ((sfd = signalfd(-1, &ss, SFD_CLOEXEC)) < 0)
		fatal("signalfd");
	if ((lfd = net_listen(host, port, bound, sizeof(bound))) < 0) {
		errno = -lfd;
		fatal("tl1: listening on %s", e->c.tl1);
	}
	log_info("%ux%u switch, switching time %.3f ms, tl1 on %s", e->x.n,
	         e->x.n, e->c.switch_ns / 1e6, bound);
	if (e->c.fibre[0] &&
	    (rv = start_fibre(e, &fa, &fthr, fbound, sizeof(fbound))) != 0)
		return (rv);
	if (kdp && emu_kdp_start(kdp) != 0)
		fatalx("cannot start the datapath thread");
	pthread_mutex_lock(&e->mtx);
	e->kdp = kdp;
	e->capture = kdp ? emu_kdp_capture : NULL;
	pthread_mutex_unlock(&e->mtx);
	if (e->c.rest[0]) {
		if ((rv = emu_rest_start(e, &rest, rbound, sizeof(rbound), err,
		                         sizeof(err))) != 0) {
			if (rv == -EINVAL) {
				fprintf(stderr, "ocs-emu: %s\n", err);
				return (2);
			}
			fatalx("%s", err);
		}
		log_info("rest on %s", rbound);
	}
	if (e->c.tl1_calient[0] &&
	    (rv = start_tl1_calient(e, &ta, &cthr, cbound, sizeof(cbound))) !=
	        0)
		return (rv);
	if (e->c.tl1_ssh[0]) {
		if (emu_tl1_inbox_new(&inbox) != 0)
			fatalx("out of memory");
		if ((rv = start_tl1_ssh(e, inbox, &ssh, sbound,
		                        sizeof(sbound))) != 0)
			return (rv);
	}
	if (e->c.netconf[0] &&
	    (rv = start_netconf(e, &nc, &ncssh, nbound, sizeof(nbound))) != 0)
		return (rv);
	if (faults[0]) {
		emu_fault_fmt(e, err, sizeof(err));
		log_info("faults armed: %s", err);
	}
	printf("ocs-emu: tl1 %s\n", bound);
	if (e->c.fibre[0])
		printf("ocs-emu: fibre %s\n", fbound);
	if (kdp)
		printf("ocs-emu: datapath %s\n", e->c.datapath);
	if (rest != NULL)
		printf("ocs-emu: rest %s\n", rbound);
	if (ta.stopfd >= 0)
		printf("ocs-emu: tl1-calient %s\n", cbound);
	if (ssh != NULL)
		printf("ocs-emu: tl1-ssh %s\n", sbound);
	if (ncssh != NULL)
		printf("ocs-emu: netconf %s\n", nbound);
	fflush(stdout);
	if ((rv = emu_tl1_serve(e, &emu_tl1_polatis, lfd, sfd, inbox)) != 0) {
		errno = -rv;
		fatal("tl1");
	}
	emu_rest_stop(rest);
	emu_ssh_stop(ssh);
	emu_tl1_inbox_free(inbox);
	/* The SSH face first: its sessions' ends are what the NETCONF
	 * sessions wait on. */
	emu_ssh_stop(ncssh);
	emu_nc_stop(nc);
	stop_thread(ta.stopfd, ta.lfd, cthr);
	stop_thread(fa.stopfd, fa.lfd, fthr);
	pthread_mutex_lock(&e->mtx);
	e->kdp = NULL; /* the TL1 face is stopped; nothing else asks */
	e->capture = NULL;
	pthread_mutex_unlock(&e->mtx);
	emu_kdp_close(kdp);
	/* A UNIX listener's socket file is ours to remove. */
	if (fa.stopfd >= 0 && strncmp(e->c.fibre, "unix:", 5) == 0)
		unlink(e->c.fibre + 5);
	/* Only now is nothing left that could still change a patch. */
	pthread_mutex_lock(&e->mtx);
	if (e->x.gen != e->saved_gen && (rv = emu_state_save(e)) != 0)
		log_warnx("saving state: %s", strerror(-rv));
	pthread_mutex_unlock(&e->mtx);
	log_info("stopped");
	close(lfd);
	close(sfd);
	emu_free(e);
	return (0);
}

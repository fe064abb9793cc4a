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
#include <sys/socket.h>
#include <unistd.h>

#include <nng/nng.h>
#include <nng/supplemental/util/platform.h>

#include "agent/carrier.h"
#include "agent/flink.h"
#include "agent/exec.h"
#include "agent/local.h"
#include "agent/probe.h"
#include "collectives/plan.h"
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
	int                     open[EXEC_MAX_PORTS];     /* x[i] is open */
	int                     plugged;                  /* all of them */
	char                    why[EXEC_MAX_PORTS][160]; /* not open: why */
	/* The links (carrier.h): the kernel transport's, watched always;
	 * the relay's, as the relay tells them while plugged (flink.h). */
	struct carrier car;
	int            have_car;
	struct flink   fl;
	int            no_watch;       /* the relay has no link watches */
	int            unplugged_said; /* a failure to plug was logged */
	/* Its server's local links come in here (--local-link): -1 none. */
	int  lfd;
	char local_addr[PLAN_LADDR_MAX];
	/* --fault-local K (tests): its local links shut at phase K (K + 1
	 * here, 0: none). */
	uint32_t fault_local;
	int      once; /* exit after one run (tests) */
	/* An ended run's buffers being freed (reap_start). */
	nng_thread *reaper;
};

static void
usage(FILE *f, int rv)
{
	fprintf(f, "usage: ocs-agent [-dv] --controller URL --host NAME "
	           "--secret-file FILE\n"
	           "                 (--fibre ADDR:PORT|unix:PATH[,...] "
	           "[--transceivers N] |\n"
	           "                  --transport kernel --iface "
	           "IF[,IF...]) [--timeout TIME]\n"
	           "                 [--mem-limit SIZE] [--tls-ca FILE] "
	           "(tls+tcp:// controllers)\n"
	           "                 [--local-link HOST:PORT|unix:PATH|none] "
	           "(servers' local links)\n"
	           "       ocs-agent --help | --version\n");
	exit(rv);
}

static void
unplug(struct agent *a)
{
	uint32_t i;

	for (i = 0; i < a->s.ntrx; i++) {
		if (a->open[i])
			xport_close(&a->x[i]);
		if (a->ops == &xport_fibre_ops)
			flink_close(&a->fl, &a->car, i);
	}
	memset(a->open, 0, sizeof(a->open));
	a->plugged = 0;
	if (a->ops == &xport_fibre_ops)
		a->have_car = 0;
}

/*
 * What the next Poll says: how many transceivers are usable (open, and
 * for the kernel transport up or dark: a transceiver without light is
 * usable once a circuit lights it), why the others are not, and each
 * link as the kernel sees it.
 */
static void
links_fill(struct agent *a)
{
	struct session *s = &a->s;
	uint32_t        i, up = 0;
	size_t          off = 0;
	char            why[200];

	s->down[0] = '\0';
	for (i = 0; i < s->ntrx; i++) {
		const struct carrier_trx *t = &a->car.t[i];
		int                       bad = !a->open[i];

		memset(&s->links[i], 0, sizeof(s->links[i]));
		snprintf(why, sizeof(why), "%s", a->why[i]);
		if (a->have_car) {
			s->links[i].state =
			    t->state == CARRIER_UP ? OCS__TRX_LINK__STATE__UP
			    : t->state == CARRIER_NONE
			        ? OCS__TRX_LINK__STATE__NO_CARRIER
			    : t->state == CARRIER_DOWN
			        ? OCS__TRX_LINK__STATE__DOWN
			        : OCS__TRX_LINK__STATE__GONE;
			s->links[i].mtu = t->mtu;
			s->links[i].ups = t->ups;
			/* The relay's transceivers have no interface. */
			s->links[i].iface =
			    a->iface[i][0] ? a->iface[i] : NULL;
			/* Down or gone since it was opened: not usable. */
			if (!bad && (t->state == CARRIER_DOWN ||
			             t->state == CARRIER_GONE)) {
				bad = 1;
				snprintf(why, sizeof(why),
				         "interface %s is %s", a->iface[i],
				         carrier_name(t->state));
			}
		}
		if (!bad) {
			up++;
			continue;
		}
		if (off < sizeof(s->down))
			off += (size_t)snprintf(
			    s->down + off, sizeof(s->down) - off,
			    "%s%s.%u: %s", off ? "; " : "", s->host, i, why);
	}
	s->fibres_up = up;
}

/* The relay said something of the links: ocsd hears it at once. */
static void
on_flink(void *arg)
{
	struct agent *a = arg;
	int           mask = flink_read(&a->fl, &a->car);
	uint32_t      i;

	for (i = 0; i < a->s.ntrx; i++)
		if (mask & (1 << i))
			log_debug("%s.%u: %s, %u ups", a->s.host, i,
			          carrier_name(a->car.t[i].state),
			          a->car.t[i].ups);
	if (mask == 0 || !a->have_car)
		return;
	links_fill(a);
	(void)session_links(&a->s);
}

/* The relay transceiver i plugs into watches its link too, unless the
 * relay has no watches (an older ocs-emu: then no link is said, and ocsd
 * does not wait for any).  0, or -errno with why[i] set. */
static int
watch(struct agent *a, uint32_t i, const char *addr)
{
	char err[300];
	int  rv;

	if (a->ops != &xport_fibre_ops || a->no_watch)
		return (0);
	rv = flink_open(&a->fl, &a->car, i, addr, a->s.egress[i], 5000, err,
	                sizeof(err));
	if (rv == -EPROTO) {
		log_warnx("%s; its links are not said to ocsd", err);
		a->no_watch = 1;
		return (0);
	}
	if (rv != 0)
		snprintf(a->why[i], sizeof(a->why[i]), "%.150s", err);
	return (rv);
}

/* The kernel said something of the links: ocsd hears it at once. */
static void
on_carrier(void *arg)
{
	struct agent *a = arg;
	uint32_t      i;
	int           mask;

	if ((mask = carrier_read(&a->car)) <= 0) {
		if (mask < 0)
			log_warnx("rtnetlink: %s", strerror(-mask));
		return;
	}
	for (i = 0; i < a->s.ntrx; i++)
		if (mask & (1 << i))
			log_debug("%s.%u (%s): %s, mtu %u, %u carrier ups",
			          a->s.host, i, a->iface[i],
			          carrier_name(a->car.t[i].state),
			          a->car.t[i].mtu, a->car.t[i].ups);
	links_fill(a);
	(void)session_links(&a->s);
}

/* The relay transceiver i plugs into: --fibre's i-th address (a fabric:
 * each plane's switch), or its only one. */
static const char *
fibre_of(const struct agent *a, uint32_t i, char *buf, size_t len)
{
	const char *p = a->fibre;
	size_t      k;

	if (strchr(p, ',') == NULL)
		return (p);
	for (; i > 0 && (p = strchr(p, ',')) != NULL; i--)
		p++;
	if (p == NULL)
		return ("");
	k = strcspn(p, ",");
	snprintf(buf, len, "%.*s", (int)k, p);
	return (buf);
}

/* --fibre: one address, or one per transceiver, none empty. */
static int
fibres_ok(const struct agent *a)
{
	const char *p;
	uint32_t    n = 1;

	for (p = a->fibre; *p; p++)
		n += *p == ',';
	if (n == 1)
		return (1);
	return (n == a->s.ntrx && strstr(a->fibre, ",,") == NULL &&
	        a->fibre[0] != ',' && a->fibre[strlen(a->fibre) - 1] != ',');
}

/* Open every transceiver not open yet, each on its own: those that
 * open are usable while another is out.  0 when all are open. */
static int
plug(struct agent *a)
{
	char        err[300], fb[256];
	const char *addr;
	uint32_t    i, n = 0;
	int         rv, first = 0;

	for (i = 0; i < a->s.ntrx; i++) {
		if (a->open[i]) {
			n++;
			continue;
		}
		addr = a->ops == &xport_kernel_ops
		           ? a->iface[i]
		           : fibre_of(a, i, fb, sizeof(fb));
		rv = xport_open(&a->x[i], a->ops, addr, a->s.ingress[i],
		                a->s.egress[i], 5000, err, sizeof(err));
		if (rv == 0 && (rv = watch(a, i, addr)) != 0) {
			xport_close(&a->x[i]);
			snprintf(err, sizeof(err), "%s", a->why[i]);
		}
		if (rv != 0) {
			snprintf(a->why[i], sizeof(a->why[i]), "%.150s", err);
			/* Said once, not at every retry while it lasts. */
			if (!a->unplugged_said)
				log_warnx("%s.%u: %s; retrying", a->s.host, i,
				          err);
			first = first ? first : rv;
			continue;
		}
		a->why[i][0] = '\0';
		a->open[i] = 1;
		n++;
	}
	a->unplugged_said = n < a->s.ntrx;
	links_fill(a);
	if (n < a->s.ntrx)
		return (first);
	if (!a->plugged) {
		if (a->ops == &xport_kernel_ops)
			log_info("%u transceivers on interfaces %s", a->s.ntrx,
			         a->s.ifaces);
		else
			log_info("plugged %u transceivers into %s", a->s.ntrx,
			         a->fibre);
	}
	a->plugged = 1;
	if (a->ops == &xport_fibre_ops && !a->no_watch) {
		a->have_car = 1;
		links_fill(a);
	}
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

/*
 * A run that ended early (an abort, an error) still holds its buffers.
 * Freeing hundreds of MB can take seconds on a busy host, and an agent
 * that does not poll meanwhile is counted lost by ocsd (three missed
 * heartbeats: every agent was, after an abort of a 256 MiB run).  So they
 * are freed on a thread of their own while the agent goes back to
 * polling; the next run's setup waits for it before taking buffers.
 */
static void
reap_main(void *e)
{
	exec_free(e);
}

static void
reap_wait(struct agent *a)
{
	if (a->reaper == NULL)
		return;
	nng_thread_destroy(a->reaper); /* joins it */
	a->reaper = NULL;
}

static void
reap_start(struct agent *a, struct exec *e)
{
	if (e == NULL)
		return;
	reap_wait(a);
	if (nng_thread_create(&a->reaper, reap_main, e) != 0) {
		a->reaper = NULL;
		exec_free(e);
	}
}

/* One run in progress: the executor, and what the next Ready reports. */
struct run {
	struct agent        *a;
	struct session_plan *sp;
	struct exec         *e;
	/* With servers: its local links, after the transceivers in ports. */
	struct local_links ll;
	struct xport       ports[EXEC_MAX_PORTS];
	struct plan_done   done[PLAN_MAX_DONE]; /* since the last Ready */
	size_t             nd;
	uint64_t           sent, verified;
	uint64_t           setup_ns, teardown_ns, wait_ns;
	char               err[512];
};

/* The executor's ports: the transceivers, then (servers) the local
 * links to the others of the node's server, made now.  0 or -errno
 * (r->err says which link). */
static int
run_ports(struct run *r, const struct exec_abort *ab)
{
	const struct plan *p = &r->sp->p;
	uint32_t           i, nx = p->local_from ? p->local_from : p->nports;
	int                rv;

	for (i = 0; i < nx && i < EXEC_MAX_PORTS; i++)
		r->ports[i] = r->a->x[i];
	if (p->local_from == 0)
		return (0);
	/* The whole of a phase's deadline to meet the others. */
	if ((rv = local_connect(r->a->lfd, p, r->sp->run, &r->ll,
	                        (int)(p->deadline_ms ? p->deadline_ms : 10000),
	                        ab, r->err, sizeof(r->err))) != 0)
		return (rv);
	for (i = 0; i < r->ll.n; i++)
		r->ports[p->local_from + i] = r->ll.x[i];
	log_debug("run %llu: %u local links up",
	          (unsigned long long)r->sp->run, r->ll.n);
	return (0);
}

/* --fault-local: this node's local links shut, as if they failed. */
static void
fault_local(struct run *r, uint32_t k)
{
	uint32_t i;

	if (r->a->fault_local == 0 || k + 1 != r->a->fault_local)
		return;
	log_warnx("run %llu: phase %u: shutting the local links (a fault "
	          "asked for)",
	          (unsigned long long)r->sp->run, k);
	for (i = 0; i < r->ll.n; i++)
		shutdown(xport_fd(&r->ll.x[i]), SHUT_RDWR);
}

/* The executor for the plan, within the agent's memory limit: 0, or
 * the run is refused with the reason (ocsd hears it). */
static int
run_setup(struct run *r)
{
	const struct plan *p = &r->sp->p;
	struct exec_abort  ab = {session_events_fd(&r->a->s),
	                         session_abort_check, &r->a->s, session_lit};
	uint64_t           need, t0 = mono_ns();
	int                rv;

	reap_wait(r->a);
	need = plan_buffer_bytes(p->max_blocks, p->bytes, p->n, p->parts,
	                         p->nports, p->chunk);
	if ((rv = r->sp->rv) != 0)
		snprintf(r->err, sizeof(r->err), "%s", r->sp->err);
	else if (need > r->a->s.mem_limit) {
		snprintf(r->err, sizeof(r->err),
		         "the plan needs %llu bytes of buffers, more than "
		         "the limit of %llu",
		         (unsigned long long)need,
		         (unsigned long long)r->a->s.mem_limit);
		rv = -ENOMEM;
	} else if ((rv = run_ports(r, &ab)) == 0)
		rv = exec_new(&r->e, p, r->ports, &ab, r->err, sizeof(r->err));
	if (rv != 0) {
		if (rv == -ENOMEM && r->err[0] == '\0')
			snprintf(r->err, sizeof(r->err),
			         "out of memory for the plan");
		log_warnx("run %llu: %s", (unsigned long long)r->sp->run,
		          r->err);
		if (rv != -ECANCELED) /* ocsd's own abort, heard */
			session_abort(&r->a->s, 0, r->err);
		return (rv);
	}
	r->setup_ns = mono_ns() - t0;
	log_info("run %llu: node %u of %u, %s, %llu bytes, %u phases, "
	         "%zu bytes of buffers",
	         (unsigned long long)r->sp->run, p->node, p->n, r->sp->algo,
	         (unsigned long long)p->bytes, p->nph, exec_mem(r->e));
	return (0);
}

/* The barrier before phase k (k = #phases: the end): 0 released, 1
 * finished, < 0 the run ends here. */
static int
barrier(struct run *r, uint32_t k)
{
	uint64_t t0;
	int      rv;

	/* What the end checks counts with the last phase. */
	if (k == r->sp->p.nph &&
	    (rv = finish(&r->e, &r->teardown_ns,
	                 r->nd ? &r->done[r->nd - 1] : NULL, r->err,
	                 sizeof(r->err))) != 0) {
		session_abort(&r->a->s, k, r->err);
		return (rv);
	}
	t0 = mono_ns();
	rv = session_ready(&r->a->s, k, r->done, r->nd, k ? 0 : r->setup_ns,
	                   r->teardown_ns, r->err, sizeof(r->err));
	r->wait_ns = mono_ns() - t0;
	r->nd = 0;
	if (rv < 0)
		log_warnx("run %llu: phase %u: %s",
		          (unsigned long long)r->sp->run, k, r->err);
	return (rv);
}

/* Phase k, its report kept for the next Ready: 0, or < 0 (said). */
static int
phase(struct run *r, uint32_t k)
{
	struct plan_done *d = &r->done[r->nd];
	int               rv;

	/* exec_check holds every stretch to PLAN_MAX_DONE phases. */
	if (r->nd == PLAN_MAX_DONE) {
		snprintf(
		    r->err, sizeof(r->err),
		    "phase %u: more than %u phases since the last barrier", k,
		    PLAN_MAX_DONE);
		session_abort(&r->a->s, k, r->err);
		return (-E2BIG);
	}
	fault_local(r, k);
	if ((rv = exec_phase(r->e, k, d, r->err, sizeof(r->err))) != 0) {
		log_warnx("run %llu: %s", (unsigned long long)r->sp->run,
		          r->err);
		if (rv != -ECANCELED)
			session_abort(&r->a->s, k, r->err);
		return (rv);
	}
	d->wait_ns = r->wait_ns;
	r->wait_ns = 0;
	r->sent += d->sent;
	r->verified += d->verified;
	log_debug("run %llu: phase %u done in %.3f ms",
	          (unsigned long long)r->sp->run, k, d->data_ns / 1e6);
	r->nd++;
	return (0);
}

/* One run.  Errors end it; the agent stays joined for the next. */
static void
run(struct agent *a, struct session_plan *sp)
{
	struct run *r;
	uint32_t    k, nph = sp->p.nph;
	int         rv = 0;

	if ((r = calloc(1, sizeof(*r))) == NULL) {
		session_abort(&a->s, 0, "out of memory for the run");
		return;
	}
	r->a = a;
	r->sp = sp;
	if (run_setup(r) != 0) {
		local_close(&r->ll);
		free(r);
		return;
	}
	exec_drain(a->x, a->s.ntrx);
	/* Planes apart: every Ready names the planes it waits for. */
	a->s.planes = 0;
	for (k = 0; sp->p.nplanes > 1 && k < sp->p.nports; k++)
		a->s.planes |= 1u << sp->p.plane[k];
	for (k = 0; k <= nph && !quit && rv == 0; k++) {
		if ((k == nph || sp->p.ph[k].barrier) &&
		    (rv = barrier(r, k)) != 0)
			break;
		if (k < nph)
			rv = phase(r, k);
	}
	if (rv == 1)
		log_info("run %llu: done, %llu bytes sent, %llu blocks "
		         "verified",
		         (unsigned long long)sp->run,
		         (unsigned long long)r->sent,
		         (unsigned long long)r->verified);
	reap_start(a, r->e); /* a run that ended early: not yet freed */
	local_close(&r->ll);
	free(r);
	if (exec_drain(a->x, a->s.ntrx) > 0)
		unplug(a); /* plugged in again before the next poll */
}

/* ocsctl check: probes out of the transceivers ocsd names, and what
 * the receivers heard, told to ocsd.  It changes no circuit. */
static void
probe(struct agent *a, const struct amsg_probe *p)
{
	struct amsg_heard h[AMSG_MAX_HEARD];
	size_t            n = 0, i;
	int               failed;

	failed = probe_run(a->x, a->open, a->s.ntrx, a->s.host, p, h,
	                   AMSG_MAX_HEARD, &n);
	if (failed < 0)
		log_warnx("probe: out of memory");
	for (i = 0; failed > 0 && i < a->s.ntrx; i++)
		if (failed & (1 << i))
			log_warnx("probe: %s.%zu: not sent (%s)", a->s.host, i,
			          a->open[i] ? "the transceiver refused it"
			                     : a->why[i]);
	for (i = 0; i < n; i++)
		log_debug("probe: %s.%u heard %s.%u", a->s.host, h[i].trx,
		          h[i].host, h[i].from_trx);
	(void)session_heard(&a->s, p->nonce, h, n,
	                    failed > 0 ? (uint32_t)failed : 0);
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
    {"local-link", required_argument, NULL, 'L'},
    {"fault-local", required_argument, NULL, 'f'},
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

/* Say why an option's value is refused: the exit status (2). */
static int
refuse(const char *opt, const char *val, const char *want)
{
	fprintf(stderr, "ocs-agent: --%s \"%s\": %s\n", opt, val, want);
	return (2);
}

/* A value into a bounded field of the session. */
static int
copy_opt(char *dst, size_t len, const char *opt, const char *val)
{
	if (strlen(val) >= len)
		return (refuse(opt, val, "too long"));
	snprintf(dst, len, "%s", val);
	return (0);
}

/* The options that take numbers and sizes: 0, or the exit status. */
static int
num_opt(struct agent *a, int ch, const char *arg)
{
	char  *end;
	double t;
	long   v;

	switch (ch) {
	case 'T':
		v = strtol(arg, &end, 10);
		if (*end || v < 1 || v > EXEC_MAX_PORTS)
			return (refuse("transceivers", arg, "1..8"));
		a->s.ntrx = (uint32_t)v;
		return (0);
	case 't':
		if (unit_parse_time(arg, &t) != 0 || t < 0.1 || t > 3600)
			return (refuse("timeout", arg, "100ms..1h"));
		a->s.timeout_ms = (int)(t * 1000);
		return (0);
	case 'f':
		v = strtol(arg, &end, 10);
		if (*arg < '0' || *arg > '9' || *end || v > 65535)
			return (refuse("fault-local", arg, "a phase, 0.."));
		a->fault_local = (uint32_t)v + 1;
		return (0);
	default: /* 'M' */
		if (unit_parse_size(arg, &a->s.mem_limit) != 0 ||
		    a->s.mem_limit < (1u << 20))
			return (refuse("mem-limit", arg,
			               "a size of 1MiB or more (MiB, GiB)"));
		return (0);
	}
}

/* One option into a: 0, or the exit status after saying why. */
static int
one_opt(struct agent *a, int ch, const char *arg, const char **secret,
        int *verbose)
{
	switch (ch) {
	case 'h':
		usage(stdout, 0);
		return (0);
	case 'V':
		printf("ocs-agent %s\n", OCS_VERSION);
		exit(0);
	case 'd':
		return (0);
	case 'v':
		(*verbose)++;
		return (0);
	case 'c':
		return (copy_opt(a->s.controller, sizeof(a->s.controller),
		                 "controller", arg));
	case 'H':
		if (!amsg_host_ok(arg))
			return (
			    refuse("host", arg,
			           "letters, digits, - and _ (at most 47)"));
		snprintf(a->s.host, sizeof(a->s.host), "%s", arg);
		return (0);
	case 'S':
		*secret = arg;
		return (0);
	case 'C':
		return (
		    copy_opt(a->s.tls_ca, sizeof(a->s.tls_ca), "tls-ca", arg));
	case 'F':
		return (copy_opt(a->fibre, sizeof(a->fibre), "fibre", arg));
	case 'X':
		if (strcmp(arg, "fibre") && strcmp(arg, "kernel"))
			return (refuse("transport", arg, "fibre or kernel"));
		a->ops = strcmp(arg, "kernel") == 0 ? &xport_kernel_ops
		                                    : &xport_fibre_ops;
		return (0);
	case 'I':
		return (parse_ifaces(a, arg));
	case '1':
		a->once = 1;
		return (0);
	case 'L':
		return (copy_opt(a->local_addr, sizeof(a->local_addr),
		                 "local-link", arg));
	case 'T':
	case 't':
	case 'M':
	case 'f':
		return (num_opt(a, ch, arg));
	default:
		usage(stderr, 2);
		return (2);
	}
}

/* The options into a; 0, or the exit status after saying why. */
static int
parse_args(struct agent *a, int argc, char **argv, const char **secret,
           int *verbose)
{
	int ch, rv;

	while ((ch = getopt_long(argc, argv, "dvh", longopts, NULL)) != -1)
		if ((rv = one_opt(a, ch, optarg, secret, verbose)) != 0)
			return (rv);
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
	if (a->ops != &xport_kernel_ops && !fibres_ok(a)) {
		fprintf(stderr,
		        "ocs-agent: --fibre \"%s\": one address, or one per "
		        "transceiver (%u), comma-separated\n",
		        a->fibre, a->s.ntrx);
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
				if (session_redial(&a->s, err, sizeof(err)) !=
				    0) {
					log_warnx("join socket: %s", err);
					return (1);
				}
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
		links_fill(a);
		rv = session_poll(&a->s, &sp, err, sizeof(err));
		if (rv < 0) {
			/* Lost ocsd, or it forgot us: join again. */
			log_warnx("%s; joining again", err);
			a->s.agent_id = 0;
			continue;
		}
		if (rv == 2)
			probe(a, &sp.probe);
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
	a->lfd = -1;
	snprintf(a->local_addr, sizeof(a->local_addr), "127.0.0.1:0");
	a->car.fd = -1;
	a->fl.ep = -1;
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
	if (strcmp(a->local_addr, "none") != 0 &&
	    (a->lfd = local_listen(a->local_addr, a->s.local_link,
	                           sizeof(a->s.local_link), err,
	                           sizeof(err))) < 0) {
		fprintf(stderr, "ocs-agent: %s\n", err);
		free(a);
		return (1);
	}
	if (session_open(&a->s, err, sizeof(err)) != 0) {
		fprintf(stderr, "ocs-agent: %s\n", err);
		free(a);
		return (1);
	}
	/* The kernel transport's links: watched from the start, in every
	 * wait, and said to ocsd at every change. */
	if (a->ops == &xport_kernel_ops) {
		if (carrier_open(&a->car, (const char(*)[IF_NAMESIZE])a->iface,
		                 a->s.ntrx, err, sizeof(err)) != 0 ||
		    session_side(&a->s, carrier_fd(&a->car), on_carrier, a) !=
		        0) {
			fprintf(stderr, "ocs-agent: watching the links: %s\n",
			        err);
			carrier_close(&a->car);
			session_close(&a->s);
			free(a);
			return (1);
		}
		a->have_car = 1;
	} else if (flink_init(&a->fl) != 0 ||
	           session_side(&a->s, flink_fd(&a->fl), on_flink, a) != 0) {
		fprintf(stderr, "ocs-agent: watching the links: %s\n",
		        strerror(errno));
		flink_fini(&a->fl);
		session_close(&a->s);
		free(a);
		return (1);
	}
	rv = serve(a);
	reap_wait(a);
	unplug(a);
	carrier_close(&a->car);
	flink_fini(&a->fl);
	session_close(&a->s);
	/* No nng_fini(): it aborts when a TLS connection is still being
	 * torn down on nng's threads (ocsd.c says more). */
	free(a);
	return (rv);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The switch worker: one thread per switch that owns the driver, runs
 * operator jobs one at a time, reconnects with backoff, reconciles the
 * desired map with the switch on (re)connection, and reads the switch
 * back periodically.  Every apply is followed by a read-back, and a job
 * succeeds only if the switch now holds exactly what was asked for.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "ocsd/ev.h"
#include "ocsd/ocsd.h"
#include "ocsd/xc.h"
#include "proto/base/log.h"
#include "proto/base/mono.h"
#include "proto/base/path.h"
#include "proto/base/net.h"

/* The light check's ports and what the switch said of them. */
struct sw_light {
	uint16_t              *ports;
	struct drv_port_state *st;
	size_t                 n;
	int                    srv; /* drv_read_map_state's *srv */
};

#define SW_BACKOFF_MIN 250
#define SW_BACKOFF_MAX 10000
/* At a stop, a batch in progress gets this long to finish by itself
 * before every wait of the driver is cut short. */
#define SW_STOP_GRACE_MS 300

static void
trace(void *arg, const char *fmt, ...)
{
	va_list ap;

	(void)arg;
	va_start(ap, fmt);
	vlog_trace(fmt, ap);
	va_end(ap);
}

/* The switch's own words for the last failure, after ours. */
static void
sw_error(struct ocsd *d, int rv, const char *what, char *err, size_t len)
{
	const char *dev = d->drv ? drv_last_error(d->drv) : NULL;

	snprintf(err, len, "switch %s %s: %s: %s%s%s", d->conf->driver,
	         d->conf->address[0] ? d->conf->address : "in-process", what,
	         drv_strerror(rv), dev ? ": " : "", dev ? dev : "");
}

static int
transport_error(int rv)
{
	return (rv == -ECONNREFUSED || rv == -ECONNRESET || rv == -ETIMEDOUT ||
	        rv == -EPIPE || rv == -ENOTCONN || rv == -EHOSTUNREACH ||
	        rv == -DRV_EPROTO || rv == -DRV_EAUTH);
}

static void
set_down(struct ocsd *d, const char *err)
{
	nng_mtx_lock(d->mtx);
	if (d->connected) {
		log_warnx("%s", err);
		ev_say(d->ev, "switch", "down", NULL, 0, -1, "%s", err);
	}
	d->connected = 0;
	snprintf(d->sw_err, sizeof(d->sw_err), "%s", err);
	nng_mtx_unlock(d->mtx);
}

/* A read-back's outcome: m becomes d->live, or the error is said (and
 * m freed). */
static int
live_set(struct ocsd *d, struct map *m, int rv, char *err, size_t len)
{
	if (rv != 0) {
		sw_error(d, rv, "reading the cross-connects back", err, len);
		if (transport_error(rv))
			set_down(d, err);
		map_free(m);
		return (rv);
	}
	nng_mtx_lock(d->mtx);
	/* Watchers hear of circuits that changed, not of every read. */
	if (!d->have_live || !map_equal(&d->live, m))
		ev_say(d->ev, "switch", "circuits", NULL, 0, -1,
		       "%u patches on the switch", map_count(m));
	map_free(&d->live);
	d->live = *m;
	d->have_live = 1;
	d->live_ms = mono_ms();
	d->last_op_ms = d->drv->last_ns / 1e6;
	nng_mtx_unlock(d->mtx);
	return (0);
}

/* Read the switch back into d->live.  0 or a driver error (err set). */
static int
refresh(struct ocsd *d, char *err, size_t len)
{
	struct map m;
	int        rv, srv;

	if ((rv = map_init(&m, d->nports)) != 0)
		return (rv);
	rv = drv_read_map_state(d->drv, m.out, d->nports, NULL, 0, NULL, &srv);
	return (live_set(d, &m, rv, err, len));
}

static void
log_differences(struct ocsd *d, const char *why)
{
	uint32_t i, nd = 0;

	for (i = 1; i <= d->nports; i++) {
		if (d->live.out[i] == d->desired.out[i])
			continue;
		if (nd++ < 16)
			log_warnx("%s: ingress %u: switch has %u, desired %u",
			          why, i, d->live.out[i], d->desired.out[i]);
	}
	if (nd > 16)
		log_warnx("%s: ... %u differences in all", why, nd);
}

static int
save_map(struct ocsd *d, const struct map *m, char *err, size_t len)
{
	int rv = map_save(d->desired_path, m);

	if (rv != 0) {
		snprintf(err, len, "saving the desired map to %.300s: %s",
		         d->desired_path, strerror(-rv));
		log_warnx("%s", err);
		return (-OCSD_ESTATE);
	}
	return (0);
}

static int
save_desired(struct ocsd *d, char *err, size_t len)
{
	return (save_map(d, &d->desired, err, len));
}

/* One new patch's light: 0, or -DRV_ELIGHT and why.  Its ports are
 * named (a search of the cabling) only then, so that a batch of
 * thousands of patches is checked in time linear in its size. */
static int
light_ok(const struct ocsd *d, const struct drv_patch *p,
         const struct drv_port_state *in, const struct drv_port_state *out,
         char *err, size_t len)
{
	char a[96], b[96];
	/* TL1 has no FAILED state: a dark ingress (a failed port, or a
	 * host whose laser is off) is only seen by its power monitor. */
	int failed = in->failed || out->failed;
	int dark_in = in->dbm <= DRV_DARK_DBM && in->dbm != DRV_NO_READING;
	int dark_out = in->dbm > DRV_DARK_DBM && out->dbm <= DRV_DARK_DBM &&
	               out->dbm != DRV_NO_READING;

	if (!failed && !dark_in && !dark_out)
		return (0);
	xc_port_name(d->conf, d->nports, p->in, a, sizeof(a));
	xc_port_name(d->conf, d->nports, p->out, b, sizeof(b));
	if (failed)
		snprintf(err, len,
		         "switch %s %s: circuit %s -> %s: port %s is FAILED "
		         "on the device",
		         d->conf->driver, d->conf->address, a, b,
		         in->failed ? a : b);
	else if (dark_in)
		snprintf(err, len,
		         "switch %s %s: circuit %s -> %s: no light into "
		         "ingress %s (%.1f dBm): the port failed or its host "
		         "is not transmitting",
		         d->conf->driver, d->conf->address, a, b, a, in->dbm);
	else
		snprintf(err, len,
		         "switch %s %s: circuit %s -> %s carries no light: "
		         "ingress reads %.1f dBm, egress %.1f dBm",
		         d->conf->driver, d->conf->address, a, b, in->dbm,
		         out->dbm);
	return (-DRV_ELIGHT);
}

/* The new paths' ports, both ends of each, for the light check. */
static int
light_init(struct sw_light *lc, const struct drv_patch *p, size_t np)
{
	size_t i;

	memset(lc, 0, sizeof(*lc));
	lc->srv = -ENOTSUP;
	if (np == 0)
		return (0);
	lc->ports = calloc(2 * np, sizeof(*lc->ports));
	lc->st = calloc(2 * np, sizeof(*lc->st));
	if (lc->ports == NULL || lc->st == NULL) {
		free(lc->ports);
		free(lc->st);
		return (-ENOMEM);
	}
	for (i = 0; i < np; i++) {
		lc->ports[2 * i] = p[i].in;
		lc->ports[2 * i + 1] = p[i].out;
	}
	lc->n = 2 * np;
	return (0);
}

static void
light_free(struct sw_light *lc)
{
	free(lc->ports);
	free(lc->st);
	memset(lc, 0, sizeof(*lc));
}

/*
 * Does light get through the new paths?  Both ends are read: a port the
 * device calls FAILED (CALIENT), no light into the ingress (a failed
 * port, or a host that is not transmitting: a circuit that cannot carry
 * anything), or light going in without coming out.  A port without a
 * power monitor (no reading) is not held against the circuit.  The first
 * look is the one taken with the read-back (lc); a second, after the
 * switching time, is read alone.
 */
static int
check_light(struct ocsd *d, const struct drv_patch *p, size_t np,
            struct sw_light *lc, char *err, size_t len)
{
	size_t i;
	int    rv = lc->srv, tries;

	if (np == 0 || lc->n == 0)
		return (0);
	for (tries = 0; tries < 2; tries++) {
		if (tries > 0)
			rv = drv_ports_state(d->drv, lc->ports, lc->n, lc->st);
		if (rv == -ENOTSUP) {
			rv = 0;
			break;
		}
		if (rv != 0) {
			sw_error(d, rv, "reading port power", err, len);
			break;
		}
		for (i = 0; i < np && rv == 0; i++)
			rv = light_ok(d, &p[i], &lc->st[2 * i],
			              &lc->st[2 * i + 1], err, len);
		if (rv == 0)
			break;
		/* A slow mirror may still be settling: one more look. */
		if (tries == 0 &&
		    net_sleep(d->conf->switch_ms + 10, d->cancel_fd) != 0) {
			snprintf(err, len, "ocsd is stopping");
			rv = -ECANCELED;
			break;
		}
	}
	return (rv);
}

/*
 * How long the batch took, kept for status.  A switch much slower than
 * configured breaks the run model: a few times its switching time,
 * beyond a couple of milliseconds of command round trip, is worth a
 * warning, which lasts only as long as the slowness.
 */
static void
note_speed(struct ocsd *d, int rv)
{
	double took_ms = d->drv->last_ns / 1e6;
	int    slow =
	    d->conf->switch_ms > 0 && took_ms > 3.0 * d->conf->switch_ms + 2;

	nng_mtx_lock(d->mtx);
	d->last_op_ms = took_ms;
	if (rv == 0 && !slow && strncmp(d->sw_warn, "slow:", 5) == 0)
		d->sw_warn[0] = '\0';
	if (rv == 0 && slow)
		snprintf(d->sw_warn, sizeof(d->sw_warn),
		         "slow: last reconfiguration took %.0f ms, "
		         "switch_time is %u ms",
		         took_ms, d->conf->switch_ms);
	nng_mtx_unlock(d->mtx);
	if (rv == 0 && slow)
		log_warnx(
		    "switch %s %s: a reconfiguration took %.0f ms, %.1fx "
		    "the configured switch_time of %u ms",
		    d->conf->driver, d->conf->address, took_ms,
		    took_ms / d->conf->switch_ms, d->conf->switch_ms);
}

/* The switch said it did: does its read-back say so too?  0 or
 * -OCSD_EMISMATCH naming the first port that differs. */
static int
read_back_is(struct ocsd *d, const struct map *target, char *err, size_t len)
{
	uint32_t i;

	if (map_equal(&d->live, target))
		return (0);
	for (i = 1; i <= d->nports; i++)
		if (d->live.out[i] != target->out[i])
			break;
	snprintf(err, len,
	         "switch %s %s: reported success, but reads back ingress "
	         "%u -> %u where %u was asked for",
	         d->conf->driver, d->conf->address, i, d->live.out[i],
	         target->out[i]);
	return (-OCSD_EMISMATCH);
}

/*
 * One batch from the live map to target, then a read-back.  0 only if the
 * switch now holds exactly target; *known says whether d->live is what
 * the switch holds now (the read-back worked).  The new patches go to
 * *newp (malloc'd) for the light check, and with it on, their ports'
 * power, read with the map, to *lc.
 */
static int
apply_once(struct ocsd *d, const struct map *target, uint32_t *changed,
           struct drv_patch **newp, size_t *nnew, struct sw_light *lc,
           int *known, char *err, size_t len)
{
	struct map_batch mb;
	struct map       m;
	char             rberr[768];
	int              rv, rb;

	*changed = 0;
	*known = 1;
	*newp = NULL;
	*nnew = 0;
	memset(lc, 0, sizeof(*lc));
	if ((rv = map_batch(&d->live, target, &mb)) != 0)
		return (rv);
	*changed = (uint32_t)(mb.b.ndisconnect + mb.b.nconnect);
	if (*changed == 0) {
		map_batch_free(&mb);
		return (0);
	}
	log_debug("applying %zu disconnects, %zu connects", mb.b.ndisconnect,
	          mb.b.nconnect);
	if (mb.b.nconnect > 0 &&
	    (*newp = malloc(mb.b.nconnect * sizeof(**newp))) != NULL) {
		memcpy(*newp, mb.b.connect, mb.b.nconnect * sizeof(**newp));
		*nnew = mb.b.nconnect;
	}
	if (d->conf->light_check && light_init(lc, *newp, *nnew) != 0) {
		map_batch_free(&mb);
		return (-ENOMEM);
	}
	if ((rv = map_init(&m, d->nports)) != 0) {
		map_batch_free(&mb);
		return (rv);
	}
	nng_mtx_lock(d->mtx);
	d->applying = 1; /* a stop lets it finish, for a while */
	nng_mtx_unlock(d->mtx);
	/* The read-back (and the new paths' power) after every apply,
	 * whatever it said, in the batch's last exchange where it can. */
	rv = drv_apply_read(d->drv, &mb.b, m.out, d->nports, lc->ports, lc->n,
	                    lc->st, &rb, &lc->srv);
	nng_mtx_lock(d->mtx);
	d->applying = 0;
	nng_mtx_unlock(d->mtx);
	map_batch_free(&mb);
	note_speed(d, rv);
	if (rv == -DRV_EPARTIAL && d->drv && drv_last_error(d->drv))
		/* The device's words say how far it got; the read-back
		 * below tells what is on the switch. */
		snprintf(err, len,
		         "switch %s %s: the batch stopped part way: %s",
		         d->conf->driver,
		         d->conf->address[0] ? d->conf->address : "in-process",
		         drv_last_error(d->drv));
	else if (rv != 0)
		sw_error(d, rv, "applying the batch", err, len);
	if (rb == -ENOTSUP)
		rb = drv_read_map_state(d->drv, m.out, d->nports, lc->ports,
		                        rv ? 0 : lc->n, lc->st, &lc->srv);
	rb = live_set(d, &m, rb, rv ? rberr : err, rv ? sizeof(rberr) : len);
	*known = rb == 0;
	/* Why the outcome is unknown: the read-back's own failure (a
	 * refused login, say) after the batch's. */
	if (rv != 0 && rb != 0) {
		size_t l = strlen(err);

		snprintf(err + l, len - l, "; then %s", rberr);
	}
	if (rv != 0) {
		if (transport_error(rv))
			set_down(d, err);
		return (rv);
	}
	return (rb != 0 ? rb : read_back_is(d, target, err, len));
}

/*
 * A batch of ours whose outcome is unknown: the desired map goes back on
 * the switch as soon as it answers, and the marker (run.state, as for an
 * interrupted run) tells a restarted ocsd to do the same.
 */
static void
mark_interrupted(struct ocsd *d)
{
	static const char mark[] = "# ocsd: a batch was cut off; on a "
	                           "restart the desired map is restored\n"
	                           "interrupted\n";
	int               rv;

	d->interrupted = 1;
	if ((rv = path_write_atomic(d->run_state_path, mark, sizeof(mark) - 1,
	                            0640)) != 0)
		log_warnx("cannot write %s: %s", d->run_state_path,
		          strerror(-rv));
}

/*
 * Make the switch hold `target`, or leave it as it was: a failed batch
 * that changed something the read-back can see is undone with one more
 * batch (best effort, said in err).  0 only if the switch holds exactly
 * target and its new paths carry light.
 */
static int
apply_target(struct ocsd *d, const struct map *target, uint32_t *changed,
             char *err, size_t len)
{
	struct drv_patch *newp = NULL, *np2 = NULL;
	struct sw_light   lc, lc2;
	struct map        before;
	char              rberr[768];
	size_t            nnew, n2;
	uint32_t          c2;
	int               rv, rb, known, k2;

	memset(&before, 0, sizeof(before));
	if ((rv = map_copy(&before, &d->live)) != 0)
		return (rv);
	rv = apply_once(d, target, changed, &newp, &nnew, &lc, &known, err,
	                len);
	if (rv == 0)
		rv = check_light(d, newp, nnew, &lc, err, len);
	if (rv != 0 && known && !map_equal(&d->live, &before)) {
		size_t l = strlen(err);

		rb = apply_once(d, &before, &c2, &np2, &n2, &lc2, &k2, rberr,
		                sizeof(rberr));
		light_free(&lc2);
		if (rb == 0)
			snprintf(
			    err + l, len - l,
			    "; rolled back (%u change%s), the switch is as "
			    "before",
			    c2, c2 == 1 ? "" : "s");
		else
			snprintf(err + l, len - l,
			         "; rolling back failed too: "
			         "%.300s",
			         rberr);
	}
	if (rv != 0 && !known) {
		size_t l = strlen(err);

		/* Finished on reconnection, or by the next ocsd: see
		 * reconcile(). */
		mark_interrupted(d);
		snprintf(err + l, len - l,
		         "; the switch state is unknown until it answers "
		         "again, then the desired map is restored");
		set_down(d, err);
	}
	/* Not logged here: whoever asked logs it once, with who asked. */
	free(newp);
	free(np2);
	light_free(&lc);
	map_free(&before);
	return (rv);
}

/*
 * On (re)connection the switch is compared with the desired map.  With
 * no saved map the switch's becomes it; a batch of ours that was cut off
 * is undone whatever the policy; a difference made by someone else is
 * left, pushed over or adopted as `reconcile` says.
 */
static int
reconcile(struct ocsd *d, char *err, size_t len)
{
	struct map dm;
	uint32_t   changed;
	int        rv;

	if (!d->have_desired) {
		nng_mtx_lock(d->mtx);
		rv = map_copy(&d->desired, &d->live);
		d->have_desired = rv == 0;
		nng_mtx_unlock(d->mtx);
		if (rv == 0 && save_desired(d, err, len) == 0)
			log_info("no saved map: adopted the switch's %u "
			         "patches as desired",
			         map_count(&d->live));
		return (0);
	}
	if (map_equal(&d->live, &d->desired)) {
		d->interrupted = 0;
		unlink(d->run_state_path);
		return (0);
	}
	/* A run was in progress when ocsd stopped: its circuits are not
	 * anyone's intent, so the desired map returns whatever the policy
	 * for changes made by others. */
	if (access(d->run_state_path, F_OK) == 0) {
		log_warnx("a run or a batch was in progress when ocsd "
		          "stopped (%s): restoring the desired map",
		          d->run_state_path);
		d->interrupted = 1;
	}
	if (d->interrupted) {
		/* Our own batch was cut off half way: undo it whatever the
		 * reconcile policy for changes made by others. */
		log_differences(d, "after an interrupted batch");
		if (map_init(&dm, d->nports) != 0)
			return (-ENOMEM);
		memcpy(dm.out, d->desired.out,
		       (d->nports + 1) * sizeof(*dm.out));
		rv = apply_target(d, &dm, &changed, err, len);
		map_free(&dm);
		if (rv != 0) {
			log_warnx("undoing an interrupted batch: %s", err);
			return (rv);
		}
		d->interrupted = 0;
		unlink(d->run_state_path);
		log_info("interrupted batch undone: %u changes, the switch "
		         "holds the desired map",
		         changed);
		return (0);
	}
	log_differences(d, "switch differs from the desired map");
	switch (d->conf->reconcile) {
	case CONF_RECON_HOLD:
		log_warnx("live circuits left as they are: 'ocsctl map diff' "
		          "shows, 'ocsctl map sync' pushes the desired map, "
		          "'ocsctl map adopt' keeps the switch's");
		break;
	case CONF_RECON_PUSH:
		if (map_init(&dm, d->nports) == 0) {
			memcpy(dm.out, d->desired.out,
			       (d->nports + 1) * sizeof(*dm.out));
			if (apply_target(d, &dm, &changed, err, len) != 0)
				log_warnx("reconcile=push: %s", err);
			else
				log_info("reconcile=push: %u changes applied",
				         changed);
			map_free(&dm);
		}
		break;
	case CONF_RECON_ADOPT:
		nng_mtx_lock(d->mtx);
		rv = map_copy(&d->desired, &d->live);
		nng_mtx_unlock(d->mtx);
		if (rv == 0 && save_desired(d, err, len) == 0)
			log_info("reconcile=adopt: took the switch's map");
		break;
	}
	return (0);
}

static int
port_lookup(void *arg, const char *name, uint32_t *p)
{
	return (drv_port_lookup(arg, name, p));
}

/* Connect (or reconnect), learn the size, read back, reconcile. */
static int
connect_switch(struct ocsd *d, char *err, size_t len)
{
	struct drv_opts o;
	struct drv_caps c;
	char            kh[PATH_MAX + 16];
	int             rv;

	if (d->drv == NULL) {
		memset(&o, 0, sizeof(o));
		o.user = d->conf->user;
		o.password = d->conf->password;
		o.timeout_ms = d->conf->timeout_ms;
		o.cancel_fd = d->cancel_fd;
		o.ports = d->conf->ports;
		o.switch_ms = d->conf->switch_ms;
		o.ca_file = d->conf->ca_file;
		o.ssh = d->conf->ssh;
		/* Host keys beside the desired map, unless told. */
		snprintf(kh, sizeof(kh), "%s%s",
		         d->conf->known_hosts[0] ? d->conf->known_hosts
		                                 : d->conf->state_dir,
		         d->conf->known_hosts[0] ? "" : "/known_hosts");
		o.known_hosts = kh;
		o.trace = trace;
		rv = drv_open(&d->drv, d->conf->driver, d->conf->address, &o);
		if (d->drv == NULL) {
			snprintf(err, len, "switch %s %s: %s", d->conf->driver,
			         d->conf->address, drv_strerror(rv));
			return (rv);
		}
	}
	if ((rv = drv_caps(d->drv, &c)) != 0) {
		sw_error(d, rv, "connecting", err, len);
		return (rv);
	}
	nng_mtx_lock(d->mtx);
	rv = conf_resolve_ports(d->conf, c.nports, drv_nout(&c), port_lookup,
	                        d->drv, err, len);
	nng_mtx_unlock(d->mtx);
	if (rv != 0)
		return (rv);
	if (d->have_desired && d->desired.n != c.nports) {
		snprintf(
		    err, len,
		    "switch %s %s has %u ports per side, the saved map %.300s "
		    "has %u: refusing to guess",
		    d->conf->driver, d->conf->address, c.nports,
		    d->desired_path, d->desired.n);
		return (-OCSD_ESTATE);
	}
	d->nports = c.nports;
	d->nout = c.nout ? c.nout : c.nports;
	if ((rv = refresh(d, err, len)) != 0)
		return (rv);
	nng_mtx_lock(d->mtx);
	d->connected = 1;
	d->sw_err[0] = '\0';
	ev_say(d->ev, "switch", "connected", NULL, 0, -1, "switch %s %s",
	       d->conf->driver, d->conf->address);
	nng_mtx_unlock(d->mtx);
	log_info("switch %s %s: connected, %ux%u, %u patches", d->conf->driver,
	         d->conf->address, c.nports, d->nout, map_count(&d->live));

	return (reconcile(d, err, len));
}

/* Connected, or an error naming the switch. */
static int
ensure(struct ocsd *d, char *err, size_t len)
{
	int rv;

	if (d->connected)
		return (0);
	if ((rv = connect_switch(d, err, len)) != 0) {
		set_down(d, err);
		return (rv);
	}
	d->backoff_ms = 0;
	d->next_poll_ms =
	    mono_ms() + (d->conf->poll_ms ? d->conf->poll_ms : UINT32_MAX);
	return (0);
}

/* Read back; for an adopt, the switch's map becomes the desired one. */
static int
do_read(struct ocsd *d, struct sw_job *j)
{
	int rv;

	if ((rv = ensure(d, j->err, sizeof(j->err))) != 0 ||
	    (rv = refresh(d, j->err, sizeof(j->err))) != 0)
		return (rv);
	if (j->op != SW_ADOPT)
		return (0);
	/* Whoever asked may refuse it now (a run started meanwhile). */
	if (j->plan != NULL &&
	    (rv = j->plan(d, j->arg, NULL, j->err, sizeof(j->err))) != 0)
		return (rv);
	nng_mtx_lock(d->mtx);
	rv = map_copy(&d->desired, &d->live);
	nng_mtx_unlock(d->mtx);
	if (rv != 0 || (rv = save_desired(d, j->err, sizeof(j->err))) != 0)
		return (rv);
	log_info("desired map: adopted the switch's %u patches",
	         map_count(&d->live));
	return (0);
}

/* Every port's power and state, ingress 1..N and egress N+1..2N. */
static int
do_ports(struct ocsd *d, struct sw_job *j)
{
	uint16_t *ports;
	uint32_t  i, n;
	int       rv;

	if ((rv = ensure(d, j->err, sizeof(j->err))) != 0)
		return (rv);
	/* Every egress the numbering has on this switch (N x M: min). */
	n = d->nports + (d->nout && d->nout < d->nports ? d->nout : d->nports);
	ports = calloc(n, sizeof(*ports));
	j->st = calloc(n + 1, sizeof(*j->st));
	if (ports == NULL || j->st == NULL) {
		free(ports);
		return (-ENOMEM);
	}
	for (i = 0; i < n; i++)
		ports[i] = (uint16_t)(i + 1);
	j->nst_ports = d->nports;
	j->nst_egress = n - d->nports;
	rv = drv_ports_state(d->drv, ports, n, j->st + 1);
	free(ports);
	if (rv == -ENOTSUP) {
		/* No monitor: every port without a reading. */
		for (i = 1; i <= n; i++)
			j->st[i] = (struct drv_port_state){DRV_NO_READING, 0};
		rv = 0;
	} else if (rv != 0)
		sw_error(d, rv, "reading port power", j->err, sizeof(j->err));
	if (rv == 0)
		rv = refresh(d, j->err, sizeof(j->err));
	return (rv);
}

/* A run's capture: only an emulated switch on the namespace testbed
 * knows the command. */
static int
do_capture(struct ocsd *d, struct sw_job *j)
{
	uint64_t run = *(const uint64_t *)j->arg;
	int      rv;

	if ((rv = ensure(d, j->err, sizeof(j->err))) != 0)
		return (rv);
	if ((j->cap = malloc(sizeof(*j->cap))) == NULL)
		return (-ENOMEM);
	rv = drv_capture(d->drv, (uint32_t)run, j->cap);
	if (rv == -ENOTSUP)
		snprintf(j->err, sizeof(j->err),
		         "the %s driver cannot ask for a capture",
		         d->conf->driver);
	else if (rv == -DRV_EDENIED)
		snprintf(j->err, sizeof(j->err),
		         "switch %s %s has no capture of run %llu (ocs-emu "
		         "--datapath netns:P --capture has): %s",
		         d->conf->driver, d->conf->address,
		         (unsigned long long)run,
		         drv_last_error(d->drv) ? drv_last_error(d->drv) : "");
	else if (rv != 0)
		sw_error(d, rv, "reading the capture", j->err, sizeof(j->err));
	return (rv);
}

/* Faults for a rehearsal: only an emulated switch knows the command. */
static int
do_fault(struct ocsd *d, struct sw_job *j)
{
	int rv;

	if ((rv = ensure(d, j->err, sizeof(j->err))) != 0)
		return (rv);
	rv = drv_inject(d->drv, j->arg, j->note, sizeof(j->note));
	if (rv == -ENOTSUP)
		snprintf(j->err, sizeof(j->err),
		         "the %s driver cannot inject faults",
		         d->conf->driver);
	else if (rv == -EINVAL)
		snprintf(j->err, sizeof(j->err),
		         "fault \"%.100s\": blanks or TL1 separators",
		         (const char *)j->arg);
	else if (rv == -DRV_EDENIED)
		snprintf(j->err, sizeof(j->err),
		         "switch %s %s refused the faults (only ocs-emu "
		         "takes them): %s",
		         d->conf->driver, d->conf->address,
		         drv_last_error(d->drv) ? drv_last_error(d->drv) : "");
	else if (rv != 0)
		sw_error(d, rv, "injecting faults", j->err, sizeof(j->err));
	else
		log_warnx("faults armed on switch %s %s: %s", d->conf->driver,
		          d->conf->address, j->note);
	return (rv);
}

/*
 * Make the switch hold the job's target (sw.h).  The plan runs now, not
 * when the job was queued, so two operators' changes compose instead of
 * the second undoing the first.  The desired map changes only once the
 * switch holds the target.
 */
static int
do_hold(struct ocsd *d, struct sw_job *j)
{
	struct sw_target t;
	uint64_t         t0 = mono_us();
	int              rv;

	memset(&t, 0, sizeof(t));
	if ((rv = ensure(d, j->err, sizeof(j->err))) != 0)
		return (rv);
	if (j->plan != NULL)
		rv = j->plan(d, j->arg, &t, j->err, sizeof(j->err));
	else
		rv = map_copy(&t.sw, &j->target);
	if (rv == 0 && t.desired.n == 0)
		rv = map_copy(&t.desired, &t.sw);
	if (rv != 0)
		goto out;
	if (t.sw.n != d->nports || t.desired.n != d->nports) {
		snprintf(j->err, sizeof(j->err),
		         "target map for %u ports, the switch has %u", t.sw.n,
		         d->nports);
		rv = -OCSD_EREQUEST;
		goto out;
	}
	/* A run's configurations are transient: its intent (run.state) was
	 * written once before phase 0, and the desired map stays. */
	if (j->transient) {
		rv = apply_target(d, &t.sw, &j->changed, j->err,
		                  sizeof(j->err));
		j->took_ms = (mono_us() - t0) / 1e3;
		goto out;
	}
	/* The intent first: on disk before the switch is touched, so a
	 * restart finds what was asked for; when it cannot be written the
	 * switch is left alone, and a change is never reported failed once
	 * it is on the switch. */
	if ((rv = save_map(d, &t.desired, j->err, sizeof(j->err))) != 0) {
		size_t l = strlen(j->err);

		snprintf(j->err + l, sizeof(j->err) - l,
		         "; nothing changed on the switch");
		goto out;
	}
	if ((rv = apply_target(d, &t.sw, &j->changed, j->err,
	                       sizeof(j->err))) != 0) {
		/* Not made (rolled back, refused, or the switch went down
		 * and gets the desired map back when it answers): the file
		 * goes back to the desired map as it was. */
		char e2[512];

		if (save_desired(d, e2, sizeof(e2)) != 0)
			log_warnx("the desired map on disk is the refused "
			          "change's: %s",
			          e2);
		goto out;
	}
	nng_mtx_lock(d->mtx);
	map_free(&d->desired);
	d->desired = t.desired;
	d->have_desired = 1;
	memset(&t.desired, 0, sizeof(t.desired));
	nng_mtx_unlock(d->mtx);
	j->took_ms = (mono_us() - t0) / 1e3;
	log_debug("hold: %u changes in %.1f ms", j->changed, j->took_ms);
out:
	map_free(&t.sw);
	map_free(&t.desired);
	return (rv);
}

static void
run_reload(struct ocsd *d, struct conf *nc)
{
	int  reopen = conf_switch_changed(d->conf, nc);
	char err[512];

	if (reopen && d->drv) {
		drv_close(d->drv);
		d->drv = NULL;
	}
	nng_mtx_lock(d->mtx);
	conf_free(d->conf);
	d->conf = nc;
	if (reopen)
		d->connected = 0;
	/* The same switch: its names number the new cabling now. */
	if (!reopen && d->connected &&
	    conf_resolve_ports(d->conf, d->nports,
	                       d->nout < d->nports ? d->nout : d->nports,
	                       port_lookup, d->drv, err, sizeof(err)) != 0) {
		log_warnx("reload: %s", err);
		d->connected = 0;
	}
	nng_mtx_unlock(d->mtx);
	d->next_try_ms = 0;
	log_info("configuration reloaded%s",
	         reopen ? "; reconnecting to the switch" : "");
}

static void
cancel(nng_aio *aio, void *arg, int rv)
{
	struct sw_job  *j = arg;
	struct ocsd    *d = nng_aio_get_input(aio, 0);
	struct sw_job **pp;

	nng_mtx_lock(d->mtx);
	if (!j->started) {
		for (pp = &d->qhead; *pp; pp = &(*pp)->next)
			if (*pp == j) {
				*pp = j->next;
				break;
			}
		d->qtail = NULL;
		for (pp = &d->qhead; *pp; pp = &(*pp)->next)
			d->qtail = *pp;
		j->started = 1; /* never run */
		nng_mtx_unlock(d->mtx);
		nng_aio_finish(aio, rv);
		return;
	}
	nng_mtx_unlock(d->mtx);
}

static void
enqueue(struct ocsd *d, struct sw_job *j)
{
	j->next = NULL;
	if (d->qtail)
		d->qtail->next = j;
	else
		d->qhead = j;
	d->qtail = j;
	nng_cv_wake(d->cv);
}

static void
submit(struct ocsd *d, struct sw_job *j, nng_aio *aio, int locked)
{
	if (!nng_aio_begin(aio))
		return;
	j->aio = aio;
	j->started = 0;
	nng_aio_set_input(aio, 0, d);
	if (!locked)
		nng_mtx_lock(d->mtx);
	nng_aio_defer(aio, cancel, j);
	enqueue(d, j);
	if (!locked)
		nng_mtx_unlock(d->mtx);
}

void
sw_submit(struct ocsd *d, struct sw_job *j, nng_aio *aio)
{
	submit(d, j, aio, 0);
}

void
sw_submit_locked(struct ocsd *d, struct sw_job *j, nng_aio *aio)
{
	submit(d, j, aio, 1);
}

void
sw_kick_locked(struct ocsd *d)
{
	if (!d->connected) {
		d->next_try_ms = 0;
		nng_cv_wake(d->cv);
	}
}

void
sw_submit_reload(struct ocsd *d, struct conf *nc)
{
	struct sw_job *j = calloc(1, sizeof(*j));

	if (j == NULL) {
		log_warnx("reload: out of memory, keeping the configuration");
		conf_free(nc);
		return;
	}
	j->op = SW_RELOAD;
	j->newconf = nc;
	nng_mtx_lock(d->mtx);
	enqueue(d, j);
	nng_mtx_unlock(d->mtx);
}

static void
worker(void *arg)
{
	struct ocsd   *d = arg;
	struct sw_job *j;
	char           err[768];
	uint64_t       now, due;

	for (;;) {
		nng_mtx_lock(d->mtx);
		for (;;) {
			now = mono_ms();
			due = d->connected ? d->next_poll_ms : d->next_try_ms;
			if (d->stop || d->qhead || now >= due)
				break;
			/* Sleep until the timer, at most a minute. */
			nng_cv_until(d->cv, nng_clock() + (due - now > 60000
			                                       ? 60000
			                                       : due - now));
		}
		if (d->stop && d->qhead == NULL) {
			d->worker_done = 1;
			nng_cv_wake(d->cv);
			nng_mtx_unlock(d->mtx);
			break;
		}
		j = d->qhead;
		if (j) {
			d->qhead = j->next;
			if (d->qhead == NULL)
				d->qtail = NULL;
			j->started = 1;
		}
		nng_mtx_unlock(d->mtx);

		if (j && j->op == SW_RELOAD) {
			run_reload(d, j->newconf);
			free(j);
			continue;
		}
		if (j) {
			j->rv = j->op == SW_HOLD      ? do_hold(d, j)
			        : j->op == SW_PORTS   ? do_ports(d, j)
			        : j->op == SW_FAULT   ? do_fault(d, j)
			        : j->op == SW_CAPTURE ? do_capture(d, j)
			                              : do_read(d, j);
			nng_aio_finish(j->aio, 0);
			continue;
		}
		/* Timers: reconnect, or the periodic read-back. */
		if (!d->connected) {
			if (ensure(d, err, sizeof(err)) != 0) {
				d->backoff_ms = d->backoff_ms
				                    ? d->backoff_ms * 2
				                    : SW_BACKOFF_MIN;
				if (d->backoff_ms > SW_BACKOFF_MAX)
					d->backoff_ms = SW_BACKOFF_MAX;
				d->next_try_ms = mono_ms() + d->backoff_ms;
				log_debug("%s; next try in %u ms", err,
				          d->backoff_ms);
			}
		} else {
			struct map before;

			memset(&before, 0, sizeof(before));
			if (map_copy(&before, &d->live) == 0 &&
			    refresh(d, err, sizeof(err)) == 0 &&
			    !map_equal(&before, &d->live))
				log_warnx("switch changed outside ocsd: %u "
				          "patches now (was %u)",
				          map_count(&d->live),
				          map_count(&before));
			map_free(&before);
			d->next_poll_ms =
			    mono_ms() +
			    (d->conf->poll_ms ? d->conf->poll_ms : UINT32_MAX);
		}
	}
}

int
sw_start(struct ocsd *d)
{
	d->next_try_ms = 0;
	d->next_poll_ms = UINT64_MAX;
	d->worker_done = 0;
	if ((d->cancel_fd = eventfd(0, EFD_CLOEXEC)) < 0)
		return (-errno);
	return (nng_thread_create(&d->thr, worker, d));
}

/*
 * Queued jobs are still run (each answers its caller, quickly); a batch
 * on its way to the switch gets a grace period, then the driver's waits
 * are cut short
 * (an unreachable switch would otherwise hold the stop for its whole
 * timeout and backoff).
 */
void
sw_stop(struct ocsd *d)
{
	uint64_t one = 1;
	nng_time until = nng_clock() + SW_STOP_GRACE_MS;

	nng_mtx_lock(d->mtx);
	d->stop = 1;
	nng_cv_wake(d->cv);
	while (!d->worker_done && d->applying && nng_clock() < until)
		nng_cv_until(d->cv, until);
	if (!d->worker_done && write(d->cancel_fd, &one, sizeof(one)) < 0)
		log_warnx("stopping the switch worker: %s", strerror(errno));
	nng_mtx_unlock(d->mtx);
	nng_thread_destroy(d->thr);
	d->thr = NULL;
	if (d->drv) {
		drv_close(d->drv);
		d->drv = NULL;
	}
	close(d->cancel_fd);
	d->cancel_fd = -1;
}

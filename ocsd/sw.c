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
sw_error(struct sw *s, int rv, const char *what, char *err, size_t len)
{
	const char *dev = s->drv ? drv_last_error(s->drv) : NULL;

	snprintf(err, len, "switch %s %s: %s: %s%s%s", s->tag,
	         s->cf.address[0] ? s->cf.address : "in-process", what,
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
set_down(struct sw *s, const char *err)
{
	nng_mtx_lock(s->d->mtx);
	if (s->connected) {
		log_warnx("%s", err);
		ev_say(s->d->ev, "switch", "down", NULL, 0, -1, "%s", err);
	}
	s->connected = 0;
	snprintf(s->sw_err, sizeof(s->sw_err), "%s", err);
	nng_mtx_unlock(s->d->mtx);
}

/* A read-back's outcome: m becomes s->live, or the error is said (and
 * m freed). */
static int
live_set(struct sw *s, struct map *m, int rv, char *err, size_t len)
{
	if (rv != 0) {
		sw_error(s, rv, "reading the cross-connects back", err, len);
		if (transport_error(rv))
			set_down(s, err);
		map_free(m);
		return (rv);
	}
	nng_mtx_lock(s->d->mtx);
	/* Watchers hear of circuits that changed, not of every read. */
	if (!s->have_live || !map_equal(&s->live, m))
		ev_say(s->d->ev, "switch", "circuits", NULL, 0, -1,
		       "%u patches on the switch", map_count(m));
	map_free(&s->live);
	s->live = *m;
	s->have_live = 1;
	s->live_ms = mono_ms();
	s->last_op_ms = s->drv->last_ns / 1e6;
	nng_mtx_unlock(s->d->mtx);
	return (0);
}

/* Read the switch back into s->live.  0 or a driver error (err set). */
static int
refresh(struct sw *s, char *err, size_t len)
{
	struct map m;
	int        rv, srv;

	if ((rv = map_init(&m, s->nports)) != 0)
		return (rv);
	rv = drv_read_map_state(s->drv, m.out, s->nports, NULL, 0, NULL, &srv);
	return (live_set(s, &m, rv, err, len));
}

static void
log_differences(struct sw *s, const char *why)
{
	uint32_t i, nd = 0;

	for (i = 1; i <= s->nports; i++) {
		if (s->live.out[i] == s->desired.out[i])
			continue;
		if (nd++ < 16)
			log_warnx("%s: ingress %u: switch has %u, desired %u",
			          why, i, s->live.out[i], s->desired.out[i]);
	}
	if (nd > 16)
		log_warnx("%s: ... %u differences in all", why, nd);
}

static int
save_map(struct sw *s, const struct map *m, char *err, size_t len)
{
	int rv = map_save(s->desired_path, m);

	if (rv != 0) {
		snprintf(err, len, "saving the desired map to %.300s: %s",
		         s->desired_path, strerror(-rv));
		log_warnx("%s", err);
		return (-OCSD_ESTATE);
	}
	return (0);
}

static int
save_desired(struct sw *s, char *err, size_t len)
{
	return (save_map(s, &s->desired, err, len));
}

/* One new patch's light: 0, or -DRV_ELIGHT and why.  Its ports are
 * named (a search of the cabling) only then, so that a batch of
 * thousands of patches is checked in time linear in its size. */
static int
light_ok(const struct sw *s, const struct drv_patch *p,
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
	/* The cabling is read under the lock (a reload swaps it). */
	nng_mtx_lock(s->d->mtx);
	xc_port_name(s->d->conf, s->idx, s->nports, p->in, a, sizeof(a));
	xc_port_name(s->d->conf, s->idx, s->nports, p->out, b, sizeof(b));
	nng_mtx_unlock(s->d->mtx);
	if (failed)
		snprintf(err, len,
		         "switch %s %s: circuit %s -> %s: port %s is FAILED "
		         "on the device",
		         s->tag, s->cf.address, a, b, in->failed ? a : b);
	else if (dark_in)
		snprintf(err, len,
		         "switch %s %s: circuit %s -> %s: no light into "
		         "ingress %s (%.1f dBm): the port failed or its host "
		         "is not transmitting",
		         s->tag, s->cf.address, a, b, a, in->dbm);
	else
		snprintf(err, len,
		         "switch %s %s: circuit %s -> %s carries no light: "
		         "ingress reads %.1f dBm, egress %.1f dBm",
		         s->tag, s->cf.address, a, b, in->dbm, out->dbm);
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
check_light(struct sw *s, const struct drv_patch *p, size_t np,
            struct sw_light *lc, char *err, size_t len)
{
	size_t i;
	int    rv = lc->srv, tries;

	if (np == 0 || lc->n == 0)
		return (0);
	for (tries = 0; tries < 2; tries++) {
		if (tries > 0)
			rv = drv_ports_state(s->drv, lc->ports, lc->n, lc->st);
		if (rv == -ENOTSUP) {
			rv = 0;
			break;
		}
		if (rv != 0) {
			sw_error(s, rv, "reading port power", err, len);
			break;
		}
		for (i = 0; i < np && rv == 0; i++)
			rv = light_ok(s, &p[i], &lc->st[2 * i],
			              &lc->st[2 * i + 1], err, len);
		if (rv == 0)
			break;
		/* A slow mirror may still be settling: one more look. */
		if (tries == 0 &&
		    net_sleep(s->cf.switch_ms + 10, s->cancel_fd) != 0) {
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
note_speed(struct sw *s, int rv)
{
	double took_ms = s->drv->last_ns / 1e6;
	int slow = s->cf.switch_ms > 0 && took_ms > 3.0 * s->cf.switch_ms + 2;

	nng_mtx_lock(s->d->mtx);
	s->last_op_ms = took_ms;
	if (rv == 0 && !slow && strncmp(s->sw_warn, "slow:", 5) == 0)
		s->sw_warn[0] = '\0';
	if (rv == 0 && slow)
		snprintf(s->sw_warn, sizeof(s->sw_warn),
		         "slow: last reconfiguration took %.0f ms, "
		         "switch_time is %u ms",
		         took_ms, s->cf.switch_ms);
	nng_mtx_unlock(s->d->mtx);
	if (rv == 0 && slow)
		log_warnx(
		    "switch %s %s: a reconfiguration took %.0f ms, %.1fx "
		    "the configured switch_time of %u ms",
		    s->tag, s->cf.address, took_ms, took_ms / s->cf.switch_ms,
		    s->cf.switch_ms);
}

/* The switch said it did: does its read-back say so too?  0 or
 * -OCSD_EMISMATCH naming the first port that differs. */
static int
read_back_is(struct sw *s, const struct map *target, char *err, size_t len)
{
	uint32_t i;

	if (map_equal(&s->live, target))
		return (0);
	for (i = 1; i <= s->nports; i++)
		if (s->live.out[i] != target->out[i])
			break;
	snprintf(err, len,
	         "switch %s %s: reported success, but reads back ingress "
	         "%u -> %u where %u was asked for",
	         s->tag, s->cf.address, i, s->live.out[i], target->out[i]);
	return (-OCSD_EMISMATCH);
}

/*
 * One batch from the live map to target, then a read-back.  0 only if the
 * switch now holds exactly target; *known says whether s->live is what
 * the switch holds now (the read-back worked).  The new patches go to
 * *newp (malloc'd) for the light check, and with it on, their ports'
 * power, read with the map, to *lc.
 */
static int
apply_once(struct sw *s, const struct map *target, uint32_t *changed,
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
	if ((rv = map_batch(&s->live, target, &mb)) != 0)
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
	if (s->cf.light_check && light_init(lc, *newp, *nnew) != 0) {
		map_batch_free(&mb);
		return (-ENOMEM);
	}
	if ((rv = map_init(&m, s->nports)) != 0) {
		map_batch_free(&mb);
		return (rv);
	}
	nng_mtx_lock(s->d->mtx);
	s->applying = 1; /* a stop lets it finish, for a while */
	nng_mtx_unlock(s->d->mtx);
	/* The read-back (and the new paths' power) after every apply,
	 * whatever it said, in the batch's last exchange where it can. */
	rv = drv_apply_read(s->drv, &mb.b, m.out, s->nports, lc->ports, lc->n,
	                    lc->st, &rb, &lc->srv);
	nng_mtx_lock(s->d->mtx);
	s->applying = 0;
	nng_mtx_unlock(s->d->mtx);
	map_batch_free(&mb);
	note_speed(s, rv);
	if (rv == -DRV_EPARTIAL && s->drv && drv_last_error(s->drv))
		/* The device's words say how far it got; the read-back
		 * below tells what is on the switch. */
		snprintf(
		    err, len, "switch %s %s: the batch stopped part way: %s",
		    s->tag, s->cf.address[0] ? s->cf.address : "in-process",
		    drv_last_error(s->drv));
	else if (rv != 0)
		sw_error(s, rv, "applying the batch", err, len);
	if (rb == -ENOTSUP)
		rb = drv_read_map_state(s->drv, m.out, s->nports, lc->ports,
		                        rv ? 0 : lc->n, lc->st, &lc->srv);
	rb = live_set(s, &m, rb, rv ? rberr : err, rv ? sizeof(rberr) : len);
	*known = rb == 0;
	/* Why the outcome is unknown: the read-back's own failure (a
	 * refused login, say) after the batch's. */
	if (rv != 0 && rb != 0) {
		size_t l = strlen(err);

		snprintf(err + l, len - l, "; then %s", rberr);
	}
	if (rv != 0) {
		if (transport_error(rv))
			set_down(s, err);
		return (rv);
	}
	return (rb != 0 ? rb : read_back_is(s, target, err, len));
}

/*
 * A batch of ours whose outcome is unknown: the desired map goes back on
 * the switch as soon as it answers, and the marker (run.state, as for an
 * interrupted run) tells a restarted ocsd to do the same.
 */
static void
mark_interrupted(struct sw *s)
{
	static const char mark[] = "# ocsd: a batch was cut off; on a "
	                           "restart the desired map is restored\n"
	                           "interrupted\n";
	int               rv;

	nng_mtx_lock(s->d->mtx);
	s->interrupted = 1;
	nng_mtx_unlock(s->d->mtx);
	if ((rv = path_write_atomic(s->mark_path, mark, sizeof(mark) - 1,
	                            0640)) != 0)
		log_warnx("cannot write %s: %s", s->mark_path, strerror(-rv));
}

/* The switch holds the desired map again: its marker goes, and a run's
 * intent once no switch still has to be put back. */
static void
clear_interrupted(struct sw *s)
{
	struct ocsd *d = s->d;
	uint32_t     i;
	int          any = 0;

	nng_mtx_lock(d->mtx);
	s->interrupted = 0;
	for (i = 0; i < d->nsw; i++)
		any |= d->sw[i].interrupted;
	nng_mtx_unlock(d->mtx);
	if (strcmp(s->mark_path, d->run_state_path) != 0)
		unlink(s->mark_path);
	if (!any)
		unlink(d->run_state_path);
}

/*
 * Make the switch hold `target`, or leave it as it was: a failed batch
 * that changed something the read-back can see is undone with one more
 * batch (best effort, said in err).  0 only if the switch holds exactly
 * target and its new paths carry light.
 */
static int
apply_target(struct sw *s, const struct map *target, uint32_t *changed,
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
	if ((rv = map_copy(&before, &s->live)) != 0)
		return (rv);
	rv = apply_once(s, target, changed, &newp, &nnew, &lc, &known, err,
	                len);
	if (rv == 0)
		rv = check_light(s, newp, nnew, &lc, err, len);
	if (rv != 0 && known && !map_equal(&s->live, &before)) {
		size_t l = strlen(err);

		rb = apply_once(s, &before, &c2, &np2, &n2, &lc2, &k2, rberr,
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
		mark_interrupted(s);
		snprintf(err + l, len - l,
		         "; the switch state is unknown until it answers "
		         "again, then the desired map is restored");
		set_down(s, err);
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
reconcile(struct sw *s, char *err, size_t len)
{
	struct map          dm;
	uint32_t            changed;
	enum conf_reconcile policy;
	int                 rv;

	if (!s->have_desired) {
		nng_mtx_lock(s->d->mtx);
		rv = map_copy(&s->desired, &s->live);
		s->have_desired = rv == 0;
		nng_mtx_unlock(s->d->mtx);
		if (rv == 0 && save_desired(s, err, len) == 0)
			log_info("%sno saved map: adopted the switch's %u "
			         "patches as desired",
			         s->pfx, map_count(&s->live));
		return (0);
	}
	if (map_equal(&s->live, &s->desired)) {
		clear_interrupted(s);
		return (0);
	}
	/* A run was in progress when ocsd stopped: its circuits are not
	 * anyone's intent, so the desired map returns whatever the policy
	 * for changes made by others. */
	if (access(s->d->run_state_path, F_OK) == 0 ||
	    access(s->mark_path, F_OK) == 0) {
		log_warnx("%sa run or a batch was in progress when ocsd "
		          "stopped (%s): restoring the desired map",
		          s->pfx,
		          access(s->mark_path, F_OK) == 0
		              ? s->mark_path
		              : s->d->run_state_path);
		nng_mtx_lock(s->d->mtx);
		s->interrupted = 1;
		nng_mtx_unlock(s->d->mtx);
	}
	if (s->interrupted) {
		/* Our own batch was cut off half way: undo it whatever the
		 * reconcile policy for changes made by others. */
		log_differences(s, "after an interrupted batch");
		if (map_init(&dm, s->nports) != 0)
			return (-ENOMEM);
		memcpy(dm.out, s->desired.out,
		       (s->nports + 1) * sizeof(*dm.out));
		rv = apply_target(s, &dm, &changed, err, len);
		map_free(&dm);
		if (rv != 0) {
			log_warnx("%sundoing an interrupted batch: %s", s->pfx,
			          err);
			return (rv);
		}
		clear_interrupted(s);
		log_info("%sinterrupted batch undone: %u changes, the switch "
		         "holds the desired map",
		         s->pfx, changed);
		return (0);
	}
	log_differences(s, "switch differs from the desired map");
	nng_mtx_lock(s->d->mtx);
	policy = s->d->conf->reconcile;
	nng_mtx_unlock(s->d->mtx);
	switch (policy) {
	case CONF_RECON_HOLD:
		log_warnx(
		    "%slive circuits left as they are: 'ocsctl map diff' "
		    "shows, 'ocsctl map sync' pushes the desired map, "
		    "'ocsctl map adopt' keeps the switch's",
		    s->pfx);
		break;
	case CONF_RECON_PUSH:
		if (map_init(&dm, s->nports) == 0) {
			memcpy(dm.out, s->desired.out,
			       (s->nports + 1) * sizeof(*dm.out));
			if (apply_target(s, &dm, &changed, err, len) != 0)
				log_warnx("%sreconcile=push: %s", s->pfx, err);
			else
				log_info(
				    "%sreconcile=push: %u changes applied",
				    s->pfx, changed);
			map_free(&dm);
		}
		break;
	case CONF_RECON_ADOPT:
		nng_mtx_lock(s->d->mtx);
		rv = map_copy(&s->desired, &s->live);
		nng_mtx_unlock(s->d->mtx);
		if (rv == 0 && save_desired(s, err, len) == 0)
			log_info("%sreconcile=adopt: took the switch's map",
			         s->pfx);
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
connect_switch(struct sw *s, char *err, size_t len)
{
	struct drv_opts o;
	struct drv_caps c;
	int             rv;

	if (s->drv == NULL) {
		memset(&o, 0, sizeof(o));
		o.user = s->cf.user;
		o.password = s->cf.password;
		o.timeout_ms = s->cf.timeout_ms;
		o.cancel_fd = s->cancel_fd;
		o.ports = s->cf.ports;
		o.switch_ms = s->cf.switch_ms;
		o.ca_file = s->cf.ca_file;
		o.ssh = s->cf.ssh;
		o.known_hosts = s->known_hosts;
		o.trace = trace;
		rv = drv_open(&s->drv, s->cf.driver, s->cf.address, &o);
		if (s->drv == NULL) {
			snprintf(err, len, "switch %s %s: %s", s->tag,
			         s->cf.address, drv_strerror(rv));
			return (rv);
		}
	}
	if ((rv = drv_caps(s->drv, &c)) != 0) {
		sw_error(s, rv, "connecting", err, len);
		return (rv);
	}
	nng_mtx_lock(s->d->mtx);
	rv = conf_resolve_ports(s->d->conf, s->idx, c.nports, drv_nout(&c),
	                        port_lookup, s->drv, err, len);
	nng_mtx_unlock(s->d->mtx);
	if (rv != 0)
		return (rv);
	if (s->have_desired && s->desired.n != c.nports) {
		snprintf(
		    err, len,
		    "switch %s %s has %u ports per side, the saved map %.300s "
		    "has %u: refusing to guess",
		    s->tag, s->cf.address, c.nports, s->desired_path,
		    s->desired.n);
		return (-OCSD_ESTATE);
	}
	s->nports = c.nports;
	s->nout = c.nout ? c.nout : c.nports;
	if ((rv = refresh(s, err, len)) != 0)
		return (rv);
	nng_mtx_lock(s->d->mtx);
	s->connected = 1;
	s->sw_err[0] = '\0';
	ev_say(s->d->ev, "switch", "connected", NULL, 0, -1, "switch %s %s",
	       s->tag, s->cf.address);
	nng_mtx_unlock(s->d->mtx);
	log_info("switch %s %s: connected, %ux%u, %u patches", s->tag,
	         s->cf.address, c.nports, s->nout, map_count(&s->live));

	return (reconcile(s, err, len));
}

/* Connected, or an error naming the switch. */
static int
ensure(struct sw *s, char *err, size_t len)
{
	int rv;

	if (s->connected)
		return (0);
	if ((rv = connect_switch(s, err, len)) != 0) {
		set_down(s, err);
		return (rv);
	}
	s->backoff_ms = 0;
	s->next_poll_ms =
	    mono_ms() + (s->cf.poll_ms ? s->cf.poll_ms : UINT32_MAX);
	return (0);
}

/* Read back; for an adopt, the switch's map becomes the desired one. */
static int
do_read(struct sw *s, struct sw_job *j)
{
	int rv;

	if ((rv = ensure(s, j->err, sizeof(j->err))) != 0 ||
	    (rv = refresh(s, j->err, sizeof(j->err))) != 0)
		return (rv);
	if (j->op != SW_ADOPT)
		return (0);
	/* Whoever asked may refuse it now (a run started meanwhile). */
	nng_mtx_lock(s->d->mtx);
	if (j->plan != NULL)
		rv = j->plan(s->d, s, j->arg, NULL, j->err, sizeof(j->err));
	if (rv == 0)
		rv = map_copy(&s->desired, &s->live);
	nng_mtx_unlock(s->d->mtx);
	if (rv != 0 || (rv = save_desired(s, j->err, sizeof(j->err))) != 0)
		return (rv);
	log_info("%sdesired map: adopted the switch's %u patches", s->pfx,
	         map_count(&s->live));
	return (0);
}

/* Every port's power and state, ingress 1..N and egress N+1..2N. */
static int
do_ports(struct sw *s, struct sw_job *j)
{
	uint16_t *ports;
	uint32_t  i, n;
	int       rv;

	if ((rv = ensure(s, j->err, sizeof(j->err))) != 0)
		return (rv);
	/* Every egress the numbering has on this switch (N x M: min). */
	n = s->nports + (s->nout && s->nout < s->nports ? s->nout : s->nports);
	ports = calloc(n, sizeof(*ports));
	j->st = calloc(n + 1, sizeof(*j->st));
	if (ports == NULL || j->st == NULL) {
		free(ports);
		return (-ENOMEM);
	}
	for (i = 0; i < n; i++)
		ports[i] = (uint16_t)(i + 1);
	j->nst_ports = s->nports;
	j->nst_egress = n - s->nports;
	rv = drv_ports_state(s->drv, ports, n, j->st + 1);
	free(ports);
	if (rv == -ENOTSUP) {
		/* No monitor: every port without a reading. */
		for (i = 1; i <= n; i++)
			j->st[i] = (struct drv_port_state){DRV_NO_READING, 0};
		rv = 0;
	} else if (rv != 0)
		sw_error(s, rv, "reading port power", j->err, sizeof(j->err));
	if (rv == 0)
		rv = refresh(s, j->err, sizeof(j->err));
	return (rv);
}

/* A run's capture: only an emulated switch on the namespace testbed
 * knows the command. */
static int
do_capture(struct sw *s, struct sw_job *j)
{
	uint64_t run = *(const uint64_t *)j->arg;
	int      rv;

	if ((rv = ensure(s, j->err, sizeof(j->err))) != 0)
		return (rv);
	if ((j->cap = malloc(sizeof(*j->cap))) == NULL)
		return (-ENOMEM);
	rv = drv_capture(s->drv, (uint32_t)run, j->cap);
	if (rv == -ENOTSUP)
		snprintf(j->err, sizeof(j->err),
		         "the %s driver cannot ask for a capture",
		         s->cf.driver);
	else if (rv == -DRV_EDENIED)
		snprintf(j->err, sizeof(j->err),
		         "switch %s %s has no capture of run %llu (ocs-emu "
		         "--datapath netns:P --capture has): %s",
		         s->tag, s->cf.address, (unsigned long long)run,
		         drv_last_error(s->drv) ? drv_last_error(s->drv) : "");
	else if (rv != 0)
		sw_error(s, rv, "reading the capture", j->err, sizeof(j->err));
	return (rv);
}

/* Faults for a rehearsal: only an emulated switch knows the command. */
static int
do_fault(struct sw *s, struct sw_job *j)
{
	int rv;

	if ((rv = ensure(s, j->err, sizeof(j->err))) != 0)
		return (rv);
	rv = drv_inject(s->drv, j->arg, j->note, sizeof(j->note));
	if (rv == -ENOTSUP)
		snprintf(j->err, sizeof(j->err),
		         "the %s driver cannot inject faults", s->cf.driver);
	else if (rv == -EINVAL)
		snprintf(j->err, sizeof(j->err),
		         "fault \"%.100s\": blanks or TL1 separators",
		         (const char *)j->arg);
	else if (rv == -DRV_EDENIED)
		snprintf(j->err, sizeof(j->err),
		         "switch %s %s refused the faults (only ocs-emu "
		         "takes them): %s",
		         s->tag, s->cf.address,
		         drv_last_error(s->drv) ? drv_last_error(s->drv) : "");
	else if (rv != 0)
		sw_error(s, rv, "injecting faults", j->err, sizeof(j->err));
	else
		log_warnx("faults armed on switch %s %s: %s", s->tag,
		          s->cf.address, j->note);
	return (rv);
}

/*
 * Make the switch hold the job's target (sw.h).  The plan runs now, not
 * when the job was queued, so two operators' changes compose instead of
 * the second undoing the first.  The desired map changes only once the
 * switch holds the target.
 */
static int
do_hold(struct sw *s, struct sw_job *j)
{
	struct sw_target t;
	uint64_t         t0 = mono_us();
	int              rv;

	memset(&t, 0, sizeof(t));
	if ((rv = ensure(s, j->err, sizeof(j->err))) != 0)
		return (rv);
	if (j->plan != NULL) {
		nng_mtx_lock(s->d->mtx);
		rv = j->plan(s->d, s, j->arg, &t, j->err, sizeof(j->err));
		nng_mtx_unlock(s->d->mtx);
	} else
		rv = map_copy(&t.sw, &j->target);
	if (rv == 0 && t.desired.n == 0)
		rv = map_copy(&t.desired, &t.sw);
	if (rv != 0)
		goto out;
	if (t.sw.n != s->nports || t.desired.n != s->nports) {
		snprintf(j->err, sizeof(j->err),
		         "target map for %u ports, the switch has %u", t.sw.n,
		         s->nports);
		rv = -OCSD_EREQUEST;
		goto out;
	}
	/* A run's configurations are transient: its intent (run.state) was
	 * written once before phase 0, and the desired map stays. */
	if (j->transient) {
		rv = apply_target(s, &t.sw, &j->changed, j->err,
		                  sizeof(j->err));
		j->took_ms = (mono_us() - t0) / 1e3;
		goto out;
	}
	/* The intent first: on disk before the switch is touched, so a
	 * restart finds what was asked for; when it cannot be written the
	 * switch is left alone, and a change is never reported failed once
	 * it is on the switch. */
	if ((rv = save_map(s, &t.desired, j->err, sizeof(j->err))) != 0) {
		size_t l = strlen(j->err);

		snprintf(j->err + l, sizeof(j->err) - l,
		         "; nothing changed on the switch");
		goto out;
	}
	if ((rv = apply_target(s, &t.sw, &j->changed, j->err,
	                       sizeof(j->err))) != 0) {
		/* Not made (rolled back, refused, or the switch went down
		 * and gets the desired map back when it answers): the file
		 * goes back to the desired map as it was. */
		char e2[512];

		if (save_desired(s, e2, sizeof(e2)) != 0)
			log_warnx("the desired map on disk is the refused "
			          "change's: %s",
			          e2);
		goto out;
	}
	nng_mtx_lock(s->d->mtx);
	/* The switch's read-back told watchers of its circuits before the
	 * desired map had them: they hear of that too, or a watcher (ocs-web)
	 * shows drift until something else changes. */
	if (!s->have_desired || !map_equal(&s->desired, &t.desired))
		ev_say(s->d->ev, "switch", "desired", NULL, 0, -1,
		       "%u patches desired", map_count(&t.desired));
	map_free(&s->desired);
	s->desired = t.desired;
	s->have_desired = 1;
	memset(&t.desired, 0, sizeof(t.desired));
	nng_mtx_unlock(s->d->mtx);
	j->took_ms = (mono_us() - t0) / 1e3;
	log_debug("hold: %u changes in %.1f ms", j->changed, j->took_ms);
out:
	map_free(&t.sw);
	map_free(&t.desired);
	return (rv);
}

/* The worker's own copy of its section (d->mtx held). */
static void
take_conf(struct sw *s)
{
	const struct conf *c = s->d->conf;

	s->cf = c->sw[s->idx];
	s->cf.at_in = s->cf.at_out = NULL; /* the conf's, not ours */
	snprintf(s->label, sizeof(s->label), "%s",
	         conf_switch_label(c, s->idx));
	if (s->cf.name[0]) {
		snprintf(s->tag, sizeof(s->tag), "%s (%s)", s->cf.name,
		         s->cf.driver);
		snprintf(s->pfx, sizeof(s->pfx), "%s: ", s->cf.name);
	} else {
		snprintf(s->tag, sizeof(s->tag), "%s", s->cf.driver);
		s->pfx[0] = '\0';
	}
	/* Host keys beside the desired map, unless told. */
	snprintf(s->known_hosts, sizeof(s->known_hosts), "%s%s",
	         s->cf.known_hosts[0] ? s->cf.known_hosts : c->state_dir,
	         s->cf.known_hosts[0] ? "" : "/known_hosts");
}

/* The new configuration is in d->conf (sw_reload): this switch's
 * section, and its cabling's names numbered again. */
static void
run_reload(struct sw *s)
{
	int  reopen;
	char err[512];

	nng_mtx_lock(s->d->mtx);
	reopen = conf_switch_changed(&s->cf, &s->d->conf->sw[s->idx]);
	take_conf(s);
	nng_mtx_unlock(s->d->mtx);
	if (reopen && s->drv) {
		drv_close(s->drv);
		s->drv = NULL;
	}
	nng_mtx_lock(s->d->mtx);
	if (reopen)
		s->connected = 0;
	/* The same switch: its names number the new cabling now. */
	if (!reopen && s->connected &&
	    conf_resolve_ports(s->d->conf, s->idx, s->nports,
	                       s->nout < s->nports ? s->nout : s->nports,
	                       port_lookup, s->drv, err, sizeof(err)) != 0) {
		log_warnx("%sreload: %s", s->pfx, err);
		s->connected = 0;
	}
	nng_mtx_unlock(s->d->mtx);
	s->next_try_ms = 0;
	log_info("%sconfiguration reloaded%s", s->pfx,
	         reopen ? "; reconnecting to the switch" : "");
}

static void
cancel(nng_aio *aio, void *arg, int rv)
{
	struct sw_job  *j = arg;
	struct sw      *s = nng_aio_get_input(aio, 0);
	struct sw_job **pp;

	nng_mtx_lock(s->d->mtx);
	if (!j->started) {
		for (pp = &s->qhead; *pp; pp = &(*pp)->next)
			if (*pp == j) {
				*pp = j->next;
				break;
			}
		s->qtail = NULL;
		for (pp = &s->qhead; *pp; pp = &(*pp)->next)
			s->qtail = *pp;
		j->started = 1; /* never run */
		nng_mtx_unlock(s->d->mtx);
		nng_aio_finish(aio, rv);
		return;
	}
	nng_mtx_unlock(s->d->mtx);
}

/* Every worker sleeps on the one condition: all of them wake, and each
 * looks at its own queue and timers. */
static void
enqueue(struct sw *s, struct sw_job *j)
{
	j->next = NULL;
	if (s->qtail)
		s->qtail->next = j;
	else
		s->qhead = j;
	s->qtail = j;
	nng_cv_wake(s->d->cv);
}

static void
submit(struct sw *s, struct sw_job *j, nng_aio *aio, int locked)
{
	if (!nng_aio_begin(aio))
		return;
	j->aio = aio;
	j->started = 0;
	nng_aio_set_input(aio, 0, s);
	if (!locked)
		nng_mtx_lock(s->d->mtx);
	nng_aio_defer(aio, cancel, j);
	enqueue(s, j);
	if (!locked)
		nng_mtx_unlock(s->d->mtx);
}

void
sw_submit(struct sw *s, struct sw_job *j, nng_aio *aio)
{
	submit(s, j, aio, 0);
}

void
sw_submit_locked(struct sw *s, struct sw_job *j, nng_aio *aio)
{
	submit(s, j, aio, 1);
}

void
sw_kick_locked(struct sw *s)
{
	if (!s->connected) {
		s->next_try_ms = 0;
		nng_cv_wake(s->d->cv);
	}
}

struct sw *
sw_find(struct ocsd *d, const char *name)
{
	int k;

	if (name == NULL || name[0] == '\0')
		return (d->nsw == 1 ? &d->sw[0] : NULL);
	k = conf_switch_find(d->conf, name);
	return (k < 0 || (uint32_t)k >= d->nsw ? NULL : &d->sw[k]);
}

int
sw_reload(struct ocsd *d, struct conf *nc)
{
	struct sw_job *j[CONF_SWITCH_MAX];
	uint32_t       i;

	if (!conf_same_switches(d->conf, nc)) {
		log_warnx("reload: switches added, removed or renamed need a "
		          "restart; keeping the configuration");
		conf_free(nc);
		return (-EBUSY);
	}
	for (i = 0; i < d->nsw; i++)
		if ((j[i] = calloc(1, sizeof(*j[i]))) == NULL) {
			while (i-- > 0)
				free(j[i]);
			log_warnx("reload: out of memory, keeping the "
			          "configuration");
			conf_free(nc);
			return (-ENOMEM);
		}
	/* Every reader of the configuration holds the lock, the workers
	 * too (they keep their own copy of their section): the swap is
	 * whole, and names already looked up stay numbered until each
	 * worker looks them up again. */
	nng_mtx_lock(d->mtx);
	conf_carry_ports(nc, d->conf);
	conf_free(d->conf);
	d->conf = nc;
	for (i = 0; i < d->nsw; i++) {
		j[i]->op = SW_RELOAD;
		enqueue(&d->sw[i], j[i]);
	}
	nng_mtx_unlock(d->mtx);
	return (0);
}

/* The next job, or NULL for a timer or a stop (*stop set). */
static struct sw_job *
next_job(struct sw *s, int *stop)
{
	struct sw_job *j;
	uint64_t       now, due;

	nng_mtx_lock(s->d->mtx);
	for (;;) {
		now = mono_ms();
		due = s->connected ? s->next_poll_ms : s->next_try_ms;
		if (s->stop || s->qhead || now >= due)
			break;
		/* Sleep until the timer, at most a minute. */
		nng_cv_until(s->d->cv,
		             nng_clock() +
		                 (due - now > 60000 ? 60000 : due - now));
	}
	*stop = s->stop && s->qhead == NULL;
	if (*stop) {
		s->worker_done = 1;
		nng_cv_wake(s->d->cv);
		nng_mtx_unlock(s->d->mtx);
		return (NULL);
	}
	j = s->qhead;
	if (j) {
		s->qhead = j->next;
		if (s->qhead == NULL)
			s->qtail = NULL;
		j->started = 1;
	}
	nng_mtx_unlock(s->d->mtx);
	return (j);
}

/* Timers: reconnect, or the periodic read-back. */
static void
on_timer(struct sw *s)
{
	char       err[768];
	struct map before;

	if (!s->connected) {
		if (ensure(s, err, sizeof(err)) != 0) {
			s->backoff_ms =
			    s->backoff_ms ? s->backoff_ms * 2 : SW_BACKOFF_MIN;
			if (s->backoff_ms > SW_BACKOFF_MAX)
				s->backoff_ms = SW_BACKOFF_MAX;
			s->next_try_ms = mono_ms() + s->backoff_ms;
			log_debug("%s; next try in %u ms", err, s->backoff_ms);
		}
		return;
	}
	memset(&before, 0, sizeof(before));
	if (map_copy(&before, &s->live) == 0 &&
	    refresh(s, err, sizeof(err)) == 0 && !map_equal(&before, &s->live))
		log_warnx("%sswitch changed outside ocsd: %u patches now (was "
		          "%u)",
		          s->pfx, map_count(&s->live), map_count(&before));
	map_free(&before);
	s->next_poll_ms =
	    mono_ms() + (s->cf.poll_ms ? s->cf.poll_ms : UINT32_MAX);
}

static void
worker(void *arg)
{
	struct sw     *s = arg;
	struct sw_job *j;
	int            stop;

	for (;;) {
		j = next_job(s, &stop);
		if (stop)
			break;
		if (j && j->op == SW_RELOAD) {
			run_reload(s);
			free(j);
			continue;
		}
		if (j) {
			j->rv = j->op == SW_HOLD      ? do_hold(s, j)
			        : j->op == SW_PORTS   ? do_ports(s, j)
			        : j->op == SW_FAULT   ? do_fault(s, j)
			        : j->op == SW_CAPTURE ? do_capture(s, j)
			                              : do_read(s, j);
			nng_aio_finish(j->aio, 0);
			continue;
		}
		on_timer(s);
	}
}

/* One switch's saved desired map: a missing one is fine, a bad one is
 * not. */
static int
load_desired(struct sw *s)
{
	char err[600];
	int  rv;

	rv = map_load(s->desired_path, &s->desired, err, sizeof(err));
	if (rv == -ENOENT) {
		log_info("%sstate: no %s yet", s->pfx, s->desired_path);
		return (0);
	}
	if (rv != 0) {
		log_warnx("%sstate: %s (fix or remove it; ocsd will not guess "
		          "what the operator wanted)",
		          s->pfx, err);
		return (rv);
	}
	s->have_desired = 1;
	log_info("%sstate: desired map %s: %u patches on a %ux%u switch",
	         s->pfx, s->desired_path, map_count(&s->desired), s->desired.n,
	         s->desired.n);
	return (0);
}

/*
 * A lone switch keeps the names it always had (desired.map, and a cut
 * batch marked in run.state); a fabric's switch has its own
 * (desired-NAME.map, interrupted-NAME).
 */
int
sw_init(struct ocsd *d)
{
	const char *dir = d->conf->state_dir;
	uint32_t    i;
	int         rv, n1, n2;

	if ((d->sw = calloc(d->conf->nsw, sizeof(*d->sw))) == NULL)
		return (-ENOMEM);
	d->nsw = d->conf->nsw;
	for (i = 0; i < d->nsw; i++) {
		struct sw  *s = &d->sw[i];
		const char *nm = d->conf->sw[i].name;

		s->d = d;
		s->idx = i;
		s->cancel_fd = -1;
		take_conf(s);
		n1 = snprintf(s->desired_path, sizeof(s->desired_path),
		              "%s/desired%s%s.map", dir, nm[0] ? "-" : "", nm);
		n2 = nm[0] ? snprintf(s->mark_path, sizeof(s->mark_path),
		                      "%s/interrupted-%s", dir, nm)
		           : snprintf(s->mark_path, sizeof(s->mark_path), "%s",
		                      d->run_state_path);
		if (n1 < 0 || (size_t)n1 >= sizeof(s->desired_path) ||
		    n2 < 0 || (size_t)n2 >= sizeof(s->mark_path)) {
			log_warnx("state: dir %s: path too long", dir);
			return (-ENAMETOOLONG);
		}
		if ((rv = load_desired(s)) != 0)
			return (rv);
	}
	return (0);
}

void
sw_free(struct ocsd *d)
{
	uint32_t i;

	for (i = 0; d->sw != NULL && i < d->nsw; i++) {
		map_free(&d->sw[i].live);
		map_free(&d->sw[i].desired);
	}
	free(d->sw);
	d->sw = NULL;
	d->nsw = 0;
}

int
sw_start(struct ocsd *d)
{
	uint32_t i;
	int      rv, intent = access(d->run_state_path, F_OK) == 0;

	for (i = 0; i < d->nsw; i++) {
		struct sw *s = &d->sw[i];

		s->next_try_ms = 0;
		s->next_poll_ms = UINT64_MAX;
		s->worker_done = 0;
		/* A run's intent left by the last ocsd: every switch puts
		 * its desired map back before run.state goes. */
		s->interrupted = intent;
		if ((s->cancel_fd = eventfd(0, EFD_CLOEXEC)) < 0)
			return (-errno);
	}
	for (i = 0; i < d->nsw; i++)
		if ((rv = nng_thread_create(&d->sw[i].thr, worker,
		                            &d->sw[i])) != 0)
			return (rv);
	return (0);
}

/*
 * Queued jobs are still run (each answers its caller, quickly); a batch
 * on its way to a switch gets a grace period, then the driver's waits
 * are cut short (an unreachable switch would otherwise hold the stop for
 * its whole timeout and backoff).  Every worker is told first, so that
 * the grace periods run side by side.
 */
void
sw_stop(struct ocsd *d)
{
	uint64_t one = 1;
	nng_time until = nng_clock() + SW_STOP_GRACE_MS;
	uint32_t i;
	int      busy;

	nng_mtx_lock(d->mtx);
	for (i = 0; i < d->nsw; i++)
		d->sw[i].stop = 1;
	nng_cv_wake(d->cv);
	for (;;) {
		for (busy = 0, i = 0; i < d->nsw; i++)
			busy |= d->sw[i].thr && !d->sw[i].worker_done &&
			        d->sw[i].applying;
		if (!busy || nng_clock() >= until)
			break;
		nng_cv_until(d->cv, until);
	}
	for (i = 0; i < d->nsw; i++) {
		struct sw *s = &d->sw[i];

		if (s->thr && !s->worker_done && s->cancel_fd >= 0 &&
		    write(s->cancel_fd, &one, sizeof(one)) < 0)
			log_warnx("stopping the switch worker: %s",
			          strerror(errno));
	}
	nng_mtx_unlock(d->mtx);
	for (i = 0; i < d->nsw; i++) {
		struct sw *s = &d->sw[i];

		if (s->thr != NULL)
			nng_thread_destroy(s->thr);
		s->thr = NULL;
		if (s->drv) {
			drv_close(s->drv);
			s->drv = NULL;
		}
		if (s->cancel_fd >= 0)
			close(s->cancel_fd);
		s->cancel_fd = -1;
	}
}

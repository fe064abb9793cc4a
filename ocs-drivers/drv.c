/* SPDX-License-Identifier: BSD-2-Clause */
/* Driver registry and the wrappers callers use instead of the ops. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ocs-drivers/drv.h"
#include "proto/base/mono.h"

static const struct drv_ops *const drv_table[] = {
    &drv_emu_ops,     &drv_polatis_ops,     &drv_polatis_netconf_ops,
    &drv_calient_ops, &drv_calient_tl1_ops, NULL,
};

static const char *const drv_errtab[] = {
    [DRV_EDENIED - DRV_EBASE] = "device refused the command",
    [DRV_EPARTIAL - DRV_EBASE] = "batch may be half applied",
    [DRV_EAUTH - DRV_EBASE] = "login refused",
    [DRV_EPROTO - DRV_EBASE] = "unparseable device reply",
    [DRV_EPORT - DRV_EBASE] = "port out of range",
    [DRV_EBUSY - DRV_EBASE] = "port already patched",
    [DRV_EUNKNOWN - DRV_EBASE] = "unknown driver",
    [DRV_EPERM - DRV_EBASE] = "not permitted for this account",
    [DRV_ELIGHT - DRV_EBASE] = "path carries no light",
};

const char *
drv_strerror(int rv)
{
	int e = -rv;

	if (e > DRV_EBASE && e < DRV_EMAX && drv_errtab[e - DRV_EBASE])
		return (drv_errtab[e - DRV_EBASE]);
	if (e > 0 && e < DRV_EBASE)
		return (strerror(e));
	return ("unknown error");
}

const struct drv_ops *
drv_lookup(const char *name)
{
	size_t i;

	for (i = 0; drv_table[i] != NULL; i++)
		if (strcmp(drv_table[i]->name, name) == 0)
			return (drv_table[i]);
	return (NULL);
}

int
drv_port_name_ok(const char *driver, const char *name)
{
	const struct drv_ops *o;
	size_t                i;

	for (i = 0; (o = drv_table[i]) != NULL; i++)
		if ((driver == NULL || strcmp(o->name, driver) == 0) &&
		    o->port_name_ok != NULL && o->port_name_ok(name))
			return (1);
	return (0);
}

const char *
drv_names(void)
{
	return ("emu, polatis, polatis-netconf, calient, calient-tl1");
}

int
drv_open(struct drv **out, const char *name, const char *url,
         const struct drv_opts *opts)
{
	const struct drv_ops *ops = drv_lookup(name);
	struct drv           *d;
	uint64_t              t0 = mono_ns();
	int                   rv;

	*out = NULL;
	if (ops == NULL)
		return (-DRV_EUNKNOWN);
	if (opts == NULL || opts->timeout_ms <= 0 || url == NULL)
		return (-EINVAL);
	if ((d = calloc(1, sizeof(*d))) == NULL)
		return (-ENOMEM);
	if ((d->priv = calloc(1, ops->priv_size ? ops->priv_size : 1)) ==
	    NULL) {
		free(d);
		return (-ENOMEM);
	}
	d->ops = ops;
	snprintf(d->name, sizeof(d->name), "%s", name);
	snprintf(d->url, sizeof(d->url), "%s", url);
	rv = ops->open(d->priv, url, opts);
	d->last_ns = mono_ns() - t0;
	/* A switch that is down still gives a handle: the worker keeps it
	 * and reconnects.  Only what no retry can fix returns none. */
	if (rv == -EINVAL || rv == -ENOMEM) {
		drv_close(d);
		return (rv);
	}
	*out = d;
	return (rv);
}

void
drv_close(struct drv *d)
{
	if (d == NULL)
		return;
	d->ops->close(d->priv);
	free(d->priv);
	free(d);
}

int
drv_caps(struct drv *d, struct drv_caps *c)
{
	int rv;

	if (!d->have_caps) {
		if ((rv = d->ops->caps(d->priv, &d->caps)) != 0)
			return (rv);
		if (d->caps.nports == 0 || d->caps.nports > DRV_MAX_PORTS)
			return (-DRV_EPROTO);
		d->have_caps = 1;
	}
	*c = d->caps;
	return (0);
}

uint32_t
drv_nout(const struct drv_caps *c)
{
	uint32_t m = c->nout ? c->nout : c->nports;

	return (m < c->nports ? m : c->nports);
}

/* Checked here, once for every driver: a device would refuse these too,
 * but not always before it changed something. */
static int
check_batch(struct drv *d, const struct drv_batch *b)
{
	struct drv_caps c;
	uint8_t        *seen;
	size_t          i;
	int             rv;

	if ((rv = drv_caps(d, &c)) != 0)
		return (rv);
	for (i = 0; i < b->ndisconnect; i++)
		if (b->disconnect[i] < 1 ||
		    b->disconnect[i] > c.nports + drv_nout(&c))
			return (-DRV_EPORT);
	if ((seen = calloc(2 * c.nports + 1, 1)) == NULL)
		return (-ENOMEM);
	for (i = 0; i < b->nconnect; i++) {
		const struct drv_patch *p = &b->connect[i];

		if (p->in < 1 || p->in > c.nports || p->out <= c.nports ||
		    p->out > c.nports + drv_nout(&c)) {
			free(seen);
			return (-DRV_EPORT);
		}
		if (seen[p->in]++ || seen[p->out]++) {
			free(seen);
			return (-EINVAL);
		}
	}
	free(seen);
	return (0);
}

int
drv_apply(struct drv *d, const struct drv_batch *b)
{
	uint64_t t0;
	int      rv;

	if ((rv = check_batch(d, b)) != 0)
		return (rv);
	/* Nothing to do costs no round trip to the device. */
	if (b->ndisconnect == 0 && b->nconnect == 0)
		return (0);
	t0 = mono_ns();
	rv = d->ops->apply(d->priv, b);
	d->last_ns = mono_ns() - t0;
	return (rv);
}

int
drv_read_map(struct drv *d, uint16_t *map, size_t nports)
{
	struct drv_caps c;
	uint64_t        t0;
	int             rv;

	if ((rv = drv_caps(d, &c)) != 0)
		return (rv);
	/* A buffer of another size would be a map of another switch. */
	if (nports != c.nports)
		return (-EINVAL);
	t0 = mono_ns();
	rv = d->ops->read_map(d->priv, map, nports);
	d->last_ns = mono_ns() - t0;
	return (rv);
}

const char *
drv_last_error(struct drv *d)
{
	if (d->ops->last_error == NULL)
		return (NULL);
	return (d->ops->last_error(d->priv));
}

int
drv_capture(struct drv *d, uint32_t run, struct drv_capture *c)
{
	if (d->ops->capture == NULL)
		return (-ENOTSUP);
	memset(c, 0, sizeof(*c));
	return (d->ops->capture(d->priv, run, c));
}

int
drv_inject(struct drv *d, const char *spec, char *now, size_t len)
{
	if (d->ops->inject == NULL)
		return (-ENOTSUP);
	if (spec == NULL || *spec == '\0' || strlen(spec) > 200 ||
	    strpbrk(spec, ":;\"\\\r\n \t") != NULL)
		return (-EINVAL);
	return (d->ops->inject(d->priv, spec, now, len));
}

/* The ports a driver is asked about are ports of the switch. */
static int
check_ports(struct drv *d, const uint16_t *ports, size_t n)
{
	struct drv_caps c;
	size_t          i;
	int             rv;

	if ((rv = drv_caps(d, &c)) != 0)
		return (rv);
	for (i = 0; i < n; i++)
		if (ports[i] < 1 || ports[i] > 2 * c.nports)
			return (-DRV_EPORT);
	return (0);
}

int
drv_apply_read(struct drv *d, const struct drv_batch *b, uint16_t *map,
               size_t nports, const uint16_t *ports, size_t n,
               struct drv_port_state *st, int *mrv, int *srv)
{
	struct drv_caps c;
	uint64_t        t0;
	int             rv;

	*mrv = *srv = -ENOTSUP;
	if (d->ops->apply_read != NULL && check_batch(d, b) == 0 &&
	    (b->ndisconnect > 0 || b->nconnect > 0) &&
	    check_ports(d, ports, n) == 0 && drv_caps(d, &c) == 0 &&
	    nports == c.nports) {
		t0 = mono_ns();
		rv = d->ops->apply_read(d->priv, b, map, nports, ports, n, st,
		                        mrv, srv);
		d->last_ns = mono_ns() - t0;
	} else
		rv = drv_apply(d, b);
	return (rv);
}

int
drv_ports_state(struct drv *d, const uint16_t *ports, size_t n,
                struct drv_port_state *st)
{
	int rv;

	if (d->ops->ports_state == NULL)
		return (-ENOTSUP);
	if ((rv = check_ports(d, ports, n)) != 0)
		return (rv);
	return (d->ops->ports_state(d->priv, ports, n, st));
}

int
drv_read_map_state(struct drv *d, uint16_t *map, size_t nports,
                   const uint16_t *ports, size_t n, struct drv_port_state *st,
                   int *srv)
{
	struct drv_caps c;
	uint64_t        t0;
	int             rv;

	*srv = -ENOTSUP;
	if (d->ops->read_map_state == NULL || n == 0) {
		rv = drv_read_map(d, map, nports);
		if (rv == 0 && n > 0)
			*srv = drv_ports_state(d, ports, n, st);
		return (rv);
	}
	if ((rv = drv_caps(d, &c)) != 0)
		return (*srv = rv);
	if (nports != c.nports)
		return (*srv = -EINVAL);
	if ((*srv = check_ports(d, ports, n)) != 0) {
		rv = drv_read_map(d, map, nports);
		return (rv);
	}
	t0 = mono_ns();
	rv = d->ops->read_map_state(d->priv, map, nports, ports, n, st, srv);
	d->last_ns = mono_ns() - t0;
	return (rv);
}

int
drv_port_lookup(struct drv *d, const char *name, uint32_t *p)
{
	if (d->ops->port_lookup == NULL)
		return (-ENOTSUP);
	return (d->ops->port_lookup(d->priv, name, p));
}

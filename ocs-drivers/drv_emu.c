/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The emu driver: an in-process switch model (oxc.c), no network.  For
 * unit tests and offline use.  A change answers after the switching time,
 * as a switch that acknowledges once its mirrors have settled.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ocs-drivers/drv.h"
#include "ocs-drivers/oxc.h"
#include "proto/base/mono.h"
#include "proto/base/net.h"

struct emu {
	struct oxc x;
	uint32_t   switch_ms;
	int        cancel_fd;
	char       err[128];
};

static int
emu_open(void *priv, const char *url, const struct drv_opts *o)
{
	struct emu *e = priv;
	uint32_t    n = o->ports ? o->ports : 64;

	(void)url;
	e->switch_ms = o->switch_ms;
	e->cancel_fd = o->cancel_fd;
	return (oxc_init(&e->x, n, (uint64_t)o->switch_ms * 1000000u));
}

static void
emu_close(void *priv)
{
	struct emu *e = priv;

	oxc_free(&e->x);
}

static int
emu_caps(void *priv, struct drv_caps *c)
{
	struct emu *e = priv;

	if (e->x.n == 0)
		return (-ENODEV);
	memset(c, 0, sizeof(*c));
	c->nports = e->x.n;
	c->atomic_apply = 1;
	c->switch_ms = e->switch_ms;
	return (0);
}

/* The device text a TL1 switch would give for the same refusal. */
static int
refused(struct emu *e, const struct oxc_err *oe)
{
	if (oe->code == -DRV_EBUSY)
		snprintf(e->err, sizeof(e->err),
		         "SNVS Port %u already patched to %u", oe->port,
		         oe->other);
	else if (oe->code == -DRV_EPORT)
		snprintf(e->err, sizeof(e->err), "IDNV Invalid OXC port: %u",
		         oe->port);
	else
		snprintf(e->err, sizeof(e->err), "IIAC Invalid parameters");
	return (-DRV_EDENIED);
}

static int
emu_apply(void *priv, const struct drv_batch *b)
{
	struct emu    *e = priv;
	struct oxc_err oe;
	uint64_t       gen = e->x.gen;

	e->err[0] = '\0';
	if (b->ndisconnect &&
	    oxc_disconnect(&e->x, b->disconnect, b->ndisconnect, mono_ns(),
	                   &oe) != 0)
		return (refused(e, &oe));
	if (b->nconnect &&
	    oxc_connect(&e->x, b->connect, b->nconnect, mono_ns(), &oe) != 0) {
		refused(e, &oe);
		return (e->x.gen != gen ? -DRV_EPARTIAL : -DRV_EDENIED);
	}
	/* The mirrors settle: done, but not usable before.  A caller that
	 * must stop does not wait for it; the change is made either way. */
	if (e->switch_ms && e->x.gen != gen)
		(void)net_sleep(e->switch_ms, e->cancel_fd);
	return (0);
}

static int
emu_read_map(void *priv, uint16_t *map, size_t nports)
{
	struct emu *e = priv;
	size_t      i;

	if (nports != e->x.n)
		return (-EINVAL);
	map[0] = DRV_PORT_NONE;
	for (i = 1; i <= nports; i++)
		map[i] = e->x.out_of[i];
	return (0);
}

static int
emu_ports_state(void *priv, const uint16_t *ports, size_t n,
                struct drv_port_state *st)
{
	struct emu *e = priv;
	uint64_t    now = mono_ns();
	size_t      i;

	for (i = 0; i < n; i++) {
		st[i].dbm = oxc_power(&e->x, ports[i], now);
		st[i].failed = e->x.failed[ports[i]];
	}
	return (0);
}

static const char *
emu_last_error(void *priv)
{
	struct emu *e = priv;

	return (e->err[0] ? e->err : NULL);
}

const struct drv_ops drv_emu_ops = {
    .name = "emu",
    .priv_size = sizeof(struct emu),
    .open = emu_open,
    .close = emu_close,
    .caps = emu_caps,
    .apply = emu_apply,
    .read_map = emu_read_map,
    .ports_state = emu_ports_state,
    .last_error = emu_last_error,
};

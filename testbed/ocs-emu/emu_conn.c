/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * CALIENT's connections over the patch model.  A CALIENT switch knows
 * connections, not patches: each has a name and a group its owner gave
 * it, a direction, and a state (provisioned, or active and carrying
 * light).  The patches (struct oxc) stay the one truth about light: an
 * active connection is its patches, an idle one holds its ports and has
 * none.  The other faces (Polatis TL1, faults) change patches only, so
 * before a CALIENT face looks, emu_conn_sync() drops the connections
 * whose patches went and names new patches by their ports, as a switch
 * lists connections made by another client.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testbed/ocs-emu/emu.h"

int
emu_conn_init(struct emu *e)
{
	/* Each connection holds at least one in half: at most N. */
	e->conns.v = calloc(e->x.n + 1, sizeof(*e->conns.v));
	e->conns.n = 0;
	e->conns.synced = e->x.gen;
	return (e->conns.v == NULL ? -ENOMEM : 0);
}

void
emu_conn_free(struct emu *e)
{
	free(e->conns.v);
	e->conns.v = NULL;
	e->conns.n = 0;
}

static size_t
patches(const struct emu *e, const struct emu_conn *c, struct drv_patch *p)
{
	p[0] = (struct drv_patch){(uint16_t)c->a, (uint16_t)(e->x.n + c->b)};
	if (!c->bi)
		return (1);
	p[1] = (struct drv_patch){(uint16_t)c->b, (uint16_t)(e->x.n + c->a)};
	return (2);
}

static int
all_patched(const struct emu *e, const struct emu_conn *c)
{
	struct drv_patch p[2];
	size_t           k, np = patches(e, c, p);

	for (k = 0; k < np; k++)
		if (e->x.out_of[p[k].in] != p[k].out)
			return (0);
	return (1);
}

/* Is a half of c's ports in a patch (of another client)? */
static int
any_patched(const struct emu *e, const struct emu_conn *c)
{
	uint32_t n = e->x.n;

	return (e->x.out_of[c->a] || e->x.in_of[n + c->b] ||
	        (c->bi && (e->x.out_of[c->b] || e->x.in_of[n + c->a])));
}

static void
remove_at(struct emu *e, size_t i)
{
	memmove(&e->conns.v[i], &e->conns.v[i + 1],
	        (e->conns.n - i - 1) * sizeof(*e->conns.v));
	e->conns.n--;
}

/* The registry changed: save it, and it agrees with the patches. */
static void
changed(struct emu *e)
{
	e->x.gen++;
	e->conns.synced = e->x.gen;
}

void
emu_conn_sync(struct emu *e)
{
	struct rest_xc *xc;
	uint16_t       *rest;
	uint32_t        n = e->x.n;
	size_t          i, k;

	if (e->conns.synced == e->x.gen)
		return;
	rest = malloc((n + 1) * sizeof(*rest));
	xc = malloc((n + 1) * sizeof(*xc));
	if (rest == NULL || xc == NULL)
		goto out; /* looked at again next time */
	memcpy(rest, e->x.out_of, (n + 1) * sizeof(*rest));
	for (i = 0; i < e->conns.n;) {
		struct emu_conn *c = &e->conns.v[i];

		if (c->active ? !all_patched(e, c) : any_patched(e, c)) {
			remove_at(e, i);
			continue;
		}
		if (c->active) {
			rest[c->a] = 0;
			if (c->bi)
				rest[c->b] = 0;
		}
		i++;
	}
	k = rest_xc_from_map(rest, n, xc);
	for (i = 0; i < k && e->conns.n <= n; i++)
		e->conns.v[e->conns.n++] = (struct emu_conn){
		    .a = xc[i].a, .b = xc[i].b, .bi = xc[i].bi, .active = 1};
	e->conns.synced = e->x.gen;
out:
	free(rest);
	free(xc);
}

const char *
emu_conn_name(const struct emu *e, const struct emu_conn *c, char *buf,
              size_t len)
{
	struct rest_xc x = {c->a, c->b, c->bi};

	if (c->name[0])
		snprintf(buf, len, "%s", c->name);
	else
		rest_conn_fmt(&e->names, &x, buf, len);
	return (buf);
}

struct emu_conn *
emu_conn_find(struct emu *e, const char *name)
{
	struct rest_xc x;
	int            ports = rest_conn_parse(&e->names, name, &x) == 0;
	size_t         i;

	/* Its owner's name first; else the ports the name reads as (an
	 * owner-named connection is found by its ports too). */
	for (i = 0; i < e->conns.n; i++)
		if (e->conns.v[i].name[0] &&
		    strcmp(e->conns.v[i].name, name) == 0)
			return (&e->conns.v[i]);
	for (i = 0; ports && i < e->conns.n; i++)
		if (e->conns.v[i].a == x.a && e->conns.v[i].b == x.b &&
		    e->conns.v[i].bi == x.bi)
			return (&e->conns.v[i]);
	return (NULL);
}

struct emu_conn *
emu_conn_at(struct emu *e, uint32_t p, int out_half)
{
	size_t i;

	for (i = 0; i < e->conns.n; i++) {
		struct emu_conn *c = &e->conns.v[i];

		if ((out_half ? c->b : c->a) == p ||
		    (c->bi && (out_half ? c->a : c->b) == p))
			return (c);
	}
	return (NULL);
}

/* The first half of c that another connection holds, named in err. */
static int
check_free(struct emu *e, const struct emu_conn *c, char *err, size_t len)
{
	const uint32_t   in[2] = {c->a, c->b}, out[2] = {c->b, c->a};
	struct emu_conn *o;
	char             pn[REST_NAME_MAX], cn[REST_CONN_MAX];
	int              k;

	for (k = 0; k < 1 + c->bi; k++) {
		uint32_t p = in[k];

		if ((o = emu_conn_at(e, p, 0)) == NULL &&
		    (o = emu_conn_at(e, p = out[k], 1)) == NULL)
			continue;
		snprintf(err, len, "Ports are being used: %s is in %s",
		         rest_port_fmt(&e->names, p, pn, sizeof(pn)),
		         emu_conn_name(e, o, cn, sizeof(cn)));
		return (-DRV_EBUSY);
	}
	return (0);
}

int
emu_conn_add(struct emu *e, const struct emu_conn *c, int activate,
             uint64_t now, char *err, size_t len)
{
	char nm[REST_CONN_MAX];
	int  rv;

	emu_conn_sync(e);
	if (c->a < 1 || c->a > e->x.n || c->b < 1 || c->b > e->x.n ||
	    (c->bi && c->a == c->b)) {
		snprintf(err, len, "Invalid port in the connection");
		return (-DRV_EPORT);
	}
	if ((rv = check_free(e, c, err, len)) != 0)
		return (rv);
	if (emu_conn_find(e, emu_conn_name(e, c, nm, sizeof(nm))) != NULL) {
		snprintf(err, len, "Connection %s already exists", nm);
		return (-EEXIST);
	}
	e->conns.v[e->conns.n] = *c;
	e->conns.v[e->conns.n].active = 0;
	e->conns.n++;
	changed(e);
	if (activate && (rv = emu_conn_activate(e, &e->conns.v[e->conns.n - 1],
	                                        now, err, len)) != 0) {
		e->conns.n--;
		changed(e);
		return (rv);
	}
	return (0);
}

int
emu_conn_activate(struct emu *e, struct emu_conn *c, uint64_t now, char *err,
                  size_t len)
{
	struct drv_patch p[2];
	struct oxc_err   oe;

	if (c->active)
		return (0);
	if (oxc_connect(&e->x, p, patches(e, c, p), now, &oe) != 0) {
		snprintf(err, len, "Failed to activate: port %u is busy",
		         oe.port > e->x.n ? oe.port - e->x.n : oe.port);
		return (oe.code);
	}
	c->active = 1;
	changed(e);
	return (0);
}

void
emu_conn_deactivate(struct emu *e, struct emu_conn *c, uint64_t now)
{
	struct oxc_err oe;
	uint16_t       in[2] = {(uint16_t)c->a, (uint16_t)c->b};

	if (!c->active)
		return;
	(void)oxc_disconnect(&e->x, in, c->bi ? 2 : 1, now, &oe);
	c->active = 0;
	changed(e);
}

void
emu_conn_delete(struct emu *e, struct emu_conn *c, uint64_t now)
{
	emu_conn_deactivate(e, c, now);
	remove_at(e, (size_t)(c - e->conns.v));
	changed(e);
}

void
emu_conn_clear(struct emu *e)
{
	oxc_clear(&e->x);
	e->conns.n = 0;
	changed(e);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The calient-tl1 driver: CALIENT S-series TL1 over TCP (port 3083), for
 * the switches labs drive without REST (labvault's fallback, Quali's
 * driver).  The session is tl1_sess.c with the CTAG labelled and the
 * "agent>" prompt skipped; RTRV-PORT::0 names the ports (numbered as the
 * calient driver numbers them: sorted by shelf, module, port); RTRV-CRS
 * reads the connections (those OS=RDY carry light).  A connection is
 * made as clients make it, ENT-CRS (provision) then ACT-CRS (light), and
 * taken down by CANC-CRS then DLT-CRS, one connection at a time: TL1 has
 * no bulk form, so a reconfiguration costs a switching time per
 * connection (the REST driver's badd costs one).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocs-drivers/cal_tl1.h"
#include "ocs-drivers/drv.h"
#include "ocs-drivers/rest.h"
#include "ocs-drivers/tl1_sess.h"
#include "proto/base/mono.h"

#define CT_DEFPORT "3083"
#define CT_PROMPT  "agent>"

struct caltl1 {
	struct tl1s       t;
	struct rest_names names; /* n = 0 until learnt */
	uint32_t          switch_ms;
};

static uint64_t
deadline(const struct caltl1 *c)
{
	return (mono_ms() + (uint64_t)c->t.timeout_ms);
}

/* After each login: the ports' names, the same as before if known. */
static int
learn_ports(void *arg, uint64_t dl)
{
	struct caltl1    *c = arg;
	struct tl1_resp   r;
	struct rest_names t;
	char(*nm)[REST_NAME_MAX] = NULL;
	char   e[300];
	size_t i;
	int    rv, fail;

	if ((rv = tl1s_ok(&c->t, "RTRV-PORT", "0", "", &r, dl)) != 0)
		return (rv);
	if (r.nlines == 0 || r.nlines > REST_PORTS_MAX ||
	    (nm = calloc(r.nlines, sizeof(*nm))) == NULL) {
		tl1s_seterr(&c->t, "RTRV-PORT::0 from %s:%s: %zu ports",
		            c->t.host, c->t.port, r.nlines);
		tl1_resp_free(&r);
		return (r.nlines ? -ENOMEM : -DRV_EPROTO);
	}
	for (i = 0, rv = 0; rv == 0 && i < r.nlines; i++)
		rv = cal_tl1_port(r.lines[i], nm[i], REST_NAME_MAX, &fail, e,
		                  sizeof(e));
	if (rv == 0)
		rv = rest_names_set(&t, (const char(*)[REST_NAME_MAX])nm,
		                    r.nlines, e, sizeof(e));
	free(nm);
	tl1_resp_free(&r);
	if (rv != 0) {
		tl1s_seterr(&c->t, "RTRV-PORT::0 from %s:%s: %s", c->t.host,
		            c->t.port, e);
		return (rv == -ENOMEM ? rv : -DRV_EPROTO);
	}
	if (c->names.n == 0) {
		c->names = t;
		return (0);
	}
	rv = rest_names_equal(&t, &c->names) ? 0 : -DRV_EPROTO;
	if (rv != 0)
		tl1s_seterr(&c->t,
		            "%s:%s now has other ports (%u where there were "
		            "%u): restart to number them again",
		            c->t.host, c->t.port, t.n, c->names.n);
	rest_names_free(&t);
	return (rv);
}

static int
ensure(struct caltl1 *c)
{
	return (tl1s_ensure(&c->t, deadline(c), learn_ports, c));
}

static int
ct_open(void *priv, const char *url, const struct drv_opts *o)
{
	struct caltl1 *c = priv;

	if (tl1s_init(&c->t, url, CT_DEFPORT, o, CT_PROMPT) != 0)
		return (-EINVAL);
	c->switch_ms = o->switch_ms;
	return (ensure(c));
}

static void
ct_close(void *priv)
{
	struct caltl1 *c = priv;

	tl1s_logout(&c->t);
	rest_names_free(&c->names);
}

static int
ct_caps(void *priv, struct drv_caps *cp)
{
	struct caltl1 *c = priv;
	int            rv;

	if ((rv = ensure(c)) != 0)
		return (rv);
	memset(cp, 0, sizeof(*cp));
	cp->nports = c->names.n;
	cp->bidirectional = 1;
	cp->switch_ms = c->switch_ms;
	return (0);
}

/* RTRV-CRS:::::ALL; into a malloc'd array. */
static int
list_once(struct caltl1 *c, struct cal_tl1_crs **out, size_t *n)
{
	struct tl1_resp r;
	char            e[300];
	size_t          i;
	int             rv;

	*out = NULL;
	*n = 0;
	if ((rv = ensure(c)) != 0 ||
	    (rv = tl1s_ok(&c->t, "RTRV-CRS", "", "::ALL", &r, deadline(c))) !=
	        0)
		return (rv);
	if ((*out = calloc(r.nlines + 1, sizeof(**out))) == NULL) {
		tl1_resp_free(&r);
		return (-ENOMEM);
	}
	for (i = 0; i < r.nlines; i++)
		if (cal_tl1_crs(r.lines[i], &c->names, &(*out)[i], e,
		                sizeof(e)) != 0) {
			tl1s_seterr(&c->t, "%s:%s: %s", c->t.host, c->t.port,
			            e);
			tl1_resp_free(&r);
			free(*out);
			*out = NULL;
			tl1s_drop(&c->t);
			return (-DRV_EPROTO);
		}
	*n = r.nlines;
	tl1_resp_free(&r);
	return (0);
}

/* Reading is idempotent: one more try on a fresh connection. */
static int
list(struct caltl1 *c, struct cal_tl1_crs **out, size_t *n)
{
	int rv = list_once(c, out, n);

	if (rv == -ECONNRESET || rv == -EPIPE || rv == -ETIMEDOUT ||
	    rv == -DRV_EPROTO)
		rv = list_once(c, out, n);
	return (rv);
}

/* The connections that carry light, as cross-connects. */
static size_t
active(const struct cal_tl1_crs *l, size_t n, struct rest_xc *x)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (l[i].active)
			x[k++] = l[i].x;
	return (k);
}

static int
ct_read_map(void *priv, uint16_t *map, size_t nports)
{
	struct caltl1      *c = priv;
	struct cal_tl1_crs *l;
	struct rest_xc     *x;
	size_t              n;
	char                e[300];
	int                 rv;

	c->t.err[0] = '\0';
	if ((rv = list(c, &l, &n)) != 0)
		return (rv);
	if (nports != c->names.n || (x = calloc(n + 1, sizeof(*x))) == NULL) {
		free(l);
		return (nports != c->names.n ? -EINVAL : -ENOMEM);
	}
	rv = rest_map_of(&c->names, x, active(l, n, x), map, e, sizeof(e));
	if (rv != 0) {
		tl1s_seterr(&c->t, "RTRV-CRS from %s:%s: %s", c->t.host,
		            c->t.port, e);
		rv = -DRV_EPROTO;
	}
	free(x);
	free(l);
	return (rv);
}

/* "SRC,DST" of a connection, for the AID. */
static void
aid_of(const struct caltl1 *c, const struct rest_xc *x, char *buf, size_t len)
{
	char a[REST_NAME_MAX], b[REST_NAME_MAX];

	snprintf(buf, len, "%s,%s",
	         rest_port_fmt(&c->names, x->a, a, sizeof(a)),
	         rest_port_fmt(&c->names, x->b, b, sizeof(b)));
}

/* Take one listed connection down: CANC-CRS, then DLT-CRS. */
static int
take_down(struct caltl1 *c, const struct cal_tl1_crs *k, int *acted)
{
	struct tl1_resp r;
	char            aid[2 * REST_NAME_MAX], rest[3 * REST_CONN_MAX];
	int             rv;

	aid_of(c, &k->x, aid, sizeof(aid));
	snprintf(rest, sizeof(rest), "::,%s,%s", k->group, k->name);
	if (k->active) {
		rv = tl1s_ok(&c->t, "CANC-CRS", aid, rest, &r, deadline(c));
		if (rv != 0) {
			*acted |= rv != -DRV_EDENIED;
			return (rv);
		}
		*acted = 1;
		tl1_resp_free(&r);
	}
	if ((rv = tl1s_ok(&c->t, "DLT-CRS", aid, rest, &r, deadline(c))) !=
	    0) {
		*acted |= rv != -DRV_EDENIED;
		return (rv);
	}
	*acted = 1;
	tl1_resp_free(&r);
	return (0);
}

/* Make one: ENT-CRS, then ACT-CRS; a refused activation is rolled back
 * (DLT-CRS) so nothing half made stays. */
static int
make(struct caltl1 *c, const struct rest_xc *x, int *acted)
{
	struct tl1_resp r;
	char            aid[2 * REST_NAME_MAX], rest[3 * REST_CONN_MAX];
	char            nm[REST_CONN_MAX], why[sizeof(c->t.err)];
	int             rv;

	aid_of(c, x, aid, sizeof(aid));
	snprintf(rest, sizeof(rest), "::SYSTEM,%s", x->bi ? "2WAY" : "1WAY");
	if ((rv = tl1s_ok(&c->t, "ENT-CRS", aid, rest, &r, deadline(c))) !=
	    0) {
		*acted |= rv != -DRV_EDENIED;
		return (rv);
	}
	tl1_resp_free(&r);
	snprintf(rest, sizeof(rest), "::%s,SYSTEM",
	         rest_conn_fmt(&c->names, x, nm, sizeof(nm)));
	if ((rv = tl1s_ok(&c->t, "ACT-CRS", aid, rest, &r, deadline(c))) ==
	    0) {
		*acted = 1;
		tl1_resp_free(&r);
		return (0);
	}
	*acted |= rv != -DRV_EDENIED;
	memcpy(why, c->t.err, sizeof(why));
	snprintf(rest, sizeof(rest), "::,SYSTEM,%s", nm);
	if (rv == -DRV_EDENIED &&
	    tl1s_ok(&c->t, "DLT-CRS", aid, rest, &r, deadline(c)) == 0)
		tl1_resp_free(&r);
	else
		*acted = 1; /* provisioned, and still there */
	memcpy(c->t.err, why, sizeof(why));
	return (rv);
}

/* The listed connection a planned deletion stands for. */
static const struct cal_tl1_crs *
listed(const struct cal_tl1_crs *l, size_t n, const struct rest_xc *x)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (l[i].active && l[i].x.a == x->a && l[i].x.b == x->b &&
		    l[i].x.bi == x->bi)
			return (&l[i]);
	return (NULL);
}

/* Downs, then ups, each a command pair; the first refusal stops. */
static int
run_plan(struct caltl1 *c, const struct cal_tl1_crs *l, size_t nl,
         const struct rest_xc *del, size_t ndel, const struct rest_xc *add,
         size_t nadd)
{
	size_t i;
	int    rv = 0, acted = 0;

	for (i = 0; rv == 0 && i < ndel; i++) {
		const struct cal_tl1_crs *k = listed(l, nl, &del[i]);

		rv = k ? take_down(c, k, &acted) : -DRV_EPROTO;
	}
	for (i = 0; rv == 0 && i < nadd; i++)
		rv = make(c, &add[i], &acted);
	return (rv != 0 && acted ? -DRV_EPARTIAL : rv);
}

static int
ct_apply(void *priv, const struct drv_batch *b)
{
	struct caltl1      *c = priv;
	struct cal_tl1_crs *l = NULL;
	struct rest_xc     *cur = NULL, *del = NULL, *add = NULL;
	uint16_t           *map = NULL, *rest = NULL;
	size_t              nl, ncur, ndel, nadd;
	char                e[300];
	int                 rv;

	c->t.err[0] = '\0';
	if ((rv = list(c, &l, &nl)) != 0)
		return (rv);
	cur = calloc(nl + 1, sizeof(*cur));
	del = calloc(nl + 1, sizeof(*del));
	add = calloc(c->names.n + 1, sizeof(*add));
	map = calloc(c->names.n + 1, sizeof(*map));
	rest = calloc(c->names.n + 1, sizeof(*rest));
	if (!cur || !del || !add || !map || !rest) {
		rv = -ENOMEM;
		goto out;
	}
	ncur = active(l, nl, cur);
	if ((rv = rest_plan(&c->names, cur, ncur, b, del, &ndel, add, &nadd,
	                    map, rest, e, sizeof(e))) != 0) {
		tl1s_seterr(&c->t, "%s", e);
		rv = rv == -DRV_EBUSY ? rv : -DRV_EPROTO;
		goto out;
	}
	rv = run_plan(c, l, nl, del, ndel, add, nadd);
out:
	free(l);
	free(cur);
	free(del);
	free(add);
	free(map);
	free(rest);
	return (rv);
}

/* Power per duplex port asked for (RTRV-PORT-SUM, one port a command,
 * as clients ask), failures from RTRV-PORT::0. */
static int
states(struct caltl1 *c, const uint16_t *ports, size_t n,
       struct drv_port_state *st)
{
	struct tl1_resp r;
	uint32_t        p, q, N = c->names.n;
	double          in, out;
	char            e[300], nm[REST_NAME_MAX];
	size_t          i, k;
	int             rv, fail;

	if ((rv = ensure(c)) != 0 ||
	    (rv = tl1s_ok(&c->t, "RTRV-PORT", "0", "", &r, deadline(c))) != 0)
		return (rv);
	for (k = 0; k < n; k++)
		st[k] = (struct drv_port_state){DRV_NO_READING, 0};
	for (i = 0; i < r.nlines; i++)
		if (cal_tl1_port(r.lines[i], nm, sizeof(nm), &fail, e,
		                 sizeof(e)) == 0 &&
		    rest_port_parse(&c->names, nm, &p) == 0)
			for (k = 0; k < n; k++)
				if ((ports[k] - 1) % N + 1 == p)
					st[k].failed = fail;
	tl1_resp_free(&r);
	for (k = 0; k < n; k++) {
		p = (ports[k] - 1) % N + 1;
		if (st[k].dbm != DRV_NO_READING)
			continue;
		rest_port_fmt(&c->names, p, nm, sizeof(nm));
		if ((rv = tl1s_ok(&c->t, "RTRV-PORT-SUM", nm, "", &r,
		                  deadline(c))) != 0)
			return (rv);
		rv = r.nlines ? cal_tl1_sum(r.lines[0], &c->names, &q, &in,
		                            &out, e, sizeof(e))
		              : -DRV_EPROTO;
		tl1_resp_free(&r);
		if (rv != 0 || q != p) {
			tl1s_seterr(&c->t, "RTRV-PORT-SUM::%s from %s:%s: %s",
			            nm, c->t.host, c->t.port,
			            rv ? e : "another port answered");
			return (-DRV_EPROTO);
		}
		for (i = k; i < n; i++)
			if ((ports[i] - 1) % N + 1 == p)
				st[i].dbm = ports[i] <= N ? in : out;
	}
	return (0);
}

static int
ct_ports_state(void *priv, const uint16_t *ports, size_t n,
               struct drv_port_state *st)
{
	struct caltl1 *c = priv;
	int            rv;

	c->t.err[0] = '\0';
	rv = states(c, ports, n, st);
	if (rv == -ECONNRESET || rv == -EPIPE || rv == -ETIMEDOUT)
		rv = states(c, ports, n, st);
	return (rv);
}

/* ocs-emu's SET-EMU-FAULT; a real switch refuses it. */
static int
ct_inject(void *priv, const char *spec, char *now, size_t len)
{
	struct caltl1 *c = priv;
	int            rv;

	c->t.err[0] = '\0';
	if ((rv = ensure(c)) != 0)
		return (rv);
	return (tl1s_inject(&c->t, spec, now, len, deadline(c)));
}

static int
ct_port_name_ok(const char *name)
{
	uint64_t key;

	return (rest_port_key(name, &key) == 0);
}

static int
ct_port_lookup(void *priv, const char *name, uint32_t *p)
{
	struct caltl1 *c = priv;

	return (rest_names_lookup(&c->names, name, p));
}

static const char *
ct_last_error(void *priv)
{
	struct caltl1 *c = priv;

	return (c->t.err[0] ? c->t.err : NULL);
}

const struct drv_ops drv_calient_tl1_ops = {
    .name = "calient-tl1",
    .priv_size = sizeof(struct caltl1),
    .open = ct_open,
    .close = ct_close,
    .caps = ct_caps,
    .apply = ct_apply,
    .read_map = ct_read_map,
    .ports_state = ct_ports_state,
    .inject = ct_inject,
    .port_lookup = ct_port_lookup,
    .port_name_ok = ct_port_name_ok,
    .last_error = ct_last_error,
};

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocs-emu's CALIENT TL1 face (--tl1-calient, port 3083 on a switch): the
 * commands labvault's and Quali's CALIENT drivers send, answered as the
 * S-series replies their fixtures show, over the same switch model and
 * the same connections as the REST face (emu_conn.c).  A connection is
 * made in two steps, ENT-CRS (provisioned: its ports are held) then
 * ACT-CRS (light), and taken down by CANC-CRS then DLT-CRS.  The CTAG is
 * optional ("RTRV-NE;" answers CTAG 0), the prompt "agent>" follows
 * every reply, and errors carry the words clients match: "Invalid",
 * "Login Not Active", "Failed".  What is confirmed and what inferred is
 * in PROTOCOLS.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "proto/base/log.h"
#include "proto/base/mono.h"
#include "proto/base/version.h"
#include "testbed/ocs-emu/emu_tl1_int.h"

#define CAL_FIELD_MAX 64

/* Field k (0-based) of a comma-separated block, or "" (into buf). */
static const char *
field(const char *blk, int k, char *buf, size_t len)
{
	const char *p = blk;
	size_t      n;

	buf[0] = '\0';
	while (p != NULL && k-- > 0)
		if ((p = strchr(p, ',')) != NULL)
			p++;
	if (p == NULL)
		return (buf);
	n = strcspn(p, ",");
	snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), p);
	return (buf);
}

static const char *
blk(const struct tl1_cmd *c, size_t i)
{
	return (i < c->nblk && c->blk[i] != NULL ? c->blk[i] : "");
}

static const char *
pname(const struct emu *e, uint32_t p, char *buf, size_t len)
{
	return (rest_port_fmt(&e->names, p, buf, len));
}

/* ---- sessions -------------------------------------------------------- */

/* ACT-USER::<user>:<ctag>::<password>;  answers "<user>:<user>,2" and
 * the banner, as an S-series does. */
static void
cmd_act_user(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	struct lines l = {0};

	if (s->logged_in) {
		deny(sv, s, c->ctag, "IIAC", "Already logged in");
		return;
	}
	if (strcmp(c->aid, sv->e->c.user) != 0 ||
	    strcmp(blk(c, 1), sv->e->c.password) != 0 ||
	    sv->e->fault.refuse_login) {
		log_info("tl1-calient[%u]: login as \"%.40s\" refused", s->id,
		         c->aid);
		deny(sv, s, c->ctag, "PICC",
		     "Login Failed: Invalid user or "
		     "password");
		return;
	}
	s->logged_in = 1;
	s->priv = EMU_PRIV_ADMIN; /* the one account */
	snprintf(s->user, sizeof(s->user), "%s", c->aid);
	addl(&l, "%s:%s,2", c->aid, c->aid);
	respond(sv, s, c->ctag, TL1_COMPLD, NULL,
	        "NOTICE This is an emulated switch (ocs-emu). Unauthorized "
	        "access or use may lead to prosecution.",
	        &l, 0);
	lines_free(&l);
}

/* CANC-USER::<user>:<ctag>; or CANC-USER:::; (the session's own). */
static void
cmd_canc_user(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	if (c->aid[0] && strcmp(c->aid, s->user) != 0) {
		deny(sv, s, c->ctag, "PICC", "Invalid user %.40s", c->aid);
		return;
	}
	compld(sv, s, c->ctag, NULL);
	s->logged_in = 0;
	s->user[0] = '\0';
}

/* Quali's autoload reads SERIALNUMBER, SWPACKAGE and CHASSISTYPE. */
static void
cmd_rtrv_ne(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	struct lines l = {0};

	addl(&l,
	     "%s:SERIALNUMBER=EMU%06u,SWPACKAGE=%s,STATUS=OK,CHASSISTYPE=OCS-"
	     "EMU-%ux%u,PLATFORM=VERSION2",
	     sv->e->sid, sv->e->x.n, OCS_VERSION, sv->e->x.n, sv->e->x.n);
	compld(sv, s, c->ctag, &l);
	lines_free(&l);
}

/* ---- ports ----------------------------------------------------------- */

/* The ports an AID names: 0, ALL or empty for all; else one port name.
 * 1..N into *p0, *p1; -EINVAL after answering. */
static int
ports_of(struct srv *sv, struct sess *s, const struct tl1_cmd *c, uint32_t *p0,
         uint32_t *p1)
{
	uint32_t p;

	if (c->aid[0] == '\0' || strcmp(c->aid, "0") == 0 ||
	    strcasecmp(c->aid, "ALL") == 0) {
		*p0 = 1;
		*p1 = sv->e->x.n;
		return (0);
	}
	if (rest_port_parse(&sv->e->names, c->aid, &p) != 0) {
		deny(sv, s, c->ctag, "IDNV", "Invalid port %.40s", c->aid);
		return (-EINVAL);
	}
	*p0 = *p1 = p;
	return (0);
}

/* A half's admin and operational states and owner. */
static void
half(struct emu *e, uint32_t p, int out, const char **as, const char **os,
     const char **owner)
{
	uint32_t tp = out ? e->x.n + p : p;
	int      used = emu_conn_at(e, p, out) != NULL;
	int      closed = e->x.closed[tp], failed = e->x.failed[tp];

	*as = closed ? "OOS" : used ? "IS" : "OOS-NP";
	*os = used && !closed && !failed ? "IS" : "OOS";
	*owner = used ? "TRANSIT" : "NONE";
}

/* RTRV-PORT::0;  "1.1.1:WX,NONE,NONE:INAS=OOS-NP,INOS=OOS,INOC=OK,..." */
static void
cmd_rtrv_port(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	struct emu  *e = sv->e;
	struct lines l = {0};
	const char  *ias, *ios, *iow, *oas, *oos, *oow;
	char         nm[REST_NAME_MAX];
	uint32_t     p, p0, p1;

	if (ports_of(sv, s, c, &p0, &p1) != 0)
		return;
	emu_conn_sync(e);
	for (p = p0; p <= p1; p++) {
		half(e, p, 0, &ias, &ios, &iow);
		half(e, p, 1, &oas, &oos, &oow);
		addl(&l,
		     "%s:WX,%s,%s:INAS=%s,INOS=%s,INOC=%s,INRS=NPR,OUTAS=%s,"
		     "OUTOS=%s,OUTOC=%s,OUTRS=NPR",
		     pname(e, p, nm, sizeof(nm)), iow, oow, ias, ios,
		     e->x.failed[p] ? "FAIL" : "OK", oas, oos,
		     e->x.failed[e->x.n + p] ? "FAIL" : "OK");
	}
	compld(sv, s, c->ctag, &l);
	lines_free(&l);
}

static void
power(const struct emu *e, uint32_t port, char *buf, size_t len)
{
	double v = oxc_power(&e->x, port, mono_ns());

	if (v <= OXC_NO_LIGHT + 1)
		snprintf(buf, len, "NONE");
	else
		snprintf(buf, len, "%.1f", v);
}

/* RTRV-PORT-SUM::<port>;  CONNNAME1 is the connection through the in
 * half, CONNNAME2 through the out half; CONNSTATE ACT or NONE. */
static void
cmd_rtrv_port_sum(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	struct emu      *e = sv->e;
	struct lines     l = {0};
	struct emu_conn *k[2];
	char             nm[REST_NAME_MAX], in[16], out[16];
	char             cn[2][REST_CONN_MAX];
	uint32_t         p, p0, p1;
	int              h;

	if (ports_of(sv, s, c, &p0, &p1) != 0)
		return;
	emu_conn_sync(e);
	for (p = p0; p <= p1; p++) {
		for (h = 0; h < 2; h++)
			if ((k[h] = emu_conn_at(e, p, h)) != NULL)
				emu_conn_name(e, k[h], cn[h], sizeof(cn[h]));
			else
				snprintf(cn[h], sizeof(cn[h]), "NONE");
		power(e, p, in, sizeof(in));
		power(e, e->x.n + p, out, sizeof(out));
		addl(&l,
		     "%s:ALIAS=%s,INPWR=%s,OUTPWR=%s,CONNNAME1=%s,CONNSTATE1=%"
		     "s,"
		     "CONNNAME2=%s,CONNSTATE2=%s",
		     pname(e, p, nm, sizeof(nm)),
		     e->port[p].label[0] ? e->port[p].label : "NONE", in, out,
		     cn[0], k[0] && k[0]->active ? "ACT" : "NONE", cn[1],
		     k[1] && k[1]->active ? "ACT" : "NONE");
	}
	compld(sv, s, c->ctag, &l);
	lines_free(&l);
}

/* ---- cross-connects -------------------------------------------------- */

static void
crs_line(struct emu *e, const struct emu_conn *k, struct lines *l)
{
	struct rest_xc x = {k->a, k->b, k->bi};
	char           id[REST_CONN_MAX], nm[REST_CONN_MAX];
	char           a[REST_NAME_MAX], b[REST_NAME_MAX];
	uint32_t       n = e->x.n;
	int            fail = e->x.failed[k->a] || e->x.failed[n + k->b] ||
	           (k->bi && (e->x.failed[k->b] || e->x.failed[n + k->a]));

	addl(l,
	     "%s:SRCPORT=%s,DSTPORT=%s,GRPNAME=%s,CONNNAME=%s,CONNTYPE=%s,"
	     "AS=UMA,OS=%s,OC=%s,PS=UPR,AL=CL",
	     rest_conn_fmt(&e->names, &x, id, sizeof(id)),
	     pname(e, k->a, a, sizeof(a)), pname(e, k->b, b, sizeof(b)),
	     k->group[0] ? k->group : "SYSTEM",
	     emu_conn_name(e, k, nm, sizeof(nm)), k->bi ? "2WAY" : "1WAY",
	     k->active ? "RDY" : "NRDY", fail ? "FAIL" : "OK");
}

/* The connection a command names (see find_conn); NULL after a DENY. */
static struct emu_conn *named_conn(struct srv *sv, struct sess *s,
                                   const struct tl1_cmd *c, int canc);

/* RTRV-CRS:::::ALL; (also RTRV-CRS; and one connection by name). */
static void
cmd_rtrv_crs(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	struct emu      *e = sv->e;
	struct lines     l = {0};
	struct emu_conn *k;
	char             f[CAL_FIELD_MAX];
	size_t           i;

	emu_conn_sync(e);
	field(blk(c, 1), 0, f, sizeof(f));
	if ((c->aid[0] && strcasecmp(c->aid, "ALL")) ||
	    (f[0] && strcasecmp(f, "ALL"))) {
		if ((k = named_conn(sv, s, c, 0)) == NULL)
			return;
		crs_line(e, k, &l);
	} else
		for (i = 0; i < e->conns.n; i++)
			crs_line(e, &e->conns.v[i], &l);
	compld(sv, s, c->ctag, &l);
	lines_free(&l);
}

/* "SRC,DST" of an AID into ports; -EINVAL after answering. */
static int
aid_ports(struct srv *sv, struct sess *s, const struct tl1_cmd *c, uint32_t *a,
          uint32_t *b)
{
	char pa[CAL_FIELD_MAX], pb[CAL_FIELD_MAX];

	field(c->aid, 0, pa, sizeof(pa));
	field(c->aid, 1, pb, sizeof(pb));
	if (rest_port_parse(&sv->e->names, pa, a) != 0 ||
	    rest_port_parse(&sv->e->names, pb, b) != 0) {
		deny(sv, s, c->ctag, "IDNV", "Invalid port in %.60s",
		     c->aid[0] ? c->aid : "(none)");
		return (-EINVAL);
	}
	return (0);
}

/* ENT-CRS::<src>,<dst>:<ctag>::<group>,<1WAY|2WAY>[,<name>];  provisions
 * a connection (its ports held, no light yet). */
static void
cmd_ent_crs(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	struct emu_conn k = {0};
	char            type[16], err[300];
	int             rv;

	if (aid_ports(sv, s, c, &k.a, &k.b) != 0)
		return;
	field(blk(c, 1), 0, k.group, sizeof(k.group));
	field(blk(c, 1), 1, type, sizeof(type));
	field(blk(c, 1), 2, k.name, sizeof(k.name));
	if (strcasecmp(type, "2WAY") && strcasecmp(type, "1WAY")) {
		deny(sv, s, c->ctag, "IDNV", "Invalid connection type %.16s",
		     type[0] ? type : "(none)");
		return;
	}
	k.bi = strcasecmp(type, "2WAY") == 0;
	if ((k.group[0] && !rest_cname_ok(k.group)) ||
	    (k.name[0] && !rest_cname_ok(k.name))) {
		deny(sv, s, c->ctag, "IDNV", "Invalid group or name");
		return;
	}
	if (strcmp(k.group, "SYSTEM") == 0)
		k.group[0] = '\0';
	if ((rv = emu_conn_add(sv->e, &k, 0, mono_ns(), err, sizeof(err))) !=
	    0) {
		deny(sv, s, c->ctag, rv == -DRV_EPORT ? "IDNV" : "SROF",
		     "%s%s", rv == -DRV_EPORT ? "" : "Failed: ", err);
		return;
	}
	persist(sv);
	compld(sv, s, c->ctag, NULL);
}

/*
 * The connection a command names, where either client puts it: Quali
 * writes "<name>,<group>" (ACT-CRS) or ",<group>,<name>" (CANC-, DLT-)
 * after the CTAG's block, labvault "ACT-CRS::::<name>;", and an AID may
 * be the name ("DLT-CRS::A-B;") or the ports "SRC,DST".
 */
/* The connection of group g (SYSTEM: none given) named n, or NULL. */
static struct emu_conn *
by_group_name(struct emu *e, const char *g, const char *n)
{
	char   nm[REST_CONN_MAX];
	size_t i;

	for (i = 0; g[0] && n[0] && i < e->conns.n; i++) {
		const struct emu_conn *k = &e->conns.v[i];

		if (strcmp(k->group[0] ? k->group : "SYSTEM", g) == 0 &&
		    strcmp(emu_conn_name(e, k, nm, sizeof(nm)), n) == 0)
			return (&e->conns.v[i]);
	}
	return (NULL);
}

static struct emu_conn *
find_conn(struct emu *e, const struct tl1_cmd *c, int canc, char *shown,
          size_t len)
{
	struct emu_conn *k = NULL;
	char             f[CAL_FIELD_MAX], g[CAL_FIELD_MAX], h[CAL_FIELD_MAX];
	uint32_t         a, b;
	size_t           i;

	/* "GROUP,NAME" (what clients list connections as, and ask each
	 * by), or Quali's "NAME,GROUP", or ",GROUP,NAME". */
	field(blk(c, 1), 0, g, sizeof(g));
	field(blk(c, 1), 1, h, sizeof(h));
	field(blk(c, 1), 2, f, sizeof(f));
	if ((k = by_group_name(e, g, h)) != NULL ||
	    (k = by_group_name(e, h, g)) != NULL ||
	    (!g[0] && (k = by_group_name(e, h, f)) != NULL)) {
		snprintf(shown, len, "%s", blk(c, 1));
		return (k);
	}
	field(blk(c, 1), canc && strchr(blk(c, 1), ',') ? 2 : 0, f, sizeof(f));
	if (f[0] == '\0')
		field(blk(c, 1), 0, f, sizeof(f));
	if (f[0] == '\0')
		field(blk(c, 0), 0, f, sizeof(f));
	if (f[0] != '\0') {
		snprintf(shown, len, "%s", f);
		return (emu_conn_find(e, f));
	}
	snprintf(shown, len, "%s", c->aid[0] ? c->aid : "(none)");
	if (strchr(c->aid, ',') == NULL)
		return (c->aid[0] ? emu_conn_find(e, c->aid) : NULL);
	field(c->aid, 0, f, sizeof(f));
	if (rest_port_parse(&e->names, f, &a) != 0)
		return (NULL);
	field(c->aid, 1, f, sizeof(f));
	if (rest_port_parse(&e->names, f, &b) != 0)
		return (NULL);
	for (i = 0; i < e->conns.n && k == NULL; i++)
		if (e->conns.v[i].a == a && e->conns.v[i].b == b)
			k = &e->conns.v[i];
	return (k);
}

static struct emu_conn *
named_conn(struct srv *sv, struct sess *s, const struct tl1_cmd *c, int canc)
{
	struct emu_conn *k;
	char             shown[CAL_FIELD_MAX];

	emu_conn_sync(sv->e);
	if ((k = find_conn(sv->e, c, canc, shown, sizeof(shown))) == NULL)
		deny(sv, s, c->ctag, "IENE", "Invalid connection %.60s",
		     shown);
	return (k);
}

/* Answer a change once the mirrors have moved (unless --ack immediate). */
static void
changed(struct srv *sv, struct sess *s, const struct tl1_cmd *c, uint64_t now)
{
	uint64_t at = oxc_settled_at(&sv->e->x);

	persist(sv);
	/* With a datapath that carries light, a removal too waits until it
	 * is dark there (the held answer waits for the datapath). */
	respond(sv, s, c->ctag, TL1_COMPLD, NULL, NULL, NULL,
	        sv->e->c.ack_immediate ? 0
	        : at > now        ? mono_ms() + (at - now + 999999) / 1000000
	        : sv->e->dp_track ? mono_ms()
	                          : 0);
}

static void
cmd_act_crs(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	struct emu_conn *k = named_conn(sv, s, c, 0);
	char             err[300];
	uint64_t         now = mono_ns();

	if (k == NULL)
		return;
	if (emu_conn_activate(sv->e, k, now, err, sizeof(err)) != 0) {
		deny(sv, s, c->ctag, "SROF", "Failed: %s", err);
		return;
	}
	changed(sv, s, c, now);
}

static void
cmd_canc_crs(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	struct emu_conn *k = named_conn(sv, s, c, 1);
	uint64_t         now = mono_ns();

	if (k == NULL)
		return;
	emu_conn_deactivate(sv->e, k, now);
	changed(sv, s, c, now);
}

static void
cmd_dlt_crs(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	struct emu_conn *k = named_conn(sv, s, c, 1);
	uint64_t         now = mono_ns();

	if (k == NULL)
		return;
	emu_conn_delete(sv->e, k, now);
	changed(sv, s, c, now);
}

static void
cmd_dlt_crs_all(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	emu_conn_clear(sv->e);
	persist(sv);
	compld(sv, s, c->ctag, NULL);
}

static const struct emu_tl1_verb calient_verbs[] = {
    {"ACT-USER", 0, cmd_act_user},
    {"CANC-USER", 1, cmd_canc_user},
    {"RTRV-NE", 1, cmd_rtrv_ne},
    {"RTRV-PORT", 1, cmd_rtrv_port},
    {"RTRV-PORT-SUM", 1, cmd_rtrv_port_sum},
    {"RTRV-CRS", 1, cmd_rtrv_crs},
    {"ENT-CRS", 1, cmd_ent_crs},
    {"ACT-CRS", 1, cmd_act_crs},
    {"CANC-CRS", 1, cmd_canc_crs},
    {"DLT-CRS", 1, cmd_dlt_crs},
    {"DLT-CRS-ALL", 1, cmd_dlt_crs_all},
    {"SET-EMU-FAULT", 0, emu_tl1_cmd_set_fault},
};
static const size_t calient_nverbs =
    sizeof(calient_verbs) / sizeof(calient_verbs[0]);

const struct emu_tl1_dialect emu_tl1_calient = {
    .name = "calient",
    .verbs = {calient_verbs},
    .nverbs = {&calient_nverbs},
    .parse_flags = TL1_PARSE_CTAG_OPTIONAL,
    /* Quali maps "Login Not Active" to "User is not logged in". */
    .nologin_code = "PLNA",
    .nologin_text = "Login Not Active",
    /* Device transcripts show "agent> " with its blank; Quali's expect
     * of "agent>" matches it too. */
    .prompt = "agent> ",
};

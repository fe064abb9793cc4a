/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The Polatis dialect's optical controls beyond patches: attenuators
 * (SET-/RTRV-PORT-ATTEN, the modes and positional reply of the vendor's
 * Python SDK), the reverse power monitors, power thresholds and their
 * monitoring (TH-PMON, STATE-PMON), and port flapping (PORT-FLAP).  Each
 * changes what the port's power monitor reads (emu_port_power).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "proto/base/mono.h"
#include "testbed/ocs-emu/emu_tl1_int.h"

/* Short names as the SDK sends and reads them, long ones as the spec
 * lists them (both accepted). */
static const struct {
	const char *sname, *lname;
	int         level; /* 1: LEVEL required, 0: refused */
} modes[] = {
    [EMU_ATTEN_NONE] = {"NONE", "NONE", 0},
    [EMU_ATTEN_FIXED] = {"FIX", "FIXED", 0},
    [EMU_ATTEN_MAXIMUM] = {"MAX", "MAXIMUM", 0},
    [EMU_ATTEN_ABSOLUTE] = {"ABS", "ABSOLUTE", 1},
    [EMU_ATTEN_CONVERGED] = {"CONV", "CONVERGED", 1},
    [EMU_ATTEN_RELATIVE] = {"REL", "RELATIVE", 1},
};
#define NMODES       (sizeof(modes) / sizeof(modes[0]))
#define MAX_ATTEN_DB 60.0 /* what "maximum" takes off */

static const char *const th_types[EMU_TH_TYPES] = {"LOS", "LOW", "HIGH"};
static const char *const th_modes[] = {"OFF", "SINGLE", "CONT"};

/* Is a flapping port dark now (its shutter in an off interval)? */
static int
flap_dark(const struct emu_port *ep, uint64_t now_ms)
{
	uint64_t per = (uint64_t)ep->flap_off_ms + ep->flap_on_ms, t;

	if (ep->flap_start_ms == 0 || per == 0 || now_ms < ep->flap_start_ms)
		return (0);
	t = now_ms - ep->flap_start_ms;
	if (ep->flap_cycles && t / per >= ep->flap_cycles)
		return (0);
	return (t % per < ep->flap_off_ms);
}

double
emu_port_power(const struct emu *e, uint32_t p, uint64_t now_ns)
{
	const struct emu_port *ep = &e->port[p];
	uint64_t               now_ms = now_ns / 1000000;
	double                 pw = oxc_power(&e->x, p, now_ns), ref;
	uint32_t               in = p > e->x.n ? e->x.in_of[p] : 0;

	if (pw <= OXC_NO_LIGHT || flap_dark(ep, now_ms) ||
	    (in && flap_dark(&e->port[in], now_ms)))
		return (OXC_NO_LIGHT);
	switch (ep->amode) {
	case EMU_ATTEN_MAXIMUM:
		pw -= MAX_ATTEN_DB;
		break;
	case EMU_ATTEN_FIXED:
	case EMU_ATTEN_ABSOLUTE:
	case EMU_ATTEN_CONVERGED:
		pw -= ep->alevel;
		break;
	case EMU_ATTEN_RELATIVE:
		/* level dB below the reference port (default: the input
		 * this output is patched from). */
		ref = oxc_power(&e->x, ep->aref ? ep->aref : in, now_ns);
		pw = ref <= OXC_NO_LIGHT ? OXC_NO_LIGHT : ref - ep->alevel;
		break;
	}
	return (pw < OXC_NO_LIGHT ? OXC_NO_LIGHT : pw);
}

/* A float in [lo, hi], "(x)" as the SDK writes levels, or x. */
static int
level_in(const char *v, double lo, double hi, double *out)
{
	char   buf[32], *end;
	size_t n = strlen(v);

	if (n >= 2 && v[0] == '(' && v[n - 1] == ')') {
		snprintf(buf, sizeof(buf), "%.*s", (int)(n - 2), v + 1);
		v = buf;
	}
	if (*v == '\0')
		return (-EINVAL);
	*out = strtod(v, &end);
	return (*end == '\0' && *out >= lo && *out <= hi ? 0 : -EINVAL);
}

/* The ports of the AID, output ports only: the count or -EINVAL. */
static ssize_t
outputs(struct srv *sv, struct sess *s, struct tl1_cmd *c, uint32_t **ports)
{
	ssize_t k, i;

	if ((k = port_list(sv, s, c, 1, ports)) < 0)
		return (k);
	for (i = 0; i < k; i++)
		if ((*ports)[i] <= sv->e->x.n) {
			deny(sv, s, c->ctag, "IDNV", "Not an output port: %u",
			     (*ports)[i]);
			free(*ports);
			return (-EINVAL);
		}
	return (k);
}

/* REFS=a&b: one reference port per attenuated port. */
static int
refs_of(struct srv *sv, const char *v, uint32_t *refs, size_t k)
{
	char    bad[32];
	ssize_t n = tl1_aid_parse(v, refs, k + 1, bad, sizeof(bad));
	size_t  i;

	if (n != (ssize_t)k)
		return (-EINVAL);
	for (i = 0; i < k; i++)
		if (!oxc_valid_port(&sv->e->x, refs[i]))
			return (-EINVAL);
	return (0);
}

/*
 * SET-PORT-ATTEN::P:c:::MODE=m[,LEVEL=(dB)][,REFS=r&..]; on output ports.
 * NONE, FIX and MAX take no level, ABS, CONV and REL need one; REFS only
 * with REL.
 */
static void
cmd_set_port_atten(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	static const char *const keys[] = {"MODE", "LEVEL", "REFS", NULL};
	uint32_t                *ports = NULL, *refs = NULL;
	char                     m[32], lv[32], rf[256];
	double                   level = 0;
	size_t                   mode;
	ssize_t                  k, i;
	int                      has_l, has_r;

	if (params_only(sv, s, c, 1, keys) != 0)
		return;
	if (keyword(c, "MODE", m, sizeof(m)) == NULL) {
		deny(sv, s, c->ctag, "IPMS", "Missing MODE");
		return;
	}
	for (mode = 0; mode < NMODES; mode++)
		if (strcasecmp(m, modes[mode].sname) == 0 ||
		    strcasecmp(m, modes[mode].lname) == 0)
			break;
	has_l = keyword(c, "LEVEL", lv, sizeof(lv)) != NULL;
	has_r = keyword(c, "REFS", rf, sizeof(rf)) != NULL;
	if (mode == NMODES || has_l != modes[mode].level ||
	    (has_l && level_in(lv, 0, MAX_ATTEN_DB, &level) != 0) ||
	    (has_r && mode != EMU_ATTEN_RELATIVE)) {
		deny(sv, s, c->ctag, "IPNV", "Parameter not valid");
		return;
	}
	if ((k = outputs(sv, s, c, &ports)) < 0)
		return;
	if (has_r && ((refs = calloc((size_t)k + 1, sizeof(*refs))) == NULL ||
	              refs_of(sv, rf, refs, (size_t)k) != 0)) {
		deny(sv, s, c->ctag, "IPNV", "Parameter not valid");
		goto out;
	}
	for (i = 0; i < k; i++) {
		struct emu_port *ep = &sv->e->port[ports[i]];

		/* FIX holds the attenuation in force. */
		if (mode == EMU_ATTEN_FIXED && ep->amode == EMU_ATTEN_MAXIMUM)
			ep->alevel = MAX_ATTEN_DB;
		else if (mode == EMU_ATTEN_FIXED &&
		         ep->amode == EMU_ATTEN_NONE)
			ep->alevel = 0;
		else if (mode != EMU_ATTEN_FIXED)
			ep->alevel =
			    mode == EMU_ATTEN_MAXIMUM ? MAX_ATTEN_DB : level;
		ep->amode = (uint8_t)mode;
		ep->aref = refs ? refs[i] : 0;
	}
	compld(sv, s, c->ctag, NULL);
out:
	free(ports);
	free(refs);
}

/* "P:MODE,LEVEL,REFS", positional as the SDK unpacks it, empty fields
 * where a mode has none; output ports only. */
static const char *
atten_line(struct srv *sv, uint32_t p, char *b, size_t len)
{
	const struct emu_port *ep = &sv->e->port[p];
	char                   lv[32] = "", rf[16] = "";

	if (p <= sv->e->x.n)
		return (NULL);
	if (ep->amode != EMU_ATTEN_NONE && ep->amode != EMU_ATTEN_MAXIMUM)
		snprintf(lv, sizeof(lv), "%.2f", ep->alevel);
	if (ep->amode == EMU_ATTEN_RELATIVE && ep->aref)
		snprintf(rf, sizeof(rf), "%u", ep->aref);
	snprintf(b, len, "%u:%s,%s,%s", p, modes[ep->amode].sname, lv, rf);
	return (b);
}

/* One data line per listed port, as fn writes it (NULL: none). */
static void
each_port(struct srv *sv, struct sess *s, struct tl1_cmd *c,
          const char *(*fn)(struct srv *, uint32_t, char *, size_t))
{
	struct lines l = {0};
	uint32_t    *ports;
	ssize_t      k, i;
	char         buf[160];

	if ((k = port_list(sv, s, c, 0, &ports)) < 0)
		return;
	for (i = 0; i < k; i++)
		if (fn(sv, ports[i], buf, sizeof(buf)) != NULL)
			addl(&l, "%s", buf);
	compld(sv, s, c->ctag, &l);
	lines_free(&l);
	free(ports);
}

static void
cmd_rtrv_port_atten(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	each_port(sv, s, c, atten_line);
}

/* The reverse monitor's calibration, RTRV-PORT-PMON's shape. */
static const char *
revpmon_line(struct srv *sv, uint32_t p, char *b, size_t len)
{
	const struct emu_port *ep = &sv->e->port[p];

	snprintf(b, len, "%u:%u,%.2f,%u", p, ep->rwave, ep->roffset,
	         ep->ratime);
	return (b);
}

static void
cmd_rtrv_port_revpmon(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	each_port(sv, s, c, revpmon_line);
}

/* TYPE=..: the threshold type's index, every type (-1) when absent, or
 * -2 after answering IPNV. */
static int
th_type(struct srv *sv, struct sess *s, const struct tl1_cmd *c, int need)
{
	char v[16];
	int  i;

	if (keyword(c, "TYPE", v, sizeof(v)) == NULL) {
		if (!need)
			return (-1);
		v[0] = '\0';
	}
	for (i = 0; i < EMU_TH_TYPES; i++)
		if (strcasecmp(v, th_types[i]) == 0)
			return (i);
	deny(sv, s, c->ctag, "IPNV", "Parameter not valid");
	return (-2);
}

/* RTRV-TH-PMON / RTRV-STATE-PMON: "P:TYPE,value" per port and type. */
static void
th_rtrv(struct srv *sv, struct sess *s, struct tl1_cmd *c, int state)
{
	static const char *const keys[] = {"TYPE", NULL};
	struct lines             l = {0};
	uint32_t                *ports;
	ssize_t                  k, i;
	int                      t = 0, t0;

	if (params_only(sv, s, c, 1, keys) != 0 ||
	    (t0 = th_type(sv, s, c, 0)) == -2 ||
	    (k = port_list(sv, s, c, 0, &ports)) < 0)
		return;
	for (i = 0; i < k; i++)
		for (t = t0 < 0 ? 0 : t0; t < (t0 < 0 ? EMU_TH_TYPES : t0 + 1);
		     t++) {
			const struct emu_port *ep = &sv->e->port[ports[i]];

			if (state)
				addl(&l, "%u:%s,%s", ports[i], th_types[t],
				     th_modes[ep->thmode[t]]);
			else
				addl(&l, "%u:%s,%.2f", ports[i], th_types[t],
				     ep->th[t]);
		}
	compld(sv, s, c->ctag, &l);
	lines_free(&l);
	free(ports);
}

/* SET-TH-PMON::P:c:::TYPE=LOS|LOW|HIGH,VALUE=dBm;
 * SET-STATE-PMON::P:c:::TYPE=..,MODE=OFF|SINGLE|CONT; */
static void
th_set(struct srv *sv, struct sess *s, struct tl1_cmd *c, int state)
{
	static const char *const tkeys[] = {"TYPE", "VALUE", NULL};
	static const char *const skeys[] = {"TYPE", "MODE", NULL};
	uint32_t                *ports;
	char                     v[32];
	double                   val = 0;
	size_t                   m = 0;
	ssize_t                  k, i;
	int                      t;

	if (params_only(sv, s, c, 1, state ? skeys : tkeys) != 0 ||
	    (t = th_type(sv, s, c, 1)) < 0)
		return;
	if (keyword(c, state ? "MODE" : "VALUE", v, sizeof(v)) == NULL) {
		deny(sv, s, c->ctag, "IPMS", "Missing %s",
		     state ? "MODE" : "VALUE");
		return;
	}
	for (m = 0; state && m < 3 && strcasecmp(v, th_modes[m]) != 0; m++)
		;
	if ((state && m == 3) ||
	    (!state && level_in(v, OXC_NO_LIGHT, 30, &val) != 0)) {
		deny(sv, s, c->ctag, "IPNV", "Parameter not valid");
		return;
	}
	if ((k = port_list(sv, s, c, 1, &ports)) < 0)
		return;
	for (i = 0; i < k; i++) {
		if (state)
			sv->e->port[ports[i]].thmode[t] = (uint8_t)m;
		else
			sv->e->port[ports[i]].th[t] = val;
	}
	compld(sv, s, c->ctag, NULL);
	free(ports);
}

static void
cmd_rtrv_th_pmon(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	th_rtrv(sv, s, c, 0);
}

static void
cmd_set_th_pmon(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	th_set(sv, s, c, 0);
}

static void
cmd_rtrv_state_pmon(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	th_rtrv(sv, s, c, 1);
}

static void
cmd_set_state_pmon(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	th_set(sv, s, c, 1);
}

/* "P:OFFINTV,ONINTVL,CYCLES,ACTIVE|INACTIVE" for ports with a flap. */
static const char *
flap_line(struct srv *sv, uint32_t p, char *b, size_t len)
{
	const struct emu_port *ep = &sv->e->port[p];

	if (ep->flap_off_ms == 0 && ep->flap_on_ms == 0)
		return (NULL);
	snprintf(b, len, "%u:%u,%u,%u,%s", p, ep->flap_off_ms, ep->flap_on_ms,
	         ep->flap_cycles, ep->flap_start_ms ? "ACTIVE" : "INACTIVE");
	return (b);
}

static void
cmd_rtrv_port_flap(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	each_port(sv, s, c, flap_line);
}

/* A whole number in [lo, hi], blanks around it allowed ("1000, 500"). */
static int
flap_num(const char *f, size_t n, long lo, long hi, uint32_t *v)
{
	char buf[16], *p = buf, *e;
	long x;

	if (n >= sizeof(buf))
		return (-EINVAL);
	snprintf(buf, sizeof(buf), "%.*s", (int)n, f);
	while (*p == ' ')
		p++;
	for (e = p + strlen(p); e > p && e[-1] == ' '; e--)
		e[-1] = '\0';
	if (number_in(p, lo, hi, &x) != 0)
		return (-EINVAL);
	*v = (uint32_t)x;
	return (0);
}

/* ENT-PORT-FLAP::P:c::offintv,onintvl,cycles; milliseconds, ms, and
 * cycles (0: until released). */
static void
cmd_ent_port_flap(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	const char *v = c->nblk >= 2 ? c->blk[1] : "", *p = v;
	uint32_t    f[3], *ports;
	size_t      i, n;
	ssize_t     k, j;

	for (i = 0; i < 3; i++) {
		n = strcspn(p, ",");
		if ((i < 2 && p[n] != ',') || (i == 2 && p[n] != '\0') ||
		    flap_num(p, n, i < 2 ? 10 : 0, i < 2 ? 3600000 : 1000000,
		             &f[i]) != 0) {
			deny(sv, s, c->ctag, "IPNV", "Parameter not valid");
			return;
		}
		p += n + 1;
	}
	if ((k = port_list(sv, s, c, 1, &ports)) < 0)
		return;
	for (j = 0; j < k; j++) {
		struct emu_port *ep = &sv->e->port[ports[j]];

		ep->flap_off_ms = f[0];
		ep->flap_on_ms = f[1];
		ep->flap_cycles = f[2];
		ep->flap_start_ms = 0;
	}
	compld(sv, s, c->ctag, NULL);
	free(ports);
}

/* OPR-PORT-FLAP starts the ports' flapping, RLS-PORT-FLAP stops it; a
 * port without ENT-PORT-FLAP's settings is refused. */
static void
flap(struct srv *sv, struct sess *s, struct tl1_cmd *c, int on)
{
	uint32_t *ports;
	ssize_t   k, i;

	if ((k = port_list(sv, s, c, 1, &ports)) < 0)
		return;
	for (i = 0; on && i < k; i++)
		if (sv->e->port[ports[i]].flap_off_ms == 0) {
			deny(sv, s, c->ctag, "SNVS", "No flap set on port %u",
			     ports[i]);
			free(ports);
			return;
		}
	for (i = 0; i < k; i++)
		sv->e->port[ports[i]].flap_start_ms = on ? mono_ms() : 0;
	compld(sv, s, c->ctag, NULL);
	free(ports);
}

static void
cmd_opr_port_flap(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	flap(sv, s, c, 1);
}

static void
cmd_rls_port_flap(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	flap(sv, s, c, 0);
}

#define V EMU_PRIV_VIEW
#define U EMU_PRIV_USER
const struct emu_tl1_verb emu_tl1_voa_verbs[] = {
    {"RTRV-PORT-ATTEN", V, cmd_rtrv_port_atten},
    {"SET-PORT-ATTEN", U, cmd_set_port_atten},
    {"RTRV-PORT-REVPMON", V, cmd_rtrv_port_revpmon},
    {"RTRV-TH-PMON", V, cmd_rtrv_th_pmon},
    {"SET-TH-PMON", U, cmd_set_th_pmon},
    {"RTRV-STATE-PMON", V, cmd_rtrv_state_pmon},
    {"SET-STATE-PMON", U, cmd_set_state_pmon},
    {"RTRV-PORT-FLAP", V, cmd_rtrv_port_flap},
    {"ENT-PORT-FLAP", U, cmd_ent_port_flap},
    {"OPR-PORT-FLAP", U, cmd_opr_port_flap},
    {"RLS-PORT-FLAP", U, cmd_rls_port_flap},
};
#undef V
#undef U
const size_t emu_tl1_voa_nverbs =
    sizeof(emu_tl1_voa_verbs) / sizeof(emu_tl1_voa_verbs[0]);

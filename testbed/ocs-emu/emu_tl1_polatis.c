/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The Polatis dialect of ocs-emu's TL1 face: sessions, the system and its
 * equipment, alarms, autonomous-report control (spec/ocs-protocols.md
 * sect. 1; what is confirmed and what inferred is in
 * testbed/ocs-emu/PROTOCOLS.md).  The ports' commands are in
 * emu_tl1_port.c.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "proto/base/log.h"
#include "proto/base/net.h"
#include "proto/base/version.h"
#include "testbed/ocs-emu/emu_tl1_int.h"

#define SID_MAX 20 /* characters of a SID (SET-SID) */

/* A value that is out of range or not a value: the device's one text. */
static void
not_valid(struct srv *sv, struct sess *s, const struct tl1_cmd *c)
{
	deny(sv, s, c->ctag, "IPNV", "Parameter not valid");
}

static void
cmd_rtrv_hdr(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	compld(sv, s, c->ctag, NULL);
}

/* Four fields without blanks: clients match "(\S+),(\S+),(\S+),(\S+)". */
static void
cmd_rtrv_netype(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	struct lines l = {0};

	addl(&l, "Polatis,N-OCS-EMU-%ux%u,OCS,%s", sv->e->x.n, sv->e->x.n,
	     OCS_VERSION);
	compld(sv, s, c->ctag, &l);
	lines_free(&l);
}

static void
cmd_rtrv_inv(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	struct lines l = {0};

	addl(&l, "OCS:SN=EMU%06u,MODEL=N-OCS-EMU-%ux%u", sv->e->x.n,
	     sv->e->x.n, sv->e->x.n);
	compld(sv, s, c->ctag, &l);
	lines_free(&l);
}

/* Session timeouts are set in minutes, 0 to 60 (0: none). */
static unsigned
timeout_min(const struct srv *sv)
{
	return ((sv->e->idle_timeout_s + 59) / 60);
}

/* RTRV-EQPT's answer for one AID and its PARAMETER (or every one). */
static int
eqpt_lines(struct srv *sv, const struct tl1_cmd *c, const char *par,
           struct lines *l)
{
	uint32_t p;

	if (strcasecmp(c->aid, "SYSTEM") == 0) {
		if (par == NULL || strcasecmp(par, "SIZE") == 0)
			return (addl(l, "SYSTEM:SIZE=%ux%u", sv->e->x.n,
			             sv->e->x.n));
	} else if (strcasecmp(c->aid, "TIMEOUT") == 0) {
		if (par == NULL || strcasecmp(par, "ADMIN") == 0)
			addl(l, "TIMEOUT:ADMIN=%u", timeout_min(sv));
		if (par == NULL || strcasecmp(par, "USER") == 0)
			addl(l, "TIMEOUT:USER=%u", timeout_min(sv));
		return (l->n ? 0 : -EINVAL);
	} else if (strcasecmp(c->aid, "BOOT") == 0) {
		if (par == NULL || strcasecmp(par, "MODE") == 0)
			return (addl(l, "BOOT:MODE=%s",
			             sv->e->x.boot == OXC_BOOT_RESTORE
			                 ? "RESTORE"
			                 : "DARK"));
	} else if (strcasecmp(c->aid, "PMON") == 0 ||
	           strcasecmp(c->aid, "REVPMON") == 0) {
		/* Every port has a power monitor, and a reverse one that
		 * looks the other way. */
		int rev = strcasecmp(c->aid, "REVPMON") == 0;

		if (par == NULL || strcasecmp(par, "CONFIG") == 0) {
			for (p = 1; p <= 2 * sv->e->x.n; p++)
				addl(l, "%s::PORT=%u,MODE=%s",
				     rev ? "REVPMON" : "PMON", p,
				     (p <= sv->e->x.n) != rev ? "INPUT"
				                              : "OUTPUT");
			return (0);
		}
	} else if (strcasecmp(c->aid, "ATTEN") == 0) {
		/* The modes this switch's attenuators support: the SDK
		 * reads what follows '='. */
		if (par == NULL || strcasecmp(par, "CONFIG") == 0)
			return (addl(l, "ATTEN::MODE=CONVERGED"));
	} else
		return (-ENOENT);
	return (-EINVAL);
}

static void
cmd_rtrv_eqpt(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	static const char *const keys[] = {"PARAMETER", NULL};
	struct lines             l = {0};
	char                     v[64];
	const char              *par = keyword(c, "PARAMETER", v, sizeof(v));
	int                      rv;

	if (params_only(sv, s, c, 1, keys) != 0)
		return;
	rv = eqpt_lines(sv, c, par, &l);
	if (rv == -ENOENT)
		deny(sv, s, c->ctag, "IIAC", "Invalid AID %s", c->aid);
	else if (rv != 0)
		not_valid(sv, s, c);
	else
		compld(sv, s, c->ctag, &l);
	lines_free(&l);
}

/* ED-EQPT::TIMEOUT:::ADMIN=m | USER=m (minutes, 0..60). */
static int
ed_timeout(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	static const char *const keys[] = {"ADMIN", "USER", NULL};
	char                     v[64];
	long                     t;

	if (params_only(sv, s, c, 1, keys) != 0)
		return (-EINVAL);
	if (keyword(c, "ADMIN", v, sizeof(v)) == NULL &&
	    keyword(c, "USER", v, sizeof(v)) == NULL) {
		deny(sv, s, c->ctag, "IPMS", "Missing ADMIN or USER");
		return (-EINVAL);
	}
	if (number_in(v, 0, 60, &t) != 0) {
		not_valid(sv, s, c);
		return (-EINVAL);
	}
	sv->e->idle_timeout_s = (uint32_t)t * 60;
	return (0);
}

/* ED-EQPT::BOOT:::MODE=DARK|RESTORE: a number is not a value at all, a
 * word that is not a mode is an invalid value. */
static int
ed_boot(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	static const char *const keys[] = {"MODE", NULL};
	char                     v[64];
	long                     t;

	if (params_only(sv, s, c, 1, keys) != 0)
		return (-EINVAL);
	if (keyword(c, "MODE", v, sizeof(v)) == NULL) {
		deny(sv, s, c->ctag, "IPMS", "Missing MODE");
		return (-EINVAL);
	}
	if (strcasecmp(v, "DARK") == 0)
		sv->e->x.boot = OXC_BOOT_DARK;
	else if (strcasecmp(v, "RESTORE") == 0)
		sv->e->x.boot = OXC_BOOT_RESTORE;
	else if (v[0] == '\0' || number_in(v, -1000000, 1000000, &t) == 0) {
		not_valid(sv, s, c);
		return (-EINVAL);
	} else {
		deny(sv, s, c->ctag, "IDNV", "Invalid value %s", v);
		return (-EINVAL);
	}
	sv->e->x.gen++; /* saved now */
	persist(sv);
	return (0);
}

static void
cmd_ed_eqpt(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	int rv;

	if (strcasecmp(c->aid, "BOOT") == 0)
		rv = ed_boot(sv, s, c);
	else if (strcasecmp(c->aid, "TIMEOUT") == 0)
		rv = ed_timeout(sv, s, c);
	else {
		deny(sv, s, c->ctag, "IIAC", "Invalid AID %s", c->aid);
		return;
	}
	if (rv == 0)
		compld(sv, s, c->ctag, NULL);
}

/* What the switch says to a value it cannot take (ED-DAT, SET-SID). */
static void
bad_value(struct srv *sv, struct sess *s, const struct tl1_cmd *c)
{
	deny(sv, s, c->ctag, "IDNV", "Bad parameter value");
}

/* SET-SID:::c::NAME; up to 20 letters, digits, blanks, - and _; quotes
 * around it are not part of it. */
static void
cmd_set_sid(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	const char *sid = c->nblk >= 2 ? c->blk[1] : "";
	size_t      n = strlen(sid);

	if (n >= 2 && sid[0] == '"' && sid[n - 1] == '"') {
		sid++;
		n -= 2;
	}
	if (n == 0 || n > SID_MAX ||
	    strspn(sid, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	                "0123456789 -_") < n) {
		bad_value(sv, s, c);
		return;
	}
	snprintf(sv->e->sid, sizeof(sv->e->sid), "%.*s", (int)n, sid);
	sv->e->x.gen++;
	persist(sv);
	compld(sv, s, c->ctag, NULL);
}

static void
cmd_rtrv_tod(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	struct lines l = {0};
	struct tm    tm;
	time_t       t = emu_now(sv);
	char         b[64];

	localtime_r(&t, &tm);
	strftime(b, sizeof(b), "%Y,%m,%d,%H,%M,%S", &tm);
	addl(&l, "%s", b);
	compld(sv, s, c->ctag, &l);
	lines_free(&l);
}

/* "YY-MM-DD" or "YYYY-MM-DD", then ",HH-MM-SS" or nothing, into tm:
 * 0 or -EINVAL. */
static int
parse_dat(const char *v, struct tm *tm)
{
	int y, mo, d, h = 0, mi = 0, se = 0, k = 0, yk = 0;

	memset(tm, 0, sizeof(*tm));
	if (sscanf(v, "%4d%n-%2d-%2d%n", &y, &yk, &mo, &d, &k) != 3 ||
	    (yk != 2 && yk != 4) || strspn(v, "0123456789-,") != strlen(v))
		return (-EINVAL);
	if (v[k] == ',') {
		int k2 = 0;

		if (sscanf(v + k + 1, "%2d-%2d-%2d%n", &h, &mi, &se, &k2) != 3)
			return (-EINVAL);
		k += 1 + k2;
	}
	if (v[k] != '\0' || y < 0 || mo < 1 || mo > 12 || d < 1 || d > 31 ||
	    h < 0 || h > 23 || mi < 0 || mi > 59 || se < 0 || se > 59)
		return (-EINVAL);
	tm->tm_year = yk == 2 ? 100 + y : y - 1900;
	tm->tm_mon = mo - 1;
	tm->tm_mday = d;
	tm->tm_hour = h;
	tm->tm_min = mi;
	tm->tm_sec = se;
	tm->tm_isdst = -1;
	return (0);
}

/*
 * ED-DAT:::c::YY-MM-DD[,HH-MM-SS]; the switch's clock, not the host's.
 * A date that is not one is IDNV; one past its 32-bit clock's end (19
 * January 2038) stops it (SSTP).
 */
static void
cmd_ed_dat(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	struct tm tm, chk;
	time_t    t;

	if (parse_dat(c->nblk >= 2 ? c->blk[1] : "", &tm) != 0) {
		bad_value(sv, s, c);
		return;
	}
	chk = tm;
	if ((t = mktime(&tm)) == (time_t)-1 || tm.tm_mday != chk.tm_mday ||
	    tm.tm_mon != chk.tm_mon) {
		bad_value(sv, s, c); /* 31 February */
		return;
	}
	if ((int64_t)t > INT32_MAX) {
		deny(sv, s, c->ctag, "SSTP", "Date out of range");
		return;
	}
	sv->e->clock_s = (int64_t)(t - time(NULL));
	compld(sv, s, c->ctag, NULL);
}

/*
 * INIT-SYS::SYSTEM:c::PHASE.  Phases 0 and 1 reset the switch's OXC and
 * ports (shutters open, patches as the boot mode says) and every session
 * carries on; phase 10 restarts it: the same, and every session is
 * closed once it has its answer.  ::ALARM clears the alarms' history
 * (there is none to keep), phases 0 to 4.
 */
static void
cmd_init_sys(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	long     ph;
	int      i, alarm = strcasecmp(c->aid, "ALARM") == 0;
	uint32_t p;

	if (!alarm && strcasecmp(c->aid, "SYSTEM") != 0) {
		deny(sv, s, c->ctag, "IIAC", "Invalid AID %s", c->aid);
		return;
	}
	if (number_in(c->nblk >= 2 ? c->blk[1] : "", 0, 10, &ph) != 0 ||
	    (alarm && ph > 4) || (!alarm && ph != 0 && ph != 1 && ph != 10)) {
		not_valid(sv, s, c);
		return;
	}
	compld(sv, s, c->ctag, NULL);
	if (alarm)
		return;
	log_info("tl1[%u]: INIT-SYS phase %ld: %s (boot %s)", s->id, ph,
	         ph == 10 ? "restarting" : "resetting the OXC",
	         sv->e->x.boot == OXC_BOOT_DARK ? "dark" : "restore");
	if (sv->e->x.boot == OXC_BOOT_DARK)
		oxc_clear(&sv->e->x);
	for (p = 1; p <= 2 * sv->e->x.n; p++)
		sv->e->x.closed[p] = 0;
	persist(sv);
	for (i = 0; ph == 10 && i < MAX_SESS; i++)
		if (sv->s[i])
			sv->s[i]->closing = 1;
}

/* The alarms standing now: failed ports (lose=P). */
static void
alarms(struct srv *sv, struct sess *s, struct tl1_cmd *c, int env)
{
	struct lines l = {0};
	struct tm    tm;
	time_t       t = emu_now(sv);
	char         d[16], h[16];
	uint32_t     p;

	localtime_r(&t, &tm);
	strftime(d, sizeof(d), "%m-%d", &tm);
	strftime(h, sizeof(h), "%H-%M-%S", &tm);
	for (p = 1; !env && p <= 2 * sv->e->x.n; p++)
		if (sv->e->x.failed[p])
			addl(&l, "%u,PORT:MJ,LOS,SA,%s,%s:\"Loss of signal\"",
			     p, d, h);
	compld(sv, s, c->ctag, &l);
	lines_free(&l);
}

/* The alarms' AID: ALL (or none) is every alarm. */
static int
alm_aid(struct srv *sv, struct sess *s, const struct tl1_cmd *c)
{
	if (c->aid[0] == '\0' || strcasecmp(c->aid, "ALL") == 0)
		return (1);
	deny(sv, s, c->ctag, "IIAC", "Invalid AID %s", c->aid);
	return (0);
}

static void
cmd_rtrv_alm_all(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	if (alm_aid(sv, s, c))
		alarms(sv, s, c, 0);
}

static void
cmd_rtrv_alm_env(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	if (alm_aid(sv, s, c))
		alarms(sv, s, c, 1);
}

/* Autonomous reports: ALL and REPMGR (the report manager) name them. */
static int
arc_aid(struct srv *sv, struct sess *s, const struct tl1_cmd *c)
{
	if (strcasecmp(c->aid, "ALL") == 0 ||
	    strcasecmp(c->aid, "REPMGR") == 0)
		return (1);
	deny(sv, s, c->ctag, "IIAC", "Invalid AID %s", c->aid);
	return (0);
}

static void
cmd_opr_arc_eqpt(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	if (!arc_aid(sv, s, c))
		return;
	s->inhibit = 1;
	compld(sv, s, c->ctag, NULL);
}

static void
cmd_rls_arc_eqpt(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	if (!arc_aid(sv, s, c))
		return;
	s->inhibit = 0;
	compld(sv, s, c->ctag, NULL);
}

static void
cmd_rtrv_arc_eqpt(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	struct lines l = {0};

	if (!arc_aid(sv, s, c))
		return;
	addl(&l, "REPMGR:%s,,", s->inhibit ? "IND" : "ALW");
	compld(sv, s, c->ctag, &l);
	lines_free(&l);
}

/* SET-EMU-FAULT:::<ctag>::<spec>; (an ocs-emu extension, needs no login
 * and ignores the faults so they can be cleared). */
void
emu_tl1_cmd_set_fault(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	struct lines l = {0};
	char         err[200], now[256];
	const char  *spec = c->nblk >= 2 ? c->blk[1] : "";

	if (emu_fault_set(sv->e, spec, err, sizeof(err)) != 0) {
		deny(sv, s, c->ctag, "IPNV", "%s", err);
		return;
	}
	emu_fault_fmt(sv->e, now, sizeof(now));
	log_info("tl1[%u]: faults now: %s", s->id, now);
	addl(&l, "FAULTS=%s", now);
	compld(sv, s, c->ctag, &l);
	lines_free(&l);
}

/* RTRV-EMU-CAPTURE::<run>:<ctag>; (an ocs-emu extension): what the
 * kernel datapath's capture saw of a run (hex, the low 32 bits of its
 * id), "FRAMES=..,UNLIT=..[,FIRST=..][,GAPS=..]" (emu_cap.h). */
static void
cmd_rtrv_emu_capture(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	struct lines  l = {0};
	char          text[1100], *end;
	unsigned long run = strtoul(c->aid ? c->aid : "", &end, 16);
	int           rv;

	if (!c->aid || !*c->aid || *end || run > UINT32_MAX) {
		deny(sv, s, c->ctag, "IIAC", "Invalid run: %s",
		     c->aid ? c->aid : "");
		return;
	}
	rv = sv->e->capture ? sv->e->capture(sv->e->kdp, (uint32_t)run, text,
	                                     sizeof(text))
	                    : -ENOTSUP;
	if (rv == -ENOTSUP) {
		deny(sv, s, c->ctag, "SNVS",
		     "No capture (ocs-emu --datapath netns:P --capture)");
		return;
	}
	if (rv != 0) {
		deny(sv, s, c->ctag, "IIAC", "No frame of run %08lx seen",
		     run);
		return;
	}
	addl(&l, "%s", text);
	compld(sv, s, c->ctag, &l);
	lines_free(&l);
}

/* ---- network identity ----------------------------------------------- */

/* The management interfaces: eth0 is the address the TL1 face listens
 * on, eth1 is not configured.  Their MACs are locally administered. */
struct netif {
	char name[8];
	char ip[INET_ADDRSTRLEN], mask[INET_ADDRSTRLEN];
	char gw[INET_ADDRSTRLEN], bcast[INET_ADDRSTRLEN];
	char mac[18];
};

static int
netif_of(struct srv *sv, const char *aid, struct netif *nf)
{
	char           host[256], port[16];
	struct in_addr a = {0}, m = {0}, b;
	int            eth1 = strcasecmp(aid, "eth1") == 0;

	if (!eth1 && strcasecmp(aid, "eth0") != 0)
		return (-ENOENT);
	memset(nf, 0, sizeof(*nf));
	snprintf(nf->name, sizeof(nf->name), "ETH%d", eth1);
	if (!eth1 &&
	    net_hostport(sv->e->c.tl1, "3082", host, sizeof(host), port,
	                 sizeof(port)) == 0 &&
	    inet_pton(AF_INET, host, &a) == 1) {
		uint32_t h = ntohl(a.s_addr);

		/* Loopback is a /8; anything else a /24. */
		m.s_addr = htonl((h >> 24) == 127 ? 0xff000000u : 0xffffff00u);
	}
	b.s_addr = a.s_addr ? (a.s_addr | ~m.s_addr) : 0;
	inet_ntop(AF_INET, &a, nf->ip, sizeof(nf->ip));
	inet_ntop(AF_INET, &m, nf->mask, sizeof(nf->mask));
	inet_ntop(AF_INET, &b, nf->bcast, sizeof(nf->bcast));
	snprintf(nf->gw, sizeof(nf->gw), "0.0.0.0");
	snprintf(nf->mac, sizeof(nf->mac), "02:4f:43:53:%02x:%02x",
	         sv->e->x.n & 0xff, eth1);
	return (0);
}

/* RTRV-IP::eth0|eth1, RTRV-IPPORT (the same with the port's name) and
 * RTRV-MAC. */
static void
netif_cmd(struct srv *sv, struct sess *s, struct tl1_cmd *c, int what)
{
	struct lines l = {0};
	struct netif nf;

	if (netif_of(sv, c->aid, &nf) != 0) {
		deny(sv, s, c->ctag, "IIAC", "Invalid AID %s", c->aid);
		return;
	}
	if (what == 2)
		addl(&l, "%s:MAC=%s", nf.name, nf.mac);
	else
		addl(&l, "%s:IPADDR=%s,NETMASK=%s,GATEWAY=%s,BROADCAST=%s%s",
		     what ? nf.name : c->aid, nf.ip, nf.mask, nf.gw, nf.bcast,
		     what ? ",DHCP=N" : "");
	compld(sv, s, c->ctag, &l);
	lines_free(&l);
}

static void
cmd_rtrv_ip(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	netif_cmd(sv, s, c, 0);
}

static void
cmd_rtrv_ipport(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	netif_cmd(sv, s, c, 1);
}

static void
cmd_rtrv_mac(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	netif_cmd(sv, s, c, 2);
}

#define V EMU_PRIV_VIEW
#define U EMU_PRIV_USER
#define A EMU_PRIV_ADMIN
const struct emu_tl1_verb emu_tl1_polatis_verbs[] = {
    {"RTRV-HDR", V, cmd_rtrv_hdr},
    {"RTRV-NETYPE", V, cmd_rtrv_netype},
    {"RTRV-INV", V, cmd_rtrv_inv},
    {"RTRV-EQPT", V, cmd_rtrv_eqpt},
    {"ED-EQPT", A, cmd_ed_eqpt},
    {"SET-SID", A, cmd_set_sid},
    {"RTRV-TOD", V, cmd_rtrv_tod},
    {"ED-DAT", A, cmd_ed_dat},
    {"INIT-SYS", A, cmd_init_sys},
    {"RTRV-ALM-ALL", V, cmd_rtrv_alm_all},
    {"RTRV-ALM-EQPT", V, cmd_rtrv_alm_all},
    {"RTRV-ALM-ENV", V, cmd_rtrv_alm_env},
    {"OPR-ARC-EQPT", V, cmd_opr_arc_eqpt},
    {"RLS-ARC-EQPT", V, cmd_rls_arc_eqpt},
    {"RTRV-ARC-EQPT", V, cmd_rtrv_arc_eqpt},
    {"RTRV-IP", V, cmd_rtrv_ip},
    {"RTRV-IPPORT", V, cmd_rtrv_ipport},
    {"RTRV-MAC", V, cmd_rtrv_mac},
    {"SET-EMU-FAULT", 0, emu_tl1_cmd_set_fault},
    {"RTRV-EMU-CAPTURE", V, cmd_rtrv_emu_capture},
};
#undef V
#undef U
#undef A
const size_t emu_tl1_polatis_nverbs =
    sizeof(emu_tl1_polatis_verbs) / sizeof(emu_tl1_polatis_verbs[0]);

const struct emu_tl1_dialect emu_tl1_polatis = {
    .name = "polatis",
    .verbs = {emu_tl1_secu_verbs, emu_tl1_polatis_verbs, emu_tl1_port_verbs,
              emu_tl1_voa_verbs},
    .nverbs = {&emu_tl1_secu_nverbs, &emu_tl1_polatis_nverbs,
               &emu_tl1_port_nverbs, &emu_tl1_voa_nverbs},
    .parse_flags = 0,
    /* Clients match this text to log in again. */
    .nologin_code = "PLNA",
    .nologin_text = "Not logged in",
    /* The suite's SSH driver waits for a '>' after the password and
     * after every reply. */
    .ssh_prompt = "> ",
};

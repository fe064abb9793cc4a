/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The Polatis dialect's port commands: patches, shutters, power monitors
 * (forward and reverse), labels, and ocs-emu's own light-
 * path counters and corruption hook.  Port lists follow one rule
 * (port_list): a list longer than the switch is IIAC "Too many ports", a
 * port it does not have is IDNV "Invalid OXC port: P".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "proto/base/log.h"
#include "proto/base/mono.h"
#include "testbed/ocs-emu/emu_tl1_int.h"

/* Light leaves or comes back at a port: a REPT EVT for its clients. */
static void
report_port(struct srv *sv, uint32_t port, const char *cond, const char *text)
{
	char line[160];

	snprintf(line, sizeof(line), "%u:%s,SC,NSA,,,:\"%s\"", port, cond,
	         text);
	report_evt(sv, line);
}

static void
refused(struct srv *sv, struct sess *s, const char *ctag,
        const struct oxc_err *oe)
{
	if (oe->code == -DRV_EPORT)
		deny(sv, s, ctag, "IDNV", "Invalid OXC port: %u", oe->port);
	else if (oe->code == -DRV_EBUSY)
		deny(sv, s, ctag, "SNVS", "Port %u already patched to %u",
		     oe->port, oe->other);
	else if (oe->code == -EINVAL && oe->port)
		deny(sv, s, ctag, "IIAC", "Port %u repeated", oe->port);
	else
		deny(sv, s, ctag, "IIAC", "Empty parameters");
}

/* "ins,outs" of ENT-PATCH into patches; the count, or -EINVAL after
 * answering. */
static ssize_t
patch_lists(struct srv *sv, struct sess *s, const struct tl1_cmd *c,
            struct drv_patch *p, size_t cap)
{
	const char *comma = strchr(c->aid, ',');
	uint32_t   *in = NULL, *out = NULL, i;
	char       *left = NULL, bad[32];
	ssize_t     ni, no, rv = -EINVAL;

	if (comma == NULL || comma == c->aid || comma[1] == '\0' ||
	    strchr(comma + 1, ',') != NULL) {
		deny(sv, s, c->ctag, "IIAC", "Empty parameters");
		return (-EINVAL);
	}
	left = strndup(c->aid, (size_t)(comma - c->aid));
	in = calloc(cap, sizeof(*in));
	out = calloc(cap, sizeof(*out));
	if (!left || !in || !out) {
		deny(sv, s, c->ctag, "SROF", "Out of memory");
		goto done;
	}
	ni = tl1_aid_parse(left, in, cap, bad, sizeof(bad));
	no = ni < 0 ? 0 : tl1_aid_parse(comma + 1, out, cap, bad, sizeof(bad));
	if (ni == -E2BIG || no == -E2BIG)
		deny(sv, s, c->ctag, "IIAC", "Too many ports");
	else if (ni < 0 || no < 0)
		deny(sv, s, c->ctag, "IDNV", "Invalid OXC port: %s", bad);
	else if (ni != no)
		deny(sv, s, c->ctag, "IIAC",
		     "Mismatched port lists (%zd ingress, %zd egress)", ni,
		     no);
	else {
		for (i = 0; i < (uint32_t)ni; i++) {
			if (in[i] > UINT16_MAX || out[i] > UINT16_MAX) {
				deny(sv, s, c->ctag, "IDNV",
				     "Invalid OXC port: %u",
				     in[i] > UINT16_MAX ? in[i] : out[i]);
				goto done;
			}
			p[i] = (struct drv_patch){(uint16_t)in[i],
			                          (uint16_t)out[i]};
		}
		rv = ni;
	}
done:
	free(left);
	free(in);
	free(out);
	return (rv);
}

static void
cmd_ent_patch(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	struct drv_patch *p;
	struct oxc_err    oe;
	size_t            cap = 2 * sv->e->x.n + 1;
	uint64_t          now = mono_ns(), gen = sv->e->x.gen;
	ssize_t           n, i;

	if ((p = calloc(cap, sizeof(*p))) == NULL) {
		deny(sv, s, c->ctag, "SROF", "Out of memory");
		return;
	}
	if ((n = patch_lists(sv, s, c, p, cap)) < 0)
		goto done;
	if (sv->e->fault.deny_half && n > 1) {
		/* The device stops half way through the list. */
		if (oxc_connect_prefix(&sv->e->x, p, (size_t)n, (size_t)n / 2,
		                       now, &oe) != 0)
			refused(sv, s, c->ctag, &oe);
		else
			deny(sv, s, c->ctag, "SROF",
			     "Equipment fault after %zd of %zd patches", n / 2,
			     n);
		persist(sv);
		goto done;
	}
	if (oxc_connect(&sv->e->x, p, (size_t)n, now, &oe) != 0) {
		refused(sv, s, c->ctag, &oe);
		goto done;
	}
	for (i = 0; i < n; i++)
		report_port(sv, p[i].out, "LOS", "Loss of signal");
	persist(sv);
	log_debug("tl1[%u]: %zd patch%s entered", s->id, n,
	          n == 1 ? "" : "es");
	/* COMPLD once the mirrors have settled. */
	respond(sv, s, c->ctag, TL1_COMPLD, NULL, NULL, NULL,
	        sv->e->c.ack_immediate || sv->e->x.gen == gen
	            ? 0
	            : mono_ms() + (sv->e->x.switch_ns + 999999) / 1000000);
done:
	free(p);
}

static void
cmd_dlt_patch(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	uint64_t       gen;
	uint32_t      *ports;
	uint16_t      *p16;
	struct oxc_err oe;
	ssize_t        k, i;

	if ((k = port_list(sv, s, c, 0, &ports)) < 0)
		return;
	if ((p16 = calloc((size_t)k + 1, sizeof(*p16))) == NULL) {
		deny(sv, s, c->ctag, "SROF", "Out of memory");
		free(ports);
		return;
	}
	for (i = 0; i < k; i++) {
		uint32_t pt = ports[i];
		uint32_t eg = pt <= sv->e->x.n ? sv->e->x.out_of[pt] : pt;

		p16[i] = (uint16_t)pt;
		if (eg && (pt > sv->e->x.n || sv->e->x.out_of[pt]))
			report_port(sv, eg, "LOS", "Loss of signal");
	}
	gen = sv->e->x.gen;
	if (k > 0 &&
	    oxc_disconnect(&sv->e->x, p16, (size_t)k, mono_ns(), &oe) != 0)
		refused(sv, s, c->ctag, &oe);
	else {
		persist(sv);
		/* A datapath that carries light answers once the removed
		 * paths are dark in it (held until it has applied the
		 * change), never while it still forwards them. */
		respond(sv, s, c->ctag, TL1_COMPLD, NULL, NULL, NULL,
		        sv->e->dp_track && sv->e->x.gen != gen &&
		                !sv->e->c.ack_immediate
		            ? mono_ms()
		            : 0);
	}
	free(ports);
	free(p16);
}

static void
cmd_rtrv_patch(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	struct lines l = {0};
	uint32_t    *ports, in;
	uint8_t     *want;
	ssize_t      k, i;

	if ((k = port_list(sv, s, c, 0, &ports)) < 0)
		return;
	if ((want = calloc(2 * sv->e->x.n + 1, 1)) == NULL) {
		deny(sv, s, c->ctag, "SROF", "Out of memory");
		free(ports);
		return;
	}
	for (i = 0; i < k; i++)
		want[ports[i]] = 1;
	for (in = 1; in <= sv->e->x.n; in++) {
		uint32_t out = sv->e->x.out_of[in];

		if (out && (want[in] || want[out]))
			addl(&l, "%u,%u", in, out);
	}
	compld(sv, s, c->ctag, &l);
	lines_free(&l);
	free(ports);
	free(want);
}

/* One data line per listed port, as `what` writes it (NULL: none). */
typedef const char *(*port_line_fn)(struct srv *, uint32_t port, char *buf,
                                    size_t len);

static void
per_port(struct srv *sv, struct sess *s, struct tl1_cmd *c, port_line_fn fn)
{
	struct lines l = {0};
	uint32_t    *ports;
	ssize_t      k, i;
	char         buf[128];

	if ((k = port_list(sv, s, c, 0, &ports)) < 0)
		return;
	for (i = 0; i < k; i++)
		if (fn(sv, ports[i], buf, sizeof(buf)) != NULL)
			addl(&l, "%s", buf);
	compld(sv, s, c->ctag, &l);
	lines_free(&l);
	free(ports);
}

static const char *
shutter_line(struct srv *sv, uint32_t p, char *b, size_t len)
{
	snprintf(b, len, "%u:%s", p, sv->e->x.closed[p] ? "CLOSED" : "OPEN");
	return (b);
}

static const char *
power_line(struct srv *sv, uint32_t p, char *b, size_t len)
{
	snprintf(b, len, "%u:%.2f", p, emu_port_power(sv->e, p, mono_ns()));
	return (b);
}

/* Light coming back into a port: hosts here only send into ingress
 * ports, so none. */
static const char *
revpower_line(struct srv *sv, uint32_t p, char *b, size_t len)
{
	(void)sv;
	snprintf(b, len, "%u:%.2f", p, OXC_NO_LIGHT);
	return (b);
}

static const char *
pmon_line(struct srv *sv, uint32_t p, char *b, size_t len)
{
	const struct emu_port *ep = &sv->e->port[p];

	snprintf(b, len, "%u:%u,%.2f,%u", p, ep->wave, ep->offset, ep->atime);
	return (b);
}

static const char *
label_line(struct srv *sv, uint32_t p, char *b, size_t len)
{
	snprintf(b, len, "%u:%s", p, sv->e->port[p].label);
	return (b);
}

/* Light-path counters: "<port>:IN=n,OUT=n,DROP=n" (an ocs-emu
 * extension; RTRV-PORT-POWER's shape). */
static const char *
cntr_line(struct srv *sv, uint32_t p, char *b, size_t len)
{
	snprintf(b, len, "%u:IN=%llu,OUT=%llu,DROP=%llu", p,
	         (unsigned long long)__atomic_load_n(&sv->e->cnt_in[p],
	                                             __ATOMIC_RELAXED),
	         (unsigned long long)__atomic_load_n(&sv->e->cnt_out[p],
	                                             __ATOMIC_RELAXED),
	         (unsigned long long)__atomic_load_n(&sv->e->cnt_drop[p],
	                                             __ATOMIC_RELAXED));
	return (b);
}

static void
cmd_rtrv_port_shutter(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	per_port(sv, s, c, shutter_line);
}

static void
cmd_rtrv_port_power(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	per_port(sv, s, c, power_line);
}

static void
cmd_rtrv_port_revpower(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	per_port(sv, s, c, revpower_line);
}

static void
cmd_rtrv_port_pmon(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	per_port(sv, s, c, pmon_line);
}

static void
cmd_rtrv_port_label(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	per_port(sv, s, c, label_line);
}

static void
cmd_rtrv_port_cntr(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	per_port(sv, s, c, cntr_line);
}

/* A shutter closed disables the port: clients hear "Port N disabled"
 * (not a loss of signal), and "enabled" when it opens. */
static void
shutter(struct srv *sv, struct sess *s, struct tl1_cmd *c, int close)
{
	uint32_t *ports;
	ssize_t   k, i;
	char      text[64];

	if ((k = port_list(sv, s, c, 1, &ports)) < 0)
		return;
	for (i = 0; i < k; i++) {
		if (sv->e->x.closed[ports[i]] != close) {
			snprintf(text, sizeof(text), "Port %u %s", ports[i],
			         close ? "disabled" : "enabled");
			report_port(sv, ports[i],
			            close ? "DISABLED" : "ENABLED", text);
		}
		sv->e->x.closed[ports[i]] = (uint8_t)close;
	}
	compld(sv, s, c->ctag, NULL);
	free(ports);
}

static void
cmd_opr_port_shutter(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	shutter(sv, s, c, 1);
}

static void
cmd_rls_port_shutter(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	shutter(sv, s, c, 0);
}

/* A float in [lo, hi]: 0 or -EINVAL. */
static int
float_in(const char *v, double lo, double hi, double *out)
{
	char *end;

	if (v == NULL || *v == '\0')
		return (-EINVAL);
	*out = strtod(v, &end);
	return (*end == '\0' && *out >= lo && *out <= hi ? 0 : -EINVAL);
}

/* SET-PORT-PMON::P:c:::WAVE=nm,OFFSET=dB,ATIME=1..8 (any of them). */
static void
cmd_set_port_pmon(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	static const char *const keys[] = {"WAVE", "OFFSET", "ATIME", NULL};
	uint32_t                *ports;
	char                     w[32], o[32], a[32];
	long                     wave = -1, atime = -1;
	double                   off = 0;
	ssize_t                  k, i;
	int                      has_o;

	if (params_only(sv, s, c, 1, keys) != 0)
		return;
	has_o = keyword(c, "OFFSET", o, sizeof(o)) != NULL;
	if ((keyword(c, "WAVE", w, sizeof(w)) &&
	     number_in(w, 1250, 1650, &wave) != 0) ||
	    (keyword(c, "ATIME", a, sizeof(a)) &&
	     number_in(a, 1, 8, &atime) != 0) ||
	    (has_o && float_in(o, -20, 20, &off) != 0)) {
		deny(sv, s, c->ctag, "IPNV", "Parameter not valid");
		return;
	}
	if ((k = port_list(sv, s, c, 1, &ports)) < 0)
		return;
	for (i = 0; i < k; i++) {
		struct emu_port *ep = &sv->e->port[ports[i]];

		if (wave >= 0)
			ep->wave = (uint16_t)wave;
		if (atime >= 0)
			ep->atime = (uint8_t)atime;
		if (has_o)
			ep->offset = off;
	}
	compld(sv, s, c->ctag, NULL);
	free(ports);
}

/* A Polatis port label: letters, digits, blanks, '.', '_' and '-', up
 * to POLATIS_LABEL_MAX of them. */
#define POLATIS_LABEL_MAX 20
static int
polatis_label_ok(const char *v, size_t n)
{
	return (n <= POLATIS_LABEL_MAX &&
	        strspn(v,
	               "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	               "0123456789 ._-") >= n);
}

/*
 * SET- or ED-PORT-LABEL::P:c:::LABEL="x" (one label for every port) or
 * LABEL=x&y (one each, in the order of the ports); DLT-PORT-LABEL::P:c:;
 * Every label is checked before any is set.
 */
static void
label(struct srv *sv, struct sess *s, struct tl1_cmd *c, int set)
{
	static const char *const keys[] = {"LABEL", NULL};
	uint32_t                *ports = NULL;
	char                     v[256];
	const char              *p;
	size_t                   nl = 1;
	ssize_t                  k, i;

	v[0] = '\0';
	if (set && params_only(sv, s, c, 1, keys) != 0)
		return;
	if (set && keyword(c, "LABEL", v, sizeof(v)) == NULL) {
		deny(sv, s, c->ctag, "IPMS", "Missing LABEL");
		return;
	}
	for (p = v; (p = strchr(p, '&')) != NULL; p++)
		nl++;
	if ((k = port_list(sv, s, c, 1, &ports)) < 0)
		return;
	for (i = 0, p = v; set && i < (ssize_t)nl; i++) {
		size_t n = strcspn(p, "&");

		if (!polatis_label_ok(p, n) || (nl > 1 && nl != (size_t)k)) {
			deny(sv, s, c->ctag, "IPNV", "Parameter not valid");
			free(ports);
			return;
		}
		p += n + (p[n] == '&');
	}
	for (i = 0, p = v; i < k; i++) {
		size_t n = strcspn(p, "&");

		snprintf(sv->e->port[ports[i]].label,
		         sizeof(sv->e->port[ports[i]].label), "%.*s", (int)n,
		         p);
		if (nl > 1)
			p += n + (p[n] == '&');
	}
	compld(sv, s, c->ctag, NULL);
	free(ports);
}

static void
cmd_set_port_label(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	label(sv, s, c, 1);
}

static void
cmd_dlt_port_label(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	label(sv, s, c, 0);
}

/* Test hook: corrupt one byte of the next chunk entering these ingress
 * ports (an ocs-emu extension, for verification tests). */
static void
cmd_opr_port_corrupt(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	uint32_t *ports;
	ssize_t   k, i;

	if ((k = port_list(sv, s, c, 1, &ports)) < 0)
		return;
	for (i = 0; i < k; i++)
		if (ports[i] <= sv->e->x.n)
			__atomic_store_n(&sv->e->corrupt[ports[i]], 1,
			                 __ATOMIC_RELAXED);
	compld(sv, s, c->ctag, NULL);
	free(ports);
}

#define V EMU_PRIV_VIEW
#define U EMU_PRIV_USER
const struct emu_tl1_verb emu_tl1_port_verbs[] = {
    {"ENT-PATCH", U, cmd_ent_patch},
    {"DLT-PATCH", U, cmd_dlt_patch},
    {"RTRV-PATCH", V, cmd_rtrv_patch},
    {"RTRV-PORT-SHUTTER", V, cmd_rtrv_port_shutter},
    {"OPR-PORT-SHUTTER", U, cmd_opr_port_shutter},
    {"RLS-PORT-SHUTTER", U, cmd_rls_port_shutter},
    {"RTRV-PORT-POWER", V, cmd_rtrv_port_power},
    {"RTRV-PORT-REVPOWER", V, cmd_rtrv_port_revpower},
    {"RTRV-PORT-PMON", V, cmd_rtrv_port_pmon},
    {"SET-PORT-PMON", U, cmd_set_port_pmon},
    {"RTRV-PORT-LABEL", V, cmd_rtrv_port_label},
    {"SET-PORT-LABEL", U, cmd_set_port_label},
    {"ED-PORT-LABEL", U, cmd_set_port_label},
    {"DLT-PORT-LABEL", U, cmd_dlt_port_label},
    {"RTRV-PORT-CNTR", V, cmd_rtrv_port_cntr},
    {"OPR-PORT-CORRUPT", U, cmd_opr_port_corrupt},
};
#undef V
#undef U
const size_t emu_tl1_port_nverbs =
    sizeof(emu_tl1_port_verbs) / sizeof(emu_tl1_port_verbs[0]);

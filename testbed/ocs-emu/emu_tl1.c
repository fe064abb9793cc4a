/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The TL1 face of ocs-emu: Polatis dialect (spec/ocs-protocols.md sect. 1)
 * with its reply framing and error codes.  One poll loop serves many
 * sessions; a session's reply to a patch change is held until the
 * switching time has passed (unless --ack immediate), and the session's
 * next command waits for it, while other sessions carry on.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ocs-drivers/tl1.h"
#include "proto/base/log.h"
#include "proto/base/mono.h"
#include "proto/base/net.h"
#include "testbed/ocs-emu/emu.h"

#define MAX_SESS 64

struct sess {
	int            fd;
	struct tl1_buf in, out, held;
	int            logged_in, inhibit, closing;
	uint64_t       due_ms; /* held reply goes out then; 0 = none */
	uint64_t       last_ms;
	unsigned       id;
	uint32_t       ncmds;   /* for the drop fault */
	int            control; /* answering a fault-control command */
};

struct srv {
	struct emu  *e;
	struct sess *s[MAX_SESS];
	uint32_t     atag;
	unsigned     next_id;
};

/* Data lines of a reply. */
struct lines {
	char **v;
	size_t n, cap;
};

LOG_FMT(2, 3) static int addl(struct lines *l, const char *fmt, ...)
{
	va_list ap;
	char    buf[512];

	if (l->n == l->cap) {
		size_t nc = l->cap ? 2 * l->cap : 16;
		char **nv = realloc(l->v, nc * sizeof(*nv));
		if (nv == NULL)
			return (-ENOMEM);
		l->v = nv;
		l->cap = nc;
	}
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if ((l->v[l->n] = strdup(buf)) == NULL)
		return (-ENOMEM);
	l->n++;
	return (0);
}

static void
lines_free(struct lines *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static void
respond(struct srv *sv, struct sess *s, const char *ctag, enum tl1_status st,
        const char *code, const char *comment, const struct lines *l,
        uint64_t due_ms)
{
	const struct emu_fault *f = &sv->e->fault;
	struct tl1_buf         *b;

	if (!s->control && f->delay_ms) {
		uint64_t late = mono_ms() + f->delay_ms;

		due_ms = due_ms > late ? due_ms : late;
	}
	b = due_ms ? &s->held : &s->out;
	if (!s->control && f->garbage)
		tl1_buf_put(b, emu_garbage, strlen(emu_garbage));
	else
		tl1_resp_fmt(b, sv->e->sid, time(NULL), ctag, st, code,
		             comment, l ? l->v : NULL, l ? l->n : 0,
		             sv->e->c.block_bytes);
	if (due_ms)
		s->due_ms = due_ms;
	log_trace("tl1[%u] < M %s %s%s%s", s->id, ctag, tl1_status_name(st),
	          code ? " " : "", code ? code : "");
}

LOG_FMT(5, 6)
static void
deny(struct srv *sv, struct sess *s, const char *ctag, const char *code,
     const char *fmt, ...)
{
	char    comment[256], *q;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(comment, sizeof(comment), fmt, ap);
	va_end(ap);
	/* Client bytes echoed in a comment stay on its one line and inside
	 * it: no control characters, no early end of comment. */
	for (q = comment; *q; q++)
		if ((unsigned char)*q < 0x20 || (unsigned char)*q >= 0x7f ||
		    (q[0] == '*' && q[1] == '/'))
			*q = '?';
	respond(sv, s, ctag, TL1_DENY, code, comment, NULL, 0);
}

static void
compld(struct srv *sv, struct sess *s, const char *ctag, const struct lines *l)
{
	respond(sv, s, ctag, TL1_COMPLD, NULL, NULL, l, 0);
}

/* Autonomous "REPT EVT PORT" to every session that has not inhibited. */
static void
report_los(struct srv *sv, uint32_t port)
{
	char line[128];
	int  i;

	if (!sv->e->c.autonomous)
		return;
	snprintf(line, sizeof(line), "%u:LOS,SC,NSA,,,:\"Loss of signal\"",
	         port);
	for (i = 0; i < MAX_SESS; i++) {
		struct sess *s = sv->s[i];

		if (s && s->logged_in && !s->inhibit && !s->closing)
			tl1_auto_fmt(&s->out, sv->e->sid, time(NULL), "A",
			             ++sv->atag, "REPT EVT PORT", line);
	}
}

static void
persist(struct srv *sv)
{
	int rv;

	if (sv->e->x.gen != sv->e->saved_gen &&
	    (rv = emu_state_save(sv->e)) != 0)
		log_warnx("saving state to %s: %s", sv->e->c.state,
		          strerror(-rv));
}

/* The "value" of KEY=value in a keyword block, or NULL. */
static const char *
keyword(const struct tl1_cmd *c, const char *key, char *buf, size_t len)
{
	size_t i, kl = strlen(key);

	for (i = 0; i < c->nblk; i++) {
		const char *p = c->blk[i];

		while (p && *p) {
			if (strncasecmp(p, key, kl) == 0 && p[kl] == '=') {
				const char *v = p + kl + 1;
				size_t      vl = strcspn(v, ",");

				if (vl && v[0] == '"' && v[vl - 1] == '"' &&
				    vl >= 2) {
					v++;
					vl -= 2;
				}
				snprintf(buf, len, "%.*s", (int)vl, v);
				return (buf);
			}
			p = strchr(p, ',');
			if (p)
				p++;
		}
	}
	return (NULL);
}

/*
 * Ports of an AID for per-port commands: a list, or ALL/empty for every
 * port.  Returns the count, or -EINVAL after answering with a DENY.
 */
static ssize_t
aid_ports(struct srv *sv, struct sess *s, const struct tl1_cmd *c,
          uint32_t *ports, size_t cap)
{
	uint32_t i, n = 2 * sv->e->x.n;
	char     bad[32];
	ssize_t  k;

	if (c->aid[0] == '\0' || strcasecmp(c->aid, "ALL") == 0) {
		for (i = 0; i < n && i < cap; i++)
			ports[i] = i + 1;
		return ((ssize_t)i);
	}
	k = tl1_aid_parse(c->aid, ports, cap, bad, sizeof(bad));
	if (k == -E2BIG) {
		deny(sv, s, c->ctag, "IIAC", "Too many ports");
		return (-EINVAL);
	}
	if (k < 0) {
		deny(sv, s, c->ctag, "IDNV", "Invalid OXC port: %s", bad);
		return (-EINVAL);
	}
	for (i = 0; i < (uint32_t)k; i++)
		if (!oxc_valid_port(&sv->e->x, ports[i])) {
			deny(sv, s, c->ctag, "IDNV", "Invalid OXC port: %u",
			     ports[i]);
			return (-EINVAL);
		}
	return (k);
}

/* aid_ports into a fresh array (*out, the caller frees it); with need,
 * an empty AID is refused instead of meaning every port. */
static ssize_t
port_list(struct srv *sv, struct sess *s, const struct tl1_cmd *c, int need,
          uint32_t **out)
{
	size_t  cap = 2 * sv->e->x.n;
	ssize_t k;

	*out = NULL;
	if (need && c->aid[0] == '\0') {
		deny(sv, s, c->ctag, "IIAC", "Empty parameters");
		return (-EINVAL);
	}
	if ((*out = calloc(cap, sizeof(**out))) == NULL) {
		deny(sv, s, c->ctag, "SROF", "Out of memory");
		return (-EINVAL);
	}
	if ((k = aid_ports(sv, s, c, *out, cap)) < 0) {
		free(*out);
		*out = NULL;
	}
	return (k);
}

/* ---- commands ----------------------------------------------------------- */

static void
cmd_act_user(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	const char *pw = c->nblk >= 2 ? c->blk[1] : NULL;

	if (c->aid[0] == '\0') {
		deny(sv, s, c->ctag, "IIAC", "Too few parameters (0/1)");
		return;
	}
	if (pw == NULL || pw[0] == '\0') {
		deny(sv, s, c->ctag, "IPMS",
		     "Too few parameters (0/1) in block 1");
		return;
	}
	if (strcmp(c->aid, sv->e->c.user) != 0 ||
	    strcmp(pw, sv->e->c.password) != 0 || sv->e->fault.refuse_login) {
		log_info("tl1[%u]: login as \"%s\" refused", s->id, c->aid);
		deny(sv, s, c->ctag, "PICC", "Permission denied");
		return;
	}
	s->logged_in = 1;
	compld(sv, s, c->ctag, NULL);
}

static void
cmd_canc_user(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	if (strcmp(c->aid, sv->e->c.user) != 0) {
		deny(sv, s, c->ctag, "PICC", "Permission denied");
		return;
	}
	compld(sv, s, c->ctag, NULL);
	s->logged_in = 0;
	s->closing = 1;
}

static void
cmd_rtrv_hdr(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	compld(sv, s, c->ctag, NULL);
}

static void
cmd_rtrv_netype(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	struct lines l = {0};

	addl(&l, "Polatis,N-OCS-EMU-%ux%u,OCS,ocs-emu 1.0", sv->e->x.n,
	     sv->e->x.n);
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

static void
cmd_rtrv_eqpt(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	struct lines l = {0};
	char         v[64];

	if (strcasecmp(c->aid, "SYSTEM") == 0) {
		if (keyword(c, "PARAMETER", v, sizeof(v)) == NULL ||
		    strcasecmp(v, "SIZE") != 0) {
			deny(sv, s, c->ctag, "IPNV", "Invalid parameter");
			return;
		}
		addl(&l, "SYSTEM:SIZE=%ux%u", sv->e->x.n, sv->e->x.n);
	} else if (strcasecmp(c->aid, "TIMEOUT") == 0) {
		addl(&l, "TIMEOUT:ADMIN=%u,USER=%u", sv->e->idle_timeout_s,
		     sv->e->idle_timeout_s);
	} else if (strcasecmp(c->aid, "BOOT") == 0) {
		addl(&l, "BOOT:MODE=%s",
		     sv->e->x.boot == OXC_BOOT_RESTORE ? "RESTORE" : "DARK");
	} else {
		deny(sv, s, c->ctag, "IIAC", "Invalid AID %s", c->aid);
		return;
	}
	compld(sv, s, c->ctag, &l);
	lines_free(&l);
}

static void
cmd_ed_eqpt(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	char  v[64];
	char *end;
	long  t;

	if (strcasecmp(c->aid, "BOOT") == 0) {
		if (keyword(c, "MODE", v, sizeof(v)) == NULL) {
			deny(sv, s, c->ctag, "IPMS", "Missing MODE");
			return;
		}
		if (strcasecmp(v, "DARK") == 0)
			sv->e->x.boot = OXC_BOOT_DARK;
		else if (strcasecmp(v, "RESTORE") == 0)
			sv->e->x.boot = OXC_BOOT_RESTORE;
		else {
			deny(sv, s, c->ctag, "IDNV", "Invalid value %s", v);
			return;
		}
		sv->e->x.gen++; /* saved below */
		persist(sv);
	} else if (strcasecmp(c->aid, "TIMEOUT") == 0) {
		if (keyword(c, "ADMIN", v, sizeof(v)) == NULL &&
		    keyword(c, "USER", v, sizeof(v)) == NULL) {
			deny(sv, s, c->ctag, "IPMS", "Missing ADMIN or USER");
			return;
		}
		t = strtol(v, &end, 10);
		if (*end != '\0' || t < 0 || t > 86400) {
			deny(sv, s, c->ctag, "IDNV", "Invalid value %s", v);
			return;
		}
		sv->e->idle_timeout_s = (uint32_t)t;
	} else {
		deny(sv, s, c->ctag, "IIAC", "Invalid AID %s", c->aid);
		return;
	}
	compld(sv, s, c->ctag, NULL);
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

static void
cmd_ent_patch(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	const char       *comma = strchr(c->aid, ',');
	uint32_t         *in = NULL, *out = NULL, i;
	struct drv_patch *p = NULL;
	struct oxc_err    oe;
	char             *left = NULL, bad[32];
	ssize_t           ni, no;
	uint64_t          now = mono_ns(), gen;
	size_t            cap = 2 * sv->e->x.n + 1;

	if (comma == NULL || comma == c->aid || comma[1] == '\0' ||
	    strchr(comma + 1, ',') != NULL) {
		deny(sv, s, c->ctag, "IIAC", "Empty parameters");
		return;
	}
	left = strndup(c->aid, (size_t)(comma - c->aid));
	in = calloc(cap, sizeof(*in));
	out = calloc(cap, sizeof(*out));
	p = calloc(cap, sizeof(*p));
	if (!left || !in || !out || !p) {
		deny(sv, s, c->ctag, "SROF", "Out of memory");
		goto done;
	}
	ni = tl1_aid_parse(left, in, cap, bad, sizeof(bad));
	no = ni < 0 ? 0 : tl1_aid_parse(comma + 1, out, cap, bad, sizeof(bad));
	if (ni == -E2BIG || no == -E2BIG) {
		deny(sv, s, c->ctag, "IIAC", "Too many ports");
		goto done;
	}
	if (ni < 0 || no < 0) {
		deny(sv, s, c->ctag, "IDNV", "Invalid OXC port: %s", bad);
		goto done;
	}
	if (ni != no) {
		deny(sv, s, c->ctag, "IIAC",
		     "Mismatched port lists (%zd ingress, %zd egress)", ni,
		     no);
		goto done;
	}
	for (i = 0; i < (uint32_t)ni; i++) {
		if (in[i] > UINT16_MAX || out[i] > UINT16_MAX) {
			deny(sv, s, c->ctag, "IDNV", "Invalid OXC port: %u",
			     in[i] > UINT16_MAX ? in[i] : out[i]);
			goto done;
		}
		p[i].in = (uint16_t)in[i];
		p[i].out = (uint16_t)out[i];
	}
	gen = sv->e->x.gen;
	if (sv->e->fault.deny_half && ni > 1) {
		/* The device stops half way through the list. */
		if (oxc_connect_prefix(&sv->e->x, p, (size_t)ni,
		                       (size_t)ni / 2, now, &oe) != 0)
			refused(sv, s, c->ctag, &oe);
		else
			deny(sv, s, c->ctag, "SROF",
			     "Equipment fault after %zd of %zd patches",
			     ni / 2, ni);
		persist(sv);
		goto done;
	}
	if (oxc_connect(&sv->e->x, p, (size_t)ni, now, &oe) != 0) {
		refused(sv, s, c->ctag, &oe);
		goto done;
	}
	for (i = 0; i < (uint32_t)ni; i++)
		report_los(sv, p[i].out);
	persist(sv);
	log_debug("tl1[%u]: %zd patch%s entered", s->id, ni,
	          ni == 1 ? "" : "es");
	/* COMPLD once the mirrors have settled. */
	respond(sv, s, c->ctag, TL1_COMPLD, NULL, NULL, NULL,
	        sv->e->c.ack_immediate || sv->e->x.gen == gen
	            ? 0
	            : mono_ms() + (sv->e->x.switch_ns + 999999) / 1000000);
done:
	free(left);
	free(in);
	free(out);
	free(p);
}

static void
cmd_dlt_patch(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	uint32_t      *ports;
	uint16_t      *p16;
	struct oxc_err oe;
	ssize_t        k, i;
	size_t         cap = 2 * sv->e->x.n;

	ports = calloc(cap, sizeof(*ports));
	p16 = calloc(cap, sizeof(*p16));
	if (!ports || !p16) {
		deny(sv, s, c->ctag, "SROF", "Out of memory");
		goto done;
	}
	if ((k = aid_ports(sv, s, c, ports, cap)) < 0)
		goto done;
	for (i = 0; i < k; i++) {
		uint32_t pt = ports[i];
		uint32_t eg = pt <= sv->e->x.n ? sv->e->x.out_of[pt] : pt;

		p16[i] = (uint16_t)pt;
		if (eg && (pt > sv->e->x.n || sv->e->x.out_of[pt]))
			report_los(sv, eg);
	}
	if (k > 0 &&
	    oxc_disconnect(&sv->e->x, p16, (size_t)k, mono_ns(), &oe) != 0) {
		refused(sv, s, c->ctag, &oe);
		goto done;
	}
	persist(sv);
	compld(sv, s, c->ctag, NULL);
done:
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
	size_t       cap = 2 * sv->e->x.n;

	ports = calloc(cap, sizeof(*ports));
	want = calloc(cap + 1, 1);
	if (!ports || !want) {
		deny(sv, s, c->ctag, "SROF", "Out of memory");
		goto done;
	}
	if ((k = aid_ports(sv, s, c, ports, cap)) < 0)
		goto done;
	for (i = 0; i < k; i++)
		want[ports[i]] = 1;
	for (in = 1; in <= sv->e->x.n; in++) {
		uint32_t out = sv->e->x.out_of[in];

		if (out && (want[in] || want[out]))
			addl(&l, "%u,%u", in, out);
	}
	compld(sv, s, c->ctag, &l);
done:
	lines_free(&l);
	free(ports);
	free(want);
}

static void
port_report(struct srv *sv, struct sess *s, struct tl1_cmd *c, int what)
{
	struct lines l = {0};
	uint32_t    *ports;
	ssize_t      k, i;
	uint64_t     now = mono_ns();

	if ((k = port_list(sv, s, c, 0, &ports)) < 0)
		return;
	for (i = 0; i < k; i++) {
		if (what == 0)
			addl(&l, "%u:%s", ports[i],
			     sv->e->x.closed[ports[i]] ? "CLOSED" : "OPEN");
		else
			addl(&l, "%u:%.2f", ports[i],
			     oxc_power(&sv->e->x, ports[i], now));
	}
	compld(sv, s, c->ctag, &l);
	lines_free(&l);
	free(ports);
}

/* Light-path counters: "<port>:IN=n,OUT=n,DROP=n" (an ocs-emu
 * extension; RTRV-PORT-POWER's shape). */
static void
cmd_rtrv_port_cntr(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	struct lines l = {0};
	uint32_t    *ports;
	ssize_t      k, i;

	if ((k = port_list(sv, s, c, 0, &ports)) < 0)
		return;
	for (i = 0; i < k; i++) {
		uint32_t p = ports[i];

		addl(&l, "%u:IN=%llu,OUT=%llu,DROP=%llu", p,
		     (unsigned long long)__atomic_load_n(&sv->e->cnt_in[p],
		                                         __ATOMIC_RELAXED),
		     (unsigned long long)__atomic_load_n(&sv->e->cnt_out[p],
		                                         __ATOMIC_RELAXED),
		     (unsigned long long)__atomic_load_n(&sv->e->cnt_drop[p],
		                                         __ATOMIC_RELAXED));
	}
	compld(sv, s, c->ctag, &l);
	lines_free(&l);
	free(ports);
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

static void
cmd_rtrv_port_shutter(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	port_report(sv, s, c, 0);
}

static void
cmd_rtrv_port_power(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	port_report(sv, s, c, 1);
}

static void
shutter(struct srv *sv, struct sess *s, struct tl1_cmd *c, int close)
{
	uint32_t *ports;
	ssize_t   k, i;

	if ((k = port_list(sv, s, c, 1, &ports)) < 0)
		return;
	for (i = 0; i < k; i++) {
		if (close && !sv->e->x.closed[ports[i]])
			report_los(sv, ports[i]);
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

static int
arc_aid(const char *aid)
{
	return (strcasecmp(aid, "ALL") == 0 || strcasecmp(aid, "REPMGR") == 0);
}

static void
cmd_opr_arc_eqpt(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	if (!arc_aid(c->aid)) {
		deny(sv, s, c->ctag, "IIAC", "Invalid AID %s", c->aid);
		return;
	}
	s->inhibit = 1;
	compld(sv, s, c->ctag, NULL);
}

static void
cmd_rls_arc_eqpt(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	if (!arc_aid(c->aid)) {
		deny(sv, s, c->ctag, "IIAC", "Invalid AID %s", c->aid);
		return;
	}
	s->inhibit = 0;
	compld(sv, s, c->ctag, NULL);
}

static void
cmd_rtrv_arc_eqpt(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	struct lines l = {0};

	if (!arc_aid(c->aid)) {
		deny(sv, s, c->ctag, "IIAC", "Invalid AID %s", c->aid);
		return;
	}
	addl(&l, "%s:%s", c->aid, s->inhibit ? "INH" : "ALW");
	compld(sv, s, c->ctag, &l);
	lines_free(&l);
}

static void
cmd_set_sid(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	const char *sid = c->nblk >= 2 ? c->blk[1] : "";
	size_t      i;

	if (sid[0] == '\0' || strlen(sid) >= sizeof(sv->e->sid)) {
		deny(sv, s, c->ctag, "IPNV", "Invalid SID");
		return;
	}
	for (i = 0; sid[i]; i++)
		if (!(sid[i] >= 'A' && sid[i] <= 'Z') &&
		    !(sid[i] >= 'a' && sid[i] <= 'z') &&
		    !(sid[i] >= '0' && sid[i] <= '9') && sid[i] != '-' &&
		    sid[i] != '_') {
			deny(sv, s, c->ctag, "IPNV", "Invalid SID");
			return;
		}
	snprintf(sv->e->sid, sizeof(sv->e->sid), "%s", sid);
	sv->e->x.gen++;
	persist(sv);
	compld(sv, s, c->ctag, NULL);
}

static void
cmd_rtrv_tod(struct srv *sv, struct sess *s, struct tl1_cmd *c)
{
	struct lines l = {0};
	struct tm    tm;
	time_t       t = time(NULL);
	char         b[64];

	localtime_r(&t, &tm);
	strftime(b, sizeof(b), "%Y,%m,%d,%H,%M,%S", &tm);
	addl(&l, "%s", b);
	compld(sv, s, c->ctag, &l);
	lines_free(&l);
}

/* SET-EMU-FAULT:::<ctag>::<spec>; (an ocs-emu extension, needs no login
 * and ignores the faults so they can be cleared). */
static void
cmd_set_emu_fault(struct srv *sv, struct sess *s, struct tl1_cmd *c)
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

static const struct {
	const char *verb;
	int         login;
	void (*fn)(struct srv *, struct sess *, struct tl1_cmd *);
} cmds[] = {
    {"ACT-USER", 0, cmd_act_user},
    {"CANC-USER", 1, cmd_canc_user},
    {"RTRV-HDR", 1, cmd_rtrv_hdr},
    {"RTRV-NETYPE", 1, cmd_rtrv_netype},
    {"RTRV-INV", 1, cmd_rtrv_inv},
    {"RTRV-EQPT", 1, cmd_rtrv_eqpt},
    {"ED-EQPT", 1, cmd_ed_eqpt},
    {"ENT-PATCH", 1, cmd_ent_patch},
    {"DLT-PATCH", 1, cmd_dlt_patch},
    {"RTRV-PATCH", 1, cmd_rtrv_patch},
    {"RTRV-PORT-SHUTTER", 1, cmd_rtrv_port_shutter},
    {"OPR-PORT-SHUTTER", 1, cmd_opr_port_shutter},
    {"RLS-PORT-SHUTTER", 1, cmd_rls_port_shutter},
    {"RTRV-PORT-POWER", 1, cmd_rtrv_port_power},
    {"RTRV-PORT-CNTR", 1, cmd_rtrv_port_cntr},
    {"OPR-PORT-CORRUPT", 1, cmd_opr_port_corrupt},
    {"OPR-ARC-EQPT", 1, cmd_opr_arc_eqpt},
    {"RLS-ARC-EQPT", 1, cmd_rls_arc_eqpt},
    {"RTRV-ARC-EQPT", 1, cmd_rtrv_arc_eqpt},
    {"SET-SID", 1, cmd_set_sid},
    {"RTRV-TOD", 1, cmd_rtrv_tod},
    {"SET-EMU-FAULT", 0, cmd_set_emu_fault},
};

static void
handle(struct srv *sv, struct sess *s, const char *text, size_t len)
{
	struct tl1_cmd c;
	enum tl1_perr  pe = 0;
	size_t         off = 0, i;

	log_trace("tl1[%u] > %.*s", s->id, (int)(len > 200 ? 200 : len), text);
	pthread_mutex_lock(&sv->e->mtx);
	if (tl1_cmd_parse(text, len, &c, &pe, &off) != 0) {
		/* No usable CTAG to answer with: GR-831 devices answer 0. */
		const char *tag = c.ctag ? c.ctag : "0";

		if (pe == TL1_PERR_CTAG)
			deny(sv, s, tag, "IICT",
			     "Parse error at offset %zu in command", off);
		else if (pe == TL1_PERR_TID)
			deny(sv, s, tag, "IITA",
			     "Parse error at offset %zu in command", off);
		else if (pe == TL1_PERR_VERB)
			deny(sv, s, tag, "IICM",
			     "Parse error at offset %zu in command", off);
		else
			deny(sv, s, tag, "IISP",
			     "Parse error at offset %zu in command", off);
		pthread_mutex_unlock(&sv->e->mtx);
		tl1_cmd_free(&c);
		return;
	}
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (strcmp(cmds[i].verb, c.verb) == 0)
			break;
	s->control = i < sizeof(cmds) / sizeof(cmds[0]) &&
	             cmds[i].fn == cmd_set_emu_fault;
	if (!s->control && sv->e->fault.drop_after &&
	    ++s->ncmds > sv->e->fault.drop_after) {
		/* Hang up on this command, unanswered. */
		log_info("tl1[%u]: fault: dropping the session at command %u",
		         s->id, s->ncmds);
		tl1_buf_consume(&s->out, s->out.len);
		tl1_buf_consume(&s->held, s->held.len);
		s->due_ms = 0;
		s->closing = 1;
	} else if (c.tid[0] != '\0' && strcmp(c.tid, sv->e->sid) != 0)
		deny(sv, s, c.ctag, "IITA", "Mismatched TID");
	else if (i == sizeof(cmds) / sizeof(cmds[0]))
		deny(sv, s, c.ctag, "IICM", "Invalid command");
	else if (cmds[i].login && !s->logged_in)
		deny(sv, s, c.ctag, "PLNA", "Login Not Active");
	else
		cmds[i].fn(sv, s, &c);
	s->control = 0;
	pthread_mutex_unlock(&sv->e->mtx);
	tl1_cmd_free(&c);
}

/* ---- sessions and the loop ---------------------------------------------- */

/* Index of the ';' ending the first command (outside quotes), or -1. */
static ssize_t
cmd_end(const char *p, size_t n)
{
	size_t i;
	int    q = 0;

	for (i = 0; i < n; i++) {
		if (p[i] == '"')
			q = !q;
		else if (q && p[i] == '\\' && i + 1 < n)
			i++;
		else if (!q && p[i] == ';')
			return ((ssize_t)i);
	}
	return (-1);
}

static void
sess_close(struct srv *sv, int i)
{
	struct sess *s = sv->s[i];

	log_debug("tl1[%u]: session closed", s->id);
	close(s->fd);
	tl1_buf_free(&s->in);
	tl1_buf_free(&s->out);
	tl1_buf_free(&s->held);
	free(s);
	sv->s[i] = NULL;
}

static void
process(struct srv *sv, struct sess *s)
{
	ssize_t e;

	while (s->due_ms == 0 && !s->closing &&
	       (e = cmd_end(s->in.p, s->in.len)) >= 0) {
		handle(sv, s, s->in.p, (size_t)e);
		tl1_buf_consume(&s->in, (size_t)e + 1);
	}
	if (s->in.len > TL1_MAX_CMD) {
		log_warnx("tl1[%u]: command longer than %u bytes, closing",
		          s->id, TL1_MAX_CMD);
		s->closing = 1;
	}
}

static void
accept_one(struct srv *sv, int lfd)
{
	struct sess *s;
	int          fd, i, one = 1;

	if ((fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) < 0)
		return;
	for (i = 0; i < MAX_SESS && sv->s[i]; i++)
		;
	if (i == MAX_SESS || (s = calloc(1, sizeof(*s))) == NULL) {
		log_warnx("tl1: too many sessions, refusing one");
		close(fd);
		return;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	s->fd = fd;
	s->id = ++sv->next_id;
	s->last_ms = mono_ms();
	sv->s[i] = s;
	log_debug("tl1[%u]: session opened", s->id);
}

/*
 * When a quiet session is closed (0: never).  A logged-in one after the
 * session timeout (ED-EQPT TIMEOUT, 0 = none); one that has not logged in
 * after the login grace: connections that never log in cannot take every
 * session and lock the switch's controller out.
 */
static uint64_t
idle_until(const struct srv *sv, const struct sess *s)
{
	if (!s->logged_in)
		return (sv->e->c.login_grace_ms
		            ? s->last_ms + sv->e->c.login_grace_ms
		            : 0);
	return (sv->e->idle_timeout_s
	            ? s->last_ms + sv->e->idle_timeout_s * 1000ull
	            : 0);
}

/* The poll set: stop, listener, then each session; the poll timeout is
 * the nearest delayed answer or idle limit. */
static int
poll_set(struct srv *sv, int lfd, int stopfd, struct pollfd *pfd, int *idx,
         int *timeout)
{
	uint64_t now = mono_ms();
	int      i, n = 0;

	*timeout = -1;
	pfd[n].fd = stopfd;
	pfd[n++].events = POLLIN;
	pfd[n].fd = lfd;
	pfd[n++].events = POLLIN;
	for (i = 0; i < MAX_SESS; i++) {
		struct sess *s = sv->s[i];
		uint64_t     t = 0;

		if (s == NULL)
			continue;
		if (s->due_ms)
			t = s->due_ms;
		else
			t = idle_until(sv, s);
		if (t) {
			int w = t > now ? (int)(t - now) : 0;
			if (*timeout < 0 || w < *timeout)
				*timeout = w;
		}
		pfd[n].fd = s->fd;
		/* A session whose answer is held reads nothing more. */
		pfd[n].events = (s->closing || s->due_ms ? 0 : POLLIN) |
		                (s->out.len ? POLLOUT : 0);
		idx[n++] = i;
	}
	return (n);
}

/* Bytes in and out of session i; 0, or -ECONNRESET once it is closed. */
static int
sess_io(struct srv *sv, int i, short revents, uint64_t now)
{
	struct sess *s = sv->s[i];
	char         buf[16384];
	ssize_t      r;

	if (revents & (POLLIN | POLLHUP | POLLERR)) {
		r = recv(s->fd, buf, sizeof(buf), 0);
		if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
			sess_close(sv, i);
			return (-ECONNRESET);
		}
		if (r > 0) {
			tl1_buf_put(&s->in, buf, (size_t)r);
			s->last_ms = now;
		}
	}
	if ((revents & POLLOUT) && s->out.len) {
		r = send(s->fd, s->out.p, s->out.len, MSG_NOSIGNAL);
		if (r < 0 && errno != EAGAIN && errno != EINTR) {
			sess_close(sv, i);
			return (-ECONNRESET);
		}
		if (r > 0)
			tl1_buf_consume(&s->out, (size_t)r);
	}
	return (0);
}

/* Release answers whose delay is over, run what came in, and close the
 * sessions that are done or idle too long. */
static void
sess_work(struct srv *sv, uint64_t now)
{
	int i;

	for (i = 0; i < MAX_SESS; i++) {
		struct sess *s = sv->s[i];

		if (s == NULL)
			continue;
		if (s->due_ms && now >= s->due_ms) {
			tl1_buf_put(&s->out, s->held.p, s->held.len);
			tl1_buf_consume(&s->held, s->held.len);
			s->due_ms = 0;
		}
		process(sv, s);
		if (s->closing && s->out.len == 0) {
			sess_close(sv, i);
			continue;
		}
		if (!s->due_ms && idle_until(sv, s) &&
		    now >= idle_until(sv, s)) {
			if (s->logged_in)
				log_info("tl1[%u]: idle for %us, closing",
				         s->id, sv->e->idle_timeout_s);
			else
				log_info("tl1[%u]: no login within %u ms, "
				         "closing",
				         s->id, sv->e->c.login_grace_ms);
			sess_close(sv, i);
		}
	}
}

int
emu_tl1_serve(struct emu *e, int lfd, int stopfd)
{
	struct srv    sv;
	struct pollfd pfd[MAX_SESS + 2];
	int           idx[MAX_SESS + 2];
	int           i, n, timeout;
	uint64_t      now;

	memset(&sv, 0, sizeof(sv));
	sv.e = e;
	for (;;) {
		n = poll_set(&sv, lfd, stopfd, pfd, idx, &timeout);
		if (poll(pfd, (nfds_t)n, timeout) < 0 && errno != EINTR)
			return (-errno);
		if (pfd[0].revents)
			break;
		if (pfd[1].revents & POLLIN)
			accept_one(&sv, lfd);
		now = mono_ms();
		for (i = 2; i < n; i++)
			(void)sess_io(&sv, idx[i], pfd[i].revents, now);
		sess_work(&sv, now);
	}
	for (i = 0; i < MAX_SESS; i++)
		if (sv.s[i])
			sess_close(&sv, i);
	return (0);
}

int
emu_tl1_feed(struct emu *e, const char *in, size_t len, struct tl1_buf *out)
{
	struct srv  sv;
	struct sess s;
	int         rv = 0;

	memset(&sv, 0, sizeof(sv));
	memset(&s, 0, sizeof(s));
	sv.e = e;
	s.fd = -1;
	sv.s[0] = &s;
	if (tl1_buf_put(&s.in, in, len) != 0)
		return (-ENOMEM);
	do {
		if (s.due_ms) { /* no waiting here */
			tl1_buf_put(&s.out, s.held.p, s.held.len);
			tl1_buf_consume(&s.held, s.held.len);
			s.due_ms = 0;
		}
		process(&sv, &s);
	} while (s.due_ms);
	if (s.out.len && tl1_buf_put(out, s.out.p, s.out.len) != 0)
		rv = -ENOMEM;
	tl1_buf_free(&s.in);
	tl1_buf_free(&s.out);
	tl1_buf_free(&s.held);
	return (rv);
}

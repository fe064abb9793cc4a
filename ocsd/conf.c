/* SPDX-License-Identifier: BSD-2-Clause */
/* ocsd configuration: inih handler, value parsers, whole-struct checks. */
#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collectives/cmodel.h"
#include "ocs-drivers/drv.h"
#include "ocsd/conf.h"
#include "proto/base/net.h"
#include "proto/base/path.h"
#include "proto/base/units.h"

/* (Re)build c's lookups after its cabling changed: 0 or -ENOMEM. */
static int conf_index(struct conf *);

struct pctx {
	struct conf *c;
	char         why[400]; /* the first error, without the line */
	int          failed;
	size_t       cap;
	/* Per switch: the password from the file or the key. */
	int      have_pw[CONF_SWITCH_MAX], have_pwfile[CONF_SWITCH_MAX];
	char     pwfile[CONF_SWITCH_MAX][PATH_MAX];
	char     cur[48];      /* the section being read */
	char     seen[16][48]; /* the sections read before it */
	int      nseen;
	uint64_t keys;  /* conf_keys[i] given in this section: bit i */
	int      cursw; /* the [switch] being read: its index, or -1 */
	int      lone;  /* a [switch] without a name was given */
	/* Each transceiver's switch as the cabling names it ("": none),
	 * numbered once the whole file is read. */
	char (*swname)[CONF_SWNAME_MAX];
};

#define CONF_FMT(a, b) __attribute__((__format__(printf, a, b)))

CONF_FMT(4, 5)
static int
bad(struct pctx *p, const char *key, const char *val, const char *fmt, ...)
{
	va_list ap;
	char    r[256];

	if (!p->failed) {
		va_start(ap, fmt);
		vsnprintf(r, sizeof(r), fmt, ap);
		va_end(ap);
		snprintf(p->why, sizeof(p->why), "%s: \"%.100s\": %s", key,
		         val, r);
		p->failed = 1;
	}
	return (0); /* inih: error on this line */
}

static int
copy(struct pctx *p, const char *key, const char *val, char *dst, size_t len)
{
	if (val[0] == '\0')
		return (bad(p, key, val, "empty"));
	if (strlen(val) >= len)
		return (bad(p, key, val, "longer than %zu bytes", len - 1));
	snprintf(dst, len, "%s", val);
	return (1);
}

static int
parse_port(const char *s, uint32_t *v)
{
	char *end;
	long  x;

	if (*s < '0' || *s > '9')
		return (-EINVAL);
	x = strtol(s, &end, 10);
	if (end == s || x < 1 || x > 2 * DRV_MAX_PORTS)
		return (-EINVAL);
	*v = (uint32_t)x;
	return ((int)(end - s));
}

/* "host.index": letters, digits, '-', '_' then '.' and digits. */
static int
trx_name_ok(const char *s)
{
	const char *dot = strrchr(s, '.');
	size_t      i;

	if (dot == NULL || dot == s || dot[1] == '\0' ||
	    strlen(s) >= CONF_NAME_MAX)
		return (0);
	for (i = 0; s + i < dot; i++)
		if (!wire_name_char((unsigned char)s[i]))
			return (0);
	for (i = 1; dot[i]; i++)
		if (dot[i] < '0' || dot[i] > '9')
			return (0);
	return (1);
}

/* One end of a cabling line: a port number, or a port as the device
 * names it (CALIENT's shelf.module.port: the driver says, once the
 * whole file is read).  Its length, or -EINVAL. */
static int
cable_end(const char *s, uint32_t *num, char *name)
{
	size_t k = strcspn(s, " \t,");
	int    n;

	*num = 0;
	name[0] = '\0';
	if ((n = parse_port(s, num)) > 0 && (size_t)n == k)
		return (n);
	if (k == 0 || k >= CONF_PORT_NAME_MAX)
		return (-EINVAL);
	memcpy(name, s, k);
	name[k] = '\0';
	*num = 0;
	return (drv_port_name_ok(NULL, name) ? (int)k : -EINVAL);
}

/* A name the driver given so far writes its ports as (any driver's,
 * when none is given yet: validate_names checks again at the end). */
static int
named_ok(const struct conf *c, const char *pn)
{
	return (drv_port_name_ok(c->nsw == 1 && c->sw[0].name[0] == '\0' &&
	                                 c->sw[0].driver[0]
	                             ? c->sw[0].driver
	                             : NULL,
	                         pn));
}

/* "SWITCH IN OUT": the switch's name and its length, else 0 (two
 * words: the lone switch's ports). */
static size_t
cable_switch(const char *val, char *sw)
{
	size_t k = strcspn(val, " \t,"), w = 0, i = 0;

	sw[0] = '\0';
	while (val[i]) {
		i += strspn(val + i, " \t,");
		if (val[i] == '\0')
			break;
		w++;
		i += strcspn(val + i, " \t,");
	}
	if (w != 3 || k >= CONF_SWNAME_MAX)
		return (0);
	memcpy(sw, val, k);
	sw[k] = '\0';
	return (k + strspn(val + k, " \t,"));
}

static int
cabling(struct pctx *p, const char *name, const char *val)
{
	struct conf    *c = p->c;
	struct conf_trx t;
	char            swn[CONF_SWNAME_MAX];
	int             n1, n2;
	size_t          i, skip;
	const char     *whole = val;

	if (!trx_name_ok(name))
		return (bad(p, name, val,
		            "transceiver names are host.index (host: letters, "
		            "digits, - and _)"));
	memset(&t, 0, sizeof(t));
	skip = cable_switch(val, swn);
	if (skip > 0 && !wire_swname_ok(swn, strlen(swn)))
		return (bad(p, name, val,
		            "expected \"INGRESS EGRESS\" (or \"SWITCH INGRESS "
		            "EGRESS\"): \"%s\" is not a switch's name (a "
		            "letter, then letters, digits, - and _)",
		            swn));
	val += skip;
	if ((n1 = cable_end(val, &t.in, t.in_name)) < 0 ||
	    (val[n1] != ' ' && val[n1] != '\t' && val[n1] != ','))
		return (bad(p, name, whole,
		            "expected \"INGRESS EGRESS\" port numbers, or the "
		            "device's port names (1.1.1 2.1.1)"));
	n1 += (int)strspn(val + n1, " \t,");
	if ((n2 = cable_end(val + n1, &t.out, t.out_name)) < 0 ||
	    val[n1 + n2] != '\0')
		return (bad(p, name, whole,
		            "expected \"INGRESS EGRESS\" port numbers, or the "
		            "device's port names (1.1.1 2.1.1)"));
	if (!t.in_name[0] != !t.out_name[0])
		return (bad(p, name, whole,
		            "both ends by number, or both by the device's "
		            "names"));
	if (t.in_name[0] &&
	    (!named_ok(c, t.in_name) || !named_ok(c, t.out_name)))
		return (bad(p, name, whole,
		            "expected \"INGRESS EGRESS\" port numbers, or the "
		            "device's port names (1.1.1 2.1.1 with driver "
		            "calient)"));
	if (!t.in_name[0] && t.in >= t.out)
		return (
		    bad(p, name, whole,
		        "the ingress port (TX) must be below the egress port "
		        "(RX)"));
	for (i = 0; i < c->ntrx; i++) {
		if (strcmp(c->trx[i].name, name) == 0)
			return (
			    bad(p, name, whole, "transceiver listed twice"));
		/* Ports are a switch's own: only its cabling can clash. */
		if (strcmp(p->swname[i], swn) != 0)
			continue;
		if (t.in_name[0] &&
		    (strcmp(c->trx[i].in_name, t.in_name) == 0 ||
		     strcmp(c->trx[i].out_name, t.out_name) == 0))
			return (bad(p, name, whole, "port also cabled to %s",
			            c->trx[i].name));
		if (t.in_name[0])
			continue;
		if (c->trx[i].in == t.in || c->trx[i].out == t.in)
			return (bad(p, name, whole,
			            "port %u also cabled to %s", t.in,
			            c->trx[i].name));
		if (c->trx[i].in == t.out || c->trx[i].out == t.out)
			return (bad(p, name, whole,
			            "port %u also cabled to %s", t.out,
			            c->trx[i].name));
	}
	if (c->ntrx == p->cap) {
		size_t           nc = p->cap ? 2 * p->cap : 16;
		struct conf_trx *nt = realloc(c->trx, nc * sizeof(*nt));
		char(*ns)[CONF_SWNAME_MAX];

		if (nt == NULL)
			return (bad(p, name, whole, "out of memory"));
		c->trx = nt;
		if ((ns = realloc(p->swname, nc * sizeof(*ns))) == NULL)
			return (bad(p, name, whole, "out of memory"));
		p->swname = ns;
		p->cap = nc;
	}
	snprintf(t.name, CONF_NAME_MAX, "%s", name);
	snprintf(p->swname[c->ntrx], CONF_SWNAME_MAX, "%s", swn);
	c->trx[c->ntrx++] = t;
	return (1);
}

/* A host's name in [servers]: as the cabling writes it before ".i". */
static int
host_name_ok(const char *s, size_t len)
{
	size_t i;

	if (len == 0 || len + 2 >= CONF_NAME_MAX)
		return (0);
	for (i = 0; i < len; i++)
		if (!wire_name_char((unsigned char)s[i]))
			return (0);
	return (1);
}

/* The server host is in so far: its index, or -1. */
static int
server_of(const struct conf *c, const char *host)
{
	uint32_t i, k;

	for (i = 0; i < c->nsrv; i++)
		for (k = 0; k < c->srv_size; k++)
			if (strcmp(c->srv[i].host[k], host) == 0)
				return ((int)i);
	return (-1);
}

/* [servers] NAME = HOST HOST ...: a server's hosts, GPU 0 first; every
 * server of one size, a host in one server. */
static int
servers(struct pctx *p, const char *name, const char *val)
{
	struct conf       *c = p->c;
	struct conf_server s;
	const char        *v = val;
	uint32_t           n = 0, i;
	size_t             k;
	int                o;

	if (!wire_swname_ok(name, strlen(name)))
		return (bad(p, name, val,
		            "a server's name is a letter, then letters, "
		            "digits, - and _ (at most %d)",
		            CONF_SWNAME_MAX - 1));
	for (i = 0; i < c->nsrv; i++)
		if (strcmp(c->srv[i].name, name) == 0)
			return (bad(p, name, val, "server listed twice"));
	if (c->nsrv == CONF_SERVERS_MAX)
		return (bad(p, name, val, "more than %d servers",
		            CONF_SERVERS_MAX));
	memset(&s, 0, sizeof(s));
	snprintf(s.name, sizeof(s.name), "%s", name);
	for (;; n++, v += k) {
		v += strspn(v, " \t,");
		if (*v == '\0')
			break;
		k = strcspn(v, " \t,");
		if (!host_name_ok(v, k))
			return (bad(p, name, val,
			            "\"%.*s\": not a host's name (letters, "
			            "digits, - and _)",
			            (int)(k < 64 ? k : 64), v));
		if (n == CONF_SERVER_HOSTS)
			return (bad(p, name, val, "more than %d hosts",
			            CONF_SERVER_HOSTS));
		memcpy(s.host[n], v, k);
		for (i = 0; i < n; i++)
			if (strcmp(s.host[i], s.host[n]) == 0)
				return (bad(p, name, val, "%s listed twice",
				            s.host[n]));
		if ((o = server_of(c, s.host[n])) >= 0)
			return (bad(p, name, val,
			            "%s is also in server %s (a host is in "
			            "one server)",
			            s.host[n], c->srv[o].name));
	}
	if (n < 2)
		return (bad(p, name, val, "a server is 2 to %d hosts",
		            CONF_SERVER_HOSTS));
	if (c->nsrv > 0 && n != c->srv_size)
		return (bad(p, name, val,
		            "%u hosts; %s has %u (servers are of one size)", n,
		            c->srv[0].name, c->srv_size));
	if (c->nsrv % 16 == 0) {
		struct conf_server *ns =
		    realloc(c->srv, (c->nsrv + 16) * sizeof(*ns));

		if (ns == NULL)
			return (bad(p, name, val, "out of memory"));
		c->srv = ns;
	}
	c->srv[c->nsrv++] = s;
	c->srv_size = n;
	return (1);
}

static int
nng_addr_ok(const char *v)
{
	return (strncmp(v, "ipc://", 6) == 0 || strncmp(v, "tcp://", 6) == 0 ||
	        strncmp(v, "tls+tcp://", 10) == 0);
}

/*
 * The keys, after iproute2's tables: each names its section, the parser
 * of its value and the field it fills (an offset into struct conf), with
 * the bounds the parser checks.  An unknown key or section is an error,
 * so a typo never goes unnoticed.
 */
struct conf_key;
typedef int (*conf_val_fn)(struct pctx *, const struct conf_key *,
                           const char *val, void *field);

struct conf_key {
	const char *section, *key;
	conf_val_fn parse;
	size_t      off, len; /* the field; len for strings */
	int         sw;       /* off is into struct conf_switch */
	double      min, max; /* numbers: bounds; times in seconds */
	const char *low;      /* times: the reason below min (NULL: range) */
};

#define FIELD(f) offsetof(struct conf, f), sizeof(((struct conf *)0)->f), 0
#define NOFIELD  0, 0, 0
#define SWFIELD(f)                                                            \
	offsetof(struct conf_switch, f),                                      \
	    sizeof(((struct conf_switch *)0)->f), 1
#define SWNOFIELD 0, 0, 1
#define TIME_WHAT "expected a time up to 1h (ns, us, ms, s)"

static int
v_str(struct pctx *p, const struct conf_key *k, const char *val, void *f)
{
	return (copy(p, k->key, val, f, k->len));
}

static int
v_addr(struct pctx *p, const struct conf_key *k, const char *val, void *f)
{
	if (!nng_addr_ok(val))
		return (bad(p, k->key, val,
		            "expected ipc://PATH, tcp://ADDR:PORT or "
		            "tls+tcp://ADDR:PORT"));
	return (copy(p, k->key, val, f, k->len));
}

static int
v_linkaddr(struct pctx *p, const struct conf_key *k, const char *val, void *f)
{
	char addr[PATH_MAX + 16];
	int  tls = strncmp(val, "tls+tcp://", 10) == 0;

	if (net_url_addr(tls ? val + 4 : val, addr, sizeof(addr)) != 0)
		return (bad(p, k->key, val,
		            "expected ipc://PATH, tcp://ADDR:PORT or "
		            "tls+tcp://ADDR:PORT"));
	return (copy(p, k->key, val, f, k->len));
}

static int
v_driver(struct pctx *p, const struct conf_key *k, const char *val, void *f)
{
	if (drv_lookup(val) == NULL)
		return (
		    bad(p, k->key, val, "unknown driver (%s)", drv_names()));
	return (copy(p, k->key, val, f, k->len));
}

static int
v_transport(struct pctx *p, const struct conf_key *k, const char *val, void *f)
{
	if (strcmp(val, "tcp") && strcmp(val, "ssh"))
		return (bad(p, k->key, val, "expected tcp or ssh"));
	*(int *)f = strcmp(val, "ssh") == 0;
	return (1);
}

static int
v_yesno(struct pctx *p, const struct conf_key *k, const char *val, void *f)
{
	if (strcmp(val, "yes") && strcmp(val, "no"))
		return (bad(p, k->key, val, "expected yes or no"));
	*(int *)f = strcmp(val, "yes") == 0;
	return (1);
}

static int
v_count(struct pctx *p, const struct conf_key *k, const char *val, void *f)
{
	char *end;
	long  v = strtol(val, &end, 10);

	if (*val == '\0' || *end != '\0' || v < k->min || v > k->max)
		return (bad(p, k->key, val, "expected %.0f..%.0f", k->min,
		            k->max));
	*(uint32_t *)f = (uint32_t)v;
	return (1);
}

/* A time: in [min, max] seconds, or the key's own reason below min. */
static int
get_time(struct pctx *p, const struct conf_key *k, const char *val, double *t)
{
	if (k->low == NULL) {
		if (unit_parse_time(val, t) != 0 || *t < k->min || *t > k->max)
			return (bad(p, k->key, val,
			            "expected a time from 100ms to 60s"));
		return (1);
	}
	if (unit_parse_time(val, t) != 0 || *t > k->max)
		return (bad(p, k->key, val, TIME_WHAT));
	if (*t < k->min)
		return (bad(p, k->key, val, "%s", k->low));
	return (1);
}

static int
v_ms(struct pctx *p, const struct conf_key *k, const char *val, void *f)
{
	double t;

	if (!get_time(p, k, val, &t))
		return (0);
	*(uint32_t *)f = (uint32_t)(t * 1000 + 0.5);
	return (1);
}

static int
v_ms_int(struct pctx *p, const struct conf_key *k, const char *val, void *f)
{
	double t;

	if (!get_time(p, k, val, &t))
		return (0);
	*(int *)f = (int)(t * 1000 + 0.5);
	return (1);
}

/* The run deadline is whole milliseconds, rounded down. */
static int
v_ms_floor(struct pctx *p, const struct conf_key *k, const char *val, void *f)
{
	double t;

	if (!get_time(p, k, val, &t))
		return (0);
	*(uint32_t *)f = (uint32_t)(t * 1000);
	return (1);
}

static int
v_seconds(struct pctx *p, const struct conf_key *k, const char *val, void *f)
{
	return (get_time(p, k, val, f));
}

static int
v_rate(struct pctx *p, const struct conf_key *k, const char *val, void *f)
{
	if (unit_parse_rate(val, f) != 0)
		return (bad(p, k->key, val,
		            "expected a rate (bps, Kbps, Mbps, Gbps, GBps)"));
	return (1);
}

static int
v_chunk(struct pctx *p, const struct conf_key *k, const char *val, void *f)
{
	uint64_t sz;

	if (unit_parse_size(val, &sz) != 0 || sz < k->min || sz > k->max ||
	    sz % 8)
		return (bad(p, k->key, val,
		            "expected 1KiB..1MiB, a multiple of 8"));
	*(uint32_t *)f = (uint32_t)sz;
	return (1);
}

static int beside(const char *name, char *path, size_t len);

/* model = FILE (collectives/cmodel.h): the model's parameters from a
 * calibration, relative paths beside this file; keys after it override
 * what it says. */
static int
v_model(struct pctx *p, const struct conf_key *k, const char *val, void *f)
{
	struct conf  *c = p->c;
	struct cmodel m = {.bps = c->run_bps,
	                   .alpha_s = c->run_alpha_s,
	                   .alpha_h = c->run_alpha_h,
	                   .reconf_s = c->run_reconf_s,
	                   .su_bps = c->run_su_bps,
	                   .su_alpha = c->run_su_alpha};
	char          path[PATH_MAX], why[400];

	(void)f;
	snprintf(path, sizeof(path), "%s", val);
	if (val[0] == '\0' || beside(c->path, path, sizeof(path)) != 0)
		return (bad(p, k->key, val, "a model file's path"));
	if (cmodel_load(&m, path, why, sizeof(why)) != 0)
		return (bad(p, k->key, val, "%s", why));
	c->run_bps = m.bps;
	c->run_alpha_s = m.alpha_s;
	c->run_alpha_h = m.alpha_h;
	c->run_reconf_s = m.reconf_s;
	c->run_su_bps = m.su_bps;
	c->run_su_alpha = m.su_alpha;
	snprintf(c->run_model, sizeof(c->run_model), "%s", m.name);
	return (1);
}

static int
v_reconcile(struct pctx *p, const struct conf_key *k, const char *val, void *f)
{
	enum conf_reconcile *r = f;

	if (strcmp(val, "hold") == 0)
		*r = CONF_RECON_HOLD;
	else if (strcmp(val, "push") == 0)
		*r = CONF_RECON_PUSH;
	else if (strcmp(val, "adopt") == 0)
		*r = CONF_RECON_ADOPT;
	else
		return (bad(p, k->key, val, "expected hold, push or adopt"));
	return (1);
}

/* The password comes from the file or the key, never both (validate). */
static int
v_password(struct pctx *p, const struct conf_key *k, const char *val, void *f)
{
	p->have_pw[p->cursw] = 1;
	return (copy(p, k->key, val, f, k->len));
}

static int
v_pwfile(struct pctx *p, const struct conf_key *k, const char *val, void *f)
{
	(void)f;
	p->have_pwfile[p->cursw] = 1;
	return (
	    copy(p, k->key, val, p->pwfile[p->cursw], sizeof(p->pwfile[0])));
}

static const struct conf_key conf_keys[] = {
    {"switch", "driver", v_driver, SWFIELD(driver), 0, 0, NULL},
    {"switch", "address", v_str, SWFIELD(address), 0, 0, NULL},
    {"switch", "light_check", v_yesno, SWFIELD(light_check), 0, 0, NULL},
    {"switch", "ca_file", v_str, SWFIELD(ca_file), 0, 0, NULL},
    {"switch", "transport", v_transport, SWFIELD(ssh), 0, 0, NULL},
    {"switch", "known_hosts", v_str, SWFIELD(known_hosts), 0, 0, NULL},
    {"switch", "user", v_str, SWFIELD(user), 0, 0, NULL},
    {"switch", "password", v_password, SWFIELD(password), 0, 0, NULL},
    {"switch", "password_file", v_pwfile, SWNOFIELD, 0, 0, NULL},
    {"switch", "timeout", v_ms_int, SWFIELD(timeout_ms), 0.001, 3600,
     "at least 1ms"},
    {"switch", "poll", v_ms, SWFIELD(poll_ms), 0, 3600, ""},
    {"switch", "switch_time", v_ms, SWFIELD(switch_ms), 0, 3600, ""},
    {"switch", "ports", v_count, SWFIELD(ports), 1, DRV_MAX_PORTS, NULL},
    {"control", "secret_file", v_str, FIELD(ctl_secret_file), 0, 0, NULL},
    {"control", "tls_cert_key", v_str, FIELD(ctl_tls_cert_key), 0, 0, NULL},
    {"control", "listen", v_addr, FIELD(control), 0, 0, NULL},
    {"agents", "tls_cert_key", v_str, FIELD(agents_tls), 0, 0, NULL},
    {"agents", "listen", v_addr, FIELD(agents), 0, 0, NULL},
    {"agents", "events", v_addr, FIELD(events), 0, 0, NULL},
    {"agents", "link", v_linkaddr, FIELD(link), 0, 0, NULL},
    {"agents", "barrier", v_linkaddr, FIELD(link), 0, 0, NULL},
    {"agents", "secret_file", v_str, FIELD(secret_file), 0, 0, NULL},
    {"agents", "heartbeat", v_ms, FIELD(heartbeat_ms), 0.1, 60, NULL},
    {"run", "bandwidth", v_rate, FIELD(run_bps), 0, 0, NULL},
    {"run", "alpha_s", v_seconds, FIELD(run_alpha_s), 0, 3600, ""},
    {"run", "alpha_h", v_seconds, FIELD(run_alpha_h), 0, 3600, ""},
    {"run", "reconf_overhead", v_seconds, FIELD(run_reconf_s), 0, 3600, ""},
    {"run", "scaleup_bandwidth", v_rate, FIELD(run_su_bps), 0, 0, NULL},
    {"run", "scaleup_alpha", v_seconds, FIELD(run_su_alpha), 0, 1, ""},
    {"run", "model", v_model, NOFIELD, 0, 0, NULL},
    {"run", "deadline", v_ms_floor, FIELD(run_deadline_ms), 0.1, 3600,
     "at least 100ms"},
    {"run", "chunk", v_chunk, FIELD(run_chunk), 1024, 1 << 20, NULL},
    {"run", "link_up", v_seconds, FIELD(run_link_up_s), 0, 3600, ""},
    {"run", "link_deadline", v_ms_floor, FIELD(run_link_deadline_ms), 0.001,
     3600, "at least 1ms"},
    {"run", "idle_lit", v_yesno, FIELD(run_idle_lit), 0, 0, NULL},
    {"state", "dir", v_str, FIELD(state_dir), 0, 0, NULL},
    {"state", "reconcile", v_reconcile, FIELD(reconcile), 0, 0, NULL},
};
_Static_assert(sizeof(conf_keys) / sizeof(conf_keys[0]) <= 64,
               "pctx.keys has a bit per key");

/* Key i, or another name for its field (barrier for link), seen before:
 * last-wins would make the file's order matter, as with sections. */
static int
given_before(const struct pctx *p, size_t i)
{
	const struct conf_key *k = &conf_keys[i];
	size_t                 j;

	for (j = 0; j < sizeof(conf_keys) / sizeof(conf_keys[0]); j++)
		if ((p->keys & 1ull << j) &&
		    (j == i ||
		     (k->len && conf_keys[j].off == k->off &&
		      conf_keys[j].len == k->len && conf_keys[j].sw == k->sw)))
			return (1);
	return (0);
}

/* A switch's defaults, as a lone [switch] has always had them. */
static void
sw_defaults(struct conf_switch *s)
{
	s->timeout_ms = 5000;
	s->switch_ms = 25;
	s->poll_ms = 5000;
	s->light_check = 1;
}

/* A new [switch] or [switch NAME] section: the switch it fills, or 0
 * after saying why. */
static int
sw_section(struct pctx *p, const char *sec, const char *key, const char *val)
{
	const char         *nm = sec + 6;
	struct conf_switch *s;

	nm += strspn(nm, " \t");
	if (nm[0] == '\0' ? p->c->nsw > 0 : p->lone)
		return (bad(p, key, val,
		            "[switch] and [switch NAME] sections do not mix "
		            "(one switch, or every switch named)"));
	if (nm[0] != '\0' && !wire_swname_ok(nm, strlen(nm)))
		return (bad(p, key, val,
		            "[%s]: a switch's name is a letter, then letters, "
		            "digits, - and _ (at most %d)",
		            sec, CONF_SWNAME_MAX - 1));
	if (p->c->nsw == CONF_SWITCH_MAX)
		return (bad(p, key, val, "[%s]: more than %d switches", sec,
		            CONF_SWITCH_MAX));
	p->lone = nm[0] == '\0';
	s = &p->c->sw[p->c->nsw];
	sw_defaults(s);
	snprintf(s->name, sizeof(s->name), "%s", nm);
	p->cursw = (int)p->c->nsw++;
	return (1);
}

static int
handler(void *user, const char *sec, const char *key, const char *val)
{
	struct pctx *p = user;
	size_t       i;
	int          known = 0, issw;
	char        *base;

	issw = strncmp(sec, "switch", 6) == 0 &&
	       (sec[6] == '\0' || sec[6] == ' ' || sec[6] == '\t');
	/* A section given twice would make which value wins depend on
	 * the order of the file: refused. */
	if (strcmp(sec, p->cur) != 0) {
		for (i = 0; i < (size_t)p->nseen; i++)
			if (strcmp(p->seen[i], sec) == 0)
				return (bad(p, key, val,
				            "[%s] given twice (one section "
				            "each)",
				            sec));
		if (p->cur[0] && p->nseen < 16)
			snprintf(p->seen[p->nseen++], sizeof(p->seen[0]), "%s",
			         p->cur);
		snprintf(p->cur, sizeof(p->cur), "%s", sec);
		/* Keys are once a section; sections are once a file. */
		p->keys = 0;
		p->cursw = -1;
		if (issw && !sw_section(p, sec, key, val))
			return (0);
	}
	if (issw && p->cursw < 0)
		return (0); /* the section's header was refused */
	if (strcmp(sec, "cabling") == 0)
		return (cabling(p, key, val));
	if (strcmp(sec, "servers") == 0)
		return (servers(p, key, val));
	for (i = 0; i < sizeof(conf_keys) / sizeof(conf_keys[0]); i++) {
		const struct conf_key *k = &conf_keys[i];

		if (strcmp(k->section, issw ? "switch" : sec) != 0)
			continue;
		known = 1;
		if (strcmp(k->key, key) == 0) {
			base =
			    k->sw ? (char *)&p->c->sw[p->cursw] : (char *)p->c;
			/* A bad value is the first thing to say. */
			int rv = k->parse(p, k, val, base + k->off);

			if (rv && given_before(p, i))
				return (bad(p, key, val,
				            "given twice in [%s] (a key once)",
				            sec));
			p->keys |= 1ull << i;
			return (rv);
		}
	}
	if (!known)
		return (bad(p, key, val, "unknown section [%s]", sec));
	return (bad(p, key, val, "unknown key in [%s]", sec));
}

static int
read_pwfile(struct pctx *p, uint32_t i, char *err, size_t errlen,
            const char *name)
{
	struct conf_switch *s = &p->c->sw[i];
	FILE               *f = fopen(p->pwfile[i], "re");
	size_t              n;

	if (f == NULL) {
		snprintf(err, errlen, "%s: password_file: \"%s\": %s", name,
		         p->pwfile[i], strerror(errno));
		return (-CONF_EPARSE);
	}
	n = fread(s->password, 1, sizeof(s->password) - 1, f);
	fclose(f);
	s->password[n] = '\0';
	s->password[strcspn(s->password, "\r\n")] = '\0';
	if (s->password[0] == '\0') {
		snprintf(err, errlen, "%s: password_file: \"%s\": empty", name,
		         p->pwfile[i]);
		return (-CONF_EPARSE);
	}
	return (0);
}

/*
 * A relative path in the file is its neighbour: taken from the file's
 * directory, not from wherever ocsd happens to run (a daemon runs in /,
 * and a reload must read the same files).  Names without a directory
 * (tests' text) are left as they are.
 */
static int
beside(const char *name, char *path, size_t len)
{
	char        tmp[PATH_MAX];
	const char *slash = strrchr(name, '/');

	if (path[0] == '\0' || path[0] == '/' || slash == NULL)
		return (0);
	if ((size_t)snprintf(tmp, sizeof(tmp), "%.*s/%s", (int)(slash - name),
	                     name, path) >= len)
		return (-ENAMETOOLONG);
	snprintf(path, len, "%s", tmp);
	return (0);
}

static int
resolve_paths(struct pctx *p, const char *name, char *err, size_t errlen)
{
	struct conf *c = p->c;
	struct rpath {
		char  *path;
		size_t len;
		int    url; /* an address: only an ipc:// one is a path */
	} f[3 * CONF_SWITCH_MAX + 9] = {
	    {c->ctl_secret_file, sizeof(c->ctl_secret_file), 0},
	    {c->ctl_tls_cert_key, sizeof(c->ctl_tls_cert_key), 0},
	    {c->agents_tls, sizeof(c->agents_tls), 0},
	    {c->secret_file, sizeof(c->secret_file), 0},
	    {c->state_dir, sizeof(c->state_dir), 0},
	    /* A daemon's cwd is /: a socket named from the cwd could be
	     * neither found by ocsctl nor removed at exit. */
	    {c->control, sizeof(c->control), 1},
	    {c->agents, sizeof(c->agents), 1},
	    {c->events, sizeof(c->events), 1},
	    {c->link, sizeof(c->link), 1},
	};
	size_t i, skip, nf = 9;

	for (i = 0; i < c->nsw; i++) {
		f[nf++] =
		    (struct rpath){p->pwfile[i], sizeof(p->pwfile[i]), 0};
		f[nf++] = (struct rpath){c->sw[i].ca_file,
		                         sizeof(c->sw[i].ca_file), 0};
		f[nf++] = (struct rpath){c->sw[i].known_hosts,
		                         sizeof(c->sw[i].known_hosts), 0};
	}
	for (i = 0; i < nf; i++) {
		if (f[i].path == NULL)
			continue;
		skip = f[i].url ? 6 : 0;
		if (f[i].url && strncmp(f[i].path, "ipc://", 6) != 0)
			continue;
		if (beside(name, f[i].path + skip, f[i].len - skip) != 0) {
			snprintf(err, errlen, "%s: \"%.100s\": path too long",
			         name, f[i].path);
			return (-CONF_EPARSE);
		}
	}
	return (0);
}

/* Checks that need the whole file. */
/* The sockets' checks: TLS material where TLS is asked for, and the
 * agents' two addresses. */
/* Ports named in the cabling are written as the driver's devices write
 * theirs (the driver says: a CALIENT's 1.1.1; a Polatis numbers them). */
static int
validate_names(const struct conf *c, const char *name, char *err,
               size_t errlen)
{
	size_t i;
	int    end;

	for (i = 0; i < c->ntrx; i++)
		for (end = 0; end < 2; end++) {
			const char *pn =
			    end ? c->trx[i].out_name : c->trx[i].in_name;
			const char *drv = c->sw[c->trx[i].sw].driver;

			if (pn[0] == '\0' || drv_port_name_ok(drv, pn))
				continue;
			snprintf(err, errlen,
			         "%s: [cabling]: %s: \"%s\": not a port of "
			         "driver %s (%s)",
			         name, c->trx[i].name, pn, drv,
			         "it numbers its ports");
			return (-CONF_EPARSE);
		}
	return (0);
}

/* Each transceiver's switch, by the name its cabling line gives: every
 * line names one when the switches are named, none with a lone one. */
static int
validate_cabling(struct pctx *p, const char *name, char *err, size_t errlen)
{
	struct conf *c = p->c;
	size_t       i;
	int          k;

	for (i = 0; i < c->ntrx; i++) {
		const char *sn = p->swname[i];

		if (p->lone && sn[0] != '\0') {
			snprintf(err, errlen,
			         "%s: [cabling]: %s: \"%s\": there is one "
			         "[switch], unnamed: write INGRESS EGRESS",
			         name, c->trx[i].name, sn);
			return (-CONF_EPARSE);
		}
		if (!p->lone && sn[0] == '\0') {
			snprintf(err, errlen,
			         "%s: [cabling]: %s: the switches are named: "
			         "write SWITCH INGRESS EGRESS",
			         name, c->trx[i].name);
			return (-CONF_EPARSE);
		}
		if ((k = conf_switch_find(c, sn)) < 0) {
			snprintf(err, errlen,
			         "%s: [cabling]: %s: \"%s\": no [switch %s] "
			         "section",
			         name, c->trx[i].name, sn, sn);
			return (-CONF_EPARSE);
		}
		c->trx[i].sw = (uint32_t)k;
	}
	return (validate_names(c, name, err, errlen));
}

/* The agent link: with agents, not their join address, and TLS over the
 * network whenever the join is. */
static int
validate_link(const struct conf *c, const char *name, char *err, size_t errlen)
{
	const char *why = NULL;

	if (c->link[0] == '\0')
		return (0);
	if (c->agents[0] == '\0')
		why = "needs listen (agents)";
	else if (strcmp(c->link, c->agents) == 0)
		why = "the same address as listen";
	else if (strncmp(c->agents, "tls+tcp://", 10) == 0 &&
	         strncmp(c->link, "tcp://", 6) == 0)
		why = "agents join over TLS: their link is tls+tcp:// too";
	if (why == NULL)
		return (0);
	snprintf(err, errlen, "%s: [agents]: link: \"%s\": %s", name, c->link,
	         why);
	return (-CONF_EPARSE);
}

static int
validate_sockets(const struct conf *c, const char *name, char *err,
                 size_t errlen)
{
	if (strncmp(c->control, "tls+tcp://", 10) == 0 &&
	    c->ctl_tls_cert_key[0] == '\0') {
		snprintf(err, errlen,
		         "%s: [control]: tls_cert_key is required with listen "
		         "= tls+tcp://",
		         name);
		return (-CONF_EPARSE);
	}
	if ((strncmp(c->agents, "tls+tcp://", 10) == 0 ||
	     strncmp(c->link, "tls+tcp://", 10) == 0) &&
	    c->agents_tls[0] == '\0') {
		snprintf(err, errlen,
		         "%s: [agents]: tls_cert_key is required with "
		         "tls+tcp:// addresses",
		         name);
		return (-CONF_EPARSE);
	}
	if (c->agents[0] && c->secret_file[0] == '\0') {
		snprintf(err, errlen,
		         "%s: [agents]: secret_file is required with listen",
		         name);
		return (-CONF_EPARSE);
	}
	return (validate_link(c, name, err, errlen));
}

/* One switch's section: its driver, address and credentials. */
static int
validate_switch(struct pctx *p, uint32_t i, const char *name, char *err,
                size_t errlen)
{
	const struct conf_switch *c = &p->c->sw[i];
	char                      sec[48], h[256], port[16];
	const char               *hp = c->address;
	int web = strcmp(c->driver, "calient") == 0, http;

	snprintf(sec, sizeof(sec), "[switch%s%s]", c->name[0] ? " " : "",
	         c->name);
	if (p->have_pw[i] && p->have_pwfile[i]) {
		snprintf(err, errlen,
		         "%s: %s: password and password_file both given", name,
		         sec);
		return (-CONF_EPARSE);
	}
	if (p->have_pwfile[i] && read_pwfile(p, i, err, errlen, name) != 0)
		return (-CONF_EPARSE);
	if (c->driver[0] == '\0') {
		snprintf(err, errlen, "%s: %s: driver missing (%s)", name, sec,
		         drv_names());
		return (-CONF_EPARSE);
	}
	if (c->ports && strcmp(c->driver, "emu") != 0) {
		snprintf(err, errlen,
		         "%s: %s: ports: only the emu driver takes a size "
		         "(a real switch reports its own)",
		         name, sec);
		return (-CONF_EPARSE);
	}
	if (strcmp(c->driver, "emu") == 0)
		return (0);
	if (c->address[0] == '\0') {
		snprintf(err, errlen, "%s: %s: address missing", name, sec);
		return (-CONF_EPARSE);
	}
	http =
	    strncmp(hp, "http://", 7) == 0 || strncmp(hp, "https://", 8) == 0;
	if (http != web) {
		snprintf(err, errlen,
		         "%s: %s: address: \"%s\": driver %s "
		         "speaks %s: expected %s",
		         name, sec, c->address, c->driver,
		         web ? "REST" : "TL1",
		         web ? "http[s]://HOST[:PORT]"
		             : "HOST[:PORT] (http[s]:// is calient's)");
		return (-CONF_EPARSE);
	}
	if (strncmp(hp, "tl1://", 6) == 0 && !web)
		hp += 6;
	else if (strncmp(hp, "http://", 7) == 0 && web)
		hp += 7;
	else if (strncmp(hp, "https://", 8) == 0 && web)
		hp += 8;
	if (c->ssh && strcmp(c->driver, "polatis") != 0) {
		snprintf(err, errlen,
		         "%s: %s: transport = ssh is the polatis "
		         "driver's, not %s's",
		         name, sec, c->driver);
		return (-CONF_EPARSE);
	}
	if (net_hostport(hp,
	                 web                                         ? "80"
	                 : strcmp(c->driver, "calient-tl1") == 0     ? "3083"
	                 : strcmp(c->driver, "polatis-netconf") == 0 ? "830"
	                 : c->ssh                                    ? "22"
	                                                             : "3082",
	                 h, sizeof(h), port, sizeof(port)) != 0) {
		snprintf(err, errlen, "%s: %s: address: \"%s\": expected %s",
		         name, sec, c->address,
		         web ? "http[s]://HOST[:PORT]" : "HOST[:PORT]");
		return (-CONF_EPARSE);
	}
	if (c->user[0] == '\0' || c->password[0] == '\0') {
		snprintf(err, errlen,
		         "%s: %s: user and password (or "
		         "password_file) are required by driver %s",
		         name, sec, c->driver);
		return (-CONF_EPARSE);
	}
	return (0);
}

static int
validate(struct pctx *p, const char *name, char *err, size_t errlen)
{
	struct conf *c = p->c;
	uint32_t     i;

	if (c->nsw == 0) {
		snprintf(err, errlen, "%s: [switch]: driver missing (%s)",
		         name, drv_names());
		return (-CONF_EPARSE);
	}
	for (i = 0; i < c->nsw; i++)
		if (validate_switch(p, i, name, err, errlen) != 0)
			return (-CONF_EPARSE);
	if (validate_cabling(p, name, err, errlen) != 0)
		return (-CONF_EPARSE);
	return (validate_sockets(c, name, err, errlen));
}

/* A server's hosts are cabled hosts (a typo names no host): some
 * transceiver is "host.i".  After conf_index (by_name). */
static int
validate_servers(const struct conf *c, const char *name, char *err,
                 size_t errlen)
{
	uint32_t i, k;

	for (i = 0; i < c->nsrv; i++)
		for (k = 0; k < c->srv_size; k++) {
			const char *h = c->srv[i].host[k];
			size_t      lo = 0, hi = c->ntrx, hl = strlen(h);

			/* The first name not below "host.". */
			while (lo < hi) {
				size_t      mid = (lo + hi) / 2;
				const char *t = c->trx[c->by_name[mid]].name;
				int         d = strncmp(t, h, hl);

				if (d < 0 || (d == 0 && t[hl] < '.'))
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo < c->ntrx &&
			    strncmp(c->trx[c->by_name[lo]].name, h, hl) == 0 &&
			    c->trx[c->by_name[lo]].name[hl] == '.')
				continue;
			snprintf(
			    err, errlen,
			    "%s: [servers]: %s: \"%s\": no transceiver of "
			    "%s in [cabling]",
			    name, c->srv[i].name, h, h);
			return (-CONF_EPARSE);
		}
	return (0);
}

int
conf_parse(const char *text, const char *name, struct conf **out, char *err,
           size_t errlen)
{
	struct pctx p;
	int         line;

	*out = NULL;
	memset(&p, 0, sizeof(p));
	if ((p.c = calloc(1, sizeof(*p.c))) == NULL)
		return (-ENOMEM);
	snprintf(p.c->path, sizeof(p.c->path), "%s", name);
	p.cursw = -1;
	p.c->reconcile = CONF_RECON_HOLD;
	p.c->heartbeat_ms = 2000;
	p.c->run_bps = 10e9;
	p.c->run_alpha_s = 200e-6;
	p.c->run_alpha_h = 50e-6;
	p.c->run_su_bps = 400e6; /* an emulated server's local links */
	p.c->run_su_alpha = 20e-6;
	p.c->run_chunk = 65536;
	p.c->run_deadline_ms = 30000;
	p.c->run_link_deadline_ms = 10000;
	path_default_control(p.c->control, sizeof(p.c->control));
	/* Root's is the system's; another user's is its own. */
	if (geteuid() == 0)
		snprintf(p.c->state_dir, sizeof(p.c->state_dir),
		         "/var/lib/ocsd");
	else
		snprintf(p.c->state_dir, sizeof(p.c->state_dir),
		         "/tmp/ocsd-%u/state", (unsigned)geteuid());
	line = ini_parse_string(text, handler, &p);
	if (line != 0) {
		if (line < 0)
			snprintf(err, errlen, "%s: cannot read", name);
		else if (p.failed)
			snprintf(err, errlen, "%s:%d: %s", name, line, p.why);
		else
			snprintf(err, errlen,
			         "%s:%d: syntax error (expected [section] or "
			         "key = value)",
			         name, line);
		free(p.swname);
		conf_free(p.c);
		return (-CONF_EPARSE);
	}
	if (resolve_paths(&p, name, err, errlen) != 0 ||
	    validate(&p, name, err, errlen) != 0) {
		free(p.swname);
		conf_free(p.c);
		return (-CONF_EPARSE);
	}
	free(p.swname);
	if (conf_index(p.c) != 0) {
		conf_free(p.c);
		snprintf(err, errlen, "%s: out of memory", name);
		return (-ENOMEM);
	}
	if (validate_servers(p.c, name, err, errlen) != 0) {
		conf_free(p.c);
		return (-CONF_EPARSE);
	}
	*out = p.c;
	return (0);
}

int
conf_load(const char *path, struct conf **out, char *err, size_t errlen)
{
	FILE  *f;
	char  *text;
	long   n;
	size_t got;
	int    rv;

	*out = NULL;
	if ((f = fopen(path, "re")) == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return (-CONF_EPARSE);
	}
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
	    n > (1 << 20) || fseek(f, 0, SEEK_SET) != 0) {
		snprintf(err, errlen, "%s: unreadable or larger than 1 MiB",
		         path);
		fclose(f);
		return (-CONF_EPARSE);
	}
	if ((text = malloc((size_t)n + 1)) == NULL) {
		fclose(f);
		return (-ENOMEM);
	}
	got = fread(text, 1, (size_t)n, f);
	fclose(f);
	text[got] = '\0';
	if (strlen(text) != got) {
		snprintf(err, errlen, "%s: contains a NUL byte", path);
		free(text);
		return (-CONF_EPARSE);
	}
	rv = conf_parse(text, path, out, err, errlen);
	free(text);
	return (rv);
}

void
conf_free(struct conf *c)
{
	uint32_t i;

	if (c == NULL)
		return;
	free(c->trx);
	free(c->srv);
	for (i = 0; i < CONF_SWITCH_MAX; i++) {
		free(c->sw[i].at_in);
		free(c->sw[i].at_out);
		memset(c->sw[i].password, 0, sizeof(c->sw[i].password));
	}
	free(c->by_name);
	free(c);
}

/* qsort_r's order of trx indices: by name. */
static int
by_name(const void *a, const void *b, void *arg)
{
	const struct conf_trx *t = arg;

	return (strcmp(t[*(const uint32_t *)a].name,
	               t[*(const uint32_t *)b].name));
}

static int
conf_index(struct conf *c)
{
	uint32_t i, k, np = 2 * DRV_MAX_PORTS + 1;

	for (k = 0; k < c->nsw; k++) {
		struct conf_switch *s = &c->sw[k];

		if (s->at_in == NULL &&
		    ((s->at_in = calloc(np, sizeof(*s->at_in))) == NULL ||
		     (s->at_out = calloc(np, sizeof(*s->at_out))) == NULL))
			return (-ENOMEM);
		memset(s->at_in, 0, np * sizeof(*s->at_in));
		memset(s->at_out, 0, np * sizeof(*s->at_out));
	}
	if (c->by_name == NULL &&
	    (c->by_name = calloc(c->ntrx + 1, sizeof(*c->by_name))) == NULL)
		return (-ENOMEM);
	/* Backwards, so that the first of any repeat is the one found. */
	for (i = (uint32_t)c->ntrx; i-- > 0;) {
		struct conf_switch *s = &c->sw[c->trx[i].sw];

		if (c->trx[i].in < np)
			s->at_in[c->trx[i].in] = i + 1;
		if (c->trx[i].out < np)
			s->at_out[c->trx[i].out] = i + 1;
		c->by_name[i] = i;
	}
	qsort_r(c->by_name, c->ntrx, sizeof(*c->by_name), by_name, c->trx);
	return (0);
}

const struct conf_trx *
conf_trx_find(const struct conf *c, const char *name)
{
	size_t lo = 0, hi = c->ntrx;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int    k = strcmp(c->trx[c->by_name[mid]].name, name);

		if (k == 0)
			return (&c->trx[c->by_name[mid]]);
		if (k < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (NULL);
}

const struct conf_trx *
conf_trx_by_in(const struct conf *c, uint32_t sw, uint32_t in)
{
	return (sw < c->nsw && in > 0 && in <= 2 * DRV_MAX_PORTS &&
	                c->sw[sw].at_in[in]
	            ? &c->trx[c->sw[sw].at_in[in] - 1]
	            : NULL);
}

const struct conf_trx *
conf_trx_by_out(const struct conf *c, uint32_t sw, uint32_t out)
{
	return (sw < c->nsw && out > 0 && out <= 2 * DRV_MAX_PORTS &&
	                c->sw[sw].at_out[out]
	            ? &c->trx[c->sw[sw].at_out[out] - 1]
	            : NULL);
}

int
conf_switch_find(const struct conf *c, const char *name)
{
	uint32_t i;

	if (strcmp(name, "-") == 0)
		name = "";
	for (i = 0; i < c->nsw; i++)
		if (strcmp(c->sw[i].name, name) == 0)
			return ((int)i);
	return (-1);
}

const char *
conf_switch_label(const struct conf *c, uint32_t sw)
{
	return (sw < c->nsw && c->sw[sw].name[0] ? c->sw[sw].name : "switch");
}

int
conf_resolve_ports(struct conf *c, uint32_t sw, uint32_t n, uint32_t m,
                   conf_lookup_fn lookup, void *arg, char *err, size_t len)
{
	uint32_t a, b;
	size_t   i, j;
	int      rv;

	for (i = 0; i < c->ntrx; i++) {
		struct conf_trx *t = &c->trx[i];

		if (!t->in_name[0] || t->sw != sw)
			continue;
		if ((rv = lookup(arg, t->in_name, &a)) == 0)
			rv = lookup(arg, t->out_name, &b);
		if (rv == -ENOTSUP) {
			snprintf(
			    err, len,
			    "cabling: %s = %s %s: this switch numbers its "
			    "ports; write INGRESS EGRESS numbers",
			    t->name, t->in_name, t->out_name);
			return (-EINVAL);
		}
		if (rv != 0) {
			snprintf(err, len,
			         "cabling: %s = %s %s: the switch has no port "
			         "%s",
			         t->name, t->in_name, t->out_name,
			         lookup(arg, t->in_name, &a) ? t->in_name
			                                     : t->out_name);
			return (-EINVAL);
		}
		t->in = (uint16_t)a;
		t->out = (uint16_t)(n + b);
	}
	/* Names and numbers may meet only now. */
	for (i = 0; i < c->ntrx; i++)
		for (j = 0; j < i; j++)
			if (c->trx[i].sw == sw && c->trx[j].sw == sw &&
			    (c->trx[i].in == c->trx[j].in ||
			     c->trx[i].out == c->trx[j].out)) {
				snprintf(
				    err, len,
				    "cabling: %s and %s are cabled to the "
				    "same port",
				    c->trx[j].name, c->trx[i].name);
				return (-EINVAL);
			}
	if (conf_index(c) != 0) {
		snprintf(err, len, "out of memory");
		return (-ENOMEM);
	}
	return (conf_check_ports(c, sw, n, m, err, len));
}

int
conf_check_ports(const struct conf *c, uint32_t sw, uint32_t n, uint32_t m,
                 char *err, size_t len)
{
	size_t i;

	for (i = 0; i < c->ntrx; i++) {
		const struct conf_trx *t = &c->trx[i];

		if (t->sw != sw)
			continue;
		if (t->in_name[0] && t->in == 0) {
			snprintf(
			    err, len,
			    "cabling: %s = %s %s: not yet looked up on the "
			    "switch",
			    t->name, t->in_name, t->out_name);
			return (-EINVAL);
		}
		if (t->in < 1 || t->in > n || t->out <= n || t->out > n + m) {
			snprintf(
			    err, len,
			    "cabling: %s = %u %u does not fit a %ux%u switch "
			    "(ingress 1..%u, egress %u..%u)",
			    t->name, t->in, t->out, n, m, n, n + 1, n + m);
			return (-EINVAL);
		}
	}
	return (0);
}

int
conf_switch_changed(const struct conf_switch *a, const struct conf_switch *b)
{
	return (strcmp(a->driver, b->driver) != 0 ||
	        strcmp(a->address, b->address) != 0 ||
	        strcmp(a->ca_file, b->ca_file) != 0 || a->ssh != b->ssh ||
	        strcmp(a->known_hosts, b->known_hosts) != 0 ||
	        strcmp(a->user, b->user) != 0 ||
	        strcmp(a->password, b->password) != 0 ||
	        a->timeout_ms != b->timeout_ms || a->ports != b->ports ||
	        a->switch_ms != b->switch_ms);
}

int
conf_same_switches(const struct conf *a, const struct conf *b)
{
	uint32_t i;

	if (a->nsw != b->nsw)
		return (0);
	for (i = 0; i < a->nsw; i++)
		if (strcmp(a->sw[i].name, b->sw[i].name) != 0)
			return (0);
	return (1);
}

void
conf_carry_ports(struct conf *c, const struct conf *old)
{
	const struct conf_trx *o;
	size_t                 i;

	for (i = 0; i < c->ntrx; i++) {
		struct conf_trx *t = &c->trx[i];

		if (!t->in_name[0] ||
		    (o = conf_trx_find(old, t->name)) == NULL ||
		    o->sw != t->sw || strcmp(o->in_name, t->in_name) != 0 ||
		    strcmp(o->out_name, t->out_name) != 0)
			continue;
		t->in = o->in;
		t->out = o->out;
	}
	(void)conf_index(c);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* ocsd configuration: inih handler, value parsers, whole-struct checks. */
#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collectives/units.h"
#include "ocs-drivers/drv.h"
#include "ocs-drivers/net.h"
#include "ocsd/conf.h"

struct pctx {
	struct conf *c;
	char         why[400]; /* the first error, without the line */
	int          failed;
	size_t       cap;
	int          have_pw, have_pwfile;
	char         pwfile[PATH_MAX];
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
		return (-1);
	x = strtol(s, &end, 10);
	if (end == s || x < 1 || x > 2 * DRV_MAX_PORTS)
		return (-1);
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
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '-' ||
		      s[i] == '_'))
			return (0);
	for (i = 1; dot[i]; i++)
		if (dot[i] < '0' || dot[i] > '9')
			return (0);
	return (1);
}

static int
cabling(struct pctx *p, const char *name, const char *val)
{
	struct conf *c = p->c;
	uint32_t     in, out;
	int          n1, n2;
	size_t       i;

	if (!trx_name_ok(name))
		return (bad(p, name, val,
		            "transceiver names are host.index (host: letters, "
		            "digits, - and _)"));
	if ((n1 = parse_port(val, &in)) < 0 ||
	    (val[n1] != ' ' && val[n1] != '\t' && val[n1] != ','))
		return (bad(p, name, val,
		            "expected \"INGRESS EGRESS\" port numbers"));
	n1 += (int)strspn(val + n1, " \t,");
	if ((n2 = parse_port(val + n1, &out)) < 0 || val[n1 + n2] != '\0')
		return (bad(p, name, val,
		            "expected \"INGRESS EGRESS\" port numbers"));
	if (in >= out)
		return (
		    bad(p, name, val,
		        "the ingress port (TX) must be below the egress port "
		        "(RX)"));
	for (i = 0; i < c->ntrx; i++) {
		if (strcmp(c->trx[i].name, name) == 0)
			return (bad(p, name, val, "transceiver listed twice"));
		if (c->trx[i].in == in || c->trx[i].out == in)
			return (bad(p, name, val, "port %u also cabled to %s",
			            in, c->trx[i].name));
		if (c->trx[i].in == out || c->trx[i].out == out)
			return (bad(p, name, val, "port %u also cabled to %s",
			            out, c->trx[i].name));
	}
	if (c->ntrx == p->cap) {
		size_t           nc = p->cap ? 2 * p->cap : 16;
		struct conf_trx *nt = realloc(c->trx, nc * sizeof(*nt));

		if (nt == NULL)
			return (bad(p, name, val, "out of memory"));
		c->trx = nt;
		p->cap = nc;
	}
	snprintf(c->trx[c->ntrx].name, CONF_NAME_MAX, "%s", name);
	c->trx[c->ntrx].in = (uint16_t)in;
	c->trx[c->ntrx].out = (uint16_t)out;
	c->ntrx++;
	return (1);
}

static int
nng_addr_ok(const char *v)
{
	return (strncmp(v, "ipc://", 6) == 0 || strncmp(v, "tcp://", 6) == 0 ||
	        strncmp(v, "tls+tcp://", 10) == 0);
}

static int
handler(void *user, const char *sec, const char *key, const char *val)
{
	struct pctx *p = user;
	struct conf *c = p->c;
	double       t;
	char        *end;
	long         v;

	if (strcmp(sec, "cabling") == 0)
		return (cabling(p, key, val));
	if (strcmp(sec, "switch") == 0) {
		if (strcmp(key, "driver") == 0) {
			if (drv_lookup(val) == NULL)
				return (bad(p, key, val, "unknown driver (%s)",
				            drv_names()));
			return (
			    copy(p, key, val, c->driver, sizeof(c->driver)));
		}
		if (strcmp(key, "address") == 0)
			return (
			    copy(p, key, val, c->address, sizeof(c->address)));
		if (strcmp(key, "light_check") == 0) {
			if (strcmp(val, "yes") && strcmp(val, "no"))
				return (
				    bad(p, key, val, "expected yes or no"));
			c->light_check = strcmp(val, "yes") == 0;
			return (1);
		}
		if (strcmp(key, "ca_file") == 0)
			return (
			    copy(p, key, val, c->ca_file, sizeof(c->ca_file)));
		if (strcmp(key, "user") == 0)
			return (copy(p, key, val, c->user, sizeof(c->user)));
		if (strcmp(key, "password") == 0) {
			p->have_pw = 1;
			return (copy(p, key, val, c->password,
			             sizeof(c->password)));
		}
		if (strcmp(key, "password_file") == 0) {
			p->have_pwfile = 1;
			return (
			    copy(p, key, val, p->pwfile, sizeof(p->pwfile)));
		}
		if (strcmp(key, "timeout") == 0 || strcmp(key, "poll") == 0 ||
		    strcmp(key, "switch_time") == 0) {
			if (unit_parse_time(val, &t) != 0 || t > 3600)
				return (bad(
				    p, key, val,
				    "expected a time up to 1h (ns, us, ms, "
				    "s)"));
			if (strcmp(key, "timeout") == 0) {
				if (t < 0.001)
					return (
					    bad(p, key, val, "at least 1ms"));
				c->timeout_ms = (int)(t * 1000 + 0.5);
			} else if (strcmp(key, "poll") == 0)
				c->poll_ms = (uint32_t)(t * 1000 + 0.5);
			else
				c->switch_ms = (uint32_t)(t * 1000 + 0.5);
			return (1);
		}
		if (strcmp(key, "ports") == 0) {
			v = strtol(val, &end, 10);
			if (*val == '\0' || *end != '\0' || v < 1 ||
			    v > DRV_MAX_PORTS)
				return (bad(p, key, val, "expected 1..%d",
				            DRV_MAX_PORTS));
			c->ports = (uint32_t)v;
			return (1);
		}
	} else if (strcmp(sec, "control") == 0) {
		if (strcmp(key, "secret_file") == 0)
			return (copy(p, key, val, c->ctl_secret_file,
			             sizeof(c->ctl_secret_file)));
		if (strcmp(key, "tls_cert_key") == 0)
			return (copy(p, key, val, c->ctl_tls_cert_key,
			             sizeof(c->ctl_tls_cert_key)));
		if (strcmp(key, "listen") == 0) {
			if (!nng_addr_ok(val))
				return (
				    bad(p, key, val,
				        "expected ipc://PATH, tcp://ADDR:PORT "
				        "or tls+tcp://ADDR:PORT"));
			return (
			    copy(p, key, val, c->control, sizeof(c->control)));
		}
	} else if (strcmp(sec, "agents") == 0) {
		if (strcmp(key, "tls_cert_key") == 0)
			return (copy(p, key, val, c->agents_tls,
			             sizeof(c->agents_tls)));
		if (strcmp(key, "listen") == 0 || strcmp(key, "events") == 0) {
			if (!nng_addr_ok(val))
				return (
				    bad(p, key, val,
				        "expected ipc://PATH, tcp://ADDR:PORT "
				        "or tls+tcp://ADDR:PORT"));
			return (copy(p, key, val,
			             key[0] == 'l' ? c->agents : c->events,
			             sizeof(c->agents)));
		}
		if (strcmp(key, "secret_file") == 0)
			return (copy(p, key, val, c->secret_file,
			             sizeof(c->secret_file)));
		if (strcmp(key, "heartbeat") == 0) {
			if (unit_parse_time(val, &t) != 0 || t < 0.1 || t > 60)
				return (
				    bad(p, key, val,
				        "expected a time from 100ms to 60s"));
			c->heartbeat_ms = (uint32_t)(t * 1000 + 0.5);
			return (1);
		}
	} else if (strcmp(sec, "run") == 0) {
		uint64_t sz;

		if (strcmp(key, "bandwidth") == 0) {
			if (unit_parse_rate(val, &c->run_bps) != 0)
				return (bad(
				    p, key, val,
				    "expected a rate (bps, Kbps, Mbps, Gbps, "
				    "GBps)"));
			return (1);
		}
		if (strcmp(key, "alpha_s") == 0 ||
		    strcmp(key, "alpha_h") == 0 ||
		    strcmp(key, "deadline") == 0) {
			if (unit_parse_time(val, &t) != 0 || t > 3600)
				return (bad(
				    p, key, val,
				    "expected a time up to 1h (ns, us, ms, "
				    "s)"));
			if (strcmp(key, "alpha_s") == 0)
				c->run_alpha_s = t;
			else if (strcmp(key, "alpha_h") == 0)
				c->run_alpha_h = t;
			else if (t < 0.1)
				return (bad(p, key, val, "at least 100ms"));
			else
				c->run_deadline_ms = (uint32_t)(t * 1000);
			return (1);
		}
		if (strcmp(key, "chunk") == 0) {
			if (unit_parse_size(val, &sz) != 0 || sz < 1024 ||
			    sz > (1u << 20) || sz % 8)
				return (bad(
				    p, key, val,
				    "expected 1KiB..1MiB, a multiple of 8"));
			c->run_chunk = (uint32_t)sz;
			return (1);
		}
	} else if (strcmp(sec, "state") == 0) {
		if (strcmp(key, "dir") == 0) {
			if (val[0] != '/')
				return (bad(p, key, val,
				            "must be an absolute path"));
			return (copy(p, key, val, c->state_dir,
			             sizeof(c->state_dir)));
		}
		if (strcmp(key, "reconcile") == 0) {
			if (strcmp(val, "hold") == 0)
				c->reconcile = CONF_RECON_HOLD;
			else if (strcmp(val, "push") == 0)
				c->reconcile = CONF_RECON_PUSH;
			else if (strcmp(val, "adopt") == 0)
				c->reconcile = CONF_RECON_ADOPT;
			else
				return (bad(p, key, val,
				            "expected hold, push or adopt"));
			return (1);
		}
	} else
		return (bad(p, key, val, "unknown section [%s]", sec));
	return (bad(p, key, val, "unknown key in [%s]", sec));
}

static int
read_pwfile(struct pctx *p, char *err, size_t errlen, const char *name)
{
	FILE  *f = fopen(p->pwfile, "r");
	size_t n;

	if (f == NULL) {
		snprintf(err, errlen, "%s: password_file: \"%s\": %s", name,
		         p->pwfile, strerror(errno));
		return (-1);
	}
	n = fread(p->c->password, 1, sizeof(p->c->password) - 1, f);
	fclose(f);
	p->c->password[n] = '\0';
	p->c->password[strcspn(p->c->password, "\r\n")] = '\0';
	if (p->c->password[0] == '\0') {
		snprintf(err, errlen, "%s: password_file: \"%s\": empty", name,
		         p->pwfile);
		return (-1);
	}
	return (0);
}

/* Checks that need the whole file. */
static int
validate(struct pctx *p, const char *name, char *err, size_t errlen)
{
	struct conf *c = p->c;
	char         h[256], port[16];

	if (p->have_pw && p->have_pwfile) {
		snprintf(err, errlen,
		         "%s: [switch]: password and password_file both given",
		         name);
		return (-1);
	}
	if (p->have_pwfile && read_pwfile(p, err, errlen, name) != 0)
		return (-1);
	if (c->driver[0] == '\0') {
		snprintf(err, errlen, "%s: [switch]: driver missing (%s)",
		         name, drv_names());
		return (-1);
	}
	if (strcmp(c->driver, "emu") != 0) {
		if (c->address[0] == '\0') {
			snprintf(err, errlen, "%s: [switch]: address missing",
			         name);
			return (-1);
		}
		const char *hp = c->address;
		int         web = strcmp(c->driver, "calient") == 0;

		if (strncmp(hp, "tl1://", 6) == 0 && !web)
			hp += 6;
		else if (strncmp(hp, "http://", 7) == 0 && web)
			hp += 7;
		else if (strncmp(hp, "https://", 8) == 0 && web)
			hp += 8;
		if (net_hostport(hp, web ? "80" : "3082", h, sizeof(h), port,
		                 sizeof(port)) != 0) {
			snprintf(err, errlen,
			         "%s: [switch]: address: \"%s\": expected "
			         "%s",
			         name, c->address,
			         web ? "http[s]://HOST[:PORT]"
			             : "HOST[:PORT]");
			return (-1);
		}
		if (c->user[0] == '\0' || c->password[0] == '\0') {
			snprintf(err, errlen,
			         "%s: [switch]: user and password (or "
			         "password_file) are required by driver %s",
			         name, c->driver);
			return (-1);
		}
	}
	if (strncmp(c->control, "tls+tcp://", 10) == 0 &&
	    c->ctl_tls_cert_key[0] == '\0') {
		snprintf(err, errlen,
		         "%s: [control]: tls_cert_key is required with listen "
		         "= tls+tcp://",
		         name);
		return (-1);
	}
	if ((strncmp(c->agents, "tls+tcp://", 10) == 0 ||
	     strncmp(c->events, "tls+tcp://", 10) == 0) &&
	    c->agents_tls[0] == '\0') {
		snprintf(err, errlen,
		         "%s: [agents]: tls_cert_key is required with "
		         "tls+tcp:// addresses",
		         name);
		return (-1);
	}
	if (c->agents[0] && c->secret_file[0] == '\0') {
		snprintf(err, errlen,
		         "%s: [agents]: secret_file is required with listen",
		         name);
		return (-1);
	}
	if (c->agents[0] && c->events[0] == '\0') {
		snprintf(err, errlen,
		         "%s: [agents]: events (an address for run events) is "
		         "required with listen",
		         name);
		return (-1);
	}
	if (c->ports && strcmp(c->driver, "emu") != 0) {
		snprintf(
		    err, errlen,
		    "%s: [switch]: ports: only the emu driver takes a size "
		    "(a real switch reports its own)",
		    name);
		return (-1);
	}
	return (0);
}

void
conf_default_control(char *buf, size_t len)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");

	if (geteuid() == 0)
		snprintf(buf, len, "ipc:///run/ocsd/ctl.sock");
	else if (xdg && xdg[0] == '/')
		snprintf(buf, len, "ipc://%s/ocsd/ctl.sock", xdg);
	else
		snprintf(buf, len, "ipc:///tmp/ocsd-%u/ctl.sock",
		         (unsigned)geteuid());
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
	snprintf(p.c->address, sizeof(p.c->address), "%s", "");
	p.c->timeout_ms = 5000;
	p.c->switch_ms = 25;
	p.c->poll_ms = 30000;
	p.c->light_check = 1;
	p.c->reconcile = CONF_RECON_HOLD;
	p.c->heartbeat_ms = 2000;
	p.c->run_bps = 10e9;
	p.c->run_alpha_s = 200e-6;
	p.c->run_alpha_h = 50e-6;
	p.c->run_chunk = 65536;
	p.c->run_deadline_ms = 30000;
	conf_default_control(p.c->control, sizeof(p.c->control));
	snprintf(p.c->state_dir, sizeof(p.c->state_dir), "%s",
	         geteuid() == 0 ? "/var/lib/ocsd" : "/tmp/ocsd-state");
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
		conf_free(p.c);
		return (-CONF_EPARSE);
	}
	if (validate(&p, name, err, errlen) != 0) {
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
	if ((f = fopen(path, "r")) == NULL) {
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
	if (c == NULL)
		return;
	free(c->trx);
	memset(c->password, 0, sizeof(c->password));
	free(c);
}

const struct conf_trx *
conf_trx_find(const struct conf *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->ntrx; i++)
		if (strcmp(c->trx[i].name, name) == 0)
			return (&c->trx[i]);
	return (NULL);
}

const struct conf_trx *
conf_trx_by_in(const struct conf *c, uint32_t in)
{
	size_t i;

	for (i = 0; i < c->ntrx; i++)
		if (c->trx[i].in == in)
			return (&c->trx[i]);
	return (NULL);
}

const struct conf_trx *
conf_trx_by_out(const struct conf *c, uint32_t out)
{
	size_t i;

	for (i = 0; i < c->ntrx; i++)
		if (c->trx[i].out == out)
			return (&c->trx[i]);
	return (NULL);
}

int
conf_check_ports(const struct conf *c, uint32_t n, char *err, size_t len)
{
	size_t i;

	for (i = 0; i < c->ntrx; i++) {
		const struct conf_trx *t = &c->trx[i];

		if (t->in < 1 || t->in > n || t->out <= n || t->out > 2 * n) {
			snprintf(
			    err, len,
			    "cabling: %s = %u %u does not fit a %ux%u switch "
			    "(ingress 1..%u, egress %u..%u)",
			    t->name, t->in, t->out, n, n, n, n + 1, 2 * n);
			return (-EINVAL);
		}
	}
	return (0);
}

int
conf_switch_changed(const struct conf *a, const struct conf *b)
{
	return (strcmp(a->driver, b->driver) != 0 ||
	        strcmp(a->address, b->address) != 0 ||
	        strcmp(a->ca_file, b->ca_file) != 0 ||
	        strcmp(a->user, b->user) != 0 ||
	        strcmp(a->password, b->password) != 0 ||
	        a->timeout_ms != b->timeout_ms || a->ports != b->ports ||
	        a->switch_ms != b->switch_ms);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The polatis driver: TL1 over TCP (default port 3082).  ACT-USER login,
 * RTRV-EQPT SIZE, one DLT-PATCH and one ENT-PATCH per reconfiguration
 * (port lists with & and && ranges), RTRV-PATCH read-back, CANC-USER.
 * Replies are matched by CTAG; autonomous messages and acknowledgements on
 * the same socket are skipped.  Any timeout, EOF or garbage drops the
 * connection (its state is unknown); the next call reconnects and logs in
 * again, retrying with exponential backoff until its deadline.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ocs-drivers/drv.h"
#include "ocs-drivers/tl1.h"
#include "proto/base/mono.h"
#include "proto/base/net.h"

#define POL_DEFPORT     "3082"
#define POL_BACKOFF_MIN 50
#define POL_BACKOFF_MAX 2000
#define POL_LOGOUT_MS   500

struct polatis {
	char           host[256], port[16];
	char           user[64], pass[128];
	int            timeout_ms;
	int            fd;        /* -1: not connected */
	int            cancel_fd; /* drv_opts' */
	struct tl1_buf in;
	uint32_t       ctag;
	uint32_t       nports;
	uint32_t       switch_ms;
	uint64_t       nauto; /* autonomous messages skipped */
	char           err[512];
	void (*trace)(void *, const char *, ...);
	void *trace_arg;
};

__attribute__((__format__(printf, 2, 3))) static void
seterr(struct polatis *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->err, sizeof(p->err), fmt, ap);
	va_end(ap);
}

static void
drop(struct polatis *p)
{
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
	tl1_buf_free(&p->in);
}

/*
 * Send one command and collect its reply (all '>' blocks) into *r.
 * 0 (COMPLD, or DENY with r->status set), or a transport error after which
 * the connection is dropped.
 */
static int
command(struct polatis *p, const char *verb, const char *aid, const char *rest,
        struct tl1_resp *r, uint64_t deadline)
{
	struct tl1_buf  out = {0};
	struct tl1_resp m;
	char            tag[16], chunk[8192];
	ssize_t         n;
	size_t          i;
	int             rv;

	memset(r, 0, sizeof(*r));
	if (p->fd < 0)
		return (-ENOTCONN);
	p->ctag = p->ctag % 999999 + 1;
	snprintf(tag, sizeof(tag), "%u", p->ctag);
	if (tl1_cmd_fmt(&out, verb, "", aid, p->ctag, rest) != 0)
		return (-ENOMEM);
	if (p->trace)
		p->trace(p->trace_arg, "tl1 > %.200s", out.p);
	rv = net_write_all(p->fd, out.p, out.len, deadline, p->cancel_fd);
	tl1_buf_free(&out);
	if (rv != 0) {
		seterr(p, "sending %s to %s:%s: %s", verb, p->host, p->port,
		       strerror(-rv));
		drop(p);
		return (rv);
	}
	for (;;) {
		while ((n = tl1_resp_parse(p->in.p, p->in.len, &m)) > 0) {
			tl1_buf_consume(&p->in, (size_t)n);
			if (m.kind == TL1_AUTO) {
				p->nauto++;
				if (p->trace)
					p->trace(p->trace_arg,
					         "tl1 < autonomous %s %s %s",
					         m.alarm, m.tag, m.verb);
			}
			if (m.kind != TL1_RESP || strcmp(m.tag, tag) != 0) {
				tl1_resp_free(&m);
				continue;
			}
			/* Our reply, or one block of it. */
			if (r->kind == 0) {
				*r = m;
				m.lines = NULL;
				m.nlines = 0;
			} else {
				for (i = 0; i < m.nlines; i++) {
					char **nl =
					    realloc(r->lines, (r->nlines + 1) *
					                          sizeof(*nl));
					if (nl == NULL) {
						tl1_resp_free(&m);
						drop(p);
						return (-ENOMEM);
					}
					r->lines = nl;
					r->lines[r->nlines++] = m.lines[i];
					m.lines[i] = NULL;
				}
				r->more = m.more;
			}
			tl1_resp_free(&m);
			if (!r->more)
				return (0);
		}
		if (n < 0) {
			seterr(p, "%s:%s answered %s: not TL1", p->host,
			       p->port,
			       n == -EMSGSIZE ? "an oversized message"
			                      : "garbage");
			tl1_resp_free(r);
			drop(p);
			return (-DRV_EPROTO);
		}
		n = net_read_some(p->fd, chunk, sizeof(chunk), deadline,
		                  p->cancel_fd);
		if (n <= 0) {
			rv = n == 0 ? -ECONNRESET : (int)n;
			seterr(p, "waiting for %s reply from %s:%s: %s", verb,
			       p->host, p->port,
			       n == 0 ? "connection closed by the switch"
			              : strerror(-rv));
			tl1_resp_free(r);
			drop(p);
			return (rv);
		}
		if (tl1_buf_put(&p->in, chunk, (size_t)n) != 0) {
			tl1_resp_free(r);
			drop(p);
			return (-ENOMEM);
		}
	}
}

static int
denied(struct polatis *p, const char *verb, const struct tl1_resp *r)
{
	char txt[300];

	tl1_resp_errtext(r, txt, sizeof(txt));
	seterr(p, "%s: %s", verb, txt);
	return (-DRV_EDENIED);
}

/* "SYSTEM:SIZE=48x48" somewhere in the data lines. */
static int
parse_size(const struct tl1_resp *r, uint32_t *n)
{
	unsigned a, b;
	size_t   i;
	char    *s;

	for (i = 0; i < r->nlines; i++) {
		if ((s = strstr(r->lines[i], "SIZE=")) == NULL)
			continue;
		if (sscanf(s, "SIZE=%ux%u", &a, &b) != 2)
			return (-DRV_EPROTO);
		if (a == 0 || a != b || a > DRV_MAX_PORTS)
			return (-DRV_EPROTO);
		*n = a;
		return (0);
	}
	return (-DRV_EPROTO);
}

/* Connect, log in, learn the size. */
static int
session(struct polatis *p, uint64_t deadline)
{
	struct tl1_resp r;
	char            rest[200];
	uint64_t        now = mono_ms();
	int             fd, rv;

	if (now >= deadline)
		return (-ETIMEDOUT);
	fd =
	    net_connect(p->host, p->port, (int)(deadline - now), p->cancel_fd);
	if (fd < 0) {
		seterr(p, "connecting to %s:%s: %s", p->host, p->port,
		       strerror(-fd));
		return (fd);
	}
	p->fd = fd;
	snprintf(rest, sizeof(rest), "::%s", p->pass);
	if ((rv = command(p, "ACT-USER", p->user, rest, &r, deadline)) != 0)
		return (rv);
	if (r.status != TL1_COMPLD) {
		char txt[300];

		tl1_resp_errtext(&r, txt, sizeof(txt));
		seterr(p, "login as %s on %s:%s refused: %s", p->user, p->host,
		       p->port, txt);
		tl1_resp_free(&r);
		drop(p);
		return (-DRV_EAUTH);
	}
	tl1_resp_free(&r);
	rv = command(p, "RTRV-EQPT", "SYSTEM", ":::PARAMETER=SIZE", &r,
	             deadline);
	if (rv != 0)
		return (rv);
	if (r.status != TL1_COMPLD || parse_size(&r, &p->nports) != 0) {
		seterr(p, "%s:%s: no usable SYSTEM:SIZE=NxN in RTRV-EQPT",
		       p->host, p->port);
		tl1_resp_free(&r);
		drop(p);
		return (-DRV_EPROTO);
	}
	tl1_resp_free(&r);
	return (0);
}

/*
 * Has the switch hung up since the last command?  A switch closes idle
 * sessions (ED-EQPT TIMEOUT); finding out only after sending a batch
 * would leave its outcome unknown, so the close is looked for first.
 */
static int
hung_up(struct polatis *p)
{
	struct pollfd pfd = {.fd = p->fd, .events = POLLIN | POLLRDHUP};
	char          c;

	if (poll(&pfd, 1, 0) <= 0)
		return (0);
	if (pfd.revents & (POLLRDHUP | POLLHUP | POLLERR))
		return (1);
	/* Readable: an autonomous message, or the end of the stream. */
	return (recv(p->fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0);
}

/* Be connected by the deadline, retrying with backoff. */
static int
ensure(struct polatis *p, uint64_t deadline)
{
	uint32_t backoff = POL_BACKOFF_MIN;
	uint64_t now;
	int      rv;

	if (p->fd >= 0 && hung_up(p)) {
		if (p->trace)
			p->trace(p->trace_arg,
			         "tl1: %s:%s closed the session; logging in "
			         "again",
			         p->host, p->port);
		drop(p);
	}
	if (p->fd >= 0)
		return (0);
	for (;;) {
		rv = session(p, deadline);
		/* Wrong credentials do not get better by retrying. */
		if (rv == 0 || rv == -DRV_EAUTH || rv == -ENOMEM)
			return (rv);
		now = mono_ms();
		if (now + backoff >= deadline || rv == -ECANCELED)
			return (rv);
		if (net_sleep(backoff, p->cancel_fd) != 0)
			return (-ECANCELED);
		backoff = backoff * 2 > POL_BACKOFF_MAX ? POL_BACKOFF_MAX
		                                        : backoff * 2;
	}
}

static int
pol_open(void *priv, const char *url, const struct drv_opts *o)
{
	struct polatis *p = priv;

	p->fd = -1;
	if (strncmp(url, "tl1://", 6) == 0)
		url += 6;
	if (net_hostport(url, POL_DEFPORT, p->host, sizeof(p->host), p->port,
	                 sizeof(p->port)) != 0)
		return (-EINVAL);
	if (o->user == NULL || o->password == NULL ||
	    strlen(o->user) >= sizeof(p->user) ||
	    strlen(o->password) >= sizeof(p->pass) ||
	    strpbrk(o->user, ":;\r\n") || strpbrk(o->password, ":;\r\n"))
		return (-EINVAL);
	snprintf(p->user, sizeof(p->user), "%s", o->user);
	snprintf(p->pass, sizeof(p->pass), "%s", o->password);
	p->timeout_ms = o->timeout_ms;
	p->switch_ms = o->switch_ms;
	p->cancel_fd = o->cancel_fd;
	p->trace = o->trace;
	p->trace_arg = o->trace_arg;
	return (ensure(p, mono_ms() + (uint64_t)p->timeout_ms));
}

static void
pol_close(void *priv)
{
	struct polatis *p = priv;
	struct tl1_resp r;

	if (p->fd >= 0 && command(p, "CANC-USER", p->user, ":", &r,
	                          mono_ms() + POL_LOGOUT_MS) == 0)
		tl1_resp_free(&r);
	drop(p);
}

static int
pol_caps(void *priv, struct drv_caps *c)
{
	struct polatis *p = priv;
	int             rv;

	if ((rv = ensure(p, mono_ms() + (uint64_t)p->timeout_ms)) != 0)
		return (rv);
	memset(c, 0, sizeof(*c));
	c->nports = p->nports;
	c->switch_ms = p->switch_ms;
	return (0);
}

/*
 * One command of a batch.  *sent tells the caller whether the switch may
 * have acted on it (the bytes went out), which decides between "nothing
 * applied" and "maybe half applied".
 */
static int
batch_cmd(struct polatis *p, const char *verb, struct tl1_buf *aid,
          size_t nitems, int *acted)
{
	struct tl1_resp r;
	int             rv;

	/* As real clients write it: "ENT-PATCH::1,17:123:;" */
	rv = command(p, verb, aid->p, ":", &r,
	             mono_ms() + (uint64_t)p->timeout_ms);
	if (rv != 0) {
		/* Lost after sending: the switch may have done it. */
		if (rv != -ENOTCONN && rv != -ENOMEM)
			*acted = 1;
		return (rv);
	}
	if (r.status != TL1_COMPLD) {
		rv = denied(p, verb, &r);
		/* A refused list may have been applied up to the bad item. */
		if (nitems > 1)
			*acted = 1;
	} else
		*acted = 1;
	tl1_resp_free(&r);
	return (rv);
}

static int
pol_apply(void *priv, const struct drv_batch *b)
{
	struct polatis *p = priv;
	struct tl1_buf  aid = {0};
	int             rv, acted = 0;

	p->err[0] = '\0';
	if ((rv = ensure(p, mono_ms() + (uint64_t)p->timeout_ms)) != 0)
		return (rv);
	if (b->ndisconnect) {
		if (tl1_aid_fmt(&aid, b->disconnect, b->ndisconnect) != 0)
			return (-ENOMEM);
		rv = batch_cmd(p, "DLT-PATCH", &aid, b->ndisconnect, &acted);
		tl1_buf_free(&aid);
		if (rv != 0)
			return (acted ? -DRV_EPARTIAL : rv);
	}
	if (b->nconnect) {
		if (tl1_aid_fmt_patches(&aid, b->connect, b->nconnect) != 0)
			return (-ENOMEM);
		rv = batch_cmd(p, "ENT-PATCH", &aid, b->nconnect, &acted);
		tl1_buf_free(&aid);
		if (rv != 0)
			return (acted ? -DRV_EPARTIAL : rv);
	}
	return (0);
}

static int
read_once(struct polatis *p, uint16_t *map, size_t nports)
{
	struct tl1_resp r;
	unsigned        in, out;
	size_t          i;
	char            tail;
	int             rv;

	if ((rv = ensure(p, mono_ms() + (uint64_t)p->timeout_ms)) != 0)
		return (rv);
	rv = command(p, "RTRV-PATCH", "", ":", &r,
	             mono_ms() + (uint64_t)p->timeout_ms);
	if (rv != 0)
		return (rv);
	if (r.status != TL1_COMPLD) {
		rv = denied(p, "RTRV-PATCH", &r);
		tl1_resp_free(&r);
		return (rv);
	}
	memset(map, 0, (nports + 1) * sizeof(*map));
	for (i = 0; i < r.nlines; i++) {
		if (sscanf(r.lines[i], "%u,%u%c", &in, &out, &tail) != 2 ||
		    in < 1 || in > nports || out <= nports ||
		    out > 2 * nports || map[in] != 0) {
			seterr(p,
			       "RTRV-PATCH from %s:%s: bad patch line "
			       "\"%.40s\"",
			       p->host, p->port, r.lines[i]);
			tl1_resp_free(&r);
			return (-DRV_EPROTO);
		}
		map[in] = (uint16_t)out;
	}
	tl1_resp_free(&r);
	for (in = 1; in <= nports; in++)
		for (out = in + 1; map[in] && out <= nports; out++)
			if (map[out] == map[in]) {
				seterr(p,
				       "RTRV-PATCH from %s:%s: egress %u "
				       "patched twice",
				       p->host, p->port, map[in]);
				return (-DRV_EPROTO);
			}
	return (0);
}

static int
pol_read_map(void *priv, uint16_t *map, size_t nports)
{
	struct polatis *p = priv;
	int             rv;

	p->err[0] = '\0';
	if (nports != p->nports)
		return (-EINVAL);
	rv = read_once(p, map, nports);
	/* Reading is idempotent: one more try on a fresh connection. */
	if (rv == -ECONNRESET || rv == -EPIPE || rv == -ETIMEDOUT ||
	    rv == -DRV_EPROTO)
		rv = read_once(p, map, nports);
	return (rv);
}

/* RTRV-PORT-POWER: "<port>:<dBm>" per port.  No failed state in TL1. */
static int
power_once(struct polatis *p, const uint16_t *ports, size_t n,
           struct drv_port_state *st)
{
	struct tl1_resp r;
	struct tl1_buf  aid = {0};
	unsigned        port;
	double          dbm;
	size_t          i, k;
	char            tail;
	int             rv;

	if ((rv = ensure(p, mono_ms() + (uint64_t)p->timeout_ms)) != 0)
		return (rv);
	if (tl1_aid_fmt(&aid, ports, n) != 0)
		return (-ENOMEM);
	rv = command(p, "RTRV-PORT-POWER", aid.p, ":", &r,
	             mono_ms() + (uint64_t)p->timeout_ms);
	tl1_buf_free(&aid);
	if (rv != 0)
		return (rv);
	if (r.status != TL1_COMPLD) {
		rv = denied(p, "RTRV-PORT-POWER", &r);
		tl1_resp_free(&r);
		return (rv);
	}
	for (k = 0; k < n; k++)
		st[k] = (struct drv_port_state){DRV_NO_READING, 0};
	for (i = 0; i < r.nlines; i++) {
		if (sscanf(r.lines[i], "%u:%lf%c", &port, &dbm, &tail) != 2 ||
		    dbm < -200 || dbm > 50) {
			seterr(p,
			       "RTRV-PORT-POWER from %s:%s: bad line "
			       "\"%.40s\"",
			       p->host, p->port, r.lines[i]);
			tl1_resp_free(&r);
			return (-DRV_EPROTO);
		}
		for (k = 0; k < n; k++)
			if (ports[k] == port)
				st[k].dbm = dbm;
	}
	tl1_resp_free(&r);
	return (0);
}

/* ocs-emu's SET-EMU-FAULT; a real switch answers IICM. */
static int
pol_inject(void *priv, const char *spec, char *now, size_t len)
{
	struct polatis *p = priv;
	struct tl1_resp r;
	char            rest[256];
	int             rv;

	p->err[0] = '\0';
	if ((rv = ensure(p, mono_ms() + (uint64_t)p->timeout_ms)) != 0)
		return (rv);
	snprintf(rest, sizeof(rest), "::%s", spec);
	rv = command(p, "SET-EMU-FAULT", "", rest, &r,
	             mono_ms() + (uint64_t)p->timeout_ms);
	if (rv != 0)
		return (rv);
	if (r.status != TL1_COMPLD) {
		rv = denied(p, "SET-EMU-FAULT", &r);
		tl1_resp_free(&r);
		return (rv);
	}
	snprintf(now, len, "%s",
	         r.nlines && strncmp(r.lines[0], "FAULTS=", 7) == 0
	             ? r.lines[0] + 7
	             : spec);
	tl1_resp_free(&r);
	return (0);
}

static int
pol_ports_state(void *priv, const uint16_t *ports, size_t n,
                struct drv_port_state *st)
{
	struct polatis *p = priv;
	int             rv;

	p->err[0] = '\0';
	rv = power_once(p, ports, n, st);
	if (rv == -ECONNRESET || rv == -EPIPE || rv == -ETIMEDOUT ||
	    rv == -DRV_EPROTO)
		rv = power_once(p, ports, n, st);
	return (rv);
}

static const char *
pol_last_error(void *priv)
{
	struct polatis *p = priv;

	return (p->err[0] ? p->err : NULL);
}

const struct drv_ops drv_polatis_ops = {
    .name = "polatis",
    .priv_size = sizeof(struct polatis),
    .open = pol_open,
    .close = pol_close,
    .caps = pol_caps,
    .apply = pol_apply,
    .read_map = pol_read_map,
    .ports_state = pol_ports_state,
    .inject = pol_inject,
    .last_error = pol_last_error,
};

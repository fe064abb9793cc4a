/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The polatis driver: TL1 over TCP (default port 3082), or over SSH (a
 * shell channel, default port 22, the SSH login instead of ACT-USER; the
 * host key checked against a known_hosts file).  ACT-USER login,
 * RTRV-EQPT SIZE, one DLT-PATCH and one ENT-PATCH per reconfiguration
 * (port lists with & and && ranges), RTRV-PATCH read-back (with
 * RTRV-PORT-POWER of the new paths in the same write), CANC-USER.
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
#include "ocs-drivers/tl1_sess.h"
#include "proto/base/mono.h"
#include "proto/base/net.h"

#define POL_DEFPORT "3082"
#define POL_SSHPORT "22"
/* Over SSH the switch prompts after every reply (the vendor's suite
 * waits for it); skipped between replies. */
#define POL_SSH_PROMPT ">"

struct polatis {
	struct tl1s t;
	uint32_t    nports, nout; /* N x M: ingress 1..N, egress N+1..N+M */
	uint32_t    switch_ms;
};

#define seterr(p, ...) tl1s_seterr(&(p)->t, __VA_ARGS__)

static int
denied(struct polatis *p, const char *verb, const struct tl1_resp *r)
{
	char txt[300];

	tl1_resp_errtext(r, txt, sizeof(txt));
	seterr(p, "%s: %s", verb, txt);
	return (-DRV_EDENIED);
}

/*
 * "SYSTEM:SIZE=48x48" somewhere in the data lines: N ingress, M egress
 * ports (N+1..N+M).  The controller numbers egress N+1..2N, so a switch
 * with more egress than ingress ports is driven on its first N.
 */
static int
parse_size(const struct tl1_resp *r, uint32_t *n, uint32_t *m)
{
	unsigned a, b;
	size_t   i;
	char    *s, tail;

	for (i = 0; i < r->nlines; i++) {
		if ((s = strstr(r->lines[i], "SIZE=")) == NULL)
			continue;
		if (sscanf(s, "SIZE=%ux%u%c", &a, &b, &tail) < 2 ||
		    (sscanf(s, "SIZE=%ux%u%c", &a, &b, &tail) == 3 &&
		     tail != '"' && tail != ',' && tail != ' '))
			return (-DRV_EPROTO);
		if (a == 0 || b == 0 || a > DRV_MAX_PORTS || b > DRV_MAX_PORTS)
			return (-DRV_EPROTO);
		*n = a;
		*m = b;
		return (0);
	}
	return (-DRV_EPROTO);
}

/* After each login: the size. */
static int
learn_size(void *arg, uint64_t deadline)
{
	struct polatis *p = arg;
	struct tl1_resp r;
	uint32_t        n, m;
	int             rv;

	rv = tl1s_command(&p->t, "RTRV-EQPT", "SYSTEM", ":::PARAMETER=SIZE",
	                  &r, deadline);
	if (rv != 0)
		return (rv);
	if (r.status != TL1_COMPLD || parse_size(&r, &n, &m) != 0) {
		seterr(p, "%s:%s: no usable SYSTEM:SIZE=NxM in RTRV-EQPT",
		       p->t.host, p->t.port);
		tl1_resp_free(&r);
		return (-DRV_EPROTO);
	}
	tl1_resp_free(&r);
	if (p->nports != 0 && (n != p->nports || m != p->nout)) {
		seterr(p, "%s:%s is now %ux%u where it was %ux%u", p->t.host,
		       p->t.port, n, m, p->nports, p->nout);
		return (-DRV_EPROTO);
	}
	p->nports = n;
	p->nout = m;
	return (0);
}

static int
ensure(struct polatis *p, uint64_t deadline)
{
	return (tl1s_ensure(&p->t, deadline, learn_size, p));
}

static int
pol_open(void *priv, const char *url, const struct drv_opts *o)
{
	struct polatis *p = priv;

	if (tl1s_init(&p->t, url, o->ssh ? POL_SSHPORT : POL_DEFPORT, o,
	              o->ssh ? POL_SSH_PROMPT : NULL) != 0)
		return (-EINVAL);
	p->switch_ms = o->switch_ms;
	return (ensure(p, mono_ms() + (uint64_t)p->t.timeout_ms));
}

static void
pol_close(void *priv)
{
	struct polatis *p = priv;

	tl1s_logout(&p->t);
}

static int
pol_caps(void *priv, struct drv_caps *c)
{
	struct polatis *p = priv;
	int             rv;

	if ((rv = ensure(p, mono_ms() + (uint64_t)p->t.timeout_ms)) != 0)
		return (rv);
	memset(c, 0, sizeof(*c));
	c->nports = p->nports;
	c->nout = p->nout;
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
	rv = tl1s_command(&p->t, verb, aid->p, ":", &r,
	                  mono_ms() + (uint64_t)p->t.timeout_ms);
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

/* The batch's deletes in one DLT-PATCH, alone (a refused delete stops
 * the batch); *acted once the switch may have changed. */
static int
delete_patches(struct polatis *p, const struct drv_batch *b, int *acted)
{
	struct tl1_buf aid = {0};
	int            rv;

	if (tl1_aid_fmt(&aid, b->disconnect, b->ndisconnect) != 0)
		return (-ENOMEM);
	rv = batch_cmd(p, "DLT-PATCH", &aid, b->ndisconnect, acted);
	tl1_buf_free(&aid);
	return (rv != 0 && *acted ? -DRV_EPARTIAL : rv);
}

static int
pol_apply(void *priv, const struct drv_batch *b)
{
	struct polatis *p = priv;
	struct tl1_buf  aid = {0};
	int             rv, acted = 0;

	p->t.err[0] = '\0';
	if ((rv = ensure(p, mono_ms() + (uint64_t)p->t.timeout_ms)) != 0)
		return (rv);
	if (b->ndisconnect && (rv = delete_patches(p, b, &acted)) != 0)
		return (rv);
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

/* RTRV-PATCH's reply: "<in>,<out>" per patch, into map. */
static int
patch_reply(struct polatis *p, const struct tl1_resp *r, uint16_t *map,
            size_t nports)
{
	unsigned in, out;
	uint8_t *seen;
	size_t   i;
	char     tail;

	if (r->status != TL1_COMPLD)
		return (denied(p, "RTRV-PATCH", r));
	if ((seen = calloc(nports + 1, 1)) == NULL)
		return (-ENOMEM);
	memset(map, 0, (nports + 1) * sizeof(*map));
	for (i = 0; i < r->nlines; i++) {
		if (sscanf(r->lines[i], "%u,%u%c", &in, &out, &tail) == 2 &&
		    in >= 1 && in <= nports && out > 2 * nports &&
		    out <= nports + p->nout) {
			/* A port of an N x M switch (M > N) this controller
			 * cannot name holds one it can: say so, do not
			 * call the ingress free. */
			seterr(p,
			       "%s:%s (%ux%u): ingress %u is patched to "
			       "egress %u, beyond the %zu egress ports this "
			       "controller numbers",
			       p->t.host, p->t.port, p->nports, p->nout, in,
			       out, nports);
			free(seen);
			return (-DRV_EPROTO);
		}
		if (sscanf(r->lines[i], "%u,%u%c", &in, &out, &tail) != 2 ||
		    in < 1 || in > nports || out <= nports ||
		    out > 2 * nports || map[in] != 0) {
			seterr(p,
			       "RTRV-PATCH from %s:%s: bad patch line "
			       "\"%.40s\"",
			       p->t.host, p->t.port, r->lines[i]);
			free(seen);
			return (-DRV_EPROTO);
		}
		if (seen[out - nports]++) {
			seterr(p,
			       "RTRV-PATCH from %s:%s: egress %u patched "
			       "twice",
			       p->t.host, p->t.port, out);
			free(seen);
			return (-DRV_EPROTO);
		}
		map[in] = (uint16_t)out;
	}
	free(seen);
	return (0);
}

/* RTRV-PORT-POWER's reply: "<port>:<dBm>" per port.  No failed state in
 * TL1. */
static int
power_reply(struct polatis *p, const struct tl1_resp *r, const uint16_t *ports,
            size_t n, struct drv_port_state *st)
{
	unsigned  port;
	double    dbm;
	uint32_t *at, *next;
	size_t    i, k;
	char      tail;
	int       rv = 0;

	if (r->status != TL1_COMPLD)
		return (denied(p, "RTRV-PORT-POWER", r));
	/* Where each asked port is (k + 1, chained for repeats): a reply
	 * line is matched at once, not against every port asked. */
	if ((at = calloc(2 * DRV_MAX_PORTS + 1, sizeof(*at))) == NULL ||
	    (next = calloc(n, sizeof(*next))) == NULL) {
		free(at);
		return (-ENOMEM);
	}
	for (k = n; k-- > 0;) {
		st[k] = (struct drv_port_state){DRV_NO_READING, 0};
		if (ports[k] <= 2 * DRV_MAX_PORTS) {
			next[k] = at[ports[k]];
			at[ports[k]] = (uint32_t)k + 1;
		}
	}
	for (i = 0; i < r->nlines; i++) {
		if (sscanf(r->lines[i], "%u:%lf%c", &port, &dbm, &tail) != 2 ||
		    dbm < -200 || dbm > 50) {
			seterr(p,
			       "RTRV-PORT-POWER from %s:%s: bad line "
			       "\"%.40s\"",
			       p->t.host, p->t.port, r->lines[i]);
			rv = -DRV_EPROTO;
			break;
		}
		for (k = port <= 2 * DRV_MAX_PORTS ? at[port] : 0; k > 0;
		     k = next[k - 1])
			st[k - 1].dbm = dbm;
	}
	free(at);
	free(next);
	return (rv);
}

/*
 * RTRV-PATCH (map != NULL) and RTRV-PORT-POWER (n > 0), both in one
 * exchange when both are asked for: two reads, so neither's outcome
 * depends on the other.  Returns the map's outcome and puts the power
 * reading's in *srv (both the same error when the exchange failed).
 */
static int
read_once(struct polatis *p, uint16_t *map, size_t nports,
          const uint16_t *ports, size_t n, struct drv_port_state *st, int *srv)
{
	struct tl1s_cmd c[2];
	struct tl1_resp r[2];
	struct tl1_buf  aid = {0};
	size_t          nc = 0, i = 0;
	int             rv;

	*srv = 0;
	if ((rv = ensure(p, mono_ms() + (uint64_t)p->t.timeout_ms)) != 0)
		return (*srv = rv);
	if (map != NULL)
		c[nc++] = (struct tl1s_cmd){"RTRV-PATCH", "", ":"};
	if (n > 0) {
		if (tl1_aid_fmt(&aid, ports, n) != 0)
			return (*srv = -ENOMEM);
		c[nc++] = (struct tl1s_cmd){"RTRV-PORT-POWER", aid.p, ":"};
	}
	rv = tl1s_commands(&p->t, c, nc, r,
	                   mono_ms() + (uint64_t)p->t.timeout_ms);
	tl1_buf_free(&aid);
	if (rv != 0)
		return (*srv = rv);
	if (map != NULL)
		rv = patch_reply(p, &r[i++], map, nports);
	if (n > 0)
		*srv = power_reply(p, &r[i], ports, n, st);
	for (i = 0; i < nc; i++)
		tl1_resp_free(&r[i]);
	return (rv);
}

static int
retryable(int rv)
{
	return (rv == -ECONNRESET || rv == -EPIPE || rv == -ETIMEDOUT ||
	        rv == -DRV_EPROTO);
}

/* Reading is idempotent: one more try on a fresh connection. */
static int
read_retry(struct polatis *p, uint16_t *map, size_t nports,
           const uint16_t *ports, size_t n, struct drv_port_state *st,
           int *srv)
{
	int rv;

	p->t.err[0] = '\0';
	if (map != NULL && nports != p->nports)
		return (*srv = -EINVAL);
	rv = read_once(p, map, nports, ports, n, st, srv);
	if (retryable(rv) || retryable(*srv))
		rv = read_once(p, map, nports, ports, n, st, srv);
	return (rv);
}

static int
pol_read_map(void *priv, uint16_t *map, size_t nports)
{
	int srv;

	return (read_retry(priv, map, nports, NULL, 0, NULL, &srv));
}

static int
pol_read_map_state(void *priv, uint16_t *map, size_t nports,
                   const uint16_t *ports, size_t n, struct drv_port_state *st,
                   int *srv)
{
	return (read_retry(priv, map, nports, ports, n, st, srv));
}

/*
 * A batch with its read-back: DLT-PATCH alone (ENT-PATCH must not go
 * out if it is refused), then the batch's last command, RTRV-PATCH and
 * RTRV-PORT-POWER in one write.  The reads change nothing and are
 * answered after the command, so they see its outcome; a read that went
 * wrong is asked again on its own.
 */
static int
pol_apply_read(void *priv, const struct drv_batch *b, uint16_t *map,
               size_t nports, const uint16_t *ports, size_t n,
               struct drv_port_state *st, int *mrv, int *srv)
{
	struct polatis *p = priv;
	struct tl1s_cmd c[3];
	struct tl1_resp r[3];
	struct tl1_buf  aid = {0}, paid = {0};
	const char     *verb = b->nconnect ? "ENT-PATCH" : "DLT-PATCH";
	size_t nitems = b->nconnect ? b->nconnect : b->ndisconnect, nc = 2, i;
	int    rv, acted = 0;

	p->t.err[0] = '\0';
	*mrv = *srv = -ENOTSUP;
	if ((rv = ensure(p, mono_ms() + (uint64_t)p->t.timeout_ms)) != 0)
		return (rv);
	if (b->nconnect && b->ndisconnect &&
	    (rv = delete_patches(p, b, &acted)) != 0)
		return (rv);
	if ((b->nconnect
	         ? tl1_aid_fmt_patches(&aid, b->connect, b->nconnect)
	         : tl1_aid_fmt(&aid, b->disconnect, b->ndisconnect)) != 0 ||
	    (n > 0 && tl1_aid_fmt(&paid, ports, n) != 0)) {
		tl1_buf_free(&aid);
		return (acted ? -DRV_EPARTIAL : -ENOMEM);
	}
	c[0] = (struct tl1s_cmd){verb, aid.p, ":"};
	c[1] = (struct tl1s_cmd){"RTRV-PATCH", "", ":"};
	if (n > 0)
		c[nc++] = (struct tl1s_cmd){"RTRV-PORT-POWER", paid.p, ":"};
	rv = tl1s_commands(&p->t, c, nc, r,
	                   mono_ms() + (uint64_t)p->t.timeout_ms);
	tl1_buf_free(&aid);
	tl1_buf_free(&paid);
	/* Lost after sending: the switch may have done it. */
	if (rv != 0)
		return (rv != -ENOTCONN && rv != -ENOMEM ? -DRV_EPARTIAL : rv);
	*mrv = patch_reply(p, &r[1], map, nports);
	if (r[0].status == TL1_COMPLD && n > 0)
		*srv = power_reply(p, &r[2], ports, n, st);
	if (*mrv != 0 || (r[0].status == TL1_COMPLD && retryable(*srv)))
		*mrv = read_retry(p, map, nports, ports,
		                  r[0].status == TL1_COMPLD ? n : 0, st, srv);
	/* Last, so that the device's words on the batch are the ones
	 * kept. */
	if (r[0].status != TL1_COMPLD) {
		rv = denied(p, verb, &r[0]);
		/* A refused list may have been applied up to the bad item. */
		if (nitems > 1 || acted)
			rv = -DRV_EPARTIAL;
	}
	for (i = 0; i < nc; i++)
		tl1_resp_free(&r[i]);
	return (rv);
}

/* ocs-emu's SET-EMU-FAULT; a real switch answers IICM. */
static int
pol_inject(void *priv, const char *spec, char *now, size_t len)
{
	struct polatis *p = priv;
	int             rv;

	p->t.err[0] = '\0';
	if ((rv = ensure(p, mono_ms() + (uint64_t)p->t.timeout_ms)) != 0)
		return (rv);
	return (tl1s_inject(&p->t, spec, now, len,
	                    mono_ms() + (uint64_t)p->t.timeout_ms));
}

/* ocs-emu's RTRV-EMU-CAPTURE; a real switch answers IICM. */
static int
pol_capture(void *priv, uint32_t run, struct drv_capture *c)
{
	struct polatis *p = priv;
	int             rv;

	p->t.err[0] = '\0';
	if ((rv = ensure(p, mono_ms() + (uint64_t)p->t.timeout_ms)) != 0)
		return (rv);
	return (tl1s_capture(&p->t, run, c,
	                     mono_ms() + (uint64_t)p->t.timeout_ms));
}

static int
pol_ports_state(void *priv, const uint16_t *ports, size_t n,
                struct drv_port_state *st)
{
	int srv = 0;

	if (n > 0)
		read_retry(priv, NULL, 0, ports, n, st, &srv);
	return (srv);
}

static const char *
pol_last_error(void *priv)
{
	struct polatis *p = priv;

	return (p->t.err[0] ? p->t.err : NULL);
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
    .read_map_state = pol_read_map_state,
    .apply_read = pol_apply_read,
    .inject = pol_inject,
    .capture = pol_capture,
    .last_error = pol_last_error,
};

/* SPDX-License-Identifier: BSD-2-Clause */
/* Probes for ocsctl check: send, listen, say who was heard (probe.h). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/frame.h"
#include "agent/probe.h"
#include "proto/base/mono.h"

#define PROBE_BUF 4096 /* a receiver's unparsed bytes, at most */

static void
add(struct amsg_heard *out, size_t cap, size_t *nout, uint32_t trx,
    const struct frame_probe *pr)
{
	size_t i;

	for (i = 0; i < *nout; i++)
		if (out[i].trx == trx && out[i].from_trx == pr->trx &&
		    strcmp(out[i].host, pr->host) == 0)
			return;
	if (*nout == cap)
		return;
	out[*nout].trx = trx;
	out[*nout].from_trx = pr->trx;
	snprintf(out[*nout].host, sizeof(out[*nout].host), "%s", pr->host);
	(*nout)++;
}

void
probe_scan(uint8_t *buf, size_t *len, uint32_t trx, uint32_t nonce,
           struct amsg_heard *out, size_t cap, size_t *nout)
{
	struct frame_probe pr;
	size_t             at = 0;
	int                rv;

	while (*len - at >= FRAME_HDR) {
		rv = frame_probe_get(buf + at, *len - at, &pr);
		if (rv == 0)
			break; /* a probe's beginning: the rest to come */
		if (rv < 0) {
			at++; /* not a probe here: a leftover of a run */
			continue;
		}
		/* Another check's (a late one) is not this one's. */
		if (pr.nonce == nonce)
			add(out, cap, nout, trx, &pr);
		at += (size_t)rv;
	}
	memmove(buf, buf + at, *len - at);
	*len -= at;
}

static int
send_all(struct xport *x, const int *open, uint32_t n, const char *host,
         const struct amsg_probe *p)
{
	struct frame_probe pr;
	uint8_t            f[FRAME_PROBE_MAX];
	size_t             len;
	uint32_t           i;
	int                failed = 0;

	memset(&pr, 0, sizeof(pr));
	pr.nonce = p->nonce;
	snprintf(pr.host, sizeof(pr.host), "%s", host);
	for (i = 0; i < n; i++) {
		if (!(p->send & (1u << i)))
			continue;
		pr.trx = i;
		len = frame_probe_put(f, &pr);
		if (!open[i] || xport_probe_send(&x[i], f, len) != 0)
			failed |= 1 << i;
	}
	return (failed);
}

/* Every receiver in listen has heard one. */
static int
all_heard(uint32_t listen, const struct amsg_heard *out, size_t nout)
{
	size_t i;

	for (i = 0; i < nout; i++)
		listen &= ~(1u << out[i].trx);
	return (listen == 0);
}

/* Read what receiver i has (0, or -1 when it is gone: read no more). */
static int
take(struct xport *x, uint32_t i, uint8_t *buf, size_t *len,
     const struct amsg_probe *p, struct amsg_heard *out, size_t cap,
     size_t *nout)
{
	ssize_t r;

	for (;;) {
		if (*len == PROBE_BUF) { /* garbage: keep the newest half */
			memmove(buf, buf + PROBE_BUF / 2, PROBE_BUF / 2);
			*len = PROBE_BUF / 2;
		}
		r = xport_probe_recv(x, buf + *len, PROBE_BUF - *len);
		if (r == -EAGAIN)
			return (0);
		if (r <= 0)
			return (-1);
		*len += (size_t)r;
		probe_scan(buf, len, i, p->nonce, out, cap, nout);
	}
}

int
probe_run(struct xport *x, const int *open, uint32_t n, const char *host,
          const struct amsg_probe *p, struct amsg_heard *out, size_t cap,
          size_t *nout)
{
	uint8_t(*buf)[PROBE_BUF];
	size_t        len[AMSG_MAX_TRX] = {0};
	struct pollfd pf[AMSG_MAX_TRX];
	uint32_t      idx[AMSG_MAX_TRX], i, np;
	uint64_t      t0 = mono_ms(), now, end = t0 + p->wait_ms;
	uint64_t      again = t0 + PROBE_AGAIN_MS;
	int           failed, live[AMSG_MAX_TRX] = {0};

	*nout = 0;
	if (n > AMSG_MAX_TRX)
		n = AMSG_MAX_TRX;
	if ((buf = calloc(n ? n : 1, PROBE_BUF)) == NULL)
		return (-ENOMEM);
	for (i = 0; i < n; i++)
		live[i] = open[i];
	failed = send_all(x, open, n, host, p);
	while ((now = mono_ms()) < end) {
		if (again && now >= again) {
			/* Sent once of the two times is sent. */
			failed &= send_all(x, open, n, host, p);
			again = 0;
		}
		if (!again && all_heard(p->listen, out, *nout))
			break;
		for (np = 0, i = 0; i < n; i++)
			if (live[i]) {
				pf[np] = (struct pollfd){xport_fd(&x[i]),
				                         POLLIN, 0};
				idx[np++] = i;
			}
		if (poll(pf, np, (int)((again ? again : end) - now)) < 0 &&
		    errno != EINTR)
			break;
		for (i = 0; i < np; i++)
			if (pf[i].revents &&
			    take(&x[idx[i]], idx[i], buf[idx[i]], &len[idx[i]],
			         p, out, cap, nout) < 0)
				live[idx[i]] = 0;
	}
	free(buf);
	return (failed);
}

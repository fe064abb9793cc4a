/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The capture of the kernel datapath (ocs-emu --capture): libpcap on
 * every switch port of the namespace testbed and on its "dark" sink,
 * reading the kernel transport's segments (EtherType 0x88b5), whose
 * header names run, phase and sending node (agent/xport_kernel.c).
 *
 * What it proves.  A frame redirected to "dark" entered a port that no
 * lit circuit carried at that instant: the kernel's own verdict, so the
 * count of frames seen on "dark" is the count of frames that met an
 * unlit circuit, with no clock to compare.  What it measures: per port,
 * the time from the last frame of a phase to the first of the next, the
 * dark time a reconfiguration between them cost as the light saw it.
 *
 * A run's summary is printed on stdout when the next run's first frame
 * arrives or when the ports have been quiet for half a second, and kept
 * for queries (TL1 RTRV-EMU-CAPTURE, which ocsctl run --capture sends
 * through ocsd):
 *
 *	ocs-emu: capture run 1a2b3c4d: 5210 frames on 18 ports, unlit-circuit
 *	frames: 0; gaps between phases (min over ports): 1: 2.103 ms, ...
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <pcap/pcap.h>

#include "proto/base/log.h"
#include "proto/base/mono.h"
#include "testbed/ocs-emu/emu_cap.h"

#define CAP_PHASES    256
#define CAP_QUIET_MS  500
#define CAP_SNAP      64 /* Ethernet header and the segment header */
#define CAP_KEEP      16 /* summaries of past runs kept for queries */
#define CAP_PEND      16 /* frames of a later run before it begins */
#define CAP_SWITCH_MS 20 /* or the run before it quiet this long */

struct cap_port {
	pcap_t         *h;
	uint32_t        port; /* 0 = dark */
	struct emu_cap *c;
};

struct cap_sum {
	uint32_t run;
	char     text[1024]; /* the query's answer: FRAMES=..,UNLIT=.. */
};

struct emu_cap {
	struct cap_port *p;
	uint32_t         np, n;
	int              stopfd;
	pthread_t        thr;
	int              started;
	/* Guards the run being seen and the summaries (queries come from
	 * the control faces' threads). */
	pthread_mutex_t mtx;
	struct cap_sum  kept[CAP_KEEP];
	uint32_t        nkept;
	/* The run being seen. */
	uint32_t run;
	uint64_t frames, unlit, last_ms;
	uint32_t maxphase, unlit_phase, unlit_src;
	double  *first, *last; /* [(n + 1) * CAP_PHASES], seconds; 0 = none */
	/* Capture drops (libpcap's ps_drop, per handle) when it began. */
	uint64_t *drop0;
	/* Frames of a later run while this one is under way: held, and
	 * the later run begins only once CAP_PEND of them came with none
	 * of this run between, or this one went quiet for CAP_SWITCH_MS.
	 * A frame of this run drops them (a stray: it must not end the run
	 * and leave the rest of it unseen). */
	struct cap_frame pend[CAP_PEND];
	uint32_t         npend;
	uint64_t         stray;
};

static uint32_t
be32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	        (uint32_t)p[2] << 8 | p[3]);
}

/* Frames the capture itself dropped (its buffers full) on every handle,
 * as libpcap counts them since it opened. */
static void
drops_now(const struct emu_cap *c, uint64_t *d)
{
	struct pcap_stat ps;
	uint32_t         i;

	for (i = 0; i < c->np; i++)
		d[i] = pcap_stats(c->p[i].h, &ps) == 0 ? ps.ps_drop : 0;
}

/* Of the run being seen: the capture's drops since it began. */
static uint64_t
drops_run(const struct emu_cap *c)
{
	struct pcap_stat ps;
	uint64_t         sum = 0;
	uint32_t         i;

	for (i = 0; i < c->np; i++)
		if (pcap_stats(c->p[i].h, &ps) == 0)
			sum += ps.ps_drop - c->drop0[i];
	return (sum);
}

/* The run being seen, for a query (text:
 * FRAMES=n,UNLIT=u,DROPS=d[,FIRST=P/S],GAPS=1:ms&2:ms...) and for the
 * log line. */
static void
summarise(const struct emu_cap *c, char *text, size_t tl, char *line,
          size_t ll)
{
	size_t   o1, o2;
	uint32_t k, p, ports = 0;
	uint64_t drops;
	int      gaps = 0;

	for (p = 1; p <= c->n; p++)
		for (k = 0; k <= c->maxphase; k++)
			if (c->first[p * CAP_PHASES + k] > 0) {
				ports++;
				break;
			}
	drops = drops_run(c);
	o1 = (size_t)snprintf(text, tl, "FRAMES=%llu,UNLIT=%llu,DROPS=%llu",
	                      (unsigned long long)c->frames,
	                      (unsigned long long)c->unlit,
	                      (unsigned long long)drops);
	o2 = (size_t)snprintf(line, ll,
	                      "ocs-emu: capture run %08x: %llu frames on %u "
	                      "ports, unlit-circuit frames: %llu",
	                      c->run, (unsigned long long)c->frames, ports,
	                      (unsigned long long)c->unlit);
	if (c->unlit && o1 < tl && o2 < ll) {
		o1 += (size_t)snprintf(text + o1, tl - o1, ",FIRST=%u/%u",
		                       c->unlit_phase, c->unlit_src);
		o2 += (size_t)snprintf(line + o2, ll - o2,
		                       " (first: phase %u from node %u)",
		                       c->unlit_phase, c->unlit_src);
	}
	if (o2 < ll)
		o2 += (size_t)snprintf(
		    line + o2, ll - o2,
		    "; capture drops: %llu, stray frames: %llu",
		    (unsigned long long)drops, (unsigned long long)c->stray);
	for (k = 1; k <= c->maxphase && o1 < tl && o2 < ll; k++) {
		double gap = -1;

		for (p = 1; p <= c->n; p++) {
			double a = c->last[p * CAP_PHASES + k - 1];
			double b = c->first[p * CAP_PHASES + k];

			if (a > 0 && b > 0 && (gap < 0 || b - a < gap))
				gap = b - a;
		}
		if (gap < 0)
			continue;
		o1 += (size_t)snprintf(text + o1, tl - o1, "%s%u:%.3f",
		                       gaps ? "&" : ",GAPS=", k, gap * 1e3);
		o2 += (size_t)snprintf(line + o2, ll - o2, "%s%u: %.3f ms",
		                       gaps ? ", "
		                            : "; gaps between phases (min "
		                              "over ports): ",
		                       k, gap * 1e3);
		gaps = 1;
	}
}

/* The run is over: say it, keep its summary, start afresh.  Under mtx. */
static void
flush_run(struct emu_cap *c)
{
	char            line[4096];
	struct cap_sum *s;

	if (c->frames == 0 && c->unlit == 0)
		return;
	s = &c->kept[c->nkept++ % CAP_KEEP];
	s->run = c->run;
	summarise(c, s->text, sizeof(s->text), line, sizeof(line));
	printf("%s\n", line);
	fflush(stdout);
	c->frames = c->unlit = c->stray = 0;
	c->maxphase = 0;
	memset(c->first, 0, (c->n + 1) * CAP_PHASES * sizeof(double));
	memset(c->last, 0, (c->n + 1) * CAP_PHASES * sizeof(double));
}

static void on_frame(u_char *, const struct pcap_pkthdr *, const u_char *);
static void pend_check(struct emu_cap *);

int
emu_cap_query(struct emu_cap *c, uint32_t run, char *out, size_t len)
{
	char     line[4096];
	uint32_t i;
	int      rv = -ENOENT;

	pthread_mutex_lock(&c->mtx);
	/* What the kernel holds for us is read first: a query comes right
	 * after the run's last frames. */
	for (i = 0; i < c->np; i++)
		(void)pcap_dispatch(c->p[i].h, -1, on_frame,
		                    (u_char *)&c->p[i]);
	pend_check(c);
	if ((c->frames || c->unlit) && c->run == run) {
		summarise(c, out, len, line, sizeof(line));
		rv = 0;
	}
	for (i = 0; rv != 0 && i < CAP_KEEP && i < c->nkept; i++) {
		const struct cap_sum *s =
		    &c->kept[(c->nkept - 1 - i) % CAP_KEEP];

		if (s->run == run) {
			snprintf(out, len, "%s", s->text);
			rv = 0;
		}
	}
	pthread_mutex_unlock(&c->mtx);
	return (rv);
}

/* A frame into the run being seen (which it begins if there is none). */
static void
count(struct emu_cap *c, const struct cap_frame *f)
{
	size_t i;

	if (c->frames == 0 && c->unlit == 0) {
		c->run = f->run;
		drops_now(c, c->drop0);
	}
	c->last_ms = mono_ms();
	if (f->port == 0) {
		/* Counted once, where it entered; here it only says that
		 * no lit circuit took it. */
		if (c->unlit++ == 0) {
			c->unlit_phase = f->phase;
			c->unlit_src = f->src;
		}
		return;
	}
	c->frames++;
	if (f->phase >= CAP_PHASES)
		return;
	if (f->phase > c->maxphase)
		c->maxphase = f->phase;
	i = f->port * CAP_PHASES + f->phase;
	if (c->first[i] == 0)
		c->first[i] = f->t;
	c->last[i] = f->t;
}

/* The held frames are a run of their own: the one before it is over. */
static void
switch_run(struct emu_cap *c)
{
	uint32_t i, n = c->npend;

	flush_run(c);
	c->npend = 0;
	for (i = 0; i < n; i++)
		count(c, &c->pend[i]);
}

/* The run before the held frames went quiet: they begin the next. */
static void
pend_check(struct emu_cap *c)
{
	if (c->npend && mono_ms() - c->last_ms >= CAP_SWITCH_MS)
		switch_run(c);
}

void
emu_cap_frame(struct emu_cap *c, const struct cap_frame *f)
{
	int later;

	pend_check(c);
	if (c->frames == 0 && c->unlit == 0) {
		count(c, f);
		return;
	}
	if (f->run == c->run) {
		c->stray += c->npend; /* a later run's frames amid this one */
		c->npend = 0;
		count(c, f);
		return;
	}
	/* Frames of an earlier run (one aborted, whose queues still drain)
	 * belong to no report: a new run starts only with a later id. */
	later = (int32_t)(f->run - c->run) > 0;
	if (!later)
		return;
	if (c->npend && c->pend[0].run != f->run) {
		c->stray += c->npend; /* yet another run: the newest waits */
		c->npend = 0;
	}
	c->pend[c->npend++] = *f;
	if (c->npend == CAP_PEND)
		switch_run(c);
}

static void
on_frame(u_char *user, const struct pcap_pkthdr *ph, const u_char *b)
{
	struct cap_port *cp = (struct cap_port *)user;
	struct cap_frame f;

	/* Flag 0x01 (agent/xport_kernel.h, KX_F_PROBE): an idle agent's
	 * probe (ocsctl check), no run's frame. */
	if (ph->caplen < 14 + 24 || b[14] != 'O' || b[15] != 'S' ||
	    b[16] != 1 || (b[17] & 0x01))
		return;
	f.port = cp->port;
	f.run = be32(b + 30);
	f.phase = (uint32_t)b[34] << 8 | b[35];
	f.src = (uint32_t)b[36] << 8 | b[37];
	/* Nanosecond stamps (asked for at activation). */
	f.t = (double)ph->ts.tv_sec + (double)ph->ts.tv_usec * 1e-9;
	emu_cap_frame(cp->c, &f);
}

static void *
cap_main(void *arg)
{
	struct emu_cap *c = arg;
	struct pollfd  *pfd = calloc(c->np + 1, sizeof(*pfd));
	uint32_t        i;

	if (pfd == NULL)
		return (NULL);
	for (i = 0; i < c->np; i++) {
		pfd[i].fd = pcap_get_selectable_fd(c->p[i].h);
		pfd[i].events = POLLIN;
	}
	pfd[c->np].fd = c->stopfd;
	pfd[c->np].events = POLLIN;
	for (;;) {
		if (poll(pfd, c->np + 1, 100) < 0 && errno != EINTR)
			break;
		if (pfd[c->np].revents & POLLIN)
			break;
		/* A port taken down (its host has no light) leaves an
		 * error on its socket that every poll would report until
		 * read; libpcap captures again once it is up. */
		for (i = 0; i < c->np; i++)
			if (pfd[i].revents & POLLERR) {
				int       e;
				socklen_t el = sizeof(e);

				(void)getsockopt(pfd[i].fd, SOL_SOCKET,
				                 SO_ERROR, &e, &el);
			}
		/* Each handle has a ring with a 50 ms timeout: read them
		 * all, ready or not, so nothing waits for its batch. */
		pthread_mutex_lock(&c->mtx);
		for (i = 0; i < c->np; i++)
			(void)pcap_dispatch(c->p[i].h, -1, on_frame,
			                    (u_char *)&c->p[i]);
		pend_check(c);
		if ((c->frames || c->unlit) &&
		    mono_ms() - c->last_ms > CAP_QUIET_MS)
			flush_run(c);
		pthread_mutex_unlock(&c->mtx);
	}
	pthread_mutex_lock(&c->mtx);
	flush_run(c);
	pthread_mutex_unlock(&c->mtx);
	free(pfd);
	return (NULL);
}

static int
open_one(struct emu_cap *c, const char *dev, uint32_t port, char *err,
         size_t len)
{
	char    eb[PCAP_ERRBUF_SIZE];
	pcap_t *h;

	if ((h = pcap_create(dev, eb)) == NULL) {
		snprintf(err, len, "capture on %s: %s", dev, eb);
		return (-EIO);
	}
	pcap_set_snaplen(h, CAP_SNAP);
	pcap_set_timeout(h, 50);
	/* Every frame readable at once (no ring block held back for its
	 * timeout): a run's summary is asked for right after the run. */
	pcap_set_immediate_mode(h, 1);
	pcap_set_buffer_size(h, 8 << 20);
	pcap_set_tstamp_precision(h, PCAP_TSTAMP_PRECISION_NANO);
	if (pcap_activate(h) < 0) {
		snprintf(err, len, "capture on %s: %s", dev, pcap_geterr(h));
		pcap_close(h);
		return (-EIO);
	}
	/* Ports: what the hosts send in (every frame once); the sink:
	 * what was redirected to it. */
	if (pcap_setdirection(h, port ? PCAP_D_IN : PCAP_D_OUT) != 0 ||
	    pcap_setnonblock(h, 1, eb) != 0) {
		snprintf(err, len, "capture on %s: %s", dev, pcap_geterr(h));
		pcap_close(h);
		return (-EIO);
	}
	c->p[c->np].h = h;
	c->p[c->np].port = port;
	c->p[c->np].c = c;
	c->np++;
	return (0);
}

int
emu_cap_new(struct emu_cap **out, uint32_t n)
{
	struct emu_cap *c;

	*out = NULL;
	if ((c = calloc(1, sizeof(*c))) == NULL)
		return (-ENOMEM);
	c->n = n;
	c->stopfd = -1;
	pthread_mutex_init(&c->mtx, NULL);
	c->p = calloc(n + 1, sizeof(*c->p));
	c->drop0 = calloc(n + 1, sizeof(*c->drop0));
	c->first = calloc((n + 1) * CAP_PHASES, sizeof(double));
	c->last = calloc((n + 1) * CAP_PHASES, sizeof(double));
	if (!c->p || !c->drop0 || !c->first || !c->last ||
	    (c->stopfd = eventfd(0, EFD_CLOEXEC)) < 0) {
		emu_cap_close(c);
		return (-ENOMEM);
	}
	*out = c;
	return (0);
}

int
emu_cap_open(struct emu_cap **out, uint32_t n, const int *have, char *err,
             size_t len)
{
	struct emu_cap *c;
	char            dev[16];
	uint32_t        j;
	int             rv;

	if ((rv = emu_cap_new(&c, n)) != 0)
		return (rv);
	if ((rv = open_one(c, "dark", 0, err, len)) != 0) {
		emu_cap_close(c);
		return (rv);
	}
	for (j = 1; j <= n; j++) {
		if (!have[j])
			continue;
		snprintf(dev, sizeof(dev), "p%u", j);
		if ((rv = open_one(c, dev, j, err, len)) != 0) {
			emu_cap_close(c);
			return (rv);
		}
	}
	*out = c;
	return (0);
}

int
emu_cap_start(struct emu_cap *c)
{
	if (pthread_create(&c->thr, NULL, cap_main, c) != 0)
		return (-EAGAIN);
	c->started = 1;
	return (0);
}

void
emu_cap_close(struct emu_cap *c)
{
	uint64_t one = 1;
	uint32_t i;

	if (c == NULL)
		return;
	if (c->started) {
		(void)!write(c->stopfd, &one, sizeof(one));
		pthread_join(c->thr, NULL);
	}
	for (i = 0; i < c->np; i++)
		pcap_close(c->p[i].h);
	if (c->stopfd >= 0)
		close(c->stopfd);
	free(c->p);
	free(c->drop0);
	free(c->first);
	free(c->last);
	pthread_mutex_destroy(&c->mtx);
	free(c);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --simulate ns3: a point's schedule (the same IR our simulator plays)
 * written in ocs-ns3's input format (testbed/ns3/ocs-ns3.cc) and played
 * by that program on ns-3, a packet-level engine that is not ours; its
 * completion time is the row's packet_s.  Points past NS3_MAX_BYTES of
 * payload (every node's bytes together) are left empty: ns-3 takes
 * seconds a point there, minutes beyond.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collectives/a2a.h"
#include "collectives/coll.h"
#include "testbed/sweep/sweep.h"

#define NS3_MAX_BYTES  (4ull << 30)
#define NS3_MAX_BLOCKS 20000u

struct ns3_entry {
	char   key[320];
	double t0;
};

struct sweep_ns3_cache {
	pthread_mutex_t   mtx;
	struct ns3_entry *e;
	size_t            n, cap;
};

struct sweep_ns3_cache *
sweep_ns3_cache_new(void)
{
	struct sweep_ns3_cache *c = calloc(1, sizeof(*c));

	if (c != NULL)
		pthread_mutex_init(&c->mtx, NULL);
	return (c);
}

void
sweep_ns3_cache_free(struct sweep_ns3_cache *c)
{
	if (c == NULL)
		return;
	pthread_mutex_destroy(&c->mtx);
	free(c->e);
	free(c);
}

/* The cached time less its deltas, or NAN. */
static double
cache_get(struct sweep_ns3_cache *c, const char *key)
{
	double t = NAN;
	size_t i;

	if (c == NULL)
		return (NAN);
	pthread_mutex_lock(&c->mtx);
	for (i = 0; i < c->n; i++)
		if (strcmp(c->e[i].key, key) == 0) {
			t = c->e[i].t0;
			break;
		}
	pthread_mutex_unlock(&c->mtx);
	return (t);
}

static void
cache_put(struct sweep_ns3_cache *c, const char *key, double t0)
{
	if (c == NULL)
		return;
	pthread_mutex_lock(&c->mtx);
	if (c->n == c->cap) {
		size_t            cap = c->cap ? 2 * c->cap : 64;
		struct ns3_entry *ne = realloc(c->e, cap * sizeof(*ne));

		if (ne != NULL) {
			c->e = ne;
			c->cap = cap;
		}
	}
	if (c->n < c->cap) {
		snprintf(c->e[c->n].key, sizeof(c->e[0].key), "%s", key);
		c->e[c->n++].t0 = t0;
	}
	pthread_mutex_unlock(&c->mtx);
}

int
sweep_ns3_write(FILE *f, const struct sched *s, const struct cost_params *cp,
                double bps)
{
	uint32_t *peer, np = s->n * s->ports, k, i, bad;
	int       rv = 0;

	if ((peer = malloc((size_t)np * sizeof(*peer))) == NULL)
		return (-ENOMEM);
	fprintf(
	    f, "ocs-ns3 1\nnodes %u ports %u\nmodel %.17g %.17g %.17g %.17g\n",
	    s->n, s->ports, bps, cp->alpha_s, cp->alpha_h, cp->sf_bytes);
	for (k = 0; k < s->nph && rv == 0; k++) {
		const struct sched_phase *ph = &s->ph[k];

		fprintf(f, "phase %u %d %.17g\n", k, k > 0 && ph->cfg >= 0,
		        k > 0 && ph->cfg >= 0 ? cost_delta(cp, k) : 0.0);
		if (ph->cfg >= 0) {
			if ((rv = sched_peers(s, &s->cfg[ph->cfg], peer,
			                      &bad)) != 0)
				break;
			for (i = 0; i < np; i++)
				if (peer[i] != SCHED_NONE)
					fprintf(f, "circuit %u %u %u\n",
					        i / s->ports, i % s->ports,
					        peer[i] / s->ports);
		}
		for (i = 0; i < ph->nxfer && rv == 0; i++) {
			const struct sched_xfer *x = &s->xf[ph->xfer_off + i];
			struct sched_walk        w;
			int64_t                  tx;

			fprintf(f, "xfer %llu %u",
			        (unsigned long long)x->bytes,
			        sched_xfer_hops(s, x));
			sched_walk_init(&w, s, peer, x);
			while ((tx = sched_walk_next(&w)) >= 0 &&
			       tx != SCHED_NONE)
				fprintf(f, " %u %u", (uint32_t)tx / s->ports,
				        (uint32_t)tx % s->ports);
			if (tx < 0)
				rv = (int)tx;
			fputc('\n', f);
		}
	}
	fprintf(f, "end\n");
	free(peer);
	return (rv);
}

/* Feed the text to ocs-ns3 and read its total; 0 or -1 with err. */
static int
run_ns3(const char *prog, const char *text, size_t n, double *t, char *err,
        size_t len)
{
	int    in[2], out[2], st;
	pid_t  pid;
	char   buf[4096];
	size_t got = 0, off = 0;

	if (pipe2(in, O_CLOEXEC) != 0)
		return (snprintf(err, len, "pipe: %s", strerror(errno)), -1);
	if (pipe2(out, O_CLOEXEC) != 0) {
		close(in[0]);
		close(in[1]);
		return (snprintf(err, len, "pipe: %s", strerror(errno)), -1);
	}
	if ((pid = fork()) == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		execl(prog, prog, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	/* SIGPIPE is ignored (ocs-sweep's main): a child that died early
	 * is an EPIPE here and its exit status below. */
	while (pid > 0 && off < n) {
		ssize_t w = write(in[1], text + off, n - off);

		if (w <= 0)
			break;
		off += (size_t)w;
	}
	close(in[1]);
	while (pid > 0 && got < sizeof(buf) - 1) {
		ssize_t r = read(out[0], buf + got, sizeof(buf) - 1 - got);

		if (r <= 0)
			break;
		got += (size_t)r;
	}
	buf[got] = '\0';
	close(out[0]);
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 0 || sscanf(buf, "total_s %lf", t) != 1) {
		snprintf(err, len, "%s failed (exit %d)", prog,
		         pid > 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		return (-1);
	}
	return (0);
}

int
sweep_ns3_point(const struct sweep *sw, const struct a2a *a, uint64_t bytes,
                const struct cost_params *cp, const uint8_t *before, double *t,
                char *err, size_t len)
{
	struct sched s;
	char        *text = NULL, key[320];
	size_t       n = 0, o;
	double       deltas = 0, t0;
	uint32_t     k, nph = a2a_nphases(a);
	FILE        *f;
	int          rv;

	*t = NAN;
	if (a2a_ir_blocks(a) > NS3_MAX_BLOCKS ||
	    (double)bytes * a->n > (double)NS3_MAX_BYTES)
		return (0);
	o = (size_t)snprintf(key, sizeof(key), "%s|%u|%llu|", a->ops->name,
	                     a->n, (unsigned long long)bytes);
	for (k = 1; k < nph && o + 2 < sizeof(key); k++) {
		key[o++] = before[k] ? '1' : '0';
		key[o] = '\0';
		deltas += before[k] ? cost_delta(cp, k) : 0;
	}
	if (!isnan(t0 = cache_get(sw->ns3_cache, key))) {
		*t = t0 + deltas;
		return (0);
	}
	if ((rv = a2a_build(a, bytes, before, NS3_MAX_BLOCKS, &s)) != 0) {
		snprintf(err, len, "ns-3: %s", coll_strerror(rv));
		return (rv);
	}
	if ((f = open_memstream(&text, &n)) == NULL) {
		sched_free(&s);
		snprintf(err, len, "out of memory");
		return (-ENOMEM);
	}
	rv = sweep_ns3_write(f, &s, cp, 8 / cp->beta);
	sched_free(&s);
	if (fclose(f) != 0 && rv == 0)
		rv = -ENOMEM;
	if (rv != 0) {
		snprintf(err, len, "ns-3: %s", coll_strerror(rv));
		free(text);
		return (rv);
	}
	rv = run_ns3(sw->ns3, text, n, t, err, len);
	free(text);
	if (rv == 0)
		cache_put(sw->ns3_cache, key, *t - deltas);
	return (rv);
}

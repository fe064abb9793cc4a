/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A server's local links (FAST's scale-up, standing in for NVLink): each
 * agent listens on one stream socket (--local-link, loopback TCP or
 * unix:PATH) and says where at its join.  For a run with servers, the
 * node with the lower index of each pair of the same server connects to
 * the other's listener and says a hello:
 *
 *	"OCSL" | run (8 bytes) | from node (4) | to node (4) | token (16)
 *
 * big-endian, the token being the run's (ocsd's, in every plan of the
 * run); a connection whose hello is for another run, node or token is
 * closed and waited past.  The links are then xport_local transports,
 * shaped together to the plan's local_bps (one scale-up link out of a
 * GPU).  Everything here runs on the agent's one thread and blocks at
 * most its timeout.
 */
#ifndef OCS_LOCAL_H
#define OCS_LOCAL_H

#include <stddef.h>
#include <stdint.h>

#include "agent/exec.h"
#include "agent/xport.h"
#include "collectives/plan.h"

#define LOCAL_HELLO 36

/* The shaping of one node's local links together: a token bucket in
 * bytes, filled at rate bytes a ns up to depth (5 ms of it). */
struct local_bucket {
	double   rate, depth, tokens;
	uint64_t t_ns;
};

struct local_links {
	struct xport        x[PLAN_MAX_LOCAL]; /* plan.lnode's order */
	uint32_t            n;
	struct local_bucket tb;
};

/* Listen at addr ("127.0.0.1:0" picks a port); bound gets where.  The
 * fd, or -errno with one line in err. */
int local_listen(const char *addr, char *bound, size_t blen, char *err,
                 size_t len);

/* The hello of run from node `from` to node `to` (LOCAL_HELLO bytes). */
void local_hello(uint8_t *h, uint64_t run, uint32_t from, uint32_t to,
                 const uint8_t *token);
/* Does h say run, from one of p's local peers, to p's node, with the
 * token?  The index of the peer in p->lnode, or -1. */
int local_hello_check(const uint8_t *h, const struct plan *p, uint64_t run);

/*
 * Make p's local links for run: connect (and say hello) to the peers of
 * higher index, accept from lfd those of lower index, all within
 * timeout_ms, or until ab (nullable) says the run was aborted (another
 * agent's setup failed: -ECANCELED).  0, or -errno with the link named
 * in err (nothing left open).  local_close() them after the run.
 */
int  local_connect(int lfd, const struct plan *p, uint64_t run,
                   struct local_links *ll, int timeout_ms,
                   const struct exec_abort *ab, char *err, size_t len);
void local_close(struct local_links *ll);

/* Put fd, a made link to node peer (at addr, for messages), into x,
 * shaped by tb.  0 or -ENOMEM (fd closed). */
int xport_local_attach(struct xport *x, int fd, uint32_t peer,
                       const char *addr, struct local_bucket *tb);
/* A bucket of bps, full. */
void local_bucket_init(struct local_bucket *tb, double bps);
/* Bytes it may send now, at most want (0 until it holds want or 16 KiB,
 * whichever is less); the ns before that when it answers 0 (*wait_ns,
 * nullable). */
size_t local_bucket_take(struct local_bucket *tb, size_t want, uint64_t now,
                         uint64_t *wait_ns);
/* n bytes went out. */
void local_bucket_spend(struct local_bucket *tb, size_t n);

extern const struct xport_ops xport_local_ops;

#endif

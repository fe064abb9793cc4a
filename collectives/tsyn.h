/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Schedule synthesis on a fixed topology (spec/topology-synthesis.md):
 * AllGather, ReduceScatter and AllReduce in time slots, emitted as the
 * schedule IR (sched.h, SCHED_ALLGATHER...).
 *
 * The slot model.  `bytes` is the output buffer per GPU (as in TE-CCL),
 * cut into ngpu * chunks blocks of mu bytes.  A slot is tau = mu / B_max
 * (the fastest link moves one chunk per slot).  Link (u,v) is busy for
 * occ = ceil(B_max / B) slots per chunk and delivers it L = occ +
 * ceil(alpha / tau) slots after it starts; alpha below 10% of tau is
 * taken as 0 in slots (TE-CCL's alpha_threshold), but every completion
 * time in seconds is replayed with the real alpha (tsyn_replay).
 *
 * ReduceScatter runs on the same machinery reversed: a schedule that
 * gathers chunk k from its owner to everyone on the reversed topology,
 * played backwards in time, sends every partial sum of chunk k towards
 * its owner, each node adding what it received to its own share before
 * it sends.  AllReduce is ReduceScatter, then AllGather.
 */
#ifndef COLL_TSYN_H
#define COLL_TSYN_H

#include <stddef.h>
#include <stdint.h>

#include "collectives/sched.h"
#include "collectives/topo.h"

#define TSYN_ALPHA_THRESHOLD 0.1
#define TSYN_MAX_SLOTS       (1u << 22)

enum tsyn_algo {
	TSYN_TEN,     /* greedy time-expanded layers (the Internet-Draft) */
	TSYN_MTEG,    /* multicast TEG + Takahashi-Matsuyama Steiner trees */
	TSYN_SCALECC, /* event-driven WAN-aware forwarding (SCALE-CCL) */
	TSYN_SPH,     /* shortest-path routing, FIFO queues */
	TSYN_RING,    /* one ring over the GPUs */
	TSYN_SPT,     /* shortest-path trees, FIFO queues (reduces) */
};

struct tsyn_params {
	enum tsyn_algo  algo;
	enum sched_coll coll; /* SCHED_ALLGATHER, _REDUCESCATTER, _ALLREDUCE */
	uint64_t        bytes;  /* output buffer per GPU */
	uint32_t        chunks; /* per GPU share, >= 1 */
	/* Optional: called now and then with the fraction done (0..1). */
	void (*progress)(void *arg, double done);
	void *progress_arg;
};

/* The slot model of a topology for a chunk size. */
struct tsyn_model {
	const struct topo *t;
	double             mu, tau;   /* chunk bytes, slot seconds */
	uint32_t          *occ, *lat; /* [nlink]: busy slots, delivery slots */
	uint32_t           nchunk;    /* ngpu * chunks */
	uint32_t           chunks;
	void (*progress)(void *arg, double done); /* from tsyn_params */
	void *progress_arg;
};

int  tsyn_model_init(struct tsyn_model *, const struct topo *, uint64_t bytes,
                     uint32_t chunks);
void tsyn_model_free(struct tsyn_model *);

/*
 * Synthesise into s (initialised here; sched_free() it).  0, -ENOMEM,
 * -COLL_EUNREACH (a GPU a chunk cannot reach, named in err),
 * -COLL_ETOOBIG (more than TSYN_MAX_SLOTS slots), -COLL_EALGO.
 */
int tsyn_synth(const struct topo *, const struct tsyn_params *,
               struct sched *s, char *err, size_t errlen);

/* Algorithm names <-> values ("ten", "mteg", ...). */
int         tsyn_algo_parse(const char *, enum tsyn_algo *);
const char *tsyn_algo_name(enum tsyn_algo);

/*
 * Check a topology schedule: every transfer is one hop on an existing
 * link, the sender holds what it sends at that slot, a link starts a chunk
 * only when its previous one has left (occ), no partial sum is added
 * twice, and at the end the collective's postcondition holds.  0 or the
 * rule's code with one line naming slot, link, chunk in err.  *slots gets
 * the completion slot.
 */
int tsyn_validate(const struct sched *, uint32_t *slots, char *err,
                  size_t errlen);

/*
 * The schedule s on circuits, into out (sched_free() it): the same slots
 * and transfers on hosts of ntrx transceivers.  Each link used, with its
 * way back, is one bidirectional circuit; slots share a configuration
 * until one needs a circuit no transceiver is left for, and there a new
 * configuration starts (the fewest reconfigurations there can be).  Ports
 * in out are transceivers, numbered per configuration in link order.
 * Only topologies of GPUs alone, every link duplex and single (a
 * subring:, ring: or mesh: of hosts).  0, -ENOMEM, or -EINVAL with one
 * line in err naming the node, link or slot.  sched_validate_circuits()
 * checks the result; tsyn_validate() the schedule it came from.
 */
int tsyn_on_circuits(const struct sched *s, uint32_t ntrx, struct sched *out,
                     char *err, size_t errlen);

/*
 * Completion time in seconds with the real link latencies: transfers in
 * slot order, each starting when its data is there and its link is free,
 * taking mu / B + alpha.
 */
double tsyn_replay(const struct sched *);

/*
 * The best cut lower bound in seconds: over node sets S holding some but
 * not all GPUs, the chunks that must cross into S (AllGather) or out of S
 * (ReduceScatter) over the bandwidth of the links crossing; AllReduce adds
 * the two.  Exhaustive for n <= 16 nodes; beyond, the family of every
 * single node and everything but it, and every group (chassis,
 * datacenter) and its complement.  *exhaustive says which.  Each part is
 * raised to the largest propagation delay between two GPUs if that is
 * more (a latency floor no bandwidth removes).
 */
double tsyn_cut_bound(const struct topo *, enum sched_coll, uint64_t bytes,
                      int *exhaustive);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The schedule IR.  Every algorithm emits it; validation, cost, simulation,
 * per-agent plans and export read only it (DESIGN.md, "The schedule IR").
 *
 * A schedule has n nodes with `ports` transceivers each, a payload of
 * `bytes` per node cut into n * parts blocks, and an ordered list of phases.
 * A phase may set a circuit configuration (a set of bidirectional circuits
 * between transceivers); a phase without one keeps the previous one.  A
 * transfer moves a set of blocks from src to dst along a path of circuits.
 *
 * Storage is a handful of growable pools indexed by offsets, so a schedule
 * costs O(phases * transfers + blocks moved) memory and no allocation per
 * transfer.  Nothing here does I/O or logs.
 */
#ifndef COLL_SCHED_H
#define COLL_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include "collectives/coll.h"

/* Transceiver roles of the ring algorithms: a node's R port faces the
 * next node of its ring, its L port the previous one. */
#define SCHED_PORT_R 0
#define SCHED_PORT_L 1
#define SCHED_NONE   UINT32_MAX

enum sched_coll {
	SCHED_ALLTOALL = 1, /* B[r,d] starts at r and must end at d */
	/* On a fixed topology (sched.topo, tsyn.h): block g * parts + c is
	 * chunk c of GPU g's share; a phase is one time slot. */
	SCHED_ALLGATHER,     /* every GPU ends with every block */
	SCHED_REDUCESCATTER, /* GPU g ends with the sum of its blocks */
	SCHED_ALLREDUCE,     /* reduce-scatter, then all-gather */
	/* Skewed All-to-All: blocks are explicit (sched.vb), each a byte
	 * range of one pair's traffic (sched.vmat); B ends at its dst. */
	SCHED_ALLTOALLV,
};

struct topo;

/* A bidirectional circuit between transceiver pa of node a and pb of b;
 * a one-way circuit lights only a's transmitter into b's receiver (what
 * a permutation stage needs: a node's one transceiver sends to one peer
 * and hears another). */
struct sched_circuit {
	uint32_t a, b;
	uint16_t pa, pb;
	uint8_t  oneway;
	uint8_t  pad[3];
};

/* An explicit block: len bytes at offset off of the traffic src -> dst. */
struct sched_vblk {
	uint32_t src, dst;
	uint64_t off, len;
};

/*
 * One stretch of a path: leave `node` by transceiver `port`, then carry on
 * "straight" for hops - 1 more hops: a path that enters a node on port q
 * leaves it on port q ^ 1 (L in, R out and vice versa), which is how a
 * transfer travels along a ring.  A general path is several segments, each
 * starting where the previous one ended.
 */
struct sched_seg {
	uint32_t node;
	uint16_t port;
	uint16_t pad;
	uint32_t hops;
};

struct sched_xfer {
	uint32_t src, dst;
	uint32_t blk_off, nblk; /* block ids in sched.blk */
	uint32_t seg_off, nseg; /* path in sched.seg */
	uint64_t bytes;         /* exact bytes: the sum of the block sizes */
};

struct sched_cfg {
	uint32_t circ_off, ncirc; /* circuits in sched.circ */
	uint32_t stride;          /* i.R - (i+stride).L rings; 0 if other */
};

struct sched_phase {
	int32_t  cfg; /* index in sched.cfg set before this phase, or -1 */
	uint32_t xfer_off, nxfer;
	/* Planes apart (sched.nplanes > 1): a bit for each plane this
	 * phase's configuration reconfigures, each released on its own
	 * while the others keep their circuits (and go on at once); 0: every
	 * plane together, at one barrier (what every schedule did before). */
	uint32_t planes;
};

/* Transceiver planes a schedule may name (a fabric: one switch each). */
#define SCHED_MAX_PLANES 8

struct sched {
	char            algo[16];
	enum sched_coll coll;
	uint32_t        n;     /* nodes */
	uint32_t        ports; /* transceivers per node */
	uint32_t        parts; /* blocks per (source, destination) pair */
	uint64_t        bytes; /* payload per node (m) */

	struct sched_phase   *ph;
	uint32_t              nph, cap_ph;
	struct sched_cfg     *cfg;
	uint32_t              ncfg, cap_cfg;
	struct sched_circuit *circ;
	uint32_t              ncirc, cap_circ;
	struct sched_xfer    *xf;
	uint32_t              nxf, cap_xf;
	uint32_t             *blk;
	uint32_t              nblk, cap_blk;
	struct sched_seg     *seg;
	uint32_t              nseg, cap_seg;

	/* Topology schedules (SCHED_ALLGATHER...): nodes and ports are the
	 * topology's (port k of node u is its k-th outgoing link), every
	 * transfer is one hop, phase t is slot t of slot_s seconds. */
	const struct topo *topo;
	uint32_t           ngpu;    /* 0 for All-to-All schedules */
	double             slot_s;  /* the slot length tau */
	uint32_t           ag_from; /* allreduce: first all-gather slot */
	uint32_t           horizon; /* mteg: time-expanded horizon, else 0 */

	/* SCHED_ALLTOALLV: the pair traffic (n * n bytes, row = source,
	 * the diagonal stays local) and the blocks cut from it. */
	uint64_t          *vmat;
	struct sched_vblk *vb;
	uint32_t           nvb, cap_vb;

	/* Servers (FAST's scale-up): 0, or the first of the ports that are
	 * a server's local links, not transceivers.  Servers are g = ports -
	 * local_from + 1 consecutive nodes; port local_from + j of node i
	 * goes to the j-th other node of i's server (sched_local_peer).
	 * They are always up, in no configuration, and never on a switch;
	 * circuits use only ports below local_from. */
	uint32_t local_from;
	/* Transceiver planes (sched_planes.c): plane[p] is the plane of
	 * every node's transceiver p, the one its transmitter's circuits are
	 * made on; nplanes 0 or 1: one plane, and no phase names planes. */
	uint32_t nplanes;
	uint8_t  plane[SCHED_MAX_PLANES];
};

/* Local links: the node at the far end of node i's local port q, and
 * the port it answers on; SCHED_NONE if q is not a local port.  And the
 * local port of node i that goes to node j (same server), or
 * SCHED_NONE. */
uint32_t sched_local_peer(const struct sched *, uint32_t i, uint32_t q,
                          uint32_t *far_port);
uint32_t sched_local_port(const struct sched *, uint32_t i, uint32_t j);

/*
 * Start an empty schedule.  Block id of part p of B[r,d] is
 * (r * n + d) * parts + p; ids must fit in 32 bits (-COLL_ETOOBIG).
 * sched_free() is safe on a schedule whose init failed.
 */
int  sched_init(struct sched *, const char *algo, enum sched_coll, uint32_t n,
                uint32_t ports, uint32_t parts, uint64_t bytes);
void sched_free(struct sched *);

/* Reserve pool room up front (a hint; growth still works). */
int sched_reserve(struct sched *, uint32_t nph, uint32_t ncirc, uint32_t nxf,
                  uint32_t nblk, uint32_t nseg);

/* Append a phase; with_cfg starts a new, empty configuration that
 * sched_add_circuit() fills.  Returns the phase index or -ENOMEM. */
int sched_add_phase(struct sched *, int with_cfg, uint32_t stride);
int sched_add_circuit(struct sched *, uint32_t a, uint16_t pa, uint32_t b,
                      uint16_t pb);
/* A one-way circuit: a.pa's transmitter into b.pb's receiver. */
int sched_add_link(struct sched *, uint32_t a, uint16_t pa, uint32_t b,
                   uint16_t pb);

/*
 * Start an empty skewed All-to-All (SCHED_ALLTOALLV) of the pair traffic
 * mat (n * n, copied); s->bytes is the largest row sum.  Blocks are added
 * with sched_add_vblk(), which returns the block id or a negative code.
 */
int sched_init_v(struct sched *, const char *algo, uint32_t n, uint32_t ports,
                 const uint64_t *mat);
int sched_add_vblk(struct sched *, uint32_t src, uint32_t dst, uint64_t off,
                   uint64_t len);
/*
 * Give a uniform All-to-All the pair traffic mat (n * n): block
 * B[r,d].p becomes part p of r's mat[r][d] bytes (cut as evenly as the
 * uniform layout; the diagonal's blocks empty), the schedule becomes
 * SCHED_ALLTOALLV with the same block ids, moves and circuits.
 * 0, -EINVAL (not a uniform All-to-All), -ENOMEM.
 */
int sched_resize_v(struct sched *, const uint64_t *mat);

/* Append a transfer to the last phase.  Blocks and segments are copied;
 * bytes are computed from the block sizes.  0, -ENOMEM, -COLL_ETOOBIG. */
int sched_add_xfer(struct sched *, uint32_t src, uint32_t dst,
                   const uint32_t *blk, uint32_t nblk,
                   const struct sched_seg *seg, uint32_t nseg);

/* Block id helpers. */
static inline uint32_t
sched_blk_id(const struct sched *s, uint32_t r, uint32_t d, uint32_t part)
{
	return ((r * s->n + d) * s->parts + part);
}
static inline uint32_t
sched_blk_src(const struct sched *s, uint32_t b)
{
	return (s->vb ? s->vb[b].src : b / s->parts / s->n);
}
static inline uint32_t
sched_blk_dst(const struct sched *s, uint32_t b)
{
	return (s->vb ? s->vb[b].dst : b / s->parts % s->n);
}
static inline uint32_t
sched_blk_part(const struct sched *s, uint32_t b)
{
	return (b % s->parts);
}
static inline uint32_t
sched_nblocks(const struct sched *s)
{
	if (s->coll == SCHED_ALLTOALLV)
		return (s->nvb);
	return (s->ngpu ? s->ngpu * s->parts : s->n * s->n * s->parts);
}

/*
 * Exact byte layout: a node's buffer of `bytes` is cut into n * parts
 * blocks in (destination, part) order whose sizes differ by at most one
 * byte; sched_blk_offset() is where block b starts in its source buffer.
 * The cost model uses the real-valued sched_blk_model_bytes() instead, so
 * closed forms hold exactly.  Explicit blocks (SCHED_ALLTOALLV) have their
 * own length; their source buffer is the row's pairs in destination order.
 */
uint64_t sched_blk_offset(const struct sched *, uint32_t b);
uint64_t sched_blk_bytes(const struct sched *, uint32_t b);
double   sched_blk_model_bytes(const struct sched *);

/* Bytes of memory the schedule holds (pools at their capacity). */
size_t sched_mem(const struct sched *);

/* Index of the configuration in force during phase ph (-1 if none). */
int32_t sched_cfg_of(const struct sched *, uint32_t ph);

/*
 * Peer table of a configuration: peer[node * ports + port] = the far end
 * encoded as node * ports + port, or SCHED_NONE.  peer has n * ports
 * entries.  Returns 0, or -COLL_EPORT with *bad_circ set to the index of
 * the first circuit that breaks a port rule (bad node or port, a node
 * joined to itself, a transceiver in two circuits).
 */
int sched_peers(const struct sched *, const struct sched_cfg *, uint32_t *peer,
                uint32_t *bad_circ);

/*
 * Walk a transfer's path hop by hop.  sched_walk_init() positions the
 * walker on the first hop; each sched_walk_next() returns the sending
 * transceiver (node * ports + port) of the next hop and moves to its far
 * end, SCHED_NONE at the end of the path, or a negative code:
 * -COLL_EDARK (no circuit on that transceiver), -COLL_EPATH (a segment that
 * does not start where the previous one ended, or an empty path),
 * -COLL_EPORT (a port number out of range).  w->node is the current node.
 */
struct sched_walk {
	const struct sched     *s;
	const uint32_t         *peer;
	const struct sched_seg *seg;
	uint32_t                nseg, i, left;
	uint32_t                node, port;
};
void    sched_walk_init(struct sched_walk *, const struct sched *,
                        const uint32_t *peer, const struct sched_xfer *);
int64_t sched_walk_next(struct sched_walk *);

/* Number of hops of a transfer's path (sum of its segments). */
uint32_t sched_xfer_hops(const struct sched *, const struct sched_xfer *);

/*
 * Validation (sched_validate.c): port limits, every hop on a lit circuit,
 * a node only sends blocks it holds at the start of the phase, and at the
 * end every node holds exactly the blocks the collective requires.  On
 * failure returns the rule's code and fills *err (if not NULL) with the
 * phase, node, block and a one-line message naming them.
 */
struct sched_verr {
	int     code;
	int32_t phase; /* -1 when the rule concerns the end state */
	int64_t node;  /* -1 when not applicable */
	int64_t block; /* -1 when not applicable */
	char    msg[256];
};
int sched_validate(const struct sched *, struct sched_verr *err);
/* The circuit rules alone, for any collective: phase 0 sets circuits,
 * each configuration obeys the port rules, every transfer's path runs on
 * lit circuits from its source to its destination.  A topology
 * schedule's content is tsyn_validate()'s. */
int sched_validate_circuits(const struct sched *, struct sched_verr *err);

/*
 * Planes (sched_planes.c).  A one-way link (or each direction of a
 * circuit) belongs to the plane of its sending transceiver.
 * sched_set_planes: nplanes (1..SCHED_MAX_PLANES) and each port's plane
 * (ports <= SCHED_MAX_PLANES): 0 or -EINVAL.  sched_planes_changed: the
 * planes whose links the configuration set before phase k changes from
 * the one in force (every plane for phase 0; 0 for a phase without a
 * configuration): 0, -ENOMEM or a port error.  sched_apart: every
 * configured phase names the planes it changes (phase 0 all of them; a
 * phase whose configuration changes nothing names none and is a plain
 * barrier): 0, -EINVAL (one plane), -ENOMEM.  sched_validate_planes: a
 * phase names only planes that exist, and every plane whose links change
 * (COLL_EPLANE with err naming the phase and plane).
 */
int sched_set_planes(struct sched *, uint32_t nplanes, const uint8_t *plane);
int sched_planes_changed(const struct sched *, uint32_t k, uint32_t *mask);
int sched_apart(struct sched *);
int sched_validate_planes(const struct sched *, struct sched_verr *err);
/* Does any phase reconfigure planes apart? */
int sched_is_apart(const struct sched *);

/* "B[r,d]" or "B[r,d].p" into buf. */
void sched_blk_name(const struct sched *, uint32_t b, char *buf, size_t len);

/*
 * Per-node plans (sched_plan.c): what each node does in each phase,
 * derived by walking every transfer's path.  A node sends the transfers it
 * is the source of, relays those passing through it (in by one port, out
 * by another), and receives those ending at it (on the port of the last
 * hop).  Transfers are referenced by index into sched.xf, so a plan lives
 * as long as its schedule.  barrier: the phase sets circuits (or is the
 * first), so every node must wait for a release before it.
 */
struct sched_relay {
	uint32_t xf, in_port, out_port;
};
struct sched_recv {
	uint32_t xf, port;
};
struct sched_nphase {
	int       barrier;
	uint32_t *send; /* transfer indices; the port is the path's */
	uint32_t  nsend;
	struct sched_relay *relay;
	uint32_t            nrelay;
	struct sched_recv  *recv;
	uint32_t            nrecv;
};
/*
 * Phases between two barriers, at most: a node reports every phase it
 * finished since the last barrier in its next Ready, and a Ready carries
 * this many reports (proto/plan.h's PLAN_MAX_DONE).  sched_plans puts a
 * barrier (without a reconfiguration) wherever a stretch would be longer.
 */
#define SCHED_MAX_STRETCH 64
struct sched_nplan {
	uint32_t             node;
	uint32_t             max_blocks; /* held at once, at most */
	struct sched_nphase *ph;         /* nph entries */
	void                *mem;
};
/* Bytes a node of a SCHED_ALLTOALLV schedule holds at most: its row and
 * everything it receives (a bound: what it forwards is counted too). */
uint64_t sched_nplan_vbytes(const struct sched *, const struct sched_nplan *);

/* Plans for all n nodes (*out is an array of n).  0, -ENOMEM, or a path
 * error (validate first for a precise message). */
int  sched_plans(const struct sched *, struct sched_nplan **out);
void sched_plans_free(struct sched_nplan *, uint32_t n);

#endif

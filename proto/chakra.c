/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Chakra export (see chakra.h): the IR walked once into per-rank node
 * lists (ids are consecutive on a rank, so a phase's nodes are a range),
 * then each rank's file written with protobuf-c.  protobuf-c packs one
 * message; the length prefix of the delimited stream is a varint written
 * here.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/chakra.h"
#include "proto/chakra_et_def.pb-c.h"

#define NONE UINT64_MAX

enum cn_type { CN_SEND, CN_RECV, CN_JOIN };

struct cnode {
	uint8_t  type;
	uint32_t peer, phase, hop;
	uint64_t size, tag;
	uint64_t data_dep; /* a relay's receive, or NONE */
	uint64_t join;     /* the previous phase's join, or NONE */
	uint64_t first;    /* joins: the phase's first node on the rank */
	uint64_t dur_us;
};

struct rank {
	struct cnode *v;
	size_t        n, cap;
	uint64_t      join, start;
};

struct ex {
	const struct sched *s;
	struct rank        *r;
	uint64_t            tag;
	char               *err;
	size_t              len;
};

static int
add(struct ex *e, uint32_t rk, const struct cnode *c, uint64_t *id)
{
	struct rank *r = &e->r[rk];

	if (r->n == r->cap) {
		size_t        cap = r->cap ? 2 * r->cap : 64;
		struct cnode *nv = realloc(r->v, cap * sizeof(*nv));

		if (nv == NULL)
			return (-ENOMEM);
		r->v = nv;
		r->cap = cap;
	}
	r->v[r->n] = *c;
	*id = r->n++;
	return (0);
}

/* Every hop of transfer x (phase p): a send where it leaves, a receive
 * where it lands. */
static int
hops(struct ex *e, uint32_t p, const struct sched_xfer *x,
     const uint32_t *peer)
{
	struct sched_walk w;
	uint64_t          prev = NONE, id;
	uint32_t          j = 0;
	int64_t           tx;
	int               rv;

	/* A topology schedule's transfer is one hop over a link (its port
	 * numbers the source's links, not circuits to walk). */
	if (e->s->topo != NULL) {
		w.node = x->dst;
		tx = (int64_t)x->src * e->s->ports;
	} else {
		sched_walk_init(&w, e->s, peer, x);
		tx = sched_walk_next(&w);
	}
	for (; tx >= 0 && tx != SCHED_NONE;
	     tx = e->s->topo ? (int64_t)SCHED_NONE : sched_walk_next(&w)) {
		uint32_t from =
		             e->s->topo ? x->src : (uint32_t)tx / e->s->ports,
		         to = w.node;
		struct cnode snd = {CN_SEND,  to,     p,    j,
		                    x->bytes, e->tag, prev, e->r[from].join,
		                    0,        0};
		struct cnode rcv = {CN_RECV,  from,   p,    j,
		                    x->bytes, e->tag, NONE, e->r[to].join,
		                    0,        0};

		if (e->tag > INT32_MAX) {
			snprintf(e->err, e->len,
			         "phase %u: more than %d transfers (comm_tag "
			         "is read as an int32)",
			         p, INT32_MAX);
			return (-EOVERFLOW);
		}
		if ((rv = add(e, from, &snd, &id)) != 0 ||
		    (rv = add(e, to, &rcv, &prev)) != 0)
			return (rv);
		e->tag++;
		j++;
	}
	if (tx < 0) {
		snprintf(e->err, e->len, "phase %u: the transfer %u -> %u: %s",
		         p, x->src, x->dst, coll_strerror((int)tx));
		return ((int)tx);
	}
	return (0);
}

/* Walk every phase into the ranks' lists. */
static int
build(struct ex *e, double reconf_s)
{
	const struct sched *s = e->s;
	uint32_t           *peer = NULL;
	int32_t             have = -2;
	uint32_t            p, i, bad;
	uint64_t            id;
	int                 rv = 0;

	if ((peer = malloc((size_t)s->n * s->ports * sizeof(*peer))) == NULL)
		return (-ENOMEM);
	for (p = 0; p < s->nph && rv == 0; p++) {
		int32_t c = sched_cfg_of(s, p);

		if (c != have && s->topo == NULL) {
			rv = c < 0 ? -COLL_ENOCFG
			           : sched_peers(s, &s->cfg[c], peer, &bad);
			have = c;
			if (rv != 0) {
				snprintf(e->err, e->len, "phase %u: %s", p,
				         coll_strerror(rv));
				break;
			}
		}
		for (i = 0; i < s->n; i++)
			e->r[i].start = e->r[i].n;
		for (i = 0; i < s->ph[p].nxfer && rv == 0; i++)
			rv = hops(e, p, &s->xf[s->ph[p].xfer_off + i], peer);
		for (i = 0; i < s->n && rv == 0; i++) {
			struct cnode j = {
			    CN_JOIN,       0, p, 0, 0, 0, NONE, e->r[i].join,
			    e->r[i].start, 0};

			if (p + 1 < s->nph && s->ph[p + 1].cfg >= 0)
				j.dur_us = (uint64_t)llround(reconf_s * 1e6);
			if ((rv = add(e, i, &j, &id)) == 0)
				e->r[i].join = id;
		}
	}
	free(peer);
	return (rv);
}

/* A varint length, then the message. */
static int
put(FILE *f, const ProtobufCMessage *m)
{
	uint8_t hdr[10], stack[512], *buf = stack;
	size_t  sz = protobuf_c_message_get_packed_size(m), k = 0, v = sz;
	int     ok;

	do {
		hdr[k++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	if (sz > sizeof(stack) && (buf = malloc(sz)) == NULL)
		return (-ENOMEM);
	protobuf_c_message_pack(m, buf);
	ok = fwrite(hdr, 1, k, f) == k && fwrite(buf, 1, sz, f) == sz;
	if (buf != stack)
		free(buf);
	return (ok ? 0 : -EIO);
}

static void
attr_i(ChakraProtoMsg__AttributeProto *a, const char *name, int64_t v)
{
	chakra_proto_msg__attribute_proto__init(a);
	a->name = (char *)(uintptr_t)name;
	a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL;
	a->int64_val = v;
}

/* ASTRA-sim's feeder up to August 2025 reads comm_src, comm_dst and
 * comm_tag as int32_val (an int64 there reads as 0); FeederV3 converts
 * either. */
static void
attr_i32(ChakraProtoMsg__AttributeProto *a, const char *name, int32_t v)
{
	chakra_proto_msg__attribute_proto__init(a);
	a->name = (char *)(uintptr_t)name;
	a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_VAL;
	a->int32_val = v;
}

/* One node as a message; deps (room for the phase's range) filled.
 * Every dependency is a data dependency: the older feeder ignores
 * ctrl_deps, and the reconfiguration would overlap traffic there. */
static int
put_node(FILE *f, uint32_t rk, uint64_t id, const struct cnode *c,
         uint64_t *deps)
{
	ChakraProtoMsg__Node           nd;
	ChakraProtoMsg__AttributeProto at[5],
	    *ap[5] = {&at[0], &at[1], &at[2], &at[3], &at[4]};
	char     name[96];
	uint64_t k;

	chakra_proto_msg__node__init(&nd);
	nd.id = id;
	nd.name = name;
	nd.attr = ap;
	nd.data_deps = deps;
	chakra_proto_msg__attribute_proto__init(&at[0]);
	at[0].name = (char *)(uintptr_t) "is_cpu_op";
	at[0].value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_VAL;
	at[0].bool_val = 0;
	nd.n_attr = 1;
	if (c->type == CN_JOIN) {
		nd.type = CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE;
		nd.duration_micros = c->dur_us;
		snprintf(name, sizeof(name), "phase %u done%s", c->phase,
		         c->dur_us ? ", reconfigure" : "");
		/* The phase's nodes (each after the last join), or the
		 * last join if the rank had none. */
		for (k = c->first; k < id; k++)
			deps[nd.n_data_deps++] = k;
		if (nd.n_data_deps == 0 && c->join != NONE)
			deps[nd.n_data_deps++] = c->join;
	} else {
		int snd = c->type == CN_SEND;

		nd.type = snd ? CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE
		              : CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE;
		snprintf(name, sizeof(name), "phase %u hop %u %s %u %s %u",
		         c->phase, c->hop, snd ? "send" : "recv",
		         snd ? rk : c->peer, "->", snd ? c->peer : rk);
		attr_i32(&at[1], "comm_src", (int32_t)(snd ? rk : c->peer));
		attr_i32(&at[2], "comm_dst", (int32_t)(snd ? c->peer : rk));
		attr_i(&at[3], "comm_size", (int64_t)c->size);
		attr_i32(&at[4], "comm_tag", (int32_t)c->tag);
		nd.n_attr = 5;
		if (c->join != NONE)
			deps[nd.n_data_deps++] = c->join;
		if (c->data_dep != NONE)
			deps[nd.n_data_deps++] = c->data_dep;
	}
	return (put(f, &nd.base));
}

static int
write_rank(const struct ex *e, uint32_t rk, const char *prefix)
{
	ChakraProtoMsg__GlobalMetadata md;
	ChakraProtoMsg__AttributeProto a[2], *ap[2] = {&a[0], &a[1]};
	const struct rank             *r = &e->r[rk];
	char                           path[4200];
	uint64_t                      *deps = NULL, most = 1, i;
	FILE                          *f;
	int                            rv = 0;

	for (i = 0; i < r->n; i++)
		if (r->v[i].type == CN_JOIN && i - r->v[i].first > most)
			most = i - r->v[i].first;
	most = most < 2 ? 2 : most; /* a relay: its join and receive */
	snprintf(path, sizeof(path), "%s.%u.et", prefix, rk);
	if ((deps = malloc(most * sizeof(*deps))) == NULL)
		return (-ENOMEM);
	if ((f = fopen(path, "we")) == NULL) {
		snprintf(e->err, e->len, "%s: %s", path, strerror(errno));
		free(deps);
		return (-errno);
	}
	chakra_proto_msg__global_metadata__init(&md);
	md.version = (char *)(uintptr_t) "0.0.4";
	chakra_proto_msg__attribute_proto__init(&a[0]);
	a[0].name = (char *)(uintptr_t) "schedule";
	a[0].value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL;
	a[0].string_val = (char *)(uintptr_t)e->s->algo;
	attr_i(&a[1], "ranks", e->s->n);
	md.attr = ap;
	md.n_attr = 2;
	rv = put(f, &md.base);
	for (i = 0; i < r->n && rv == 0; i++)
		rv = put_node(f, rk, i, &r->v[i], deps);
	if (fclose(f) != 0 && rv == 0)
		rv = -errno;
	if (rv != 0)
		snprintf(e->err, e->len, "%s: %s", path,
		         rv == -ENOMEM ? "out of memory" : strerror(-rv));
	free(deps);
	return (rv);
}

int
chakra_export(const struct sched *s, double reconf_s, const char *prefix,
              char *err, size_t len)
{
	struct ex e = {s, NULL, 0, err, len};
	uint32_t  i;
	int       rv;

	err[0] = '\0';
	if ((e.r = calloc(s->n, sizeof(*e.r))) == NULL)
		return (-ENOMEM);
	for (i = 0; i < s->n; i++)
		e.r[i].join = NONE;
	rv = build(&e, reconf_s);
	for (i = 0; i < s->n && rv == 0; i++)
		rv = write_rank(&e, i, prefix);
	if (rv != 0 && err[0] == '\0')
		snprintf(err, len, "%s", coll_strerror(rv));
	for (i = 0; i < s->n; i++)
		free(e.r[i].v);
	free(e.r);
	return (rv);
}

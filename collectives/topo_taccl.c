/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * TACCL profiles and sketches (see topo_taccl.h).  The node's link
 * matrices are TACCL's (generic.py: ndv2, dgx2, hub_and_spoke), the
 * sketch's connections and the remote figures as TACCL's cli/common.py
 * derives them; the result is written in our topology format and read by
 * topo_parse, so it is checked like any file.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "collectives/coll.h"
#include "collectives/topo_taccl.h"
#include "proto/base/units.h"

#define MAX_NODES 64

/* TACCL's NDv2 node: link classes (0 or 1), -1 for no link. */
static const int8_t ndv2_class[8][8] = {
    {-1, 0, 1, 1, 0, -1, -1, -1}, {0, -1, 1, 0, -1, 1, -1, -1},
    {1, 1, -1, 0, -1, -1, 0, -1}, {1, 0, 0, -1, -1, -1, -1, 1},
    {0, -1, -1, -1, -1, 0, 1, 1}, {-1, 1, -1, -1, 0, -1, 1, 0},
    {-1, -1, 0, -1, 1, 1, -1, 0}, {-1, -1, -1, 1, 1, 0, 0, -1}};

struct prof {
	char     name[64];
	uint32_t gpus, nics;
	double   alpha, ralpha, rinvbw, rbeta, chunk;
	double   invbw[2], beta[2];
	size_t   nclass;
	int      ndv2, dgx2;
	uint32_t nodes;
	uint8_t  conn[MAX_NODES][MAX_NODES];      /* GPU s -> GPU r remotely */
	uint32_t rout[MAX_NODES], rin[MAX_NODES]; /* remote links a GPU */
	char    *note;
	size_t   notelen;
};

static int
bad(char *err, size_t len, const char *what, const char *key, const char *why)
{
	snprintf(err, len, "TACCL %s: %s: %s", what, key, why);
	return (-COLL_ETOPO);
}

static int
num(json_t *o, const char *key, double lo, double hi, double *v, char *err,
    size_t len)
{
	json_t *x = json_object_get(o, key);

	if (x == NULL)
		return (bad(err, len, "profile", key, "missing"));
	*v = json_number_value(x);
	if (!json_is_number(x) || !(*v >= lo && *v <= hi))
		return (bad(err, len, "profile", key, "a number in range"));
	return (0);
}

/* The chunk size the profile's figures are for: its name's suffix. */
static int
chunk_of(struct prof *p, char *err, size_t len)
{
	const char *u = strrchr(p->name, '_');
	uint64_t    b;

	/* 1MB is 10^6 bytes: TE-CCL, which takes TACCL's NDv2 figures,
	 * reads them so (23 us a MB: 43.48 GB/s, teccl/topologies/ndv2.py),
	 * and so do our units. */
	if (u == NULL || unit_parse_size(u + 1, &b) != 0 || b == 0)
		return (bad(err, len, "profile", "name",
		            "NAME_SIZE, e.g. NDv2_1MB (the chunk its figures "
		            "are for)"));
	p->chunk = (double)b;
	return (0);
}

static int
profile(json_t *o, struct prof *p, char *err, size_t len)
{
	static const char *const known[] = {"name",
	                                    "gpus_per_node",
	                                    "nics_per_node",
	                                    "alpha",
	                                    "node_betas_list",
	                                    "node_invbws_list",
	                                    "remote_alpha",
	                                    "remote_beta",
	                                    "remote_invbw",
	                                    NULL};
	json_t                  *l, *v;
	const char              *k;
	double                   g;
	size_t                   i;
	int                      rv;

	json_object_foreach(o, k, v)
	{
		for (i = 0; known[i] && strcmp(known[i], k); i++)
			;
		if (known[i] == NULL)
			return (bad(err, len, "profile", k,
			            "unknown (not in TACCL's generic.py)"));
	}
	if (!json_is_string(json_object_get(o, "name")) ||
	    strlen(json_string_value(json_object_get(o, "name"))) >=
	        sizeof(p->name))
		return (bad(err, len, "profile", "name", "a string"));
	snprintf(p->name, sizeof(p->name), "%s",
	         json_string_value(json_object_get(o, "name")));
	if ((rv = num(o, "gpus_per_node", 1, MAX_NODES, &g, err, len)) != 0 ||
	    (rv = num(o, "alpha", 0, 1e6, &p->alpha, err, len)) != 0 ||
	    (rv = chunk_of(p, err, len)) != 0)
		return (rv);
	p->gpus = (uint32_t)g;
	/* Remote figures: needed once a sketch joins nodes. */
	p->rinvbw = -1;
	if (json_object_get(o, "remote_invbw") != NULL &&
	    ((rv = num(o, "remote_alpha", 0, 1e6, &p->ralpha, err, len)) !=
	         0 ||
	     (rv = num(o, "remote_invbw", 1e-6, 1e9, &p->rinvbw, err, len)) !=
	         0 ||
	     (rv = num(o, "remote_beta", 0, 1e9, &p->rbeta, err, len)) != 0))
		return (rv);
	l = json_object_get(o, "node_invbws_list");
	p->nclass = json_array_size(l);
	if (!json_is_array(l) || p->nclass < 1 || p->nclass > 2)
		return (bad(err, len, "profile", "node_invbws_list",
		            "one or two numbers (us a chunk, a link class)"));
	for (i = 0; i < p->nclass; i++)
		if (!((p->invbw[i] = json_number_value(json_array_get(l, i))) >
		      0))
			return (bad(err, len, "profile", "node_invbws_list",
			            "positive numbers"));
	l = json_object_get(o, "node_betas_list");
	if (!json_is_array(l) || json_array_size(l) != p->nclass)
		return (bad(err, len, "profile", "node_betas_list",
		            "as many numbers as node_invbws_list"));
	for (i = 0; i < p->nclass; i++)
		if (!((p->beta[i] = json_number_value(json_array_get(l, i))) >=
		      0))
			return (bad(err, len, "profile", "node_betas_list",
			            "numbers, 0 or more"));
	p->ndv2 = strncmp(p->name, "NDv2", 4) == 0;
	p->dgx2 = strncmp(p->name, "DGX2", 4) == 0;
	if (p->ndv2 && (p->gpus != 8 || p->nclass != 2))
		return (bad(err, len, "profile", "gpus_per_node",
		            "NDv2: 8 GPUs and two link classes"));
	if (p->dgx2 && p->gpus != 16)
		return (bad(err, len, "profile", "gpus_per_node",
		            "DGX2: 16 GPUs"));
	if (!p->ndv2 && p->nclass != 1)
		return (bad(err, len, "profile", "node_invbws_list",
		            "one class (DGX2, hub-and-spoke); two are "
		            "NDv2's"));
	/* TACCL's ndv2() and dgx2() take whole microseconds and fix the
	 * NICs (1 and 8); hub-and-spoke takes the profile's. */
	for (i = 0; (p->ndv2 || p->dgx2) && i < p->nclass; i++)
		if ((p->invbw[i] = floor(p->invbw[i])) <= 0)
			return (bad(err, len, "profile", "node_invbws_list",
			            "at least 1 (TACCL takes whole us)"));
	p->nics = p->ndv2 ? 1 : p->dgx2 ? 8 : 0;
	if (!p->nics && json_object_get(o, "nics_per_node") != NULL) {
		if ((rv = num(o, "nics_per_node", 1, MAX_NODES, &g, err,
		              len)) != 0)
			return (rv);
		p->nics = (uint32_t)g;
	}
	return (0);
}

/* TACCL's named connections (cli/common.py): every GPU to every GPU of
 * the other nodes, or each to the same GPU there. */
static int
conn_named(struct prof *p, const char *how, char *err, size_t len)
{
	uint32_t s, r;
	int      full = strcmp(how, "fully-connected") == 0;

	if (!full && strcmp(how, "direct-map") != 0)
		return (bad(err, len, "sketch", "internode_conn",
		            "an object, \"fully-connected\" or "
		            "\"direct-map\""));
	for (s = 0; s < p->gpus; s++)
		for (r = 0; r < p->gpus; r++)
			p->conn[s][r] = full || s == r;
	return (0);
}

/*
 * TACCL's remote figures for a sketch that joins nodes (cli/common.py):
 * every sender GPU has as many remote GPUs, the node's NICs are shared
 * by its senders' connections (remote_beta times connections / NICs,
 * whole us) and a remote link takes remote_alpha + that a chunk.
 */
static int
remote(struct prof *p, char *err, size_t len)
{
	uint32_t s, r, senders = 0, dsts = 0, d;

	for (s = 0; s < p->gpus; s++) {
		for (r = d = 0; r < p->gpus; r++)
			d += p->conn[s][r];
		if (d == 0)
			continue;
		if (senders++ > 0 && d != dsts)
			return (bad(err, len, "sketch", "internode_conn",
			            "every sending GPU with as many remote "
			            "GPUs (TACCL's rule)"));
		dsts = d;
	}
	if (senders == 0)
		return (bad(err, len, "sketch", "internode_conn", "empty"));
	if (p->nics == 0)
		return (bad(err, len, "profile", "nics_per_node",
		            "missing, and the sketch joins nodes"));
	p->rbeta = floor(p->rbeta * senders * dsts / p->nics);
	p->rinvbw = floor(p->ralpha + p->rbeta);
	if (p->rinvbw <= 0)
		return (bad(err, len, "profile", "remote_beta",
		            "a remote link that takes no time"));
	/* Remote links a GPU sends and receives on, over all nodes. */
	for (s = 0; s < p->gpus; s++)
		for (r = 0; r < p->gpus; r++)
			if (p->conn[s][r]) {
				p->rout[s] += p->nodes - 1;
				p->rin[r] += p->nodes - 1;
			}
	return (0);
}

static int
sketch(json_t *o, struct prof *p, char *err, size_t len)
{
	static const char *const known[] = {
	    "nnodes",           "intranode_sketch", "internode_sketch",
	    "symmetry_offsets", "hyperparameters",  NULL};
	json_t     *v, *c, *rs;
	const char *k;
	size_t      i;

	json_object_foreach(o, k, v)
	{
		for (i = 0; known[i] && strcmp(known[i], k); i++)
			;
		if (known[i] == NULL)
			return (bad(err, len, "sketch", k, "unknown"));
	}
	v = json_object_get(o, "nnodes");
	if (!json_is_integer(v) || json_integer_value(v) < 1 ||
	    json_integer_value(v) > MAX_NODES)
		return (bad(err, len, "sketch", "nnodes", "1..64"));
	p->nodes = (uint32_t)json_integer_value(v);
	if (p->nodes > 1 && p->rinvbw < 0)
		return (bad(err, len, "profile", "remote_invbw",
		            "missing, and the sketch joins nodes"));
	if (p->nodes > 1 &&
	    !json_is_object(json_object_get(o, "internode_sketch")))
		return (bad(err, len, "sketch", "internode_sketch",
		            "internode_conn {\"GPU\": [GPUs]}, "
		            "\"fully-connected\" or \"direct-map\" is needed "
		            "for more than one node"));
	c = json_object_get(json_object_get(o, "internode_sketch"),
	                    "internode_conn");
	if (p->nodes > 1 && json_is_string(c))
		return (conn_named(p, json_string_value(c), err, len));
	if (p->nodes > 1 && !json_is_object(c))
		return (bad(err, len, "sketch", "internode_sketch",
		            "internode_conn {\"GPU\": [GPUs]}, "
		            "\"fully-connected\" or \"direct-map\" is needed "
		            "for more than one node"));
	json_object_foreach(c, k, rs)
	{
		char         *end;
		unsigned long s = strtoul(k, &end, 10);

		if (*k == '\0' || *end != '\0' || s >= p->gpus ||
		    !json_is_array(rs))
			return (bad(err, len, "sketch", "internode_conn",
			            "keys are GPUs of a node, values lists of "
			            "GPUs"));
		for (i = 0; i < json_array_size(rs); i++) {
			json_t *r = json_array_get(rs, i);

			if (!json_is_integer(r) || json_integer_value(r) < 0 ||
			    json_integer_value(r) >= p->gpus)
				return (bad(err, len, "sketch",
				            "internode_conn",
				            "a GPU out of the node's range"));
			p->conn[s][json_integer_value(r)] = 1;
		}
	}
	return (0);
}

/* What differs from TACCL's model, said once (note). */
static void
say(struct prof *p, const char *what)
{
	size_t n;

	if (p->note == NULL || p->notelen == 0)
		return;
	n = strlen(p->note);
	snprintf(p->note + n, p->notelen - n, "%s%s", n ? "; " : "", what);
}

/* A link a chunk occupies for invbw us and delivers alpha + beta us
 * after it starts (TACCL's two figures): its rate is chunk / invbw, its
 * latency what delivery takes beyond that. */
static void
link_named(json_t *links, const char *s, const char *d, const struct prof *p,
           double invbw, double lat_us)
{
	char bw[48], lat[32];

	snprintf(bw, sizeof(bw), "%.0fBps", p->chunk / (invbw * 1e-6));
	snprintf(lat, sizeof(lat), "%.0fns", fmax(0, lat_us) * 1e3);
	json_array_append_new(links,
	                      json_pack("{s:s,s:s,s:s,s:s}", "src", s, "dst",
	                                d, "bandwidth", bw, "latency", lat));
}

static void
link(json_t *links, uint32_t a, uint32_t b, const struct prof *p, double invbw,
     double alpha, double beta)
{
	char s[32], d[32];

	snprintf(s, sizeof(s), "n%ug%u", a / p->gpus, a % p->gpus);
	snprintf(d, sizeof(d), "n%ug%u", b / p->gpus, b % p->gpus);
	link_named(links, s, d, p, invbw, alpha + beta - invbw);
}

/* DGX2's NVSwitch (TACCL's switch sketch): a GPU sends, and receives,
 * one chunk at a time through it, to whichever GPU. */
static void
nvswitch(json_t *nodes, json_t *links, const struct prof *p, uint32_t n)
{
	char     sw[32], g[32], grp[24];
	uint32_t i;

	snprintf(sw, sizeof(sw), "n%usw", n);
	snprintf(grp, sizeof(grp), "node%u", n);
	json_array_append_new(nodes,
	                      json_pack("{s:s,s:s,s:s}", "name", sw, "kind",
	                                "switch", "group", grp));
	for (i = 0; i < p->gpus; i++) {
		snprintf(g, sizeof(g), "n%ug%u", n, i);
		link_named(links, g, sw, p, p->invbw[0],
		           p->alpha + p->beta[0] - p->invbw[0]);
		link_named(links, sw, g, p, p->invbw[0], 0);
	}
}

/* Our format, then topo_parse. */
static int
build(const struct prof *p, struct topo *t, char *err, size_t len)
{
	json_t *o = json_object(), *nodes = json_array(),
	       *links = json_array();
	uint32_t n, i, j, a, b, g = p->gpus;
	char     nm[32], grp[24], *text;
	int      rv;

	for (n = 0; n < p->nodes; n++) {
		for (i = 0; i < g; i++) {
			snprintf(nm, sizeof(nm), "n%ug%u", n, i);
			snprintf(grp, sizeof(grp), "node%u", n);
			json_array_append_new(
			    nodes, json_pack("{s:s,s:s,s:s}", "name", nm,
			                     "kind", "gpu", "group", grp));
			for (j = 0; !p->dgx2 && j < g; j++) {
				int c = p->ndv2 ? ndv2_class[i][j]
				                : (i == j ? -1 : 0);

				if (c >= 0)
					link(links, n * g + i, n * g + j, p,
					     p->invbw[c], p->alpha,
					     p->beta[c]);
			}
		}
		if (p->dgx2)
			nvswitch(nodes, links, p, n);
	}
	/* Beyond two nodes TACCL makes each GPU's remote links share one
	 * link's rate each way (_add_ext_switches): here each gets its
	 * share, 1/k of it for a GPU with k. */
	for (a = 0; a < p->nodes; a++)
		for (b = 0; b < p->nodes; b++)
			for (i = 0; a != b && i < g; i++)
				for (j = 0; j < g; j++) {
					double k =
					    p->nodes > 2
					        ? fmax(p->rout[i], p->rin[j])
					        : 1;

					if (p->conn[i][j])
						link(links, a * g + i,
						     b * g + j, p,
						     p->rinvbw * k, p->ralpha,
						     p->rbeta +
						         p->rinvbw * (k - 1));
				}
	json_object_set_new(o, "name", json_string(p->name));
	json_object_set_new(o, "source",
	                    json_string("a TACCL profile (and sketch), "
	                                "microsoft/taccl generic.py"));
	json_object_set_new(o, "nodes", nodes);
	json_object_set_new(o, "links", links);
	text = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	if (text == NULL) {
		snprintf(err, len, "out of memory");
		return (-ENOMEM);
	}
	rv = topo_parse(text, strlen(text), t, err, len);
	free(text);
	return (rv);
}

/* What this topology does otherwise than TACCL's solver would. */
static void
notes(struct prof *p)
{
	char b[200];

	if (p->dgx2)
		say(p, "DGX2's NVSwitch is a switch node: a GPU sends and "
		       "receives one chunk at a time through it, as TACCL's "
		       "switch constraint; a chunk crosses it in two link "
		       "times where TACCL counts one");
	if (p->nodes > 2) {
		snprintf(b, sizeof(b),
		         "%u nodes: each GPU's remote links share its NIC "
		         "(TACCL's remote switches) as equal fixed shares, "
		         "never faster than TACCL and slower where fewer are "
		         "busy",
		         p->nodes);
		say(p, b);
	}
}

int
topo_taccl_parse(const char *prof, size_t plen, const char *sk, size_t slen,
                 struct topo *t, char *note, size_t notelen, char *err,
                 size_t errlen)
{
	struct prof *p;
	json_t      *po = json_loadb(prof, plen, 0, NULL), *so = NULL;
	int          rv;

	if (!json_is_object(po) ||
	    json_object_get(po, "node_invbws_list") == NULL) {
		json_decref(po);
		return (-ENOENT);
	}
	if ((p = calloc(1, sizeof(*p))) == NULL) {
		json_decref(po);
		return (-ENOMEM);
	}
	p->nodes = 1;
	p->note = note;
	p->notelen = notelen;
	if (note != NULL && notelen > 0)
		note[0] = '\0';
	rv = profile(po, p, err, errlen);
	if (rv == 0 && sk != NULL) {
		/* json_is_object is a macro: its argument twice */
		so = json_loadb(sk, slen, 0, NULL);
		if (!json_is_object(so))
			rv = bad(err, errlen, "sketch", "", "not JSON");
		else
			rv = sketch(so, p, err, errlen);
		if (rv == 0 && p->nodes > 1)
			rv = remote(p, err, errlen);
	}
	if (rv == 0) {
		notes(p);
		rv = build(p, t, err, errlen);
	}
	json_decref(po);
	json_decref(so);
	free(p);
	return (rv);
}

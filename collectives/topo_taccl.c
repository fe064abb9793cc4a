/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * TACCL profiles and sketches (see topo_taccl.h).  The node's link
 * matrices are TACCL's (generic.py: ndv2, dgx2, hub_and_spoke); the
 * result is written in our topology format and read by topo_parse, so it
 * is checked like any file.
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
	uint32_t gpus;
	double   alpha, ralpha, rinvbw, rbeta, chunk;
	double   invbw[2], beta[2];
	size_t   nclass;
	int      ndv2;
	uint32_t nodes;
	uint8_t  conn[MAX_NODES][MAX_NODES]; /* GPU s -> GPU r remotely */
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
	char        sz[32];
	uint64_t    b;
	size_t      i, k = 0;

	if (u == NULL || strlen(u + 1) >= sizeof(sz) - 2)
		return (bad(err, len, "profile", "name",
		            "NAME_SIZE, e.g. NDv2_1MB (the chunk its figures "
		            "are for)"));
	/* 1MB -> 1MiB: TACCL's sizes are binary. */
	for (i = 0; u[1 + i]; i++) {
		sz[k++] = u[1 + i];
		if ((u[1 + i] == 'K' || u[1 + i] == 'M' || u[1 + i] == 'G') &&
		    u[2 + i] == 'B')
			sz[k++] = 'i';
	}
	sz[k] = '\0';
	if (unit_parse_size(sz, &b) != 0 || b == 0)
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
	if (p->ndv2 && (p->gpus != 8 || p->nclass != 2))
		return (bad(err, len, "profile", "gpus_per_node",
		            "NDv2: 8 GPUs and two link classes"));
	if (!p->ndv2 && p->nclass != 1)
		return (bad(err, len, "profile", "node_invbws_list",
		            "one class (DGX2, hub-and-spoke); two are "
		            "NDv2's"));
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
	c = json_object_get(json_object_get(o, "internode_sketch"),
	                    "internode_conn");
	if (p->nodes > 1 && !json_is_object(c))
		return (bad(err, len, "sketch", "internode_sketch",
		            "internode_conn {\"GPU\": [GPUs]} is needed for "
		            "more than one node"));
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

/* A link a chunk occupies for invbw us and delivers alpha + beta us
 * after it starts (TACCL's two figures): its rate is chunk / invbw, its
 * latency what delivery takes beyond that. */
static void
link(json_t *links, uint32_t a, uint32_t b, const struct prof *p, double invbw,
     double alpha, double beta)
{
	char s[32], d[32], bw[48], lat[32];

	snprintf(s, sizeof(s), "n%ug%u", a / p->gpus, a % p->gpus);
	snprintf(d, sizeof(d), "n%ug%u", b / p->gpus, b % p->gpus);
	snprintf(bw, sizeof(bw), "%.0fBps", p->chunk / (invbw * 1e-6));
	snprintf(lat, sizeof(lat), "%.0fns",
	         fmax(0, alpha + beta - invbw) * 1e3);
	json_array_append_new(links,
	                      json_pack("{s:s,s:s,s:s,s:s}", "src", s, "dst",
	                                d, "bandwidth", bw, "latency", lat));
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

	for (n = 0; n < p->nodes; n++)
		for (i = 0; i < g; i++) {
			snprintf(nm, sizeof(nm), "n%ug%u", n, i);
			snprintf(grp, sizeof(grp), "node%u", n);
			json_array_append_new(
			    nodes, json_pack("{s:s,s:s,s:s}", "name", nm,
			                     "kind", "gpu", "group", grp));
			for (j = 0; j < g; j++) {
				int c = p->ndv2 ? ndv2_class[i][j]
				                : (i == j ? -1 : 0);

				if (c >= 0)
					link(links, n * g + i, n * g + j, p,
					     p->invbw[c], p->alpha,
					     p->beta[c]);
			}
		}
	for (a = 0; a < p->nodes; a++)
		for (b = 0; b < p->nodes; b++)
			for (i = 0; a != b && i < g; i++)
				for (j = 0; j < g; j++)
					if (p->conn[i][j])
						link(links, a * g + i,
						     b * g + j, p, p->rinvbw,
						     p->ralpha, p->rbeta);
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

int
topo_taccl_parse(const char *prof, size_t plen, const char *sk, size_t slen,
                 struct topo *t, char *err, size_t errlen)
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
	rv = profile(po, p, err, errlen);
	if (rv == 0 && sk != NULL) {
		/* json_is_object is a macro: its argument twice */
		so = json_loadb(sk, slen, 0, NULL);
		if (!json_is_object(so))
			rv = bad(err, errlen, "sketch", "", "not JSON");
		else
			rv = sketch(so, p, err, errlen);
	}
	if (rv == 0)
		rv = build(p, t, err, errlen);
	json_decref(po);
	json_decref(so);
	free(p);
	return (rv);
}

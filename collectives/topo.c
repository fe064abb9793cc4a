/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Topologies: the JSON loader, the generators and the names of the shipped
 * files.  A topology is built in two steps: nodes and links are collected
 * and checked, then finish() derives the GPU numbering and the per-node
 * link lists, so every way of making one ends in the same checks.
 */
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/coll.h"
#include "collectives/topo.h"
#include "proto/base/errf.h"
#include "proto/base/units.h"

void
topo_free(struct topo *t)
{
	free(t->node);
	free(t->link);
	free(t->gpu_node);
	free(t->groups);
	free(t->out_off);
	free(t->out);
	free(t->in_off);
	free(t->in);
	memset(t, 0, sizeof(*t));
}

static int
add_node(struct topo *t, const char *name, enum topo_kind k, int32_t group)
{
	struct topo_node *nn;

	if (t->n >= TOPO_MAX_NODES)
		return (-COLL_ERANGE);
	if ((t->n & (t->n - 1)) == 0) {
		nn = realloc(t->node, (t->n ? 2 * t->n : 1) * sizeof(*nn));
		if (nn == NULL)
			return (-ENOMEM);
		t->node = nn;
	}
	nn = &t->node[t->n++];
	memset(nn, 0, sizeof(*nn));
	snprintf(nn->name, sizeof(nn->name), "%s", name);
	nn->kind = k;
	nn->group = group;
	nn->gpu = -1;
	return (0);
}

static int
add_link(struct topo *t, uint32_t u, uint32_t v, double bw, double alpha)
{
	struct topo_link *nl;

	if (t->nlink >= TOPO_MAX_LINKS)
		return (-COLL_ERANGE);
	if ((t->nlink & (t->nlink - 1)) == 0) {
		nl = realloc(t->link,
		             (t->nlink ? 2 * t->nlink : 1) * sizeof(*nl));
		if (nl == NULL)
			return (-ENOMEM);
		t->link = nl;
	}
	t->link[t->nlink++] = (struct topo_link){u, v, bw, alpha};
	return (0);
}

static int
cmp_link(const void *a, const void *b)
{
	const struct topo_link *x = a, *y = b;

	if (x->src != y->src)
		return (x->src < y->src ? -1 : 1);
	return (x->dst < y->dst ? -1 : x->dst > y->dst);
}

/* GPU numbering, link lists, the final checks. */
static int
finish(struct topo *t, char *err, size_t errlen)
{
	uint32_t i, u;

	if (t->n < 2)
		return (errf(-COLL_ETOPO, err, errlen,
		             "nodes: at least 2 are needed"));
	qsort(t->link, t->nlink, sizeof(*t->link), cmp_link);
	for (i = 1; i < t->nlink; i++)
		if (t->link[i].src == t->link[i - 1].src &&
		    t->link[i].dst == t->link[i - 1].dst)
			return (errf(-COLL_ETOPO, err, errlen,
			             "links: %s -> %s given twice",
			             t->node[t->link[i].src].name,
			             t->node[t->link[i].dst].name));
	t->ngpu = 0;
	for (u = 0; u < t->n; u++)
		if (t->node[u].kind == TOPO_GPU)
			t->node[u].gpu = (int32_t)t->ngpu++;
	if (t->ngpu < 2)
		return (errf(-COLL_ETOPO, err, errlen,
		             "nodes: at least 2 GPUs are needed"));
	t->gpu_node = calloc(t->ngpu, sizeof(*t->gpu_node));
	t->out_off = calloc(t->n + 1, sizeof(uint32_t));
	t->in_off = calloc(t->n + 1, sizeof(uint32_t));
	t->out = calloc(t->nlink + 1, sizeof(uint32_t));
	t->in = calloc(t->nlink + 1, sizeof(uint32_t));
	if (!t->gpu_node || !t->out_off || !t->in_off || !t->out || !t->in)
		return (-ENOMEM);
	for (u = 0; u < t->n; u++)
		if (t->node[u].gpu >= 0)
			t->gpu_node[t->node[u].gpu] = u;
	t->bw_max = 0;
	for (i = 0; i < t->nlink; i++) {
		t->out_off[t->link[i].src + 1]++;
		t->in_off[t->link[i].dst + 1]++;
		if (t->link[i].bw > t->bw_max)
			t->bw_max = t->link[i].bw;
	}
	for (u = 0; u < t->n; u++) {
		t->out_off[u + 1] += t->out_off[u];
		t->in_off[u + 1] += t->in_off[u];
	}
	{
		uint32_t *oc = calloc(t->n, sizeof(*oc));
		uint32_t *ic = calloc(t->n, sizeof(*ic));

		if (oc == NULL || ic == NULL) {
			free(oc);
			free(ic);
			return (-ENOMEM);
		}
		for (i = 0; i < t->nlink; i++) {
			u = t->link[i].src;
			t->out[t->out_off[u] + oc[u]++] = i;
			u = t->link[i].dst;
			t->in[t->in_off[u] + ic[u]++] = i;
		}
		free(oc);
		free(ic);
	}
	if (t->nlink == 0)
		return (errf(-COLL_ETOPO, err, errlen, "links: none"));
	return (0);
}

int64_t
topo_link_of(const struct topo *t, uint32_t u, uint32_t v)
{
	uint32_t k;

	if (u >= t->n)
		return (-1);
	for (k = t->out_off[u]; k < t->out_off[u + 1]; k++)
		if (t->link[t->out[k]].dst == v)
			return (t->out[k]);
	return (-1);
}

/* ---- JSON ------------------------------------------------------------ */

static int32_t
find_node(const struct topo *t, const char *name)
{
	uint32_t u;

	for (u = 0; u < t->n; u++)
		if (strcmp(t->node[u].name, name) == 0)
			return ((int32_t)u);
	return (-1);
}

static int32_t
group_of(struct topo *t, const char *g)
{
	char(*ng)[TOPO_NAME_MAX];
	uint32_t i;

	for (i = 0; i < t->ngroup; i++)
		if (strcmp(t->groups[i], g) == 0)
			return ((int32_t)i);
	if ((ng = realloc(t->groups, (t->ngroup + 1) * sizeof(*ng))) == NULL)
		return (-ENOMEM);
	t->groups = ng;
	snprintf(t->groups[t->ngroup], TOPO_NAME_MAX, "%s", g);
	return ((int32_t)t->ngroup++);
}

static int
name_ok(const char *s)
{
	size_t n = strlen(s), i;

	if (n == 0 || n >= TOPO_NAME_MAX)
		return (0);
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] <= ' ' || s[i] == '"' || s[i] == 0x7f)
			return (0);
	return (1);
}

/* A rate or time: a string with units, or a plain number (bytes/s, s). */
static int
quantity(json_t *v, int rate, double *out)
{
	if (json_is_number(v)) {
		*out = json_number_value(v);
		return (*out >= 0 && *out < 1e18 ? 0 : -EINVAL);
	}
	if (!json_is_string(v))
		return (-EINVAL);
	if (rate) {
		if (unit_parse_rate(json_string_value(v), out) != 0)
			return (-EINVAL);
		*out /= 8; /* bits to bytes */
		return (0);
	}
	return (unit_parse_time(json_string_value(v), out) == 0 ? 0 : -EINVAL);
}

static int
parse_nodes(struct topo *t, json_t *nodes, char *err, size_t errlen)
{
	json_t     *o, *v;
	const char *name, *kind;
	size_t      i;
	int32_t     g;
	int         rv;

	if (!json_is_array(nodes) || json_array_size(nodes) == 0)
		return (errf(-COLL_ETOPO, err, errlen,
		             "nodes: expected a non-empty array"));
	if (json_array_size(nodes) > TOPO_MAX_NODES)
		return (errf(-COLL_ETOPO, err, errlen,
		             "nodes: %zu, more than %d",
		             json_array_size(nodes), TOPO_MAX_NODES));
	json_array_foreach(nodes, i, o)
	{
		enum topo_kind k;

		if (!json_is_object(o))
			return (errf(-COLL_ETOPO, err, errlen,
			             "nodes[%zu]: expected an object", i));
		v = json_object_get(o, "name");
		name = json_is_string(v) ? json_string_value(v) : NULL;
		if (name == NULL || !name_ok(name))
			return (
			    errf(-COLL_ETOPO, err, errlen,
			         "nodes[%zu].name: missing, empty, over %d "
			         "characters or with blanks",
			         i, TOPO_NAME_MAX - 1));
		if (find_node(t, name) >= 0)
			return (errf(-COLL_ETOPO, err, errlen,
			             "nodes[%zu].name: \"%s\" twice", i,
			             name));
		v = json_object_get(o, "kind");
		kind = json_is_string(v) ? json_string_value(v) : "";
		if (strcmp(kind, "gpu") == 0)
			k = TOPO_GPU;
		else if (strcmp(kind, "switch") == 0)
			k = TOPO_SWITCH;
		else if (strcmp(kind, "router") == 0)
			k = TOPO_ROUTER;
		else
			return (
			    errf(-COLL_ETOPO, err, errlen,
			         "nodes[%zu].kind: \"%.20s\": expected gpu, "
			         "switch or router",
			         i, kind));
		g = -1;
		v = json_object_get(o, "group");
		if (v != NULL) {
			if (!json_is_string(v) ||
			    !name_ok(json_string_value(v)))
				return (errf(
				    -COLL_ETOPO, err, errlen,
				    "nodes[%zu].group: expected a name", i));
			if ((g = group_of(t, json_string_value(v))) < 0)
				return (-ENOMEM);
		}
		if ((rv = add_node(t, name, k, g)) != 0)
			return (rv);
	}
	return (0);
}

/* A JSON value as an error message shows it: "text", a number, or what
 * it is. */
static const char *
vtext(const json_t *v, char *buf, size_t len)
{
	if (json_is_string(v))
		snprintf(buf, len, "\"%.40s\"", json_string_value(v));
	else if (json_is_number(v))
		snprintf(buf, len, "%g", json_number_value(v));
	else
		snprintf(buf, len, "%s",
		         v == NULL ? "missing" : "not a string");
	return (buf);
}

static int
parse_links(struct topo *t, json_t *links, char *err, size_t errlen)
{
	json_t *o, *v;
	size_t  i;
	int32_t u, w;
	double  bw, lat, km;
	int     rv, both;
	char    vb[64];

	if (!json_is_array(links) || json_array_size(links) == 0)
		return (errf(-COLL_ETOPO, err, errlen,
		             "links: expected a non-empty array"));
	json_array_foreach(links, i, o)
	{
		const char *s, *d;

		if (!json_is_object(o))
			return (errf(-COLL_ETOPO, err, errlen,
			             "links[%zu]: expected an object", i));
		v = json_object_get(o, "src");
		s = json_is_string(v) ? json_string_value(v) : "";
		v = json_object_get(o, "dst");
		d = json_is_string(v) ? json_string_value(v) : "";
		if ((u = find_node(t, s)) < 0)
			return (errf(-COLL_ETOPO, err, errlen,
			             "links[%zu].src: \"%.40s\" is not a node",
			             i, s));
		if ((w = find_node(t, d)) < 0)
			return (errf(-COLL_ETOPO, err, errlen,
			             "links[%zu].dst: \"%.40s\" is not a node",
			             i, d));
		if (u == w)
			return (errf(-COLL_ETOPO, err, errlen,
			             "links[%zu]: %s to itself", i, s));
		v = json_object_get(o, "bandwidth");
		if (quantity(v, 1, &bw) != 0 || !(bw > 0))
			return (errf(
			    -COLL_ETOPO, err, errlen,
			    "links[%zu].bandwidth: %s: expected a rate such "
			    "as \"50GBps\" or \"100Gbps\"",
			    i, vtext(v, vb, sizeof(vb))));
		lat = 0;
		v = json_object_get(o, "latency");
		if (v != NULL && (quantity(v, 0, &lat) != 0 || lat > 10))
			return (errf(
			    -COLL_ETOPO, err, errlen,
			    "links[%zu].latency: %s: expected a time up to "
			    "10s such as \"700ns\"",
			    i, vtext(v, vb, sizeof(vb))));
		v = json_object_get(o, "distance_km");
		if (v != NULL) {
			km = json_is_number(v) ? json_number_value(v) : -1;
			if (!(km >= 0 && km <= 40000))
				return (
				    errf(-COLL_ETOPO, err, errlen,
				         "links[%zu].distance_km: expected "
				         "0..40000",
				         i));
			lat += km * TOPO_FIBRE_S_PER_KM;
		}
		v = json_object_get(o, "both");
		if (v != NULL && !json_is_boolean(v))
			return (errf(-COLL_ETOPO, err, errlen,
			             "links[%zu].both: expected true or false",
			             i));
		both = json_is_true(v);
		if ((rv = add_link(t, (uint32_t)u, (uint32_t)w, bw, lat)) !=
		        0 ||
		    (both && (rv = add_link(t, (uint32_t)w, (uint32_t)u, bw,
		                            lat)) != 0))
			return (rv == -COLL_ERANGE
			            ? errf(-COLL_ETOPO, err, errlen,
			                   "links: more than %d",
			                   TOPO_MAX_LINKS)
			            : rv);
	}
	return (0);
}

int
topo_parse(const char *text, size_t len, struct topo *t, char *err,
           size_t errlen)
{
	json_error_t je;
	json_t      *j, *v;
	int          rv;

	memset(t, 0, sizeof(*t));
	if (len > (64u << 20))
		return (errf(-COLL_ETOPO, err, errlen, "larger than 64 MiB"));
	if ((j = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je)) == NULL)
		return (errf(-COLL_ETOPO, err, errlen,
		             "not JSON: %s at line %d column %d", je.text,
		             je.line, je.column));
	if (!json_is_object(j)) {
		json_decref(j);
		return (
		    errf(-COLL_ETOPO, err, errlen, "expected a JSON object"));
	}
	v = json_object_get(j, "name");
	if (v != NULL && !json_is_string(v)) {
		json_decref(j);
		return (
		    errf(-COLL_ETOPO, err, errlen, "name: expected a string"));
	}
	snprintf(t->name, sizeof(t->name), "%s",
	         v ? json_string_value(v) : "topology");
	if ((rv = parse_nodes(t, json_object_get(j, "nodes"), err, errlen)) ==
	        0 &&
	    (rv = parse_links(t, json_object_get(j, "links"), err, errlen)) ==
	        0)
		rv = finish(t, err, errlen);
	json_decref(j);
	if (rv != 0) {
		if (rv == -ENOMEM)
			snprintf(err, errlen, "out of memory");
		topo_free(t);
	}
	return (rv);
}

/* ---- generators ------------------------------------------------------- */

/* "AxBxC" into dims (1..3 of them, each >= 1). */
static int
dims_parse(const char *s, uint32_t *d, int *nd, char sep_end)
{
	char         *end;
	unsigned long v;

	*nd = 0;
	for (;;) {
		if (*s < '0' || *s > '9')
			return (-EINVAL);
		v = strtoul(s, &end, 10);
		if (v < 1 || v > TOPO_MAX_NODES || *nd == 3)
			return (-EINVAL);
		d[(*nd)++] = (uint32_t)v;
		if (*end == sep_end)
			return (0);
		if (*end != 'x')
			return (-EINVAL);
		s = end + 1;
	}
}

/* Grids never repeat a pair: a wrap-around needs a dimension over 2. */
static int
both_ways(struct topo *t, uint32_t u, uint32_t v, double bw, double a)
{
	int rv;

	if ((rv = add_link(t, u, v, bw, a)) != 0)
		return (rv);
	return (add_link(t, v, u, bw, a));
}

/* RATE:TIME at p into bytes/s and s. */
static int
rate_time(const char *kind, const char *spec, const char *p, double *bw,
          double *lat, char *err, size_t errlen)
{
	const char *q = strchr(p, ':');
	char        rate[64], tm[64];

	if (q == NULL || (size_t)(q - p) >= sizeof(rate) ||
	    strlen(q + 1) >= sizeof(tm))
		return (errf(-COLL_ETOPO, err, errlen,
		             "%s: \"%s\": expected RATE:TIME", kind, spec));
	memcpy(rate, p, (size_t)(q - p));
	rate[q - p] = '\0';
	snprintf(tm, sizeof(tm), "%s", q + 1);
	if (unit_parse_rate(rate, bw) != 0)
		return (errf(-COLL_ETOPO, err, errlen,
		             "%s: rate \"%s\": expected e.g. 100Gbps, 25GBps, "
		             "10GiBps",
		             kind, rate));
	if (unit_parse_time(tm, lat) != 0 || *lat > 10)
		return (errf(-COLL_ETOPO, err, errlen,
		             "%s: time \"%s\": expected e.g. 1us, 500ns, 2ms",
		             kind, tm));
	*bw /= 8;
	return (0);
}

/*
 * subring:N:S1[,S2...]:RATE:TIME: the circuit configuration of the OCS
 * All-to-All algorithms (ReTri's subrings, Bridge's strides): node i's
 * transceivers joined to i + S and i - S by duplex circuits, one stride
 * per pair of transceivers.
 */
static int
subring(const char *spec, struct topo *t, char *err, size_t errlen)
{
	uint32_t    n, st[8], ns = 0, i, j, u;
	double      bw, lat;
	const char *p = spec + 8;
	char       *end, nm[16];
	int         rv;

	n = (uint32_t)strtoul(p, &end, 10);
	if (*p < '0' || *p > '9' || *end != ':' || n < 2 || n > TOPO_MAX_NODES)
		return (errf(-COLL_ETOPO, err, errlen,
		             "subring: \"%s\": expected subring:N:S[,S...]:"
		             "RATE:TIME, N 2..%d",
		             spec, TOPO_MAX_NODES));
	for (p = end + 1;;) {
		unsigned long v = strtoul(p, &end, 10);

		if (*p < '0' || *p > '9' || v < 1 || v >= n || ns == 8)
			return (
			    errf(-COLL_ETOPO, err, errlen,
			         "subring: \"%s\": strides 1..N-1, at most 8",
			         spec));
		v = v < n - v ? v : n - v; /* i + S and i - S: one pair */
		for (j = 0; j < ns && st[j] != v; j++)
			;
		if (j == ns)
			st[ns++] = (uint32_t)v;
		p = end + 1;
		if (*end == ':')
			break;
		if (*end != ',')
			return (
			    errf(-COLL_ETOPO, err, errlen,
			         "subring: \"%s\": strides 1..N-1, at most 8",
			         spec));
	}
	if ((rv = rate_time("subring", spec, p, &bw, &lat, err, errlen)) != 0)
		return (rv);
	snprintf(t->name, sizeof(t->name), "%s", spec);
	for (u = 0; u < n; u++) {
		snprintf(nm, sizeof(nm), "g%u", u);
		if ((rv = add_node(t, nm, TOPO_GPU, -1)) != 0)
			goto fail;
	}
	for (j = 0; j < ns; j++)
		for (i = 0; i < n; i++) {
			/* Stride N/2 pairs each node once. */
			if (2 * st[j] == n && i >= n / 2)
				continue;
			if ((rv = both_ways(t, i, (i + st[j]) % n, bw, lat)) !=
			    0)
				goto fail;
		}
	if ((rv = finish(t, err, errlen)) == 0)
		return (0);
fail:
	if (rv == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	else if (rv == -COLL_ERANGE)
		rv = errf(-COLL_ETOPO, err, errlen, "subring: too many links");
	topo_free(t);
	return (rv);
}

int
topo_generate(const char *spec, struct topo *t, char *err, size_t errlen)
{
	const char *kind, *p;
	uint32_t    d[3] = {1, 1, 1}, total, u, c[3];
	double      bw, lat;
	char        nm[16];
	int         nd, k, rv, ring = 0, mesh = 0;

	memset(t, 0, sizeof(*t));
	if (strncmp(spec, "subring:", 8) == 0)
		return (subring(spec, t, err, errlen));
	if (strncmp(spec, "ring:", 5) == 0)
		ring = 1, kind = "ring";
	else if (strncmp(spec, "mesh:", 5) == 0)
		mesh = 1, kind = "mesh";
	else if (strncmp(spec, "torus:", 6) == 0)
		kind = "torus";
	else
		return (errf(-ENOENT, err, errlen,
		             "\"%.100s\": not a generator (ring:, subring:, "
		             "mesh:, torus:)",
		             spec));
	p = strchr(spec, ':') + 1;
	if (dims_parse(p, d, &nd, ':') != 0 || (ring && nd != 1) ||
	    (mesh && nd != 2))
		return (errf(-COLL_ETOPO, err, errlen,
		             "%s: \"%s\": expected %s", kind, spec,
		             ring   ? "ring:N:RATE:TIME"
		             : mesh ? "mesh:RxC:RATE:TIME"
		                    : "torus:AxBxC:RATE:TIME (1 to 3 sizes)"));
	p = strchr(p, ':') + 1;
	if ((rv = rate_time(kind, spec, p, &bw, &lat, err, errlen)) != 0)
		return (rv);
	for (total = 1, k = 0; k < nd; k++)
		total *= d[k];
	if (total < 2 || total > TOPO_MAX_NODES)
		return (errf(-COLL_ETOPO, err, errlen,
		             "%s: %u nodes: expected 2..%d", kind, total,
		             TOPO_MAX_NODES));
	snprintf(t->name, sizeof(t->name), "%s", spec);
	for (u = 0; u < total; u++) {
		snprintf(nm, sizeof(nm), "g%u", u);
		if ((rv = add_node(t, nm, TOPO_GPU, -1)) != 0)
			goto fail;
	}
	for (u = 0; u < total; u++) {
		c[0] = u % d[0];
		c[1] = u / d[0] % d[1];
		c[2] = u / d[0] / d[1];
		for (k = 0; k < nd; k++) {
			uint32_t stride = k == 0   ? 1
			                  : k == 1 ? d[0]
			                           : d[0] * d[1];
			uint32_t nxt;

			if (c[k] + 1 < d[k])
				nxt = u + stride;
			else if (!mesh && d[k] > 2)
				nxt = u - c[k] * stride; /* wrap around */
			else
				continue;
			if ((rv = both_ways(t, u, nxt, bw, lat)) != 0)
				goto fail;
		}
	}
	if ((rv = finish(t, err, errlen)) != 0)
		goto fail;
	return (0);
fail:
	if (rv == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	else if (rv == -COLL_ERANGE)
		errf(-COLL_ETOPO, err, errlen, "%s: too many links", kind);
	topo_free(t);
	return (rv == -COLL_ERANGE ? -COLL_ETOPO : rv);
}

/* ---- shipped files ---------------------------------------------------- */

static const char *const builtins[] = {
    "dgx1",    "dgx2", "amd",  "ndv2:1", "ndv2:2", "ndv2:4", "ndv2:8",
    "ndv2:10", "wan2", "wan3", "wan2p",  "wan3p",  "wan4p",  NULL,
};

const char *
topo_builtin_file(const char *name, char *buf, size_t len)
{
	size_t i;

	for (i = 0; builtins[i] != NULL; i++)
		if (strcmp(builtins[i], name) == 0)
			break;
	if (builtins[i] == NULL)
		return (NULL);
	if (strncmp(name, "ndv2:", 5) == 0)
		snprintf(buf, len, "ndv2-%s.json", name + 5);
	else
		snprintf(buf, len, "%s.json", name);
	return (buf);
}

const char *
topo_builtin_names(void)
{
	return ("dgx1, dgx2, amd, ndv2:1, ndv2:2, ndv2:4, ndv2:8, ndv2:10, "
	        "wan2, wan3, wan2p, wan3p, wan4p");
}

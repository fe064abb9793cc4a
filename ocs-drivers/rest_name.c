/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * CALIENT names: ports (shelf.module.port), the port table that numbers
 * them, connections (A-B, A>B), owners' names, and the query strings and
 * form bodies that carry them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocs-drivers/rest.h"
#include "proto/base/errf.h"

/* A decimal number 1..65535 without sign or leading junk. */
static const char *
num(const char *s, uint32_t *v)
{
	uint32_t x = 0;
	int      k = 0;

	while (*s >= '0' && *s <= '9' && k < 6) {
		x = x * 10 + (uint32_t)(*s++ - '0');
		k++;
	}
	if (k == 0 || k > 5 || x < 1 || x > 65535)
		return (NULL);
	*v = x;
	return (s);
}

int
rest_port_key(const char *s, uint64_t *key)
{
	uint32_t shelf, mod, port, sub;

	if ((s = num(s, &shelf)) == NULL || *s++ != '.' ||
	    (s = num(s, &mod)) == NULL || *s++ != '.' ||
	    (s = num(s, &port)) == NULL)
		return (-REST_EVALUE);
	/* labvault writes 1.1.1/1 for the port a list calls 1.1.1. */
	if (*s == '/' && ((s = num(s + 1, &sub)) == NULL || sub != 1))
		return (-REST_EVALUE);
	if (*s != '\0')
		return (-REST_EVALUE);
	*key =
	    (uint64_t)shelf << 48 | (uint64_t)mod << 32 | (uint64_t)port << 16;
	return (0);
}

void
rest_names_free(struct rest_names *t)
{
	free(t->name);
	free(t->key);
	memset(t, 0, sizeof(*t));
}

static int
names_alloc(struct rest_names *t, size_t n)
{
	memset(t, 0, sizeof(*t));
	t->name = calloc(n ? n : 1, sizeof(*t->name));
	t->key = calloc(n ? n : 1, sizeof(*t->key));
	if (t->name == NULL || t->key == NULL) {
		rest_names_free(t);
		return (-ENOMEM);
	}
	t->n = (uint32_t)n;
	return (0);
}

int
rest_names_default(struct rest_names *t, uint32_t n)
{
	uint32_t p;

	if (names_alloc(t, n) != 0)
		return (-ENOMEM);
	for (p = 1; p <= n; p++) {
		snprintf(t->name[p - 1], REST_NAME_MAX,
		         "1.%" PRIu32 ".%" PRIu32,
		         (p - 1) / REST_PORTS_PER_MODULE + 1,
		         (p - 1) % REST_PORTS_PER_MODULE + 1);
		(void)rest_port_key(t->name[p - 1], &t->key[p - 1]);
	}
	return (0);
}

struct keyed {
	uint64_t    key;
	const char *name;
	size_t      at; /* where the device listed it */
};

static int
by_key(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;

	return (x->key < y->key ? -1 : x->key > y->key);
}

int
rest_names_set(struct rest_names *t, const char (*names)[REST_NAME_MAX],
               size_t n, char *err, size_t errlen)
{
	struct keyed *k;
	size_t        i;

	memset(t, 0, sizeof(*t));
	if (n == 0 || n > REST_PORTS_MAX)
		return (errf(-REST_EVALUE, err, errlen,
		             "%zu ports (expected 1..%d)", n, REST_PORTS_MAX));
	if ((k = calloc(n, sizeof(*k))) == NULL)
		return (-ENOMEM);
	for (i = 0; i < n; i++) {
		k[i].name = names[i];
		k[i].at = i;
		if (memchr(names[i], '\0', REST_NAME_MAX) == NULL ||
		    rest_port_key(names[i], &k[i].key) != 0) {
			free(k);
			return (errf(-REST_EVALUE, err, errlen,
			             "ports[%zu].port: \"%.31s\" is not "
			             "shelf.module.port",
			             i, names[i]));
		}
	}
	qsort(k, n, sizeof(*k), by_key);
	for (i = 1; i < n; i++)
		if (k[i].key == k[i - 1].key) {
			(void)errf(0, err, errlen,
			           "ports[%zu].port: \"%s\" listed twice",
			           k[i].at > k[i - 1].at ? k[i].at
			                                 : k[i - 1].at,
			           k[i].name);
			free(k);
			return (-REST_EVALUE);
		}
	if (names_alloc(t, n) != 0) {
		free(k);
		return (-ENOMEM);
	}
	for (i = 0; i < n; i++) {
		memcpy(t->name[i], k[i].name, REST_NAME_MAX);
		t->key[i] = k[i].key;
	}
	free(k);
	return (0);
}

const char *
rest_port_fmt(const struct rest_names *t, uint32_t p, char *buf, size_t len)
{
	snprintf(buf, len, "%s",
	         t != NULL && p >= 1 && p <= t->n ? t->name[p - 1] : "?");
	return (buf);
}

int
rest_port_parse(const struct rest_names *t, const char *s, uint32_t *p)
{
	uint64_t key;
	uint32_t lo = 0, hi, mid;

	if (t == NULL || rest_port_key(s, &key) != 0)
		return (-REST_EVALUE);
	hi = t->n;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (t->key[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= t->n || t->key[lo] != key)
		return (-REST_EVALUE);
	*p = lo + 1;
	return (0);
}

int
rest_names_lookup(const struct rest_names *t, const char *s, uint32_t *p)
{
	if (t->n == 0)
		return (-ENOTCONN);
	return (rest_port_parse(t, s, p) == 0 ? 0 : -ENOENT);
}

int
rest_names_equal(const struct rest_names *a, const struct rest_names *b)
{
	return (a->n == b->n &&
	        (a->n == 0 ||
	         memcmp(a->key, b->key, a->n * sizeof(*a->key)) == 0));
}

const char *
rest_conn_fmt(const struct rest_names *t, const struct rest_xc *x, char *buf,
              size_t len)
{
	char a[REST_NAME_MAX], b[REST_NAME_MAX];

	snprintf(buf, len, "%s%c%s", rest_port_fmt(t, x->a, a, sizeof(a)),
	         x->bi ? '-' : '>', rest_port_fmt(t, x->b, b, sizeof(b)));
	return (buf);
}

int
rest_conn_parse(const struct rest_names *t, const char *s, struct rest_xc *x)
{
	char        a[REST_NAME_MAX];
	const char *sep = strpbrk(s, "->");

	if (sep == NULL || (size_t)(sep - s) >= sizeof(a))
		return (-REST_EVALUE);
	memcpy(a, s, (size_t)(sep - s));
	a[sep - s] = '\0';
	if (rest_port_parse(t, a, &x->a) != 0 ||
	    rest_port_parse(t, sep + 1, &x->b) != 0)
		return (-REST_EVALUE);
	x->bi = *sep == '-';
	return (x->bi && x->a == x->b ? -REST_EVALUE : 0);
}

int
rest_cname_ok(const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || strchr("_.>/-", s[i])))
			return (0);
	return (i > 0 && i < REST_CONN_MAX);
}

int
rest_ref_parse(const struct rest_names *t, const char *s, struct rest_ref *r)
{
	memset(r, 0, sizeof(*r));
	if (!rest_cname_ok(s))
		return (-REST_EVALUE);
	snprintf(r->text, sizeof(r->text), "%s", s);
	r->named = rest_conn_parse(t, s, &r->x) != 0;
	return (0);
}

/* ---- query strings and forms ---------------------------------------------- */

static int
hex(int c)
{
	if (c >= '0' && c <= '9')
		return (c - '0');
	if (c >= 'a' && c <= 'f')
		return (c - 'a' + 10);
	if (c >= 'A' && c <= 'F')
		return (c - 'A' + 10);
	return (-1);
}

/* key=value pairs in [q, end), separated by & or ;. */
static int
pairs_get(const char *q, const char *end, const char *key, char *buf,
          size_t len)
{
	const char *e;
	size_t      kl = strlen(key), k;

	if (len == 0)
		return (-ENOENT);
	for (; q < end; q = e < end ? e + 1 : e) {
		for (e = q; e < end && *e != '&' && *e != ';'; e++)
			;
		if ((size_t)(e - q) <= kl || strncmp(q, key, kl) != 0 ||
		    q[kl] != '=')
			continue;
		for (q += kl + 1, k = 0; q < e; q++) {
			int c = (unsigned char)*q;

			if (c == '%') {
				int h1, h2;

				if (e - q < 3 || (h1 = hex(q[1])) < 0 ||
				    (h2 = hex(q[2])) < 0 || (h1 | h2) == 0)
					return (-EINVAL);
				c = h1 << 4 | h2;
				q += 2;
			} else if (c == '+')
				c = ' ';
			else if (c == '\0')
				return (-EINVAL);
			if (k + 1 >= len)
				return (-EINVAL);
			buf[k++] = (char)c;
		}
		buf[k] = '\0';
		return (0);
	}
	return (-ENOENT);
}

int
rest_query_get(const char *uri, const char *key, char *buf, size_t len)
{
	const char *q = strchr(uri, '?');

	if (q == NULL)
		return (-ENOENT);
	return (pairs_get(q + 1, q + 1 + strlen(q + 1), key, buf, len));
}

int
rest_form_get(const char *body, size_t blen, const char *key, char *buf,
              size_t len)
{
	if (body == NULL)
		return (-ENOENT);
	return (pairs_get(body, body + blen, key, buf, len));
}

/* ---- patches <-> cross-connects ------------------------------------------ */

size_t
rest_xc_from_map(const uint16_t *map, uint32_t n, struct rest_xc *xc)
{
	size_t   k = 0;
	uint32_t a, b;

	for (a = 1; a <= n; a++) {
		if (map[a] <= n || map[a] > 2 * n)
			continue;
		b = map[a] - n;
		if (b != a && b <= n && map[b] == n + a) {
			if (a < b)
				xc[k++] = (struct rest_xc){a, b, 1};
			continue; /* the pair is listed from its lower port */
		}
		xc[k++] = (struct rest_xc){a, b, 0};
	}
	return (k);
}

int
rest_xc_to_map(const struct rest_xc *x, uint32_t n, uint16_t *map)
{
	uint32_t i;

	if (x->a < 1 || x->a > n || x->b < 1 || x->b > n ||
	    (x->bi && x->a == x->b) || map[x->a] != 0 ||
	    (x->bi && map[x->b] != 0))
		return (-REST_EVALUE);
	for (i = 1; i <= n; i++)
		if (map[i] == n + x->b || (x->bi && map[i] == n + x->a))
			return (-REST_EVALUE);
	map[x->a] = (uint16_t)(n + x->b);
	if (x->bi)
		map[x->b] = (uint16_t)(n + x->a);
	return (0);
}

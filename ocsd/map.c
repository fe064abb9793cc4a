/* SPDX-License-Identifier: BSD-2-Clause */
/* Cross-connect maps: persistence, comparison and batches. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ocsd/map.h"
#include "proto/base/path.h"

int
map_init(struct map *m, uint32_t n)
{
	m->n = n;
	m->out = calloc(n + 1, sizeof(*m->out));
	return (m->out == NULL ? -ENOMEM : 0);
}

void
map_free(struct map *m)
{
	free(m->out);
	m->out = NULL;
	m->n = 0;
}

int
map_copy(struct map *dst, const struct map *src)
{
	uint16_t *o;

	if ((o = malloc((src->n + 1) * sizeof(*o))) == NULL)
		return (-ENOMEM);
	memcpy(o, src->out, (src->n + 1) * sizeof(*o));
	free(dst->out);
	dst->out = o;
	dst->n = src->n;
	return (0);
}

int
map_equal(const struct map *a, const struct map *b)
{
	return (a->n == b->n &&
	        memcmp(a->out + 1, b->out + 1, a->n * sizeof(*a->out)) == 0);
}

uint32_t
map_count(const struct map *m)
{
	uint32_t i, c = 0;

	for (i = 1; i <= m->n; i++)
		c += m->out[i] != 0;
	return (c);
}

uint32_t
map_in_of(const struct map *m, uint32_t out)
{
	uint32_t i;

	for (i = 1; i <= m->n; i++)
		if (m->out[i] == out)
			return (i);
	return (0);
}

int
map_load(const char *path, struct map *m, char *err, size_t errlen)
{
	char     line[128];
	unsigned n = 0, in, out, lineno = 0;
	uint8_t *used = NULL;
	FILE    *f;
	char     extra;

	memset(m, 0, sizeof(*m));
	if ((f = fopen(path, "re")) == NULL) {
		if (errno == ENOENT)
			return (-ENOENT);
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return (-EINVAL);
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (n == 0) {
			if (sscanf(line, "ports %u %c", &n, &extra) != 1 ||
			    n < 1 || n > DRV_MAX_PORTS)
				goto bad;
			if (map_init(m, n) != 0 ||
			    (used = calloc(2 * n + 1, 1)) == NULL) {
				fclose(f);
				map_free(m);
				return (-ENOMEM);
			}
			continue;
		}
		if (sscanf(line, "%u %u %c", &in, &out, &extra) != 2 ||
		    in < 1 || in > n || out <= n || out > 2 * n || used[in] ||
		    used[out])
			goto bad;
		used[in] = used[out] = 1;
		m->out[in] = (uint16_t)out;
	}
	fclose(f);
	free(used);
	if (n == 0) {
		snprintf(err, errlen, "%s: no \"ports N\" line", path);
		return (-EINVAL);
	}
	return (0);
bad:
	snprintf(err, errlen, "%s:%u: bad line \"%.*s\"", path, lineno,
	         (int)strcspn(line, "\n"), line);
	fclose(f);
	free(used);
	map_free(m);
	return (-EINVAL);
}

int
map_save(const char *path, const struct map *m)
{
	char    *buf = NULL;
	size_t   len = 0;
	FILE    *f;
	uint32_t i;
	int      rv;

	if ((f = open_memstream(&buf, &len)) == NULL)
		return (-ENOMEM);
	fprintf(f,
	        "# ocsd desired cross-connect map: ingress egress\n"
	        "ports %u\n",
	        m->n);
	for (i = 1; i <= m->n; i++)
		if (m->out[i])
			fprintf(f, "%u %u\n", i, m->out[i]);
	rv =
	    fclose(f) == 0 ? path_write_atomic(path, buf, len, 0640) : -ENOMEM;
	free(buf);
	return (rv);
}

int
map_batch(const struct map *from, const struct map *to, struct map_batch *mb)
{
	uint32_t i;

	memset(mb, 0, sizeof(*mb));
	if (from->n != to->n)
		return (-EINVAL);
	mb->disc = malloc((from->n + 1) * sizeof(*mb->disc));
	mb->conn = malloc((from->n + 1) * sizeof(*mb->conn));
	if (mb->disc == NULL || mb->conn == NULL) {
		map_batch_free(mb);
		return (-ENOMEM);
	}
	for (i = 1; i <= from->n; i++) {
		/* An unchanged patch is left alone, so its light never blinks;
		 * a moved one is disconnected and connected again (two ops). */
		if (from->out[i] == to->out[i])
			continue;
		if (from->out[i])
			mb->disc[mb->b.ndisconnect++] = (uint16_t)i;
		if (to->out[i]) {
			mb->conn[mb->b.nconnect].in = (uint16_t)i;
			mb->conn[mb->b.nconnect++].out = to->out[i];
		}
	}
	mb->b.disconnect = mb->disc;
	mb->b.connect = mb->conn;
	return (0);
}

void
map_batch_free(struct map_batch *mb)
{
	free(mb->disc);
	free(mb->conn);
	memset(mb, 0, sizeof(*mb));
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocs-web's page files (ocsd/www/), read once at start and served from
 * memory.  Each has an ETag, its content's hash; index.html's links to
 * the others carry it (/app.js?v=HASH) and those URLs are kept by a
 * browser for good ("immutable": a new file is a new URL), so a page
 * opened again costs one request, index.html's (4 KiB from memory).
 * index.html itself is never stored: a stored page may be kept alive in
 * the back/forward cache with its event stream open, and six of those
 * (the connections a browser allows a host) left the next page waiting
 * for a socket for a minute (bench_web).  Anything else asked for is
 * revalidated every time (an ETag, 304 when it matches).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocsd/web.h"
#include "proto/base/log.h"

#define IMMUTABLE "public, max-age=31536000, immutable"

static const struct {
	const char *name, *type;
} files[] = {
    /* Each after the files it links to (app.js names feed.js, the
     * shared feed's worker), index.html last: their links name the
     * others' hashes. */
    {"/feed.js", "text/javascript; charset=utf-8"},
    {"/app.js", "text/javascript; charset=utf-8"},
    {"/style.css", "text/css; charset=utf-8"},
    {"/index.html", "text/html; charset=utf-8"},
};

/* FNV-1a, 64 bits: a validator, not a defence. */
static uint64_t
hash(const char *b, size_t n)
{
	uint64_t h = 14695981039346656037ull;
	size_t   i;

	for (i = 0; i < n; i++) {
		h ^= (unsigned char)b[i];
		h *= 1099511628211ull;
	}
	return (h);
}

/* The whole file (malloc'd, NUL-ended): 0 or -1 said. */
static int
slurp(const char *path, char **out, size_t *len)
{
	FILE *f;
	long  n;

	if ((f = fopen(path, "re")) == NULL) {
		log_warnx("web: %s: %s", path, strerror(errno));
		return (-1);
	}
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0 ||
	    (*out = malloc((size_t)n + 1)) == NULL ||
	    fread(*out, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		log_warnx("web: reading %s failed", path);
		return (-1);
	}
	fclose(f);
	(*out)[n] = '\0';
	*len = (size_t)n;
	return (0);
}

/* Every "NAME" in a's text made "NAME?v=HASH": 0 or -ENOMEM. */
static int
version_link(struct web_asset *a, const struct web_asset *to)
{
	char   from[64], into[96], *p, *nb;
	size_t fl, il;

	snprintf(from, sizeof(from), "\"%s\"", to->name);
	/* etag is "\"HEX\"": the HEX inside. */
	snprintf(into, sizeof(into), "\"%s?v=%.*s\"", to->name,
	         (int)strlen(to->etag) - 2, to->etag + 1);
	fl = strlen(from);
	il = strlen(into);
	while ((p = strstr(a->data, from)) != NULL) {
		size_t at = (size_t)(p - a->data);

		if ((nb = realloc(a->data, a->len + il - fl + 1)) == NULL)
			return (-ENOMEM);
		a->data = nb;
		memmove(nb + at + il, nb + at + fl, a->len - at - fl + 1);
		memcpy(nb + at, into, il);
		a->len += il - fl;
	}
	return (0);
}

int
web_assets_load(struct web *w, const char *dir)
{
	size_t i;
	int    k;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct web_asset *a = &w->assets[i];
		char              path[4200];

		snprintf(path, sizeof(path), "%s%s", dir, files[i].name);
		if (slurp(path, &a->data, &a->len) != 0)
			return (-1);
		w->nassets++;
		a->name = files[i].name;
		a->type = files[i].type;
		for (k = 0; k < w->nassets - 1; k++)
			if (version_link(a, &w->assets[k]) != 0) {
				log_warnx("web: out of memory");
				return (-1);
			}
		snprintf(a->etag, sizeof(a->etag), "\"%016" PRIx64 "\"",
		         hash(a->data, a->len));
	}
	return (0);
}

void
web_assets_free(struct web *w)
{
	while (w->nassets > 0)
		free(w->assets[--w->nassets].data);
}

int
web_asset_route(struct web *w, const struct web_req *r, char **resp,
                size_t *len)
{
	const char *p = strcmp(r->path, "/") == 0 ? "/index.html" : r->path;
	const struct web_asset *a = NULL;
	const char             *cache;
	char                    v[24] = "", extra[64];
	int                     i, fresh;

	for (i = 0; i < w->nassets; i++)
		if (strcmp(p, w->assets[i].name) == 0)
			break;
	if (i == w->nassets)
		return (404);
	a = &w->assets[i];

	/* The versioned URL index.html links to is kept for good; any
	 * other (index.html itself, an old version) is asked again. */
	web_query(r->query, "v", v, sizeof(v));
	fresh = strlen(v) + 2 == strlen(a->etag) &&
	        strncmp(v, a->etag + 1, strlen(v)) == 0;
	cache = fresh                                 ? IMMUTABLE
	        : strcmp(a->name, "/index.html") == 0 ? "no-store"
	                                              : "no-cache";
	snprintf(extra, sizeof(extra), "ETag: %s\r\n", a->etag);
	/* If-None-Match may list several: ours among them is enough. */
	if (r->inm[0] && strstr(r->inm, a->etag) != NULL)
		return (web_response(304, a->type, a->data, a->len,
		                     r->keep_alive, 1, cache, extra, resp,
		                     len) == 0
		            ? 0
		            : 503);
	return (web_response(200, a->type, a->data, a->len, r->keep_alive,
	                     r->head, cache, extra, resp, len) == 0
	            ? 0
	            : 503);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocs-web's HTTP: the request head parsed from bytes (pure, fuzzed:
 * tests/fuzz/fuzz_web_http.c), query parameters, and response heads.
 * Only what a read-only view needs: GET and HEAD, no bodies, HTTP/1.0
 * and 1.1 with keep-alive.  Anything else is an HTTP error, named.
 */
#ifndef OCS_WEB_HTTP_H
#define OCS_WEB_HTTP_H

#include <stddef.h>

#define WEB_HEAD_MAX 8192 /* a request head, request line included */

struct web_req {
	char   method[8];
	char   path[256];  /* decoded, no query; always begins with '/' */
	char   query[512]; /* raw, after '?' */
	char   host[128];
	char   auth[256];   /* the Authorization header's value */
	char   last_id[24]; /* Last-Event-ID (an event stream resumed) */
	char   inm[64];     /* If-None-Match, when short enough to be one of
	                 * ours (longer: "", the whole answer is sent) */
	int    keep_alive;
	int    head; /* HEAD: the head of the GET answer only */
	size_t body; /* Content-Length said (refused when not 0) */
};

/*
 * Parse the head at buf[0..len).  0 with *used (the head's length) when
 * it is whole and acceptable; 1 when more bytes are needed; or the HTTP
 * status to answer with, negated (-400 malformed, -405 a method other than
 * GET/HEAD, -413 a body, -414 a target too long, -431 a head too long or
 * a header too long, -501 a transfer coding, -505 a version other than
 * 1.0/1.1), with one line in why.
 */
int web_parse(const char *buf, size_t len, struct web_req *r, size_t *used,
              char *why, size_t whylen);

/* Parameter key of a query string, %-decoded into out: 0, -ENOENT when
 * absent, -EINVAL when malformed or longer than out. */
int web_query(const char *query, const char *key, char *out, size_t len);

/* The reason phrase of a status ("Not Found"). */
const char *web_reason(int status);

/* A whole response's head into out (status, type, length, the security
 * headers every answer carries, Cache-Control (cache, or "no-store" when
 * NULL), keep-alive or close).  Its length, or 0 when it does not fit. */
size_t web_head(char *out, size_t len, int status, const char *type,
                size_t length, int keep_alive, const char *cache,
                const char *extra);

#endif

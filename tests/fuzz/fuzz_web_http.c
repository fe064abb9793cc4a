/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: ocs-web's HTTP request heads (ocsd/web_http.c), the
 * bytes any local process (or, with --tls, any client that gets past
 * TLS) sends.  Whatever they are: an answer that is whole (0, and then
 * a GET or HEAD of a path beginning with '/', the head inside the
 * bytes and parsed again alone the same), more needed (only under the
 * head's limit), or an HTTP error that says why; the query's
 * parameters decode within their buffer or are refused; a response head
 * is made for it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ocsd/web_http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

static void
check_query(const char *q)
{
	static const char *const keys[] = {"n", "file", ""};
	char                     out[16];
	size_t                   i;
	int                      rv;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		memset(out, 'x', sizeof(out));
		rv = web_query(q, keys[i], out, sizeof(out));
		if (rv == 0 && memchr(out, '\0', sizeof(out)) == NULL)
			abort();
		if (rv != 0 && rv != -ENOENT && rv != -EINVAL)
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct web_req r, r2;
	char           why[200], head[1024];
	size_t         used, used2;
	int            rv, rv2;

	why[0] = '\0';
	rv = web_parse((const char *)data, len, &r, &used, why, sizeof(why));
	if (rv == 1) {
		if (len >= WEB_HEAD_MAX)
			abort();
		return (0);
	}
	if (rv < 0) {
		if (why[0] == '\0' || rv > -400 || rv < -505)
			abort();
		return (0);
	}
	if (rv != 0 || used == 0 || used > len || r.path[0] != '/' ||
	    (strcmp(r.method, "GET") != 0 && strcmp(r.method, "HEAD") != 0) ||
	    r.body != 0)
		abort();
	/* The head alone is the same request. */
	rv2 =
	    web_parse((const char *)data, used, &r2, &used2, why, sizeof(why));
	if (rv2 != 0 || used2 != used || memcmp(&r, &r2, sizeof(r)) != 0)
		abort();
	check_query(r.query);
	/* An answer's head fits its buffer whatever the path (the longest
	 * a type could be here). */
	if (web_head(head, sizeof(head), 200, r.path, strlen(r.query),
	             r.keep_alive, r.inm, r.inm) == 0)
		abort();
	return (0);
}

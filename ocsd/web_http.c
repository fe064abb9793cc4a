/* SPDX-License-Identifier: BSD-2-Clause */
/* ocs-web's HTTP request heads and response heads (see web_http.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ocsd/web_http.h"

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return (c - '0');
	if (c >= 'a' && c <= 'f')
		return (c - 'a' + 10);
	if (c >= 'A' && c <= 'F')
		return (c - 'A' + 10);
	return (-1);
}

/* %-decode s[0..n) into out (plus signs kept as they are, or spaces when
 * plus): 0, or -EINVAL (a bad escape, a NUL, or too long). */
static int
pct_decode(const char *s, size_t n, char *out, size_t len, int plus)
{
	size_t i, o = 0;

	for (i = 0; i < n; i++) {
		char c = s[i];

		if (c == '%') {
			int hi, lo;

			if (i + 2 >= n || (hi = hexval(s[i + 1])) < 0 ||
			    (lo = hexval(s[i + 2])) < 0)
				return (-EINVAL);
			c = (char)(hi << 4 | lo);
			i += 2;
		} else if (c == '+' && plus)
			c = ' ';
		if (c == '\0' || o + 1 >= len)
			return (-EINVAL);
		out[o++] = c;
	}
	out[o] = '\0';
	return (0);
}

/* The request line: METHOD SP TARGET SP HTTP/1.x.  0 or -status. */
static int
request_line(const char *l, size_t n, struct web_req *r, int *minor, char *why,
             size_t whylen)
{
	const char *sp1 = memchr(l, ' ', n), *sp2, *q, *t;
	size_t      tlen;

	if (sp1 == NULL || sp1 == l ||
	    (sp2 = memchr(sp1 + 1, ' ', n - (size_t)(sp1 + 1 - l))) == NULL) {
		snprintf(why, whylen, "malformed request line");
		return (-400);
	}
	if ((size_t)(sp1 - l) >= sizeof(r->method)) {
		snprintf(why, whylen, "method too long");
		return (-405);
	}
	memcpy(r->method, l, (size_t)(sp1 - l));
	r->method[sp1 - l] = '\0';
	if (n - (size_t)(sp2 + 1 - l) != 8 ||
	    memcmp(sp2 + 1, "HTTP/1.", 7) != 0 ||
	    (sp2[8] != '0' && sp2[8] != '1')) {
		snprintf(why, whylen, "not HTTP/1.0 or 1.1");
		return (-505);
	}
	*minor = sp2[8] - '0';
	if (strcmp(r->method, "GET") == 0)
		r->head = 0;
	else if (strcmp(r->method, "HEAD") == 0)
		r->head = 1;
	else {
		snprintf(why, whylen, "method \"%.7s\": only GET and HEAD",
		         r->method);
		return (-405);
	}
	t = sp1 + 1;
	tlen = (size_t)(sp2 - t);
	if (tlen == 0 || t[0] != '/') {
		snprintf(why, whylen, "the target is not a path");
		return (-400);
	}
	q = memchr(t, '?', tlen);
	if (q != NULL) {
		size_t ql = tlen - (size_t)(q + 1 - t);

		if (ql >= sizeof(r->query)) {
			snprintf(why, whylen, "query too long");
			return (-414);
		}
		memcpy(r->query, q + 1, ql);
		r->query[ql] = '\0';
		tlen = (size_t)(q - t);
	}
	if (tlen >= sizeof(r->path)) {
		snprintf(why, whylen, "path too long");
		return (-414);
	}
	if (pct_decode(t, tlen, r->path, sizeof(r->path), 0) != 0) {
		snprintf(why, whylen, "bad %%-escape in the path");
		return (-400);
	}
	return (0);
}

/* One header line name: value into r.  0 or -status. */
static int
header(const char *l, size_t n, struct web_req *r, char *why, size_t whylen)
{
	const char *colon = memchr(l, ':', n), *v, *e;
	size_t      nl, vl;
	char        num[24];
	char       *end;

	if (colon == NULL || colon == l) {
		snprintf(why, whylen, "malformed header line");
		return (-400);
	}
	nl = (size_t)(colon - l);
	if (memchr(l, ' ', nl) || memchr(l, '\t', nl)) {
		snprintf(why, whylen, "space in a header name");
		return (-400);
	}
	v = colon + 1;
	e = l + n;
	while (v < e && (*v == ' ' || *v == '\t'))
		v++;
	while (e > v && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	vl = (size_t)(e - v);
#define IS(h) (nl == sizeof(h) - 1 && strncasecmp(l, h, nl) == 0)
#define COPY(f)                                                               \
	do {                                                                  \
		if (vl >= sizeof(f)) {                                        \
			snprintf(why, whylen, "header %.*s too long",         \
			         (int)nl, l);                                 \
			return (-431);                                        \
		}                                                             \
		memcpy(f, v, vl);                                             \
		f[vl] = '\0';                                                 \
	} while (0)
	if (IS("Host"))
		COPY(r->host);
	else if (IS("Authorization"))
		COPY(r->auth);
	else if (IS("Last-Event-ID"))
		COPY(r->last_id);
	else if (IS("If-None-Match")) {
		/* Only a validator of ours matters: a longer one is none. */
		if (vl < sizeof(r->inm)) {
			memcpy(r->inm, v, vl);
			r->inm[vl] = '\0';
		}
	} else if (IS("Connection")) {
		if (vl == 5 && strncasecmp(v, "close", 5) == 0)
			r->keep_alive = 0;
		else if (vl == 10 && strncasecmp(v, "keep-alive", 10) == 0)
			r->keep_alive = 1;
	} else if (IS("Transfer-Encoding")) {
		snprintf(why, whylen, "a request body (transfer coding)");
		return (-501);
	} else if (IS("Content-Length")) {
		COPY(num);
		r->body = (size_t)strtoull(num, &end, 10);
		if (num[0] < '0' || num[0] > '9' || *end) {
			snprintf(why, whylen, "bad Content-Length");
			return (-400);
		}
		if (r->body > 0) {
			snprintf(why, whylen,
			         "a request body (%zu bytes): nothing here "
			         "takes one",
			         r->body);
			return (-413);
		}
	}
#undef IS
#undef COPY
	return (0);
}

int
web_parse(const char *buf, size_t len, struct web_req *r, size_t *used,
          char *why, size_t whylen)
{
	const char *p = buf, *end = buf + len, *nl;
	int         rv, minor = 1, line = 0;

	memset(r, 0, sizeof(*r));
	*used = 0;
	/* Blank lines before a request are allowed (RFC 9112, 2.2). */
	while (p < end && (*p == '\r' || *p == '\n'))
		p++;
	for (;;) {
		size_t n;

		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL) {
			if (len >= WEB_HEAD_MAX) {
				snprintf(why, whylen,
				         "request head over %d bytes",
				         WEB_HEAD_MAX);
				return (-431);
			}
			return (1);
		}
		n = (size_t)(nl - p);
		if (n > 0 && p[n - 1] == '\r')
			n--;
		if (memchr(p, '\0', n)) {
			snprintf(why, whylen, "a NUL in the request head");
			return (-400);
		}
		if (line == 0) {
			if ((rv = request_line(p, n, r, &minor, why,
			                       whylen)) != 0)
				return (rv);
			r->keep_alive = minor == 1;
		} else if (n == 0) {
			*used = (size_t)(nl + 1 - buf);
			return (0);
		} else if ((rv = header(p, n, r, why, whylen)) != 0)
			return (rv);
		line++;
		p = nl + 1;
		if (line > 100) {
			snprintf(why, whylen, "more than 100 header lines");
			return (-431);
		}
	}
}

int
web_query(const char *query, const char *key, char *out, size_t len)
{
	size_t      kl = strlen(key);
	const char *p = query;

	while (p != NULL && *p) {
		const char *amp = strchr(p, '&');
		size_t      n = amp ? (size_t)(amp - p) : strlen(p);

		if (n > kl && strncmp(p, key, kl) == 0 && p[kl] == '=')
			return (
			    pct_decode(p + kl + 1, n - kl - 1, out, len, 1));
		if (n == kl && strncmp(p, key, kl) == 0)
			return (pct_decode("", 0, out, len, 1));
		p = amp ? amp + 1 : NULL;
	}
	return (-ENOENT);
}

const char *
web_reason(int status)
{
	switch (status) {
	case 200:
		return ("OK");
	case 304:
		return ("Not Modified");
	case 400:
		return ("Bad Request");
	case 401:
		return ("Unauthorized");
	case 403:
		return ("Forbidden");
	case 404:
		return ("Not Found");
	case 405:
		return ("Method Not Allowed");
	case 408:
		return ("Request Timeout");
	case 413:
		return ("Content Too Large");
	case 414:
		return ("URI Too Long");
	case 421:
		return ("Misdirected Request");
	case 431:
		return ("Request Header Fields Too Large");
	case 501:
		return ("Not Implemented");
	case 502:
		return ("Bad Gateway");
	case 503:
		return ("Service Unavailable");
	case 505:
		return ("HTTP Version Not Supported");
	default:
		return ("Error");
	}
}

size_t
web_head(char *out, size_t len, int status, const char *type, size_t length,
         int keep_alive, const char *cache, const char *extra)
{
	int n;

	/* Every answer: no sniffing, no framing, scripts and styles from
	 * here only (the page has no inline script), nothing cached but
	 * what the caller says may be (the page's files). */
	n = snprintf(out, len,
	             "HTTP/1.1 %d %s\r\n"
	             "Content-Type: %s\r\n"
	             "Content-Length: %zu\r\n"
	             "Cache-Control: %s\r\n"
	             "X-Content-Type-Options: nosniff\r\n"
	             "X-Frame-Options: DENY\r\n"
	             "Referrer-Policy: no-referrer\r\n"
	             "Content-Security-Policy: default-src 'self'; "
	             "img-src 'self' data:; frame-ancestors 'none'\r\n"
	             "Connection: %s\r\n"
	             "%s\r\n",
	             status, web_reason(status), type, length,
	             cache ? cache : "no-store",
	             keep_alive ? "keep-alive" : "close", extra ? extra : "");
	return (n > 0 && (size_t)n < len ? (size_t)n : 0);
}

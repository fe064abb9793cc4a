/* SPDX-License-Identifier: BSD-2-Clause */
/* ocsctl's output: text or JSON from one call a field (see ocsctl_out.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocsd/ocsctl_out.h"
#include "proto/base/units.h"

void
out_init(struct out *o, int json, int brief)
{
	memset(o, 0, sizeof(*o));
	o->json = json;
	o->brief = brief;
	if (json && (o->stack[0] = json_object()) != NULL)
		o->depth = 1;
	else if (json)
		o->failed = 1;
}

static int
text_on(const struct out *o, const char *fmt)
{
	return (!o->json && !o->mute && fmt != NULL);
}

/* Put v under key in what is open (an object, or an array when key is
 * NULL); takes v over. */
static void
put(struct out *o, const char *key, json_t *v)
{
	json_t *top;

	if (!o->json || (key == NULL && o->depth == 0)) {
		json_decref(v);
		return;
	}
	if (v == NULL || o->depth == 0) {
		o->failed = 1;
		json_decref(v);
		return;
	}
	top = o->stack[o->depth - 1];
	if (json_is_array(top) ? json_array_append_new(top, v)
	                       : json_object_set_new(top, key ? key : "?", v))
		o->failed = 1;
}

static void
open_(struct out *o, const char *key, json_t *v)
{
	if (!o->json) {
		json_decref(v);
		return;
	}
	if (v == NULL || o->depth == OUT_DEPTH) {
		o->failed = 1;
		json_decref(v);
		return;
	}
	json_incref(v);
	put(o, key, v);
	o->stack[o->depth++] = v;
}

void
out_obj(struct out *o, const char *key)
{
	open_(o, key, o->json ? json_object() : NULL);
}

void
out_arr(struct out *o, const char *key)
{
	open_(o, key, o->json ? json_array() : NULL);
}

void
out_end(struct out *o)
{
	if (o->json && o->depth > 1)
		json_decref(o->stack[--o->depth]);
}

void
out_text(struct out *o, const char *fmt, ...)
{
	va_list ap;

	if (!text_on(o, fmt))
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}

const char *
out_safe(const char *s, char *buf, size_t len)
{
	size_t i, n = 0;

	if (len == 0)
		return ("");
	for (i = 0; s != NULL && s[i] && n + 5 < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c == 0x7f)
			n += (size_t)snprintf(buf + n, len - n, "\\x%02x", c);
		else
			buf[n++] = (char)c;
	}
	buf[n] = '\0';
	return (buf);
}

/* A JSON string of s; bytes that are not UTF-8 become '?' rather than
 * the string being lost. */
static json_t *
jstr(const char *s)
{
	json_t *v;
	char   *c;
	size_t  i;

	if (s == NULL)
		return (json_null());
	if ((v = json_string(s)) != NULL || (c = strdup(s)) == NULL)
		return (v);
	for (i = 0; c[i]; i++)
		if ((unsigned char)c[i] >= 0x80)
			c[i] = '?';
	v = json_string(c);
	free(c);
	return (v);
}

void
out_str(struct out *o, const char *key, const char *fmt, const char *v)
{
	char safe[1024];

	if (text_on(o, fmt))
		printf(fmt, out_safe(v ? v : "-", safe, sizeof(safe)));
	if (key)
		put(o, key, jstr(v));
}

void
out_u64(struct out *o, const char *key, const char *fmt, uint64_t v)
{
	if (text_on(o, fmt))
		printf(fmt, (unsigned long long)v);
	if (key)
		put(o, key, json_integer((json_int_t)v));
}

void
out_dbl(struct out *o, const char *key, const char *fmt, double v)
{
	if (text_on(o, fmt))
		printf(fmt, v);
	if (key)
		put(o, key, json_real(v));
}

void
out_bool(struct out *o, const char *key, const char *fmt, int v,
         const char *yes, const char *no)
{
	if (text_on(o, fmt))
		printf(fmt, v ? yes : no);
	if (key)
		put(o, key, json_boolean(v));
}

void
out_time(struct out *o, const char *key, const char *fmt, double s)
{
	char t[32];

	if (text_on(o, fmt))
		printf(fmt, unit_fmt_time(s, t, sizeof(t)));
	if (key)
		put(o, key, json_real(s));
}

void
out_size(struct out *o, const char *key, const char *fmt, uint64_t b)
{
	char t[32];

	if (text_on(o, fmt))
		printf(fmt, unit_fmt_size(b, t, sizeof(t)));
	if (key)
		put(o, key, json_integer((json_int_t)b));
}

void
out_null(struct out *o, const char *key)
{
	put(o, key, json_null());
}

void
out_json(struct out *o, const char *key, json_t *v)
{
	if (v == NULL) {
		o->failed = o->json;
		return;
	}
	put(o, key, v);
}

int
out_finish(struct out *o)
{
	char *s;

	if (!o->json)
		return (0);
	if (o->failed || o->depth == 0) {
		json_decref(o->stack[0]);
		return (out_error(o, "out of memory"));
	}
	/* -br with -j: the same keys on one line. */
	s = json_dumps(o->stack[0],
	               (o->brief ? JSON_COMPACT : JSON_INDENT(2)) |
	                   JSON_REAL_PRECISION(6));
	json_decref(o->stack[0]);
	o->depth = 0;
	if (s == NULL)
		return (out_error(o, "out of memory"));
	printf("%s\n", s);
	free(s);
	return (0);
}

char *
out_dump(struct out *o, int compact)
{
	char *s = NULL, *nl;

	if (o->json && !o->failed && o->depth > 0)
		s = json_dumps(o->stack[0],
		               (compact ? JSON_COMPACT : JSON_INDENT(2)) |
		                   JSON_REAL_PRECISION(6));
	if (o->json && o->depth > 0)
		json_decref(o->stack[0]);
	o->depth = 0;
	if (s == NULL || (nl = realloc(s, strlen(s) + 2)) == NULL) {
		free(s);
		return (NULL);
	}
	strcat(nl, "\n");
	return (nl);
}

int
out_error(const struct out *o, const char *msg)
{
	json_t *e;
	char   *s, safe[1024];

	if (o != NULL && o->json && (e = json_object()) != NULL) {
		json_object_set_new(e, "error", jstr(msg));
		if ((s = json_dumps(e, JSON_INDENT(2))) != NULL)
			printf("%s\n", s);
		free(s);
		json_decref(e);
		fflush(stdout);
	}
	fprintf(stderr, "ocsctl: %s\n", out_safe(msg, safe, sizeof(safe)));
	return (1);
}

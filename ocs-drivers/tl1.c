/* SPDX-License-Identifier: BSD-2-Clause */
/* The TL1 codec (see tl1.h): framing, commands, AID lists, responses. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocs-drivers/tl1.h"

/* ---- output buffer ------------------------------------------------------ */

static int
buf_room(struct tl1_buf *b, size_t more)
{
	size_t ncap;
	char  *np;

	if (b->len + more + 1 <= b->cap)
		return (0);
	ncap = b->cap ? b->cap : 256;
	while (ncap < b->len + more + 1)
		ncap *= 2;
	if ((np = realloc(b->p, ncap)) == NULL)
		return (-ENOMEM);
	b->p = np;
	b->cap = ncap;
	return (0);
}

int
tl1_buf_put(struct tl1_buf *b, const char *s, size_t n)
{
	if (buf_room(b, n) != 0)
		return (-ENOMEM);
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
	return (0);
}

int
tl1_buf_printf(struct tl1_buf *b, const char *fmt, ...)
{
	va_list ap;
	int     n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || buf_room(b, (size_t)n) != 0)
		return (-ENOMEM);
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return (0);
}

void
tl1_buf_consume(struct tl1_buf *b, size_t n)
{
	if (n >= b->len) {
		b->len = 0;
	} else {
		memmove(b->p, b->p + n, b->len - n);
		b->len -= n;
	}
	if (b->p)
		b->p[b->len] = '\0';
}

void
tl1_buf_free(struct tl1_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* ---- commands ----------------------------------------------------------- */

void
tl1_cmd_free(struct tl1_cmd *c)
{
	free(c->buf);
	memset(c, 0, sizeof(*c));
}

static int
perr(enum tl1_perr *pe, size_t *off, enum tl1_perr what, size_t at)
{
	if (pe)
		*pe = what;
	if (off)
		*off = at;
	return (-EINVAL);
}

/* An unquoted TID is a name: a letter, then letters, digits, - and _. */
static int
tid_ok(const char *t)
{
	size_t i;

	if (t[0] == '\0')
		return (1);
	if (!isalpha((unsigned char)t[0]))
		return (0);
	for (i = 1; t[i]; i++)
		if (!isalnum((unsigned char)t[i]) && t[i] != '-' &&
		    t[i] != '_')
			return (0);
	return (1);
}

int
tl1_cmd_parse(const char *s, size_t len, int flags, struct tl1_cmd *c,
              enum tl1_perr *pe, size_t *off)
{
	char  *f[4 + TL1_MAX_BLKS];
	size_t fo[4 + TL1_MAX_BLKS];
	size_t i, nf = 0;
	int    q = 0;
	char  *p;

	memset(c, 0, sizeof(*c));
	if (len > TL1_MAX_CMD)
		return (perr(pe, off, TL1_PERR_SYNTAX, TL1_MAX_CMD));
	if ((c->buf = malloc(len + 1)) == NULL)
		return (-ENOMEM);
	memcpy(c->buf, s, len);
	c->buf[len] = '\0';
	p = c->buf;
	/* Offsets are reported from the first non-blank byte. */
	while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
		p++;
	len = strlen(p);
	while (len > 0 && strchr(" \t\r\n;", p[len - 1]))
		p[--len] = '\0';
	f[nf] = p;
	fo[nf++] = 0;
	for (i = 0; i < len; i++) {
		if (p[i] == '"') {
			q = !q;
		} else if (q && p[i] == '\\' && p[i + 1] != '\0') {
			i++;
		} else if (!q && p[i] == ':') {
			if (nf == 4 + TL1_MAX_BLKS)
				return (perr(pe, off, TL1_PERR_SYNTAX, i));
			p[i] = '\0';
			f[nf] = p + i + 1;
			fo[nf++] = i + 1;
		}
	}
	if (q)
		return (perr(pe, off, TL1_PERR_SYNTAX, len));
	/* Verb: letters, digits and dashes. */
	if (f[0][0] == '\0' || strlen(f[0]) >= sizeof(c->verb))
		return (perr(pe, off, TL1_PERR_VERB, 0));
	for (i = 0; f[0][i]; i++) {
		if (!isalnum((unsigned char)f[0][i]) && f[0][i] != '-')
			return (perr(pe, off, TL1_PERR_VERB, i));
		c->verb[i] = (char)toupper((unsigned char)f[0][i]);
	}
	c->verb[i] = '\0';
	/* A dialect without a required CTAG (CALIENT's "RTRV-NE;") has
	 * its missing fields empty. */
	if (nf < 4 && !(flags & TL1_PARSE_CTAG_OPTIONAL))
		return (perr(pe, off, TL1_PERR_CTAG, len + 1));
	while (nf < 4) {
		f[nf] = p + len;
		fo[nf++] = len;
	}
	/* TID, possibly quoted (then anything); else a name. */
	if (f[1][0] == '"') {
		size_t tl = strlen(f[1]);

		if (tl < 2 || f[1][tl - 1] != '"')
			return (perr(pe, off, TL1_PERR_TID, fo[1]));
		f[1][tl - 1] = '\0';
		f[1]++;
	} else if (!tid_ok(f[1]))
		return (perr(pe, off, TL1_PERR_TID, fo[1]));
	c->tid = f[1];
	c->aid = f[2];
	/* CTAG: required (unless optional, then "0"), short, alnum; or
	 * quoted (kept with its quotes: the reply carries it back). */
	if (f[3][0] == '\0' && (flags & TL1_PARSE_CTAG_OPTIONAL))
		f[3] = "0";
	if (f[3][0] == '"') {
		size_t tl = strlen(f[3]);

		if (tl < 3 || tl > TL1_MAX_QTAG + 2 || f[3][tl - 1] != '"')
			return (perr(pe, off, TL1_PERR_CTAG, fo[3]));
		for (i = 1; i + 1 < tl; i++)
			if (!isprint((unsigned char)f[3][i]) ||
			    f[3][i] == '"' || f[3][i] == '\\')
				return (
				    perr(pe, off, TL1_PERR_CTAG, fo[3] + i));
	} else if (f[3][0] == '\0' || strlen(f[3]) > 10)
		return (perr(pe, off, TL1_PERR_CTAG, fo[3]));
	for (i = 0; f[3][0] != '"' && f[3][i]; i++)
		if (!isalnum((unsigned char)f[3][i]))
			return (perr(pe, off, TL1_PERR_CTAG, fo[3] + i));
	c->ctag = f[3];
	for (i = 4; i < nf; i++)
		c->blk[c->nblk++] = f[i];
	return (0);
}

int
tl1_cmd_fmt(struct tl1_buf *b, const char *verb, const char *tid,
            const char *aid, uint32_t ctag, const char *rest)
{
	return (tl1_buf_printf(b, "%s:%s:%s:%u%s;\r\n", verb, tid ? tid : "",
	                       aid ? aid : "", ctag, rest ? rest : ""));
}

/* ---- AID lists ---------------------------------------------------------- */

static int
parse_port(const char *s, size_t n, uint32_t *v)
{
	uint64_t x = 0;
	size_t   i;

	if (n == 0 || n > 10)
		return (-EINVAL);
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return (-EINVAL);
		x = x * 10 + (uint64_t)(s[i] - '0');
	}
	if (x > UINT32_MAX)
		return (-EINVAL);
	*v = (uint32_t)x;
	return (0);
}

static ssize_t
bad_token(const char *s, size_t n, char *badbuf, size_t badlen)
{
	if (badbuf && badlen)
		snprintf(badbuf, badlen, "%.*s", (int)n, s);
	return (-EINVAL);
}

ssize_t
tl1_aid_parse(const char *s, uint32_t *ports, size_t cap, char *badbuf,
              size_t badlen)
{
	size_t   n = 0, tl;
	uint32_t a, b, v;

	if (*s == '\0')
		return (0);
	for (;;) {
		tl = strcspn(s, "&");
		if (parse_port(s, tl, &a) != 0)
			return (bad_token(s, tl, badbuf, badlen));
		s += tl;
		b = a;
		if (s[0] == '&' && s[1] == '&') {
			s += 2;
			tl = strcspn(s, "&");
			if (parse_port(s, tl, &b) != 0)
				return (bad_token(s, tl, badbuf, badlen));
			if (b < a)
				return (bad_token(s, tl, badbuf, badlen));
			s += tl;
		}
		for (v = a;; v++) {
			if (n == cap)
				return (-E2BIG);
			ports[n++] = v;
			if (v == b)
				break;
		}
		if (*s == '\0')
			return ((ssize_t)n);
		s++; /* '&' */
		if (*s == '\0' || *s == '&')
			return (bad_token(s, 0, badbuf, badlen));
	}
}

int
tl1_aid_fmt(struct tl1_buf *b, const uint16_t *ports, size_t n)
{
	size_t i = 0, j;
	int    rv = 0;

	while (i < n && rv == 0) {
		for (j = i; j + 1 < n && ports[j + 1] == ports[j] + 1; j++)
			;
		if (j - i >= 2) {
			rv = tl1_buf_printf(b, "%s%u&&%u", i ? "&" : "",
			                    ports[i], ports[j]);
			i = j + 1;
		} else {
			rv = tl1_buf_printf(b, "%s%u", i ? "&" : "", ports[i]);
			i++;
		}
	}
	return (rv);
}

static int
cmp_patch(const void *a, const void *b)
{
	const struct drv_patch *x = a, *y = b;

	return ((int)x->in - (int)y->in);
}

int
tl1_aid_fmt_patches(struct tl1_buf *b, const struct drv_patch *p, size_t n)
{
	struct drv_patch *s;
	uint16_t         *in, *out;
	size_t            i, k = 0;
	int               rv, side;

	s = malloc((n ? n : 1) * sizeof(*s));
	in = malloc((n ? n : 1) * sizeof(*in));
	out = malloc((n ? n : 1) * sizeof(*out));
	if (s == NULL || in == NULL || out == NULL) {
		rv = -ENOMEM;
		goto done;
	}
	memcpy(s, p, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_patch);
	for (i = 0; i < n; i++) {
		in[k] = s[i].in;
		out[k++] = s[i].out;
	}
	/*
	 * Emit each list; a run is compressed on both sides only where both
	 * step by one, so positions keep pairing up: split the patches into
	 * such runs and print them run by run on each side.
	 */
	rv = 0;
	for (side = 0; side < 2 && rv == 0; side++) {
		const uint16_t *v = side ? out : in;

		if (side)
			rv = tl1_buf_put(b, ",", 1);
		for (i = 0; i < k && rv == 0;) {
			size_t j = i;

			while (j + 1 < k && in[j + 1] == in[j] + 1 &&
			       out[j + 1] == out[j] + 1)
				j++;
			if (j - i >= 2) {
				rv = tl1_buf_printf(b, "%s%u&&%u",
				                    i ? "&" : "", v[i], v[j]);
				i = j + 1;
			} else {
				rv = tl1_buf_printf(b, "%s%u", i ? "&" : "",
				                    v[i]);
				i++;
			}
		}
	}
done:
	free(s);
	free(in);
	free(out);
	return (rv);
}

/* ---- responses ---------------------------------------------------------- */

const char *
tl1_status_name(enum tl1_status st)
{
	switch (st) {
	case TL1_COMPLD:
		return ("COMPLD");
	case TL1_DENY:
		return ("DENY");
	case TL1_PRTL:
		return ("PRTL");
	case TL1_DELAY:
		return ("DELAY");
	case TL1_RTRV:
		return ("RTRV");
	}
	return ("?");
}

void
tl1_resp_free(struct tl1_resp *r)
{
	size_t i;

	for (i = 0; i < r->nlines; i++)
		free(r->lines[i]);
	free(r->lines);
	memset(r, 0, sizeof(*r));
}

static int
add_line(struct tl1_resp *r, const char *s, size_t n)
{
	char **nl;
	char  *l;

	if (r->nlines == TL1_MAX_LINES)
		return (-EMSGSIZE);
	if ((r->nlines & (r->nlines - 1)) == 0) { /* 0, 1, 2, 4, ... */
		nl = realloc(r->lines,
		             (r->nlines ? 2 * r->nlines : 1) * sizeof(*nl));
		if (nl == NULL)
			return (-ENOMEM);
		r->lines = nl;
	}
	if ((l = malloc(n + 1)) == NULL)
		return (-ENOMEM);
	memcpy(l, s, n);
	l[n] = '\0';
	r->lines[r->nlines++] = l;
	return (0);
}

/* The next line of buf from *pos: [*ls, *le) without CR/LF; 0 if no
 * complete line yet. */
static int
next_line(const char *buf, size_t len, size_t *pos, size_t *ls, size_t *le)
{
	const char *nl = memchr(buf + *pos, '\n', len - *pos);
	size_t      e;

	if (nl == NULL)
		return (0);
	*ls = *pos;
	e = (size_t)(nl - buf);
	*pos = e + 1;
	while (e > *ls && (buf[e - 1] == '\r' || buf[e - 1] == ' '))
		e--;
	*le = e;
	return (1);
}

static int
is_date(const char *s, size_t n)
{
	return (n == 8 && isdigit((unsigned char)s[0]) &&
	        isdigit((unsigned char)s[1]) && s[2] == '-' &&
	        isdigit((unsigned char)s[3]) && isdigit((unsigned char)s[4]) &&
	        s[5] == '-' && isdigit((unsigned char)s[6]) &&
	        isdigit((unsigned char)s[7]));
}

static int
is_time(const char *s, size_t n)
{
	return (n == 8 && isdigit((unsigned char)s[0]) &&
	        isdigit((unsigned char)s[1]) && s[2] == ':' &&
	        isdigit((unsigned char)s[3]) && isdigit((unsigned char)s[4]) &&
	        s[5] == ':' && isdigit((unsigned char)s[6]) &&
	        isdigit((unsigned char)s[7]));
}

/* "   SID YY-MM-DD HH:MM:SS": the SID may contain blanks ("( nil )"). */
static int
parse_header(const char *s, size_t n, struct tl1_resp *r)
{
	size_t b = 0, e = n;

	if (n == 0 || (s[0] != ' ' && s[0] != '\t'))
		return (-EPROTO);
	while (b < e && (s[b] == ' ' || s[b] == '\t'))
		b++;
	if (e - b < 17 || !is_time(s + e - 8, 8) || s[e - 9] != ' ' ||
	    !is_date(s + e - 17, 8))
		return (-EPROTO);
	memcpy(r->time, s + e - 8, 8);
	memcpy(r->date, s + e - 17, 8);
	e -= 17;
	while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t'))
		e--;
	if (e - b >= sizeof(r->sid))
		return (-EPROTO);
	memcpy(r->sid, s + b, e - b);
	r->sid[e - b] = '\0';
	return (0);
}

/* Split "tok1 tok2 rest" at blanks. */
static size_t
token(const char *s, size_t n, size_t *p, size_t *ts)
{
	while (*p < n && s[*p] == ' ')
		(*p)++;
	*ts = *p;
	while (*p < n && s[*p] != ' ')
		(*p)++;
	return (*p - *ts);
}

static int
copy_tok(char *dst, size_t cap, const char *s, size_t n)
{
	size_t i;

	if (n == 0 || n >= cap)
		return (-EPROTO);
	for (i = 0; i < n; i++)
		if (!isgraph((unsigned char)s[i]))
			return (-EPROTO);
	memcpy(dst, s, n);
	dst[n] = '\0';
	return (0);
}

/* TAGs (CTAG, ATAG) are short alphanumeric strings. */
static int
copy_tag(char *dst, size_t cap, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]))
			return (-EPROTO);
	return (copy_tok(dst, cap, s, n));
}

static int
parse_ident(const char *s, size_t n, struct tl1_resp *r)
{
	static const char *const alarms[] = {"*C", "**", "*^", "A^", "A"};
	size_t                   p = 0, ts, tl, i;

	tl = token(s, n, &p, &ts);
	if (tl == 1 && s[ts] == 'M') {
		r->kind = TL1_RESP;
		while (p < n && s[p] == ' ')
			p++;
		if (p < n && s[p] == '"') {
			/* A quoted CTAG comes back as it was sent; the tag
			 * is what is inside. */
			const char *q = memchr(s + p + 1, '"', n - p - 1);

			tl = q ? (size_t)(q - (s + p + 1)) : 0;
			if (tl == 0 || tl >= sizeof(r->tag))
				return (-EPROTO);
			memcpy(r->tag, s + p + 1, tl);
			r->tag[tl] = '\0';
			p += tl + 2;
		} else {
			tl = token(s, n, &p, &ts);
			if (copy_tag(r->tag, sizeof(r->tag), s + ts, tl) != 0)
				return (-EPROTO);
		}
		tl = token(s, n, &p, &ts);
		if (tl == 6 && memcmp(s + ts, "COMPLD", 6) == 0)
			r->status = TL1_COMPLD;
		else if (tl == 4 && memcmp(s + ts, "DENY", 4) == 0)
			r->status = TL1_DENY;
		else if (tl == 4 && memcmp(s + ts, "PRTL", 4) == 0)
			r->status = TL1_PRTL;
		else if (tl == 5 && memcmp(s + ts, "DELAY", 5) == 0)
			r->status = TL1_DELAY;
		else if (tl == 4 && memcmp(s + ts, "RTRV", 4) == 0)
			r->status = TL1_RTRV;
		else
			return (-EPROTO);
		return (0);
	}
	for (i = 0; i < sizeof(alarms) / sizeof(alarms[0]); i++) {
		if (tl == strlen(alarms[i]) &&
		    memcmp(s + ts, alarms[i], tl) == 0)
			break;
	}
	if (i == sizeof(alarms) / sizeof(alarms[0]))
		return (-EPROTO);
	r->kind = TL1_AUTO;
	memcpy(r->alarm, s + ts, tl);
	tl = token(s, n, &p, &ts);
	if (copy_tag(r->tag, sizeof(r->tag), s + ts, tl) != 0)
		return (-EPROTO);
	while (p < n && s[p] == ' ')
		p++;
	if (n - p >= sizeof(r->verb) || n == p)
		return (-EPROTO);
	memcpy(r->verb, s + p, n - p);
	r->verb[n - p] = '\0';
	return (0);
}

/* A quoted data line: strip the outer quotes and unescape \" and \\. */
static int
add_quoted(struct tl1_resp *r, const char *s, size_t n)
{
	char  *tmp;
	size_t i, k = 0;
	int    rv;

	if (n < 2 || s[n - 1] != '"')
		return (add_line(r, s, n)); /* unterminated: keep as is */
	if ((tmp = malloc(n)) == NULL)
		return (-ENOMEM);
	for (i = 1; i + 1 < n; i++) {
		if (s[i] == '\\' && i + 2 < n)
			i++;
		tmp[k++] = s[i];
	}
	rv = add_line(r, tmp, k);
	free(tmp);
	return (rv);
}

static ssize_t
parse_ack(const char *buf, size_t len, size_t p, struct tl1_resp *r)
{
	size_t ls, le, q, ts, tl;

	if (!next_line(buf, len, &p, &ls, &le))
		return (len - p > 64 ? -EPROTO : 0);
	q = ls;
	tl = token(buf, le, &q, &ts);
	if (tl != 2 || copy_tok(r->ack, sizeof(r->ack), buf + ts, tl) != 0)
		return (-EPROTO);
	if (strcmp(r->ack, "IP") && strcmp(r->ack, "OK") &&
	    strcmp(r->ack, "RL") && strcmp(r->ack, "NA") &&
	    strcmp(r->ack, "NG") && strcmp(r->ack, "PF"))
		return (-EPROTO);
	tl = token(buf, le, &q, &ts);
	if (copy_tag(r->tag, sizeof(r->tag), buf + ts, tl) != 0)
		return (-EPROTO);
	if (p >= len)
		return (0);
	if (buf[p] != '<')
		return (-EPROTO);
	r->kind = TL1_ACK;
	return ((ssize_t)p + 1);
}

ssize_t
tl1_resp_parse(const char *buf, size_t len, struct tl1_resp *r)
{
	size_t  p = 0, ls, le;
	ssize_t rv;

	memset(r, 0, sizeof(*r));
	while (p < len && (buf[p] == '\r' || buf[p] == '\n'))
		p++;
	if (p == len)
		return (0);
	if (isupper((unsigned char)buf[p])) {
		if ((rv = parse_ack(buf, len, p, r)) <= 0)
			tl1_resp_free(r);
		return (rv);
	}
	if (!next_line(buf, len, &p, &ls, &le))
		return (len > TL1_MAX_MSG ? -EMSGSIZE : 0);
	if (memchr(buf + ls, '\0', le - ls) != NULL ||
	    parse_header(buf + ls, le - ls, r) != 0)
		return (-EPROTO);
	if (!next_line(buf, len, &p, &ls, &le))
		return (len > TL1_MAX_MSG ? -EMSGSIZE : 0);
	if (parse_ident(buf + ls, le - ls, r) != 0)
		return (-EPROTO);
	for (;;) {
		while (p < len && (buf[p] == ' ' || buf[p] == '\t'))
			p++;
		if (p == len)
			break;
		if (buf[p] == ';' || buf[p] == '>') {
			r->more = buf[p] == '>';
			return ((ssize_t)p + 1);
		}
		if (!next_line(buf, len, &p, &ls, &le))
			break;
		if (le == ls)
			continue;
		if (memchr(buf + ls, '\0', le - ls) != NULL) {
			tl1_resp_free(r);
			return (-EPROTO); /* TL1 is text */
		}
		if (buf[ls] == '"') {
			rv = add_quoted(r, buf + ls, le - ls);
		} else if (le - ls >= 2 && buf[ls] == '/' &&
		           buf[ls + 1] == '*') {
			size_t cs = ls + 2, ce = le;

			if (ce - cs >= 2 && buf[ce - 2] == '*' &&
			    buf[ce - 1] == '/')
				ce -= 2;
			while (cs < ce && buf[cs] == ' ')
				cs++;
			while (ce > cs && buf[ce - 1] == ' ')
				ce--;
			if (r->comment[0] == '\0')
				snprintf(r->comment, sizeof(r->comment),
				         "%.*s", (int)(ce - cs), buf + cs);
			rv = 0;
		} else if (r->kind == TL1_RESP && r->status == TL1_DENY &&
		           r->code[0] == '\0') {
			size_t q = ls, ts, tl = token(buf, le, &q, &ts);

			rv = copy_tok(r->code, sizeof(r->code), buf + ts, tl);
		} else {
			rv = add_line(r, buf + ls, le - ls);
		}
		if (rv != 0) {
			tl1_resp_free(r);
			return (rv);
		}
	}
	tl1_resp_free(r);
	return (len > TL1_MAX_MSG ? -EMSGSIZE : 0);
}

void
tl1_resp_errtext(const struct tl1_resp *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", r->code[0] ? r->code : "DENY",
	         r->comment[0] ? " " : "", r->comment);
}

static int
fmt_head(struct tl1_buf *b, const char *sid, time_t when)
{
	struct tm tm;
	char      ts[32];

	localtime_r(&when, &tm);
	/* GR-831 dates have two-digit years. */
	snprintf(ts, sizeof(ts), "%02d-%02d-%02d %02d:%02d:%02d",
	         tm.tm_year % 100, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
	         tm.tm_min, tm.tm_sec);
	return (tl1_buf_printf(b, "\r\n\n   %s %s\r\n", sid, ts));
}

static int
fmt_quoted(struct tl1_buf *b, const char *s)
{
	int rv = tl1_buf_put(b, "   \"", 4);

	for (; rv == 0 && *s; s++) {
		if (*s == '"' || *s == '\\')
			rv = tl1_buf_put(b, "\\", 1);
		if (rv == 0)
			rv = tl1_buf_put(b, s, 1);
	}
	return (rv ? rv : tl1_buf_put(b, "\"\r\n", 3));
}

int
tl1_resp_fmt(struct tl1_buf *b, const char *sid, time_t when, const char *ctag,
             enum tl1_status st, const char *code, const char *comment,
             char *const *lines, size_t nlines, size_t block_bytes)
{
	size_t i = 0, used;
	int    rv;

	do {
		if ((rv = fmt_head(b, sid, when)) != 0 ||
		    (rv = tl1_buf_printf(b, "M  %s %s\r\n", ctag,
		                         tl1_status_name(st))) != 0)
			return (rv);
		if (code && (rv = tl1_buf_printf(b, "   %s\r\n", code)) != 0)
			return (rv);
		for (used = 0; i < nlines; i++) {
			if (block_bytes && used > 0 &&
			    used + strlen(lines[i]) > block_bytes)
				break;
			used += strlen(lines[i]) + 7;
			if (lines[i][0] == TL1_LINE_RAW)
				rv = tl1_buf_printf(b, "   %s\r\n",
				                    lines[i] + 1);
			else
				rv = fmt_quoted(b, lines[i]);
			if (rv != 0)
				return (rv);
		}
		if (i == nlines && comment &&
		    (rv = tl1_buf_printf(b, "   /* %s */\r\n", comment)) != 0)
			return (rv);
		if ((rv = tl1_buf_put(b, i < nlines ? ">" : ";", 1)) != 0)
			return (rv);
		code = NULL;
	} while (i < nlines);
	return (0);
}

int
tl1_auto_fmt(struct tl1_buf *b, const char *sid, time_t when,
             const char *alarm, uint32_t atag, const char *verb,
             const char *line)
{
	int rv;

	if ((rv = fmt_head(b, sid, when)) != 0 ||
	    (rv = tl1_buf_printf(b, "%-2s %u %s\r\n", alarm, atag, verb)) !=
	        0 ||
	    (line && (rv = fmt_quoted(b, line)) != 0))
		return (rv);
	return (tl1_buf_put(b, ";", 1));
}

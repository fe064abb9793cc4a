/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the NETCONF face refuses before libyang sees it.  libyang 2.1.30
 * (Debian 12's) dereferences a null namespace when two sibling elements
 * of the same name are in no namespace, which an empty namespace
 * declaration (xmlns="" or xmlns:p="") makes: a client could crash the
 * switch with <filter><a xmlns=""><b/><b/></a></filter>.  No NETCONF
 * element is in no namespace, so a session that declares one is closed.
 * A scan of the bytes as they come, across reads; not an XML parser.
 */
#include <string.h>

#include "testbed/ocs-emu/emu_nc.h"

enum {
	G_IDLE,
	G_NAME_END = 5, /* after "xmlns" (states 1..5 are its letters) */
	G_PREFIX,       /* "xmlns:" and a prefix */
	G_BLANK,        /* blanks before '=' */
	G_EQ,           /* '=' and blanks after it */
	G_QUOTE,        /* the opening quote */
};

static int
blank(char c)
{
	return (c == ' ' || c == '\t' || c == '\r' || c == '\n');
}

/* The state after c from state st (g->q holds the opening quote). */
static int
step(struct emu_nc_guard *g, int st, char c)
{
	static const char xmlns[] = "xmlns";

	if (st < G_NAME_END && c == xmlns[st])
		return (st + 1);
	switch (st) {
	case G_NAME_END:
		if (c == ':')
			return (G_PREFIX);
		return (blank(c) ? G_BLANK : c == '=' ? G_EQ : -1);
	case G_PREFIX:
		if (c == '=')
			return (G_EQ);
		if (blank(c))
			return (G_BLANK);
		return (strchr("<>/\"'", c) ? -1 : G_PREFIX);
	case G_BLANK:
		return (blank(c) ? G_BLANK : c == '=' ? G_EQ : -1);
	case G_EQ:
		if (blank(c))
			return (G_EQ);
		if (c == '"' || c == '\'') {
			g->q = c;
			return (G_QUOTE);
		}
		return (-1);
	case G_QUOTE:
		return (c == g->q ? 100 : -1);
	}
	return (-1);
}

int
emu_nc_guard(void *state, const void *buf, size_t len)
{
	struct emu_nc_guard *g = state;
	const char          *p = buf;
	size_t               i;
	int                  st;

	if (g->seen)
		return (1);
	for (i = 0; i < len; i++) {
		st = step(g, g->st, p[i]);
		if (st == 100)
			return (g->seen = 1);
		/* A miss may start the next "xmlns". */
		g->st = st >= 0 ? (unsigned char)st : p[i] == 'x' ? 1 : G_IDLE;
	}
	return (0);
}

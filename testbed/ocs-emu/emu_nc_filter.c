/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * RFC 6241 section 6, subtree filtering, on libyang trees: the filter's
 * nodes (parsed by libyang inside <filter>, as data nodes where the
 * schema knows them and opaque ones where it does not, e.g. an empty
 * <egress/>) select from the switch's data.  A filter node is a
 * content-match node (a value, no children), a selection node (neither)
 * or a containment node (children).  Pure: no I/O, no locks.
 */
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "testbed/ocs-emu/emu_nc.h"

enum fkind { F_CONTENT, F_SELECT, F_CONTAIN };

static const char *
ns_of(const struct lyd_node *n)
{
	const struct lyd_node_opaq *o = (const struct lyd_node_opaq *)n;

	if (n->schema != NULL)
		return (n->schema->module->ns);
	return (o->name.module_ns ? o->name.module_ns : "");
}

static const struct lyd_node *
kids(const struct lyd_node *n)
{
	if (n->schema == NULL)
		return (((const struct lyd_node_opaq *)n)->child);
	return (lyd_child(n));
}

/* A value without the blanks around it: its start, its length in *len. */
static const char *
trimmed(const struct lyd_node *n, size_t *len)
{
	const char *v = lyd_get_value(n);
	size_t      l;

	if (v == NULL)
		v = "";
	while (isspace((unsigned char)*v))
		v++;
	l = strlen(v);
	while (l > 0 && isspace((unsigned char)v[l - 1]))
		l--;
	*len = l;
	return (v);
}

static enum fkind
kind(const struct lyd_node *f)
{
	size_t l;

	if (kids(f) != NULL)
		return (F_CONTAIN);
	trimmed(f, &l);
	return (l ? F_CONTENT : F_SELECT);
}

static int
same(const struct lyd_node *d, const struct lyd_node *f)
{
	return (strcmp(LYD_NAME(d), LYD_NAME(f)) == 0 &&
	        strcmp(ns_of(d), ns_of(f)) == 0);
}

static int
value_eq(const struct lyd_node *d, const struct lyd_node *f)
{
	const char *dv = lyd_get_value(d), *fv;
	size_t      fl;

	fv = trimmed(f, &fl);
	return (dv != NULL && strlen(dv) == fl && strncmp(dv, fv, fl) == 0);
}

/* Every content-match node among fs has a child of d that equals it. */
static int
content_ok(const struct lyd_node *d, const struct lyd_node *fs)
{
	const struct lyd_node *f, *c;

	LY_LIST_FOR(fs, f)
	{
		int hit = 0;

		if (kind(f) != F_CONTENT)
			continue;
		LY_LIST_FOR(kids(d), c)
		hit |= same(c, f) && value_eq(c, f);
		if (!hit)
			return (0);
	}
	return (1);
}

static int
only_content(const struct lyd_node *fs)
{
	const struct lyd_node *f;

	LY_LIST_FOR(fs, f)
	if (kind(f) != F_CONTENT)
		return (0);
	return (1);
}

static int
put(const struct lyd_node *d, struct lyd_node *parent, uint32_t opts,
    struct lyd_node **first, struct lyd_node **dup)
{
	struct lyd_node *n;

	if (lyd_dup_single(d, (struct lyd_node_inner *)parent,
	                   opts | LYD_DUP_NO_META, &n) != LY_SUCCESS)
		return (-ENOMEM);
	if (parent == NULL && lyd_insert_sibling(*first, n, first))
		return (-ENOMEM);
	if (dup)
		*dup = n;
	return (0);
}

static int select_in(const struct lyd_node *d, const struct lyd_node *fs,
                     struct lyd_node *parent, struct lyd_node **first);

/* Child c of a selected node, against the filter nodes fs beside it: the
 * first one naming it decides. */
static int
one_child(const struct lyd_node *c, const struct lyd_node *fs,
          struct lyd_node *parent)
{
	const struct lyd_node *f;
	int                    rv;

	LY_LIST_FOR(fs, f)
	{
		if (!same(c, f))
			continue;
		switch (kind(f)) {
		case F_CONTENT: /* a matched leaf is part of the answer */
			if (!value_eq(c, f))
				continue;
			return (put(c, parent, LYD_DUP_RECURSIVE, NULL, NULL));
		case F_SELECT:
			return (put(c, parent, LYD_DUP_RECURSIVE, NULL, NULL));
		case F_CONTAIN:
			if ((rv = select_in(c, kids(f), parent, NULL)) != 0)
				return (rv < 0 ? rv : 0);
		}
	}
	return (0);
}

/*
 * Data node d under parent (NULL: a new root in *first), filtered by its
 * filter children fs.  1 if d was included, 0 if not, or -ENOMEM.
 */
static int
select_in(const struct lyd_node *d, const struct lyd_node *fs,
          struct lyd_node *parent, struct lyd_node **first)
{
	const struct lyd_node *c;
	struct lyd_node       *nd;
	int                    rv;

	if (!content_ok(d, fs))
		return (0);
	if (only_content(fs)) {
		rv = put(d, parent, LYD_DUP_RECURSIVE, first, NULL);
		return (rv < 0 ? rv : 1);
	}
	/* The node itself (a list instance with its keys), then what the
	 * filter picks of its children. */
	if ((rv = put(d, parent, 0, first, &nd)) != 0)
		return (rv);
	LY_LIST_FOR(kids(d), c)
	{
		if (c->schema && lysc_is_key(c->schema))
			continue;
		if ((rv = one_child(c, fs, nd)) != 0)
			return (rv);
	}
	return (1);
}

int
emu_nc_filter(const struct lyd_node *data, const struct lyd_node *filter,
              struct lyd_node **out)
{
	const struct lyd_node *d, *f;
	int                    rv = 0;

	*out = NULL;
	LY_LIST_FOR(data, d)
	{
		LY_LIST_FOR(filter, f)
		{
			if (!same(d, f) || kind(f) == F_CONTENT)
				continue;
			if (kind(f) == F_SELECT)
				rv =
				    put(d, NULL, LYD_DUP_RECURSIVE, out, NULL);
			else
				rv = select_in(d, kids(f), NULL, out);
			if (rv < 0)
				goto fail;
			break;
		}
	}
	return (0);
fail:
	lyd_free_all(*out);
	*out = NULL;
	return (-ENOMEM);
}

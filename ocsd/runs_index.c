/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The index of runs.jsonl (see runs.h): where each run's line is, so a
 * report is one pread and one parse, not the whole history's (a record
 * of 81 agents x 256 phases is 3 MB of JSON; ocsd parsed every one for
 * each `runs ID`).  Trusted only as far as it checks out: the line read
 * must be whole and be that run's, and the file the size the index
 * knows, or the index is made again from the file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nng/nng.h>
#include <nng/supplemental/util/platform.h>

#include "ocsd/runs.h"
#include "ocsd/runs_int.h"

struct runs_ent {
	uint64_t id;
	off_t    at;
	size_t   len;
};

struct runs_index {
	char            *path;
	nng_mtx         *mtx;
	struct runs_ent *e; /* in the file's order */
	size_t           n, cap;
	off_t            end;   /* the file's size as indexed */
	struct timespec  mtime; /* and its time and inode then */
	ino_t            ino;
	int              stale; /* the file changed behind the index */
};

/* The file is as the index last saw it (a rewrite of the same size is
 * another time or inode). */
static int
same(const struct runs_index *ix, const struct stat *st)
{
	return (st->st_size == ix->end && st->st_ino == ix->ino &&
	        st->st_mtim.tv_sec == ix->mtime.tv_sec &&
	        st->st_mtim.tv_nsec == ix->mtime.tv_nsec);
}

static void
seen(struct runs_index *ix, const struct stat *st)
{
	ix->mtime = st->st_mtim;
	ix->ino = st->st_ino;
}

/* One more line (under mtx). */
static int
add(struct runs_index *ix, uint64_t id, off_t at, size_t len)
{
	if (ix->n == ix->cap) {
		size_t           cap = ix->cap ? ix->cap * 2 : 64;
		struct runs_ent *ne = realloc(ix->e, cap * sizeof(*ne));

		if (ne == NULL)
			return (-ENOMEM);
		ix->e = ne;
		ix->cap = cap;
	}
	ix->e[ix->n++] = (struct runs_ent){id, at, len};
	return (0);
}

/* The index made from the file (under mtx): every line that parses as
 * a report.  On any failure it is left stale: made again next time. */
static void
rebuild(struct runs_index *ix)
{
	FILE       *f;
	char       *line = NULL;
	size_t      cap = 0;
	long        n;
	off_t       at = 0;
	unsigned    lineno = 0;
	json_t     *o;
	struct stat st;

	ix->n = 0;
	ix->end = 0;
	ix->stale = 1;
	if ((f = fopen(ix->path, "re")) == NULL) {
		ix->stale = errno != ENOENT;
		memset(&ix->mtime, 0, sizeof(ix->mtime));
		ix->ino = 0;
		return;
	}
	/* Its time before the reading: a line added during it is seen as
	 * a change next time. */
	if (fstat(fileno(f), &st) != 0)
		goto out;
	seen(ix, &st);
	while ((n = runs_next_line(f, &line, &cap)) != 0) {
		++lineno;
		if (n == -ENOMEM)
			goto out;
		if (n > 0 && (o = runs_parse_line(ix->path, lineno, line,
		                                  (size_t)n)) != NULL) {
			uint64_t id = (uint64_t)json_integer_value(
			    json_object_get(o, "run_id"));

			json_decref(o);
			if (line[n - 1] == '\n' &&
			    add(ix, id, at, (size_t)n) != 0)
				goto out;
		}
		if ((at = ftello(f)) < 0)
			goto out;
	}
	ix->end = at;
	ix->stale = 0;
out:
	free(line);
	fclose(f);
}

struct runs_index *
runs_index_new(const char *path)
{
	struct runs_index *ix = calloc(1, sizeof(*ix));

	if (ix == NULL || (ix->path = strdup(path)) == NULL ||
	    nng_mtx_alloc(&ix->mtx) != 0) {
		if (ix)
			free(ix->path);
		free(ix);
		return (NULL);
	}
	rebuild(ix);
	return (ix);
}

void
runs_index_free(struct runs_index *ix)
{
	if (ix == NULL)
		return;
	nng_mtx_free(ix->mtx);
	free(ix->e);
	free(ix->path);
	free(ix);
}

int
runs_index_append(struct runs_index *ix, const json_t *report)
{
	struct stat st;
	off_t       at = 0;
	size_t      len = 0;
	int         rv = runs_append_at(ix->path, report, &at, &len);

	if (rv != 0)
		return (rv);
	nng_mtx_lock(ix->mtx);
	/* Not where the index ends: the file changed behind it. */
	if (ix->stale || at != ix->end ||
	    add(ix,
	        (uint64_t)json_integer_value(
	            json_object_get(report, "run_id")),
	        at, len) != 0)
		ix->stale = 1;
	else {
		ix->end = at + (off_t)len;
		/* Ours the last change when the size is still ours. */
		if (stat(ix->path, &st) == 0 && st.st_size == ix->end)
			seen(ix, &st);
		else
			ix->stale = 1;
	}
	nng_mtx_unlock(ix->mtx);
	return (0);
}

/* The index as fresh as the file (under mtx): made again when the file
 * is not the size it knows. */
static void
freshen(struct runs_index *ix)
{
	struct stat st;

	if (stat(ix->path, &st) != 0) {
		/* No file: nothing kept (until one is written). */
		if (errno != ENOENT || ix->n > 0 || ix->stale)
			rebuild(ix);
		return;
	}
	if (ix->stale || !same(ix, &st))
		rebuild(ix);
}

/* Run id's line at e, parsed: the report, or NULL when it is not there
 * (the file changed). */
static json_t *
read_one(const struct runs_index *ix, const struct runs_ent *e, uint64_t id)
{
	json_t *o = NULL;
	char   *b = malloc(e->len + 1);
	FILE   *f;

	if (b == NULL || (f = fopen(ix->path, "re")) == NULL) {
		free(b);
		return (NULL);
	}
	if (fseeko(f, e->at, SEEK_SET) == 0 &&
	    fread(b, 1, e->len, f) == e->len && b[e->len - 1] == '\n' &&
	    (o = runs_parse_line(ix->path, 0, b, e->len)) != NULL &&
	    (uint64_t)json_integer_value(json_object_get(o, "run_id")) != id) {
		json_decref(o);
		o = NULL;
	}
	fclose(f);
	free(b);
	return (o);
}

/* Run id's line (the last, when a hand-made file has it twice): 1 with
 * *e, 0 when the file has none. */
static int
find(struct runs_index *ix, uint64_t id, struct runs_ent *e)
{
	size_t i;
	int    found = 0;

	nng_mtx_lock(ix->mtx);
	freshen(ix);
	for (i = ix->n; i > 0 && !found; i--)
		if (ix->e[i - 1].id == id) {
			*e = ix->e[i - 1];
			found = 1;
		}
	if (!found && ix->stale) /* unsure: the file will say */
		found = -1;
	nng_mtx_unlock(ix->mtx);
	return (found);
}

int
runs_index_read(struct runs_index *ix, uint64_t id, json_t **out, char *err,
                size_t len)
{
	struct runs_ent e;
	json_t         *o;
	off_t           from = 0;
	int             tries, found;

	*out = NULL;
	if (id == 0) { /* the newest lines only */
		nng_mtx_lock(ix->mtx);
		freshen(ix);
		if (!ix->stale && ix->n > RUNS_LIST_MAX)
			from = ix->e[ix->n - RUNS_LIST_MAX].at;
		nng_mtx_unlock(ix->mtx);
		return (runs_read_from(ix->path, from, 0, out, err, len));
	}
	for (tries = 0; tries < 2; tries++) {
		if ((found = find(ix, id, &e)) == 0) {
			snprintf(err, len, "run %llu: not in %s",
			         (unsigned long long)id, ix->path);
			return (-ENOENT);
		}
		if (found < 0)
			break;
		if ((o = read_one(ix, &e, id)) != NULL) {
			if ((*out = json_array()) == NULL) {
				json_decref(o);
				return (-ENOMEM);
			}
			if (json_array_append_new(*out, o) != 0) {
				json_decref(*out);
				*out = NULL;
				return (-ENOMEM);
			}
			return (0);
		}
		/* Not where it was: the file changed; index it again. */
		nng_mtx_lock(ix->mtx);
		ix->stale = 1;
		nng_mtx_unlock(ix->mtx);
	}
	return (runs_read(ix->path, id, out, err, len));
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* Traffic matrices: storage, sums, and the CSV and JSON readers. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "collectives/tmat.h"
#include "proto/base/errf.h"
#include "proto/base/units.h"

int
tmat_alloc(struct tmat *m, uint32_t n)
{
	m->n = 0;
	m->b = NULL;
	if (n < 2 || n > TMAT_MAX_N)
		return (-EINVAL);
	if ((m->b = calloc((size_t)n * n, sizeof(*m->b))) == NULL)
		return (-ENOMEM);
	m->n = n;
	return (0);
}

void
tmat_free(struct tmat *m)
{
	free(m->b);
	m->b = NULL;
	m->n = 0;
}

/* Row i (col 0) or column i (col 1) without the diagonal: its sum, and
 * how many of its entries are not zero. */
static uint64_t
line(const struct tmat *m, uint32_t i, int col, uint32_t *nnz)
{
	uint64_t s = 0, v;
	uint32_t j;

	*nnz = 0;
	for (j = 0; j < m->n; j++) {
		if (j == i)
			continue;
		v = col ? tmat_at(m, j, i) : tmat_at(m, i, j);
		s += v;
		*nnz += v != 0;
	}
	return (s);
}

uint64_t
tmat_row(const struct tmat *m, uint32_t i)
{
	uint32_t nz;

	return (line(m, i, 0, &nz));
}

uint64_t
tmat_col(const struct tmat *m, uint32_t j)
{
	uint32_t nz;

	return (line(m, j, 1, &nz));
}

uint64_t
tmat_rho(const struct tmat *m)
{
	uint64_t r = 0, v;
	uint32_t i, nz;
	int      c;

	for (i = 0; i < m->n; i++)
		for (c = 0; c < 2; c++)
			if ((v = line(m, i, c, &nz)) > r)
				r = v;
	return (r);
}

uint32_t
tmat_row_nnz(const struct tmat *m, uint32_t i)
{
	uint32_t nz;

	line(m, i, 0, &nz);
	return (nz);
}

uint32_t
tmat_col_nnz(const struct tmat *m, uint32_t j)
{
	uint32_t nz;

	line(m, j, 1, &nz);
	return (nz);
}

/* ---- CSV ------------------------------------------------------------- */

/* One line without its comment and surrounding blanks, in buf. */
static size_t
csv_line(const char *p, size_t len, char *buf, size_t cap)
{
	size_t k = 0, i;

	for (i = 0; i < len && p[i] != '\n' && p[i] != '#'; i++)
		if (k + 1 < cap)
			buf[k++] = p[i];
	while (k > 0 && isspace((unsigned char)buf[k - 1]))
		k--;
	buf[k] = '\0';
	return (k);
}

/* Cells of one row into row[] (at most max); -1 when a cell is bad,
 * with its column and text. */
static int
csv_cells(char *line, uint64_t *row, uint32_t max, uint32_t *ncell,
          uint32_t *badcol, const char **badtxt)
{
	char    *c = line, *e, *t;
	uint32_t k = 0;
	int      last, rv;

	for (;;) {
		while (isspace((unsigned char)*c))
			c++;
		e = c + strcspn(c, ",");
		last = *e == '\0';
		for (t = e; t > c && isspace((unsigned char)t[-1]); t--)
			;
		*t = '\0';
		*badtxt = c;
		*badcol = k + 1;
		if (k >= max)
			return (-1);
		rv = unit_parse_size(c, &row[k]);
		if (rv == -UNIT_ERANGE || (rv == 0 && row[k] > TMAT_MAX_ENTRY))
			return (-2);
		if (rv != 0)
			return (-1);
		k++;
		if (last)
			break;
		c = e + 1;
	}
	*ncell = k;
	return (0);
}

/* Why row nrow's cells could not be read (csv_cells's cr, at cell bc). */
static void
cells_err(int cr, uint32_t nrow, uint32_t bc, const char *bt, char *err,
          size_t errlen)
{
	if (bc > TMAT_MAX_N)
		errf(0, err, errlen,
		     "matrix: row %u has more than %u columns: at most %u "
		     "nodes",
		     nrow + 1, TMAT_MAX_N, TMAT_MAX_N);
	else if (cr == -2)
		errf(0, err, errlen,
		     "matrix: row %u, column %u: \"%.32s\" is over the cap "
		     "of 1 PiB a pair",
		     nrow + 1, bc, bt);
	else
		errf(0, err, errlen,
		     "matrix: row %u, column %u: \"%.32s\" is not a byte "
		     "count",
		     nrow + 1, bc, bt);
}

/* The first row sets the matrix's size: 0, -EINVAL or -ENOMEM. */
static int
first_row(struct tmat *m, uint32_t nc, char *err, size_t errlen)
{
	if (nc < 2)
		return (errf(-EINVAL, err, errlen,
		             "matrix: row 1 has %u column; at least 2 nodes",
		             nc));
	if (nc > TMAT_MAX_N)
		return (errf(-EINVAL, err, errlen,
		             "matrix: row 1 has %u columns: at most %u nodes",
		             nc, TMAT_MAX_N));
	if (tmat_alloc(m, nc) != 0)
		return (errf(-ENOMEM, err, errlen, "matrix: out of memory"));
	return (0);
}

static int
tmat_csv(const char *text, size_t len, struct tmat *m, char *err,
         size_t errlen)
{
	char     *line;
	uint64_t *row = NULL;
	size_t    pos = 0, cap = 64 * (TMAT_MAX_N + 1);
	uint32_t  nrow = 0, lineno = 0, nc, bc;
	int       rv = -EINVAL, cr;

	line = malloc(cap);
	row = malloc((TMAT_MAX_N + 1) * sizeof(*row));
	if (line == NULL || row == NULL) {
		rv = errf(-ENOMEM, err, errlen, "matrix: out of memory");
		goto out;
	}
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t      l = nl ? (size_t)(nl - (text + pos)) : len - pos;
		const char *bt;

		lineno++;
		if (l >= cap) {
			errf(0, err, errlen, "matrix: line %u is too long",
			     lineno);
			goto out;
		}
		csv_line(text + pos, l, line, cap);
		pos += l + 1;
		if (line[0] == '\0')
			continue;
		if ((cr = csv_cells(line, row, TMAT_MAX_N + 1, &nc, &bc,
		                    &bt)) != 0) {
			cells_err(cr, nrow, bc, bt, err, errlen);
			goto out;
		}
		if (nrow == 0 && (cr = first_row(m, nc, err, errlen)) != 0) {
			rv = cr;
			goto out;
		}
		if (nc != m->n || nrow >= m->n) {
			errf(0, err, errlen,
			     nrow >= m->n
			         ? "matrix: more than %u rows (line %u)"
			         : "matrix: row %u has %u columns, "
			           "row 1 has %u",
			     nrow >= m->n ? m->n : nrow + 1,
			     nrow >= m->n ? lineno : nc, m->n);
			goto out;
		}
		memcpy(m->b + (size_t)nrow * m->n, row, m->n * sizeof(*row));
		nrow++;
	}
	if (nrow == 0) {
		errf(0, err, errlen, "matrix: no rows");
		goto out;
	}
	if (nrow != m->n) {
		errf(0, err, errlen, "matrix: %u rows for %u columns", nrow,
		     m->n);
		goto out;
	}
	rv = 0;
out:
	if (rv != 0)
		tmat_free(m);
	free(line);
	free(row);
	return (rv);
}

/* ---- JSON ------------------------------------------------------------ */

static int
tmat_json(const char *text, size_t len, struct tmat *m, char *err,
          size_t errlen)
{
	json_error_t je;
	json_t      *root, *rows, *r, *v;
	size_t       i, j, n;
	int          rv = -EINVAL;

	if ((root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je)) ==
	    NULL)
		return (errf(-EINVAL, err, errlen, "matrix: line %d: %s",
		             je.line, je.text));
	rows = json_object_get(root, "bytes");
	if (!json_is_array(rows) || (n = json_array_size(rows)) < 2 ||
	    n > TMAT_MAX_N) {
		errf(0, err, errlen,
		     "matrix: \"bytes\" must be an array of 2..%u rows "
		     "(at most %u nodes)",
		     TMAT_MAX_N, TMAT_MAX_N);
		goto out;
	}
	if (json_object_size(root) != 1) {
		errf(0, err, errlen, "matrix: unknown field beside \"bytes\"");
		goto out;
	}
	if (tmat_alloc(m, (uint32_t)n) != 0) {
		rv = errf(-ENOMEM, err, errlen, "matrix: out of memory");
		goto out;
	}
	json_array_foreach(rows, i, r)
	{
		if (!json_is_array(r) || json_array_size(r) != n) {
			errf(0, err, errlen,
			     "matrix: row %zu must be an array of %zu counts",
			     i + 1, n);
			goto out;
		}
		json_array_foreach(r, j, v)
		{
			if (!json_is_integer(v) || json_integer_value(v) < 0 ||
			    (uint64_t)json_integer_value(v) > TMAT_MAX_ENTRY) {
				errf(0, err, errlen,
				     "matrix: row %zu, column %zu: %s", i + 1,
				     j + 1,
				     json_is_integer(v) &&
				             json_integer_value(v) > 0
				         ? "over the cap of 1 PiB a pair"
				         : "not a byte count");
				goto out;
			}
			m->b[i * n + j] = (uint64_t)json_integer_value(v);
		}
	}
	rv = 0;
out:
	if (rv != 0)
		tmat_free(m);
	json_decref(root);
	return (rv);
}

int
tmat_parse(const char *text, size_t len, struct tmat *m, char *err,
           size_t errlen)
{
	size_t i = 0;

	m->n = 0;
	m->b = NULL;
	/* A UTF-8 byte-order mark (editors on some systems write one) is
	 * not part of the first count: skipped, never shown as an
	 * invisible character in an error. */
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) {
		text += 3;
		len -= 3;
	}
	while (i < len && isspace((unsigned char)text[i]))
		i++;
	if (memchr(text, '\0', len) != NULL)
		return (errf(
		    -EINVAL, err, errlen,
		    "matrix: binary data (a NUL byte at offset %zu)",
		    (size_t)((const char *)memchr(text, '\0', len) - text)));
	if (i < len && text[i] == '{')
		return (tmat_json(text, len, m, err, errlen));
	return (tmat_csv(text, len, m, err, errlen));
}

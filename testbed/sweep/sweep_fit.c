/* SPDX-License-Identifier: BSD-2-Clause */
/* Non-negative least squares with confidence intervals (sweep_fit.h). */
#include <math.h>
#include <string.h>

#include "testbed/sweep/sweep_fit.h"

double
fit_t975(int dof)
{
	static const double t[] = {
	    0,     12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365,
	    2.306, 2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
	    2.120, 2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069,
	    2.064, 2.060,  2.056, 2.052, 2.048, 2.045, 2.042};

	if (dof < 1)
		return (INFINITY);
	if (dof <= 30)
		return (t[dof]);
	return (1.960 + 2.4 / dof); /* within 0.3% of the table beyond */
}

/* Invert the k x k matrix a (row-major, FIT_MAXP stride) into inv by
 * Gauss-Jordan with partial pivoting; -1 if singular.  Columns are
 * scaled to unit norm by the caller, so the threshold is absolute. */
static int
invert(double a[FIT_MAXP][FIT_MAXP], int k, double inv[FIT_MAXP][FIT_MAXP],
       int *bad)
{
	int i, j, c, piv;

	for (i = 0; i < k; i++)
		for (j = 0; j < k; j++)
			inv[i][j] = i == j;
	for (c = 0; c < k; c++) {
		double best = 0, f;

		for (piv = -1, i = c; i < k; i++)
			if (fabs(a[i][c]) > best) {
				best = fabs(a[i][c]);
				piv = i;
			}
		if (piv < 0 || best < 1e-10) {
			*bad = c;
			return (-1);
		}
		for (j = 0; j < k; j++) {
			double t = a[c][j];

			a[c][j] = a[piv][j];
			a[piv][j] = t;
			t = inv[c][j];
			inv[c][j] = inv[piv][j];
			inv[piv][j] = t;
		}
		f = a[c][c];
		for (j = 0; j < k; j++) {
			a[c][j] /= f;
			inv[c][j] /= f;
		}
		for (i = 0; i < k; i++) {
			if (i == c || a[i][c] == 0)
				continue;
			f = a[i][c];
			for (j = 0; j < k; j++) {
				a[i][j] -= f * a[c][j];
				inv[i][j] -= f * inv[c][j];
			}
		}
	}
	return (0);
}

/* One least-squares solve on the free columns; -1 and *bad (a free
 * column's index in 0..p-1) when they cannot be told apart. */
static int
solve(const double *X, const double *y, size_t n, int p, const double *sc,
      struct fit *f, double inv[FIT_MAXP][FIT_MAXP], int *bad)
{
	double a[FIT_MAXP][FIT_MAXP], b[FIT_MAXP];
	int    col[FIT_MAXP], k = 0, i, j, fb;
	size_t r;

	for (i = 0; i < p; i++)
		if (!f->held[i])
			col[k++] = i;
	for (i = 0; i < k; i++) {
		b[i] = 0;
		for (j = 0; j < k; j++)
			a[i][j] = 0;
		for (r = 0; r < n; r++) {
			double xi = X[r * p + col[i]] / sc[col[i]];

			b[i] += xi * y[r];
			for (j = 0; j < k; j++)
				a[i][j] += xi * X[r * p + col[j]] / sc[col[j]];
		}
	}
	if (invert(a, k, inv, &fb) != 0) {
		*bad = col[fb];
		return (-1);
	}
	for (i = 0; i < p; i++)
		f->theta[i] = 0;
	for (i = 0; i < k; i++) {
		double v = 0;

		for (j = 0; j < k; j++)
			v += inv[i][j] * b[j];
		f->theta[col[i]] = v / sc[col[i]];
	}
	return (0);
}

int
fit_ols(const double *X, const double *y, size_t n, int p, struct fit *f)
{
	double inv[FIT_MAXP][FIT_MAXP], sc[FIT_MAXP], s2;
	int    i, bad, k, col[FIT_MAXP];
	size_t r;

	memset(f, 0, sizeof(*f));
	if (p < 1 || p > FIT_MAXP || n == 0)
		return (-1);
	f->p = p;
	for (i = 0; i < p; i++) {
		for (sc[i] = 0, r = 0; r < n; r++)
			sc[i] += X[r * p + i] * X[r * p + i];
		sc[i] = sqrt(sc[i]);
		if (!(sc[i] > 0)) { /* never varies from 0: unidentified */
			f->held[i] = 1;
			sc[i] = 1;
		}
	}
	for (;;) {
		int worst = -1;

		for (k = 0, i = 0; i < p; i++)
			k += !f->held[i];
		if (k == 0)
			return (-1);
		if (solve(X, y, n, p, sc, f, inv, &bad) != 0) {
			f->held[bad] = 1;
			continue;
		}
		for (i = 0; i < p; i++)
			if (!f->held[i] && f->theta[i] < 0 &&
			    (worst < 0 || f->theta[i] * sc[i] <
			                      f->theta[worst] * sc[worst]))
				worst = i;
		if (worst < 0)
			break;
		f->held[worst] = 1;
	}
	for (r = 0; r < n; r++) {
		double e = y[r] - fit_predict(f, X + r * p);

		f->rss += e * e;
	}
	for (k = 0, i = 0; i < p; i++)
		if (!f->held[i])
			col[k++] = i;
	f->dof = (int)n - k;
	if (f->dof < 1)
		return (0);
	s2 = f->rss / f->dof;
	for (i = 0; i < k; i++)
		f->half[col[i]] =
		    fit_t975(f->dof) * sqrt(s2 * inv[i][i]) / sc[col[i]];
	return (0);
}

double
fit_predict(const struct fit *f, const double *row)
{
	double v = 0;
	int    i;

	for (i = 0; i < f->p; i++)
		v += f->theta[i] * row[i];
	return (v);
}

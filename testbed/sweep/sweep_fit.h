/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Least squares with confidence: y = X theta over n observations of p
 * regressors, theta >= 0 (a latency or a rate is never negative: a
 * parameter the data would make negative, or cannot tell from the others,
 * is held at 0 and said so), each estimate with its 95% confidence
 * half-width from the residuals (Student's t on n - p free degrees).
 * Pure: ocs-sweep --calibrate's fit, unit-tested on made-up data.
 */
#ifndef OCS_SWEEP_FIT_H
#define OCS_SWEEP_FIT_H

#include <stddef.h>

#define FIT_MAXP 8

struct fit {
	int    p;
	double theta[FIT_MAXP];
	double half[FIT_MAXP]; /* 95% half-width; 0 when held or no dof */
	int    held[FIT_MAXP]; /* 1: held at 0 (negative or unidentified) */
	double rss;            /* residual sum of squares */
	int    dof;            /* n - free parameters */
};

/* X is n rows of p (row-major).  0, or -1 if nothing can be fitted (n or
 * p out of range, every regressor zero). */
int fit_ols(const double *X, const double *y, size_t n, int p, struct fit *f);
/* The fitted value of one row. */
double fit_predict(const struct fit *f, const double *row);
/* Student's t at 97.5% for dof degrees of freedom (dof >= 1). */
double fit_t975(int dof);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/* Error reasons into a caller's buffer (see errf.h). */
#include <stdarg.h>
#include <stdio.h>

#include "proto/base/errf.h"

int
errf(int rv, char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL && len > 0) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return (rv);
}

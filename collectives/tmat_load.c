/* SPDX-License-Identifier: BSD-2-Clause */
/* A traffic matrix from a generator or a file (see tmat_load.h). */
#include <stdio.h>
#include <stdlib.h>

#include "collectives/tmat_load.h"
#include "proto/base/path.h"

int
tmat_load(const char *spec, uint64_t bytes, struct tmat *m, char *err,
          size_t errlen)
{
	char  *buf, why[512];
	size_t len;
	int    rv;

	if ((rv = tmat_generate(spec, bytes, m, err, errlen)) <= 0)
		return (rv);
	if ((rv = path_read(spec, 256u << 20, &buf, &len, why, sizeof(why))) !=
	    0) {
		snprintf(err, errlen, "--matrix: %s", why);
		return (rv);
	}
	rv = tmat_parse(buf, len, m, why, sizeof(why));
	free(buf);
	if (rv != 0)
		snprintf(err, errlen, "--matrix %.200s: %s", spec, why);
	return (rv);
}

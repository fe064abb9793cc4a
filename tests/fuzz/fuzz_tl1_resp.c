/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: the TL1 response parser the Polatis driver runs on
 * whatever a switch sends, consuming message after message.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ocs-drivers/tl1.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct tl1_resp r;
	size_t          off = 0, i;
	ssize_t         n;

	while (off < len) {
		n = tl1_resp_parse((const char *)data + off, len - off, &r);
		if (n <= 0)
			break;
		if ((size_t)n > len - off)
			abort();
		/* Everything it hands out is a terminated string. */
		for (i = 0; i < r.nlines; i++)
			(void)strlen(r.lines[i]);
		if (r.kind == TL1_RESP && r.tag[0] == '\0')
			abort();
		tl1_resp_free(&r);
		off += (size_t)n;
	}
	return (0);
}

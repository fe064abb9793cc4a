/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: the TL1 response parser the Polatis driver runs on
 * whatever a switch sends, consuming message after message, and the
 * reader of the RTRV-EMU-CAPTURE line on every line it yields.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ocs-drivers/drv.h"
#include "ocs-drivers/tl1.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct tl1_resp    r;
	struct drv_capture c;
	size_t             off = 0, i;
	ssize_t            n;
	char               err[200];

	while (off < len) {
		n = tl1_resp_parse((const char *)data + off, len - off, &r);
		if (n <= 0)
			break;
		if ((size_t)n > len - off)
			abort();
		/* Everything it hands out is a terminated string. */
		for (i = 0; i < r.nlines; i++) {
			(void)strlen(r.lines[i]);
			if (tl1_capture_parse(r.lines[i], &c, err,
			                      sizeof(err)) == 0 &&
			    c.ngaps > DRV_CAP_GAPS)
				abort();
		}
		if (r.kind == TL1_RESP && r.tag[0] == '\0')
			abort();
		tl1_resp_free(&r);
		off += (size_t)n;
	}
	return (0);
}

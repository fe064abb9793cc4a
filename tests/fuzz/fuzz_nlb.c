/* SPDX-License-Identifier: BSD-2-Clause */
/* libFuzzer target: ocs-emu's reader of a netlink batch's answers
 * (emu_nlb_answers) on arbitrary datagrams: never past the end, an
 * answer of 1, 0 or -EBADMSG, and every code it keeps 0 or negative. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "testbed/ocs-emu/emu_nlb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	int      errs[4] = {0, 0, 0, 0}, rv;
	uint32_t seq0;
	size_t   i;
	void    *buf;

	if (len < 4)
		return (0);
	memcpy(&seq0, data, 4);
	/* The datagram alone in its buffer: a read past it is caught. */
	if ((buf = malloc(len - 4 ? len - 4 : 1)) == NULL)
		return (0);
	memcpy(buf, data + 4, len - 4);
	rv = emu_nlb_answers(buf, len - 4, seq0, 4, errs);
	if (rv > 1 || (rv < 0 && rv != -EBADMSG))
		abort();
	for (i = 0; i < 4; i++)
		if (errs[i] > 0)
			abort();
	free(buf);
	return (0);
}

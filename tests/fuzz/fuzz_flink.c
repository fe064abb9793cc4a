/* SPDX-License-Identifier: BSD-2-Clause */
/* libFuzzer target: the agent's reader of the relay's link lines
 * (flink_line) on arbitrary text, line by line: a transceiver's state is
 * only ever unknown, dark or up, and a refused line changes nothing. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent/flink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct carrier c, was;
	struct flink   l, lwas;
	char          *s = malloc(len + 1), *line, *save = NULL;
	int            rv;

	if (s == NULL)
		return (0);
	memcpy(s, data, len);
	s[len] = '\0';
	memset(&c, 0, sizeof(c));
	memset(&l, 0, sizeof(l));
	for (line = strtok_r(s, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		was = c;
		lwas = l;
		rv = flink_line(&l, &c, (uint32_t)(len % CARRIER_MAX), line);
		if (rv < 0 && (rv != -EINVAL || memcmp(&was, &c, sizeof(c)) ||
		               memcmp(&lwas, &l, sizeof(l))))
			abort();
		/* The count only ever goes up, by one. */
		if (c.t[len % CARRIER_MAX].ups !=
		        was.t[len % CARRIER_MAX].ups &&
		    c.t[len % CARRIER_MAX].ups !=
		        was.t[len % CARRIER_MAX].ups + 1)
			abort();
		if (rv > 1)
			abort();
	}
	for (rv = 0; rv < CARRIER_MAX; rv++)
		if (c.t[rv].state != CARRIER_UNKNOWN &&
		    c.t[rv].state != CARRIER_NONE &&
		    c.t[rv].state != CARRIER_UP)
			abort();
	free(s);
	return (0);
}

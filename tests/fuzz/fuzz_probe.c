/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: the agent's scan for probes (ocsctl check) in what
 * a receiver brings (probe_scan, frame_probe_get), the bytes cut into
 * reads whose sizes the input's first byte picks, as a stream transport
 * cuts them.  No crash; every probe taken names a host as ocsd takes
 * them; never more than the room given; what is left is always less
 * than the buffer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent/frame.h"
#include "agent/probe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct amsg_heard h[4];
	uint8_t           buf[1024];
	size_t            off = 1, have = 0, nh = 0, piece, n, i;
	uint32_t          nonce;

	if (len < 5)
		return (0);
	piece = (size_t)data[0] % 97 + 1;
	memcpy(&nonce, data + 1, 4);
	for (off = 5; off < len; off += n) {
		n = len - off < piece ? len - off : piece;
		if (n > sizeof(buf) - have)
			n = sizeof(buf) - have;
		memcpy(buf + have, data + off, n);
		have += n;
		probe_scan(buf, &have, 2, nonce, h, 4, &nh);
		if (nh > 4 || have >= sizeof(buf))
			abort();
	}
	for (i = 0; i < nh; i++)
		if (h[i].trx != 2 || !amsg_host_ok(h[i].host))
			abort();
	return (0);
}

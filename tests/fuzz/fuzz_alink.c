/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: the agent link's frames as ocsd reads them
 * (ocsd/aglink.c): bytes arrive through a socket in pieces whose sizes the
 * input's first byte picks, each piece read as the link's thread does
 * (alink_rx_read), then every whole frame decoded (alink_rx_next),
 * the first under the Attach limit, the rest under the message limit.
 * No crash, no frame longer than its limit accepted, no frame lost:
 * the bytes decoded or still waiting add up to the bytes sent.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proto/alink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

/* Every whole frame out of rx; -1 once the link would end. */
static int
frames(struct alink_rx *rx, size_t *used, int *attached)
{
	Ocs__Msg *m;
	char      why[300];
	size_t    before;
	int       rv;

	for (;;) {
		before = rx->len;
		why[0] = '\0';
		rv = alink_rx_next(rx, &m, why, sizeof(why));
		if (rv == 0)
			return (0);
		if (rv < 0) {
			if (why[0] == '\0')
				abort(); /* every refusal says why */
			return (-1);
		}
		if (before - rx->len > rx->max + ALINK_HDR)
			abort(); /* a frame over the limit taken */
		*used += before - rx->len;
		if (!*attached && m->body_case == OCS__MSG__BODY_ATTACH) {
			if (m->attach->proof.len > 0 &&
			    m->attach->proof.data == NULL)
				abort();
			*attached = 1;
			rx->max = MSG_MAX_BYTES;
		}
		msg_free(m);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct alink_rx rx = {.max = ALINK_FIRST_MAX};
	struct alink_io io = {.fd = -1};
	size_t          off = 1, piece, used = 0, sent = 0;
	int             sv[2], attached = 0, dead = 0;
	long            r;

	if (len < 1 || len > 1 << 16 ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) != 0)
		return (0);
	io.fd = sv[1];
	piece = (size_t)data[0] % 64 + 1;
	/* Until every byte is sent and read, or the link would end; a full
	 * buffer (-EMSGSIZE) is emptied by the frames in it. */
	for (r = 0; !dead && (off < len || r != -EAGAIN);) {
		size_t n = len - off < piece ? len - off : piece;

		if (n > 0 && write(sv[0], data + off, n) != (ssize_t)n)
			abort();
		off += n;
		sent += n;
		while ((r = alink_rx_read(&rx, &io)) > 0)
			;
		if (r != -EAGAIN && r != -EMSGSIZE)
			abort();
		dead = frames(&rx, &used, &attached) != 0;
		if (r == -EMSGSIZE && !dead && rx.len == rx.cap)
			abort(); /* full of a frame that fits: stuck */
	}
	if (!dead && used + rx.len != sent)
		abort(); /* bytes lost or made up */
	alink_rx_free(&rx);
	close(sv[0]);
	close(sv[1]);
	return (0);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The barrier link: ocs.proto Msgs on a bare stream socket, each framed
 * by its length (4 bytes, big-endian).  It carries only an agent's Ready
 * and ocsd's answer (and the Attach that names the agent), so that a
 * barrier costs system calls and wake-ups alone, not nng's thread
 * hand-offs per message (tests/bench/sock_floor.c measures both).  It
 * has no TLS: ocsd offers it only where its operator configured it.
 */
#ifndef OCS_BARLINK_H
#define OCS_BARLINK_H

#include <stddef.h>
#include <stdint.h>

#include "proto/msg.h"

#define BARLINK_TOKEN      16  /* bytes of a join's token */
#define BARLINK_ATTACH_MAX 256 /* a frame before the Attach is accepted */
#define BARLINK_HDR        4

/* m (version and seq the caller's) framed into a new buffer of *len
 * bytes, to free().  0, -ENOMEM, -MSG_ESIZE. */
int barlink_pack(const Ocs__Msg *m, uint8_t **buf, size_t *len);

/* Frames arriving on one connection. */
struct barlink_rx {
	uint8_t *b;
	size_t   len, cap;
	size_t   max; /* largest frame accepted */
};

/* Read what fd has now (it is non-blocking), up to a read that leaves
 * room (the kernel had no more): > 0 bytes, 0 at EOF, -EAGAIN when it
 * had nothing, -errno.  An end after some bytes is the next call's. */
long barlink_rx_read(struct barlink_rx *, int fd);
/* The next whole frame, decoded: 1 with *m (msg_free it), 0 when none is
 * whole yet, or a negative code and one line in why (a frame longer than
 * max, or not a Msg): the connection cannot go on. */
int  barlink_rx_next(struct barlink_rx *, Ocs__Msg **m, char *why,
                     size_t whylen);
void barlink_rx_free(struct barlink_rx *);

/*
 * One exchange on a connected fd: send m (its seq set), then wait up to
 * timeout_ms for the answer with that seq (an earlier request's answer,
 * given up on, is skipped).  As msg_call: 0 with *rep, an Error body
 * included; else a negative code and one line in err naming peer.
 */
int barlink_call(int fd, struct barlink_rx *, const Ocs__Msg *m,
                 int timeout_ms, const char *peer, Ocs__Msg **rep, char *err,
                 size_t errlen);

/*
 * Connect to the link a JoinReply offers and attach as agent_id (an
 * Attach numbered seq, with the reply's token): 0 with *fd (its frames
 * to come in rx), 0 with *fd = -1 when the reply offers no link, or a
 * negative code (ocsd's refusal's) and one line in err.
 */
int barlink_attach(const Ocs__JoinReply *, uint32_t agent_id, uint64_t seq,
                   int timeout_ms, struct barlink_rx *rx, int *fd, char *err,
                   size_t errlen);

#endif

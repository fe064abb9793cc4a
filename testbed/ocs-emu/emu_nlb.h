/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Netlink requests in batches (emu_nlb.c): many rtnetlink requests in one
 * datagram, acknowledged once, each one's outcome known.
 */
#ifndef OCS_EMU_NLB_H
#define OCS_EMU_NLB_H

#include <stddef.h>
#include <stdint.h>

struct nl_sock;
struct nl_msg;

/* Requests a datagram, at most: their answers (only failures, and one
 * ACK) always fit the socket's receive buffer. */
#define EMU_NLB_MAX 256

/*
 * Send the n requests m[0..n-1] (freed, whatever happens) in datagrams of
 * up to EMU_NLB_MAX, only the last of each asking for an ACK, and read
 * the answers.  *seq numbers them (and moves on past them): the caller's
 * counter, one a socket, apart from libnl's own numbering.  errs (NULL: not wanted) gets each request's outcome: 0 or
 * -NLE_*.  0 if every request succeeded, else the first error.
 */
int emu_nlb_send(struct nl_sock *, uint32_t *seq, struct nl_msg **m, size_t n,
                 int *errs);

/*
 * One datagram of answers to the requests numbered seq0 .. seq0+n-1: each
 * NLMSG_ERROR's code into errs[seq - seq0] (0 or -errno); other messages
 * and other numbers are ignored.  1 once the answer to the last request
 * has come, 0 if more are to come, -EBADMSG if the datagram is malformed
 * (what came before the fault is kept).
 */
int emu_nlb_answers(const void *buf, size_t len, uint32_t seq0, size_t n,
                    int *errs);

#endif

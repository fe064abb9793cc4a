/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The relay's links (flink.c): on ocs-emu's fibre relay a transceiver has
 * no kernel carrier, so the switch tells it.  One connection per
 * transceiver to the fibre listener, announced as "LINK <egress>\n" and
 * answered "OK\n", then "dark\n" or "up <n>\n" (n: the link's ups so far)
 * at once and at every change, as a NIC's carrier follows light and its
 * retraining.  The states land in a struct carrier, as the kernel
 * transport's do, so the agent says them to ocsd the same way and ocsd
 * waits for them the same way.  The count ocsd compares is the agent's
 * own, one up each time the relay says a new one: the relay's numbering
 * starts again with every watch (a re-plug, a restarted relay), and a
 * count that went back to a value ocsd had noted would hide a new link.
 */
#ifndef OCS_FLINK_H
#define OCS_FLINK_H

#include <stddef.h>
#include <stdint.h>

#include "agent/carrier.h"

struct flink {
	int      ep;                   /* every watch; readable: news */
	int      fd[CARRIER_MAX];      /* transceiver i's watch, or -1 */
	char     buf[CARRIER_MAX][64]; /* a line not yet whole */
	size_t   len[CARRIER_MAX];
	uint32_t said[CARRIER_MAX]; /* the relay's count in its last up */
};

/* 0, or -errno. */
int  flink_init(struct flink *);
void flink_fini(struct flink *);
/* The descriptor to poll (readable: flink_read has news). */
static inline int
flink_fd(const struct flink *l)
{
	return (l->ep);
}
/*
 * Watch transceiver i's link: its receiver is `egress` on the relay at
 * addr.  Its first state is in c->t[i] before this returns.  0, -EPROTO
 * when the relay refuses (an ocs-emu without watches: the reason in err),
 * or -errno with one line in err.
 */
int flink_open(struct flink *, struct carrier *c, uint32_t i, const char *addr,
               uint32_t egress, int timeout_ms, char *err, size_t errlen);
void flink_close(struct flink *, struct carrier *c, uint32_t i);
/* What the relay said, without blocking: the mask of transceivers whose
 * state changed (a watch the relay closed is CARRIER_GONE), or 0. */
int flink_read(struct flink *, struct carrier *c);

/*
 * Pure: one line from transceiver i's watch (no newline) into c->t[i]
 * (an up the relay had not said before: one more in its count): 1 if
 * its state or count changed, 0 if not, -EINVAL if it is no line a
 * relay sends (nothing changed).
 */
int flink_line(struct flink *, struct carrier *c, uint32_t i,
               const char *line);

#endif

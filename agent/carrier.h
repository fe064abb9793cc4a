/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The links of the agent's transceivers as the kernel sees them, watched
 * through rtnetlink (RTMGRP_LINK): up (a carrier: light in and the link
 * trained), no carrier (dark, or retraining after a reconfiguration),
 * administratively down, or gone.  The agent tells ocsd every change at
 * once (proto/amsg.h, LinkState), and ocsd releases a phase only once
 * every link it uses is up.
 *
 * Up means the kernel runs the interface (IFF_UP and IFF_RUNNING): the
 * running flag is set by the kernel's link watch after it has activated
 * the interface's queues for the carrier, so a frame sent once it is seen
 * is not dropped by a queue still being set up (IFF_LOWER_UP comes
 * before that).
 */
#ifndef OCS_CARRIER_H
#define OCS_CARRIER_H

#include <net/if.h>
#include <stddef.h>
#include <stdint.h>

#define CARRIER_MAX 8 /* transceivers */

enum carrier_state {
	CARRIER_UNKNOWN = 0, /* not heard of yet */
	CARRIER_UP,          /* running: a carrier */
	CARRIER_NONE,        /* up, no carrier */
	CARRIER_DOWN,        /* administratively down */
	CARRIER_GONE,        /* no such interface */
};

struct carrier_trx {
	char               name[IF_NAMESIZE];
	enum carrier_state state;
	uint32_t           mtu;        /* 0: not known */
	uint32_t           ups;        /* carrier up transitions (the kernel's
	                          * count, else the ones seen here) */
	int                have_count; /* the kernel said its count */
};

struct carrier {
	int                fd;
	uint32_t           n;
	struct carrier_trx t[CARRIER_MAX];
	int                dumped; /* the first dump has been read */
};

/*
 * Watch the interfaces names[0..n) (transceiver i is names[i]): a netlink
 * socket on the link group, and a dump of every link read before this
 * returns, so each state is known.  0, or -errno with one line in err;
 * carrier_close is safe after a failure.
 */
int  carrier_open(struct carrier *, const char (*names)[IF_NAMESIZE],
                  uint32_t n, char *err, size_t errlen);
void carrier_close(struct carrier *);
/* The descriptor to poll (readable: carrier_read has news); -1 if none. */
static inline int
carrier_fd(const struct carrier *c)
{
	return (c->fd);
}
/*
 * Read what the kernel has said without blocking: a mask of the
 * transceivers whose state, MTU or count changed (bit i for
 * transceiver i), 0 for none, or -errno (the socket failed: an overrun
 * re-dumps every link instead).
 */
int carrier_read(struct carrier *);

/*
 * Pure: take one buffer of netlink messages (RTM_NEWLINK, RTM_DELLINK;
 * anything else, or malformed, is skipped) into c's transceivers,
 * matched by interface name.  The mask of those that changed.
 */
int carrier_parse(struct carrier *c, const void *buf, size_t len);

/* The state's name: "up", "no carrier", "down", "gone", "unknown". */
const char *carrier_name(enum carrier_state);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/* The transceivers' links, watched through rtnetlink (see carrier.h). */
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "agent/carrier.h"

#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP 0x10000
#endif

/* Netlink's messages are 4-byte aligned: the receive buffer is too. */
#define CARRIER_BUF 32768

const char *
carrier_name(enum carrier_state s)
{
	switch (s) {
	case CARRIER_UP:
		return ("up");
	case CARRIER_NONE:
		return ("no carrier");
	case CARRIER_DOWN:
		return ("down");
	case CARRIER_GONE:
		return ("gone");
	default:
		return ("unknown");
	}
}

/* What one link message says of its interface. */
struct link_msg {
	char               name[IF_NAMESIZE];
	enum carrier_state state;
	uint32_t           mtu, ups;
	int                has_ups;
};

/* The attributes of an RTM_NEWLINK or RTM_DELLINK: 0, or -1 when the
 * message is not one to take (short, no name). */
static int
link_attrs(const struct nlmsghdr *h, struct link_msg *lm)
{
	const struct ifinfomsg *ifi = NLMSG_DATA(h);
	const struct rtattr    *a;
	int                     len;

	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)))
		return (-1);
	memset(lm, 0, sizeof(*lm));
	lm->state = h->nlmsg_type == RTM_DELLINK     ? CARRIER_GONE
	            : !(ifi->ifi_flags & IFF_UP)     ? CARRIER_DOWN
	            : (ifi->ifi_flags & IFF_RUNNING) ? CARRIER_UP
	                                             : CARRIER_NONE;
	len = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*ifi)));
	for (a = IFLA_RTA(ifi); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		size_t pl = RTA_PAYLOAD(a);

		switch (a->rta_type) {
		case IFLA_IFNAME:
			/* A name, terminated within its attribute. */
			if (pl < 2 || pl > IF_NAMESIZE ||
			    memchr(RTA_DATA(a), '\0', pl) == NULL)
				return (-1);
			memcpy(lm->name, RTA_DATA(a), pl);
			break;
		case IFLA_MTU:
			if (pl >= sizeof(uint32_t))
				memcpy(&lm->mtu, RTA_DATA(a), sizeof(lm->mtu));
			break;
		case IFLA_CARRIER_UP_COUNT:
			if (pl >= sizeof(uint32_t)) {
				memcpy(&lm->ups, RTA_DATA(a), sizeof(lm->ups));
				lm->has_ups = 1;
			}
			break;
		default:
			break;
		}
	}
	return (lm->name[0] ? 0 : -1);
}

/* One interface's news into its transceiver: 1 if something changed. */
static int
take(struct carrier_trx *t, const struct link_msg *lm)
{
	struct carrier_trx was = *t;

	if (lm->has_ups) {
		t->ups = lm->ups;
		t->have_count = 1;
	} else if (!t->have_count && lm->state == CARRIER_UP &&
	           t->state != CARRIER_UP)
		t->ups++; /* a kernel without the count: ours */
	t->state = lm->state;
	if (lm->mtu)
		t->mtu = lm->mtu;
	return (was.state != t->state || was.mtu != t->mtu ||
	        was.ups != t->ups);
}

int
carrier_parse(struct carrier *c, const void *buf, size_t len)
{
	const struct nlmsghdr *h = buf;
	struct link_msg        lm;
	int                    n = (int)(len > INT32_MAX ? INT32_MAX : len);
	int                    mask = 0;
	uint32_t               i;

	for (; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
		if (h->nlmsg_type == NLMSG_DONE)
			c->dumped = 1;
		if ((h->nlmsg_type != RTM_NEWLINK &&
		     h->nlmsg_type != RTM_DELLINK) ||
		    link_attrs(h, &lm) != 0)
			continue;
		for (i = 0; i < c->n; i++)
			if (strcmp(c->t[i].name, lm.name) == 0 &&
			    take(&c->t[i], &lm))
				mask |= 1 << i;
	}
	return (mask);
}

/* Ask for every link (the answers come as RTM_NEWLINKs, then DONE). */
static int
dump(struct carrier *c)
{
	struct {
		struct nlmsghdr  h;
		struct ifinfomsg i;
	} req;

	memset(&req, 0, sizeof(req));
	req.h.nlmsg_len = sizeof(req);
	req.h.nlmsg_type = RTM_GETLINK;
	req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.h.nlmsg_seq = 1;
	req.i.ifi_family = AF_UNSPEC;
	c->dumped = 0;
	if (send(c->fd, &req, sizeof(req), 0) != (ssize_t)sizeof(req))
		return (-errno);
	return (0);
}

int
carrier_read(struct carrier *c)
{
	uint32_t buf[CARRIER_BUF / sizeof(uint32_t)];
	ssize_t  r;
	int      mask = 0;

	for (;;) {
		r = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (r < 0 && errno == ENOBUFS) {
			/* Events were lost: ask for every link again. */
			if ((r = dump(c)) != 0)
				return ((int)r);
			continue;
		}
		if (r < 0)
			return (errno == EAGAIN || errno == EINTR ? mask
			                                          : -errno);
		if (r == 0)
			return (mask);
		mask |= carrier_parse(c, buf, (size_t)r);
	}
}

int
carrier_open(struct carrier *c, const char (*names)[IF_NAMESIZE], uint32_t n,
             char *err, size_t errlen)
{
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK,
	                         .nl_groups = RTMGRP_LINK};
	struct timeval     tv = {2, 0};
	uint32_t           buf[CARRIER_BUF / sizeof(uint32_t)], i;
	ssize_t            r;
	int                rv;

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	if (n > CARRIER_MAX)
		n = CARRIER_MAX;
	c->n = n;
	for (i = 0; i < n; i++)
		snprintf(c->t[i].name, sizeof(c->t[i].name), "%s", names[i]);
	if ((c->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC,
	                    NETLINK_ROUTE)) < 0 ||
	    bind(c->fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		rv = -errno;
		snprintf(err, errlen, "rtnetlink: %s", strerror(errno));
		return (rv);
	}
	/* The first dump, read whole before the agent goes on. */
	setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if ((rv = dump(c)) != 0) {
		snprintf(err, errlen, "rtnetlink: asking for links: %s",
		         strerror(-rv));
		return (rv);
	}
	while (!c->dumped) {
		if ((r = recv(c->fd, buf, sizeof(buf), 0)) <= 0) {
			rv = r == 0 ? -EIO : -errno;
			snprintf(err, errlen, "rtnetlink: reading links: %s",
			         strerror(-rv));
			return (rv);
		}
		(void)carrier_parse(c, buf, (size_t)r);
	}
	for (i = 0; i < n; i++)
		if (c->t[i].state == CARRIER_UNKNOWN)
			c->t[i].state = CARRIER_GONE;
	fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) | O_NONBLOCK);
	return (0);
}

void
carrier_close(struct carrier *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

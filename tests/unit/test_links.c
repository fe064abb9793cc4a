/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_links.c: links as real optics have them.  The agent's
 * reading of rtnetlink link messages (agent/carrier.c: up, no carrier,
 * down, gone; MTU; the kernel's carrier count or its own) from buffers
 * built here, malformed ones included; and ocs-emu's --link-up (the
 * spec's parse, and a link up only its retrain time after the light).
 */
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "agent/carrier.h"
#include "agent/flink.h"
#include "testbed/ocs-emu/emu.h"

/* One RTM_NEWLINK (or type) for name with flags; mtu and ups if not
 * zero (ups < 0: none said), appended to buf at *off. */
static void
put_link(uint8_t *buf, size_t *off, uint16_t type, const char *name,
         unsigned flags, uint32_t mtu, long ups)
{
	struct nlmsghdr  *h = (struct nlmsghdr *)(buf + *off);
	struct ifinfomsg *ifi;
	struct rtattr    *a;
	size_t            len = NLMSG_LENGTH(sizeof(*ifi));

	memset(h, 0, NLMSG_SPACE(sizeof(*ifi)) + 64);
	ifi = NLMSG_DATA(h);
	ifi->ifi_flags = flags;
	a = (struct rtattr *)((uint8_t *)h + NLMSG_ALIGN(len));
	a->rta_type = IFLA_IFNAME;
	a->rta_len = (unsigned short)RTA_LENGTH(strlen(name) + 1);
	memcpy(RTA_DATA(a), name, strlen(name) + 1);
	len = NLMSG_ALIGN(len) + RTA_ALIGN(a->rta_len);
	if (mtu) {
		a = (struct rtattr *)((uint8_t *)h + len);
		a->rta_type = IFLA_MTU;
		a->rta_len = RTA_LENGTH(4);
		memcpy(RTA_DATA(a), &mtu, 4);
		len += RTA_ALIGN(a->rta_len);
	}
	if (ups >= 0) {
		uint32_t u = (uint32_t)ups;

		a = (struct rtattr *)((uint8_t *)h + len);
		a->rta_type = IFLA_CARRIER_UP_COUNT;
		a->rta_len = RTA_LENGTH(4);
		memcpy(RTA_DATA(a), &u, 4);
		len += RTA_ALIGN(a->rta_len);
	}
	h->nlmsg_len = (uint32_t)len;
	h->nlmsg_type = type;
	*off += NLMSG_ALIGN(len);
}

static void
two(struct carrier *c)
{
	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->n = 2;
	snprintf(c->t[0].name, sizeof(c->t[0].name), "t0");
	snprintf(c->t[1].name, sizeof(c->t[1].name), "t1");
}

/* Up and running is up; up without running is no carrier; not up is
 * down; a deleted link is gone.  Only our interfaces count. */
static void
test_states(void **state)
{
	uint32_t       b32[1024];
	uint8_t       *buf = (uint8_t *)b32;
	size_t         off = 0;
	struct carrier c;

	(void)state;
	two(&c);
	put_link(buf, &off, RTM_NEWLINK, "t0", IFF_UP | IFF_RUNNING, 9000, 3);
	put_link(buf, &off, RTM_NEWLINK, "t1", IFF_UP, 1500, 1);
	put_link(buf, &off, RTM_NEWLINK, "eth0", IFF_UP | IFF_RUNNING, 1500,
	         7);
	assert_int_equal(carrier_parse(&c, buf, off), 3);
	assert_int_equal(c.t[0].state, CARRIER_UP);
	assert_int_equal(c.t[0].mtu, 9000);
	assert_int_equal(c.t[0].ups, 3);
	assert_int_equal(c.t[1].state, CARRIER_NONE);
	assert_int_equal(c.t[1].mtu, 1500);
	/* The same again: nothing changed. */
	assert_int_equal(carrier_parse(&c, buf, off), 0);
	off = 0;
	put_link(buf, &off, RTM_NEWLINK, "t0", 0, 9000, 3);
	put_link(buf, &off, RTM_DELLINK, "t1", IFF_UP, 1500, 1);
	assert_int_equal(carrier_parse(&c, buf, off), 3);
	assert_int_equal(c.t[0].state, CARRIER_DOWN);
	assert_int_equal(c.t[1].state, CARRIER_GONE);
	assert_string_equal(carrier_name(CARRIER_NONE), "no carrier");
}

/* A kernel that does not say its carrier count: the ups are counted
 * here, one a transition to up. */
static void
test_own_count(void **state)
{
	uint32_t       b32[256];
	uint8_t       *buf = (uint8_t *)b32;
	size_t         off;
	struct carrier c;
	int            i;

	(void)state;
	two(&c);
	for (i = 0; i < 3; i++) {
		off = 0;
		put_link(buf, &off, RTM_NEWLINK, "t0", IFF_UP | IFF_RUNNING, 0,
		         -1);
		put_link(buf, &off, RTM_NEWLINK, "t0", IFF_UP | IFF_RUNNING, 0,
		         -1);
		put_link(buf, &off, RTM_NEWLINK, "t0", IFF_UP, 0, -1);
		(void)carrier_parse(&c, buf, off);
	}
	assert_int_equal(c.t[0].ups, 3);
	assert_int_equal(c.t[0].state, CARRIER_NONE);
}

/* Short, unterminated or truncated messages are skipped, never read
 * past. */
static void
test_malformed(void **state)
{
	uint32_t       b32[256];
	uint8_t       *buf = (uint8_t *)b32;
	size_t         off = 0, i;
	struct carrier c;
	struct rtattr *a;

	(void)state;
	two(&c);
	put_link(buf, &off, RTM_NEWLINK, "t0", IFF_UP | IFF_RUNNING, 9000, 2);
	/* The name without its terminator. */
	a = (struct rtattr *)(buf + NLMSG_ALIGN(NLMSG_LENGTH(
	                                sizeof(struct ifinfomsg))));
	memset(RTA_DATA(a), 'x', RTA_PAYLOAD(a));
	assert_int_equal(carrier_parse(&c, buf, off), 0);
	/* Every prefix of a good message: nothing, or the message. */
	off = 0;
	put_link(buf, &off, RTM_NEWLINK, "t1", IFF_UP | IFF_RUNNING, 9000, 2);
	for (i = 0; i < off; i++) {
		two(&c);
		assert_int_equal(carrier_parse(&c, buf, i), 0);
	}
	/* A header that claims more than there is. */
	((struct nlmsghdr *)buf)->nlmsg_len = 4000;
	assert_int_equal(carrier_parse(&c, buf, off), 0);
}

static void
test_link_spec(void **state)
{
	uint64_t ns[9];
	char     err[200];

	(void)state;
	assert_int_equal(emu_link_parse("2ms", 8, ns, err, sizeof(err)), 0);
	assert_true(ns[1] == 2000000 && ns[8] == 2000000);
	assert_int_equal(
	    emu_link_parse("100us,3=5ms", 8, ns, err, sizeof(err)), 0);
	assert_true(ns[1] == 100000 && ns[3] == 5000000 && ns[4] == 100000);
	assert_int_equal(emu_link_parse("0", 8, ns, err, sizeof(err)), 0);
	assert_true(ns[5] == 0);
	assert_int_equal(emu_link_parse("9=1ms", 8, ns, err, sizeof(err)),
	                 -EINVAL);
	assert_non_null(strstr(err, "\"9=1ms\""));
	assert_int_equal(emu_link_parse("2ms,", 8, ns, err, sizeof(err)),
	                 -EINVAL);
	assert_int_equal(emu_link_parse("fast", 8, ns, err, sizeof(err)),
	                 -EINVAL);
	assert_non_null(strstr(err, "\"fast\""));
	assert_int_equal(emu_link_parse("61s", 8, ns, err, sizeof(err)),
	                 -EINVAL);
	assert_int_equal(emu_link_parse("x=1ms", 8, ns, err, sizeof(err)),
	                 -EINVAL);
}

/* The relay's link lines (flink_line): dark and up, the agent's own count
 * one more at every up the relay had not said (its numbering starts again
 * with a new watch, the agent's never goes back), a change only when
 * something changed, anything else refused untouched. */
static void
test_relay_lines(void **state)
{
	struct carrier c;
	struct flink   l;

	(void)state;
	memset(&c, 0, sizeof(c));
	memset(&l, 0, sizeof(l));
	assert_int_equal(flink_line(&l, &c, 1, "dark"), 1);
	assert_int_equal(c.t[1].state, CARRIER_NONE);
	assert_int_equal(flink_line(&l, &c, 1, "dark"), 0);
	assert_int_equal(flink_line(&l, &c, 1, "up 1"), 1);
	assert_int_equal(c.t[1].state, CARRIER_UP);
	assert_int_equal(c.t[1].ups, 1);
	assert_int_equal(flink_line(&l, &c, 1, "up 1"), 0);
	/* Up again with a new count: a new link, though never seen dark. */
	assert_int_equal(flink_line(&l, &c, 1, "up 2"), 1);
	assert_int_equal(c.t[1].ups, 2);
	assert_int_equal(c.t[0].state, CARRIER_UNKNOWN);
	assert_int_equal(flink_line(&l, &c, 1, "up"), -EINVAL);
	assert_int_equal(flink_line(&l, &c, 1, "up -1"), -EINVAL);
	assert_int_equal(flink_line(&l, &c, 1, "up 3x"), -EINVAL);
	assert_int_equal(flink_line(&l, &c, 1, "up 4294967296"), -EINVAL);
	assert_int_equal(flink_line(&l, &c, 1, "up  3"), -EINVAL);
	assert_int_equal(flink_line(&l, &c, 1, "DARK"), -EINVAL);
	assert_int_equal(flink_line(&l, &c, 1, ""), -EINVAL);
	assert_int_equal(flink_line(&l, &c, CARRIER_MAX, "dark"), -EINVAL);
	assert_int_equal(c.t[1].state, CARRIER_UP);
	assert_int_equal(c.t[1].ups, 2);
	/* A new watch (a re-plug, a restarted relay) numbers from 1 again:
	 * dark, then its first up is the agent's third. */
	l.said[1] = 0;
	assert_int_equal(flink_line(&l, &c, 1, "dark"), 1);
	assert_int_equal(flink_line(&l, &c, 1, "up 1"), 1);
	assert_int_equal(c.t[1].ups, 3);
	assert_int_equal(flink_line(&l, &c, 1, "up 4294967295"), 1);
	assert_int_equal(c.t[1].ups, 4);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_states),
	    cmocka_unit_test(test_own_count),
	    cmocka_unit_test(test_malformed),
	    cmocka_unit_test(test_link_spec),
	    cmocka_unit_test(test_relay_lines),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}

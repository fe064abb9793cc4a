/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_nlb.c: netlink batches (testbed/ocs-emu/emu_nlb.c).
 * The answers' reader on crafted datagrams: silence is success, a
 * failure lands on the request its number names, the ACK of the last
 * ends the wait, numbers of other batches (and across the wrap) are
 * told apart, malformed datagrams are refused without reading past their
 * end.  As root, a batch sent to the kernel in a namespace of its own:
 * the request in the middle fails and is the one named.
 */
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <netlink/errno.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "testbed/ocs-emu/emu_nlb.h"

/* One NLMSG_ERROR answer to request number seq, code err, at p. */
static size_t
answer(unsigned char *p, uint32_t seq, int err)
{
	struct nlmsghdr h = {.nlmsg_len =
	                         NLMSG_LENGTH(sizeof(struct nlmsgerr)),
	                     .nlmsg_type = NLMSG_ERROR,
	                     .nlmsg_seq = seq};
	struct nlmsgerr e = {.error = err};

	memcpy(p, &h, sizeof(h));
	memcpy(p + NLMSG_HDRLEN, &e, sizeof(e));
	return (NLMSG_ALIGN(h.nlmsg_len));
}

static void
test_ack_ends(void **state)
{
	unsigned char b[256];
	int           errs[3] = {7, 7, 7};

	(void)state;
	/* Only the last request asks for an ACK: its code 0 ends it. */
	memset(errs, 0, sizeof(errs));
	assert_int_equal(emu_nlb_answers(b, answer(b, 102, 0), 100, 3, errs),
	                 1);
	assert_int_equal(errs[0], 0);
	assert_int_equal(errs[1], 0);
	assert_int_equal(errs[2], 0);
}

static void
test_failure_named(void **state)
{
	unsigned char b[256];
	int           errs[3] = {0, 0, 0};
	size_t        n;

	(void)state;
	/* The failure of the second, alone: more to come. */
	assert_int_equal(
	    emu_nlb_answers(b, answer(b, 101, -ENODEV), 100, 3, errs), 0);
	assert_int_equal(errs[1], -ENODEV);
	assert_int_equal(errs[0], 0);
	/* A failure and the ACK in one datagram: done, both kept. */
	memset(errs, 0, sizeof(errs));
	n = answer(b, 100, -EEXIST);
	n += answer(b + n, 102, 0);
	assert_int_equal(emu_nlb_answers(b, n, 100, 3, errs), 1);
	assert_int_equal(errs[0], -EEXIST);
	assert_int_equal(errs[1], 0);
	assert_int_equal(errs[2], 0);
	/* The last one failing is its answer too. */
	memset(errs, 0, sizeof(errs));
	assert_int_equal(
	    emu_nlb_answers(b, answer(b, 102, -EINVAL), 100, 3, errs), 1);
	assert_int_equal(errs[2], -EINVAL);
	/* A positive code is no answer the kernel gives. */
	assert_int_equal(emu_nlb_answers(b, answer(b, 100, 5), 100, 3, errs),
	                 0);
	assert_int_equal(errs[0], -EPROTO);
}

static void
test_other_numbers(void **state)
{
	unsigned char   b[256];
	int             errs[3] = {0, 0, 0};
	size_t          n;
	struct nlmsghdr d = {.nlmsg_len = NLMSG_LENGTH(4),
	                     .nlmsg_type = NLMSG_DONE,
	                     .nlmsg_seq = 102};

	(void)state;
	/* An earlier batch's and a later number's: not this batch's. */
	n = answer(b, 99, -EIO);
	n += answer(b + n, 103, 0);
	assert_int_equal(emu_nlb_answers(b, n, 100, 3, errs), 0);
	assert_int_equal(errs[0] | errs[1] | errs[2], 0);
	/* Not an answer: ignored, even with the last one's number. */
	memset(b, 0, sizeof(b));
	memcpy(b, &d, sizeof(d));
	assert_int_equal(
	    emu_nlb_answers(b, NLMSG_ALIGN(d.nlmsg_len), 100, 3, errs), 0);
	/* Numbers across the wrap: 0xffffffff, 0, 1. */
	n = answer(b, 0, -ENOENT);
	n += answer(b + n, 1, 0);
	assert_int_equal(emu_nlb_answers(b, n, 0xffffffffu, 3, errs), 1);
	assert_int_equal(errs[1], -ENOENT);
	assert_int_equal(errs[0], 0);
}

static void
test_malformed(void **state)
{
	unsigned char   b[256];
	int             errs[2] = {0, 0};
	struct nlmsghdr h = {.nlmsg_len = 8, .nlmsg_type = NLMSG_ERROR};
	size_t          n;

	(void)state;
	/* A length below a header's: refused, not looped on. */
	memset(b, 0, sizeof(b));
	memcpy(b, &h, sizeof(h));
	assert_int_equal(emu_nlb_answers(b, 64, 0, 2, errs), -EBADMSG);
	/* A length past the datagram's end. */
	n = answer(b, 1, 0);
	assert_int_equal(emu_nlb_answers(b, n - 4, 0, 2, errs), -EBADMSG);
	/* An error too short to hold its code. */
	h.nlmsg_len = NLMSG_LENGTH(2);
	h.nlmsg_seq = 1;
	memcpy(b, &h, sizeof(h));
	assert_int_equal(
	    emu_nlb_answers(b, NLMSG_ALIGN(h.nlmsg_len), 0, 2, errs),
	    -EBADMSG);
	/* What came before a fault is kept. */
	n = answer(b, 0, -EPERM);
	memset(b + n, 0xff, sizeof(h));
	assert_int_equal(emu_nlb_answers(b, n + sizeof(h), 0, 2, errs),
	                 -EBADMSG);
	assert_int_equal(errs[0], -EPERM);
	/* A tail shorter than a header is no message. */
	errs[0] = 0;
	assert_int_equal(emu_nlb_answers(b, 10, 0, 2, errs), 0);
	assert_int_equal(errs[0], 0);
}

/* RTM_SETLINK: interface ix up. */
static struct nl_msg *
up_req(int ix)
{
	struct ifinfomsg ifi = {.ifi_family = AF_UNSPEC,
	                        .ifi_index = ix,
	                        .ifi_flags = IFF_UP,
	                        .ifi_change = IFF_UP};
	struct nl_msg   *m = nlmsg_alloc_simple(RTM_SETLINK, 0);

	if (m != NULL &&
	    nlmsg_append(m, &ifi, sizeof(ifi), NLMSG_ALIGNTO) < 0) {
		nlmsg_free(m);
		m = NULL;
	}
	return (m);
}

/* In a new network namespace (so nothing of the machine's is touched):
 * lo up, an interface that does not exist up, lo up, in one batch; and
 * a second batch numbered on from the first.  The child's exit status
 * says which check failed (0: none). */
static int
kernel_batch(void)
{
	struct nl_sock *sk;
	struct nl_msg  *m[3];
	int             errs[3], lo, rv;
	uint32_t        seq = 1000;

	if (unshare(CLONE_NEWNET) != 0 || (sk = nl_socket_alloc()) == NULL ||
	    nl_connect(sk, NETLINK_ROUTE) != 0)
		return (10);
	if ((lo = (int)if_nametoindex("lo")) == 0)
		return (11);
	m[0] = up_req(lo);
	m[1] = up_req(99999);
	m[2] = up_req(lo);
	if (!m[0] || !m[1] || !m[2])
		return (12);
	rv = emu_nlb_send(sk, &seq, m, 3, errs);
	if (rv != -NLE_NODEV || errs[0] != 0 || errs[1] != -NLE_NODEV ||
	    errs[2] != 0)
		return (13);
	if (seq != 1003)
		return (14);
	/* libnl's own requests on the socket still work after it. */
	if ((m[0] = up_req(lo)) == NULL || nl_send_sync(sk, m[0]) != 0)
		return (15);
	m[0] = up_req(lo);
	if (emu_nlb_send(sk, &seq, m, 1, NULL) != 0)
		return (16);
	nl_socket_free(sk);
	return (0);
}

static void
test_kernel(void **state)
{
	pid_t pid;
	int   st;

	(void)state;
	if (geteuid() != 0)
		skip();
	assert_true((pid = fork()) >= 0);
	if (pid == 0)
		_exit(kernel_batch());
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ack_ends),
	    cmocka_unit_test(test_failure_named),
	    cmocka_unit_test(test_other_numbers),
	    cmocka_unit_test(test_malformed),
	    cmocka_unit_test(test_kernel),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/integ/test_netns.c (root): the namespace testbed.  Hosts in
 * network namespaces with veth transceivers, ocs-emu's kernel datapath
 * (tc mirred through libnl) carrying their frames, agents on raw
 * Ethernet.  Frames the test sends itself show that a patch, a removal
 * and a re-patch are exactly what the kernel forwards, and that a dark
 * port drops and counts; every algorithm runs verified through it; a
 * host whose interface goes down mid-run ends the run with its name; and
 * no namespace outlives its testbed.  Without root every test is skipped
 * with the reason.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <jansson.h>

#include "proto/base/mono.h"
#include "tests/lib/rig.h"

#define TEST_TYPE 0x88b6 /* not the agents' EtherType: theirs ignore it */

static int
need_root(void)
{
	if (geteuid() != 0) {
		fprintf(stderr, "test_netns: skipped: needs root (network "
		                "namespaces, veth, tc)\n");
		return (0);
	}
	return (1);
}

/*
 * In host h's namespace, on interface t0: send `count` frames (recv 0;
 * recv -1 sends segments of the agents' kind, run 0x7e57 phase 3 from
 * node 9, which the switch's capture reads),
 * or count the frames that arrive within wait_ms (recv 1).  Run in a
 * child, which alone enters the namespace.  The count, or -1.
 */
static int
frames(struct rig *r, int h, int recv, int count, int wait_ms)
{
	char    path[96];
	int     pfd[2], n = -1, st;
	pid_t   pid;
	ssize_t k;

	snprintf(path, sizeof(path), "/run/netns/%s-h%02d", r->netns, h);
	if (pipe(pfd) != 0 || (pid = fork()) < 0)
		return (-1);
	if (pid == 0) {
		uint16_t           type = recv < 0 ? 0x88b5 : TEST_TYPE;
		struct sockaddr_ll sl = {.sll_family = AF_PACKET,
		                         .sll_protocol = htons(type)};
		uint8_t            f[200];
		int                fd, got = 0, i;
		uint64_t           dl = mono_ms() + (uint64_t)wait_ms;

		fd = open(path, O_RDONLY);
		if (fd < 0 || setns(fd, CLONE_NEWNET) != 0)
			_exit(1);
		sl.sll_ifindex = (int)if_nametoindex("t0");
		fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK, htons(type));
		if (fd < 0 || bind(fd, (struct sockaddr *)&sl, sizeof(sl)))
			_exit(1);
		memset(f, 0xff, 6);
		memset(f + 6, 0x02, 6);
		f[12] = (uint8_t)(type >> 8);
		f[13] = (uint8_t)type;
		memset(f + 14, 'x', sizeof(f) - 14);
		if (recv < 0) {
			static const uint8_t seg[24] = {
			    'O', 'S', 1, 0, 0, 0, 0,    1,    0, 0, 0, 0,
			    0,   0,   0, 0, 0, 0, 0x7e, 0x57, 0, 3, 0, 9};

			memcpy(f + 14, seg, sizeof(seg));
			recv = 0;
		}
		for (i = 0; !recv && i < count; i++)
			got += send(fd, f, sizeof(f), 0) == sizeof(f);
		while (recv && mono_ms() < dl) {
			if (read(fd, f, sizeof(f)) > 0)
				got++;
			else
				mono_sleep_ms(5);
		}
		(void)!write(pfd[1], &got, sizeof(got));
		_exit(0);
	}
	close(pfd[1]);
	k = read(pfd[0], &n, sizeof(n));
	close(pfd[0]);
	waitpid(pid, &st, 0);
	return (k == sizeof(n) ? n : -1);
}

/* Wait (up to 5 s) until host h's interface has a carrier (want 1) or
 * none: 1 when it has, 0 when it has not, -1 on error. */
static int
carrier_of(struct rig *r, int h, const char *ifname, int want)
{
	char cmd[160];
	int  i, rv = -1;

	snprintf(cmd, sizeof(cmd), "ip -o link show dev %s | grep -q LOWER_UP",
	         ifname);
	for (i = 0; i < 100; i++) {
		rv = rig_host_sh(r, h, cmd) == 0;
		if (rv == want)
			break;
		mono_sleep_ms(50);
	}
	return (rv);
}

static int
carrier(struct rig *r, int h, int want)
{
	return (carrier_of(r, h, "t0", want));
}

/* Frames from h00 that reach h01 (h01 listening while h00 sends). */
static int
crossing(struct rig *r, int count)
{
	pid_t pid;
	int   pfd[2], n = -1, st;

	if (pipe(pfd) != 0 || (pid = fork()) < 0)
		return (-1);
	if (pid == 0) {
		int got = frames(r, 1, 1, 0, 600);

		(void)!write(pfd[1], &got, sizeof(got));
		_exit(0);
	}
	close(pfd[1]);
	mono_sleep_ms(200); /* the receiver is bound by then */
	assert_int_equal(frames(r, 0, 0, count, 0), count);
	(void)!read(pfd[0], &n, sizeof(n));
	close(pfd[0]);
	waitpid(pid, &st, 0);
	return (n);
}

/*
 * In host h's namespace on t0, in a child: send frames stamped with the
 * monotonic clock (shared by every namespace) for ms (recv 0), or
 * receive for ms and return the latest stamp that came (recv 1).  The
 * child's pid; its result is read from *fd (a uint64_t).
 */
static pid_t
stamped(struct rig *r, int h, int recv, int ms, int *fd)
{
	char  path[96];
	int   pfd[2];
	pid_t pid;

	snprintf(path, sizeof(path), "/run/netns/%s-h%02d", r->netns, h);
	if (pipe(pfd) != 0 || (pid = fork()) < 0)
		return (-1);
	if (pid == 0) {
		struct sockaddr_ll sl = {.sll_family = AF_PACKET,
		                         .sll_protocol = htons(TEST_TYPE)};
		uint8_t            f[64];
		uint64_t           dl = mono_ms() + (uint64_t)ms, t, last = 0;
		int                s;

		s = open(path, O_RDONLY);
		if (s < 0 || setns(s, CLONE_NEWNET) != 0)
			_exit(1);
		sl.sll_ifindex = (int)if_nametoindex("t0");
		s = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK,
		           htons(TEST_TYPE));
		if (s < 0 || bind(s, (struct sockaddr *)&sl, sizeof(sl)))
			_exit(1);
		memset(f, 0xff, 6);
		memset(f + 6, 0x02, 6);
		f[12] = TEST_TYPE >> 8;
		f[13] = TEST_TYPE & 0xff;
		while (mono_ms() < dl) {
			if (!recv) {
				t = mono_ns();
				memcpy(f + 14, &t, sizeof(t));
				(void)!send(s, f, sizeof(f), 0);
				usleep(100);
			} else if (read(s, f, sizeof(f)) == sizeof(f)) {
				memcpy(&t, f + 14, sizeof(t));
				last = t > last ? t : last;
			} else
				usleep(100);
		}
		(void)!write(pfd[1], &last, sizeof(last));
		_exit(0);
	}
	close(pfd[1]);
	*fd = pfd[0];
	return (pid);
}

static uint64_t
counter(struct rig *r, const char *port, const char *key)
{
	char cmd[64], buf[2048], *p;

	snprintf(cmd, sizeof(cmd), "RTRV-PORT-CNTR::%s:2:;", port);
	assert_int_equal(rig_tl1(r, cmd, buf, sizeof(buf)), 0);
	p = strstr(buf, key);
	assert_non_null(p);
	return (strtoull(p + strlen(key), NULL, 10));
}

static char *
slurp(const char *path)
{
	FILE  *f = fopen(path, "re");
	char  *b;
	size_t n;

	if (f == NULL || (b = calloc(1, 65536)) == NULL) {
		if (f)
			fclose(f);
		return (NULL);
	}
	n = fread(b, 1, 65535, f);
	b[n] = '\0';
	fclose(f);
	return (b);
}

static int
netns_left(const char *prefix)
{
	char *argv[] = {"ip", "netns", "list", NULL}, *o, *e;
	int   left;

	assert_int_equal(proc_run(argv, &o, &e), 0);
	left = strstr(o, prefix) != NULL;
	free(o);
	free(e);
	return (left);
}

/* Patch, remove, re-patch: the kernel forwards exactly what the map
 * says, and a dark port drops and counts what it gets. */
static void
test_patch_dark(void **state)
{
	struct rig_opts o = {
	    .switch_time = "1ms", .netns = 1, .trx = 1, .no_agents = 1};
	struct rig *r;
	char        buf[2048], prefix[40], cmd[64];
	uint64_t    drop0;

	if (!need_root())
		skip();
	assert_non_null(r = rig_up_opts(2, &o));
	*state = r; /* torn down even if an assertion fails */
	snprintf(prefix, sizeof(prefix), "%s-", r->netns);
	/* Ports 1, 2 a side on a 4-port switch: h00.0 is 1 -> 5, h01.0 is
	 * 2 -> 6.  A NIC sends only with a carrier, which needs light at
	 * its own receiver: the circuit is duplex. */
	snprintf(cmd, sizeof(cmd), "ENT-PATCH::1,6:2:;");
	/* Carrier follows the light: none before a patch lights h00's
	 * receiver, one after, none once the patch goes. */
	assert_int_equal(carrier(r, 0, 0), 0);
	assert_int_equal(rig_tl1(r, "ENT-PATCH::2,5:2:;", buf, sizeof(buf)),
	                 0);
	assert_int_equal(carrier(r, 0, 1), 1);
	assert_int_equal(rig_tl1(r, "DLT-PATCH::2:2:;", buf, sizeof(buf)), 0);
	assert_int_equal(carrier(r, 0, 0), 0);
	assert_int_equal(rig_tl1(r, "ENT-PATCH::2,5:2:;", buf, sizeof(buf)),
	                 0);
	assert_int_equal(rig_tl1(r, cmd, buf, sizeof(buf)), 0);
	assert_int_equal(carrier(r, 1, 1), 1);
	assert_int_equal(crossing(r, 20), 20);
	assert_int_equal(rig_tl1(r, "DLT-PATCH::1:2:;", buf, sizeof(buf)), 0);
	drop0 = counter(r, "1", "DROP=");
	assert_int_equal(crossing(r, 15), 0);
	mono_sleep_ms(250); /* counters are read from tc every 100 ms */
	/* 15 frames of 200 bytes, dropped whole. */
	assert_int_equal(counter(r, "1", "DROP=") - drop0, 15 * 200);
	assert_int_equal(rig_tl1(r, cmd, buf, sizeof(buf)), 0);
	/* The host's carrier follows the switch side's through the
	 * kernel's link watch, a moment later on a busy machine. */
	assert_int_equal(carrier(r, 1, 1), 1);
	assert_int_equal(crossing(r, 10), 10);
	*state = NULL;
	assert_int_equal(rig_down(r), 0);
	assert_false(netns_left(prefix));
}

static void
run_ok(struct rig *r, const char *algo, const char *bytes)
{
	char *out, *err;
	int   rv;

	rv = rig_ctl(r, &out, &err, "run", "--capture", "--algo", algo,
	             "--bytes", bytes, NULL);
	if (rv != 0 || strstr(out, " 0 errors") == NULL)
		fprintf(stderr, "%s: %s%s", algo, out, err);
	assert_int_equal(rv, 0);
	assert_non_null(strstr(out, "verified: "));
	assert_non_null(strstr(out, " 0 errors"));
	/* libpcap on the switch's ports: no frame met an unlit circuit */
	assert_non_null(
	    strstr(out, "unlit-circuit frames: 0; capture drops: 0\n"));
	free(out);
	free(err);
}

/* A segment sent into a dark port is what the capture counts as a
 * frame on an unlit circuit, with its run, phase and sender. */
static void
test_capture_unlit(void **state)
{
	struct rig_opts o = {.switch_time = "1ms",
	                     .netns = 1,
	                     .trx = 1,
	                     .no_agents = 1,
	                     .netns_capture = 1};
	struct rig     *r;
	char            line[512];

	if (!need_root())
		skip();
	assert_non_null(r = rig_up_opts(2, &o));
	*state = r; /* torn down even if an assertion fails */
	/* Light into h00's receiver gives it a carrier; its own TX, on
	 * ingress 1, meets no patch. */
	assert_int_equal(rig_tl1(r, "ENT-PATCH::2,5:2:;", line, sizeof(line)),
	                 0);
	assert_int_equal(carrier(r, 0, 1), 1);
	assert_int_equal(frames(r, 0, -1, 3, 0), 3);
	/* Summarised once the ports are quiet (half a second). */
	assert_int_equal(proc_line(&r->emu, line, sizeof(line), 5000), 0);
	if (!strstr(line, "unlit-circuit frames: 3 (first: phase 3 from "
	                  "node 9)"))
		fprintf(stderr, "capture said: %s\n", line);
	assert_non_null(strstr(line, "capture run 00007e57: 3 frames"));
	assert_non_null(strstr(
	    line, "unlit-circuit frames: 3 (first: phase 3 from node 9)"));
	*state = NULL;
	assert_int_equal(rig_down(r), 0);
}

/* Every algorithm, verified through the kernel datapath. */
static void
test_algorithms(void **state)
{
	struct rig_opts o = {
	    .switch_time = "1ms", .netns = 1, .netns_capture = 1};
	static const char *const algos[] = {"retri", "bridge", "static",
	                                    "bruck"};
	struct rig              *r;
	size_t                   i;

	if (!need_root())
		skip();
	assert_non_null(r = rig_up_opts(5, &o));
	*state = r; /* torn down even if an assertion fails */
	for (i = 0; i < sizeof(algos) / sizeof(algos[0]); i++)
		run_ok(r, algos[i], "512KiB");
	*state = NULL;
	assert_int_equal(rig_down(r), 0);
}

/* Do n agents show every fibre up? */
static int
all_up(struct rig *r, int n)
{
	char *o, *e, *p;
	int   k = 0;

	if (rig_ctl(r, &o, &e, "agents", NULL) == 0)
		for (p = o; (p = strstr(p, " 2/2 ")) != NULL; p++)
			k++;
	free(o);
	free(e);
	return (k == n);
}

/* An interface taken down mid-run ends the run, naming host and
 * interface, and ocsctl agents shows it. */
static void
test_iface_down(void **state)
{
	struct rig_opts o = {.switch_time = "1ms",
	                     .netns = 1,
	                     .netns_rate = "50Mbps",
	                     .netns_capture = 1};
	struct rig     *r;
	struct proc     run;
	char            bin[256], log[300], cmd[900], *out, *err, *text;
	char           *argv[] = {"/bin/sh", "-c", cmd, NULL};
	int             st, i;

	if (!need_root())
		skip();
	assert_non_null(r = rig_up_opts(3, &o));
	*state = r; /* torn down even if an assertion fails */
	snprintf(log, sizeof(log), "%s/run.out", r->dir);
	snprintf(cmd, sizeof(cmd),
	         "exec %s -s %s run --algo static --bytes 24MiB >%s 2>&1",
	         proc_bin("ocsctl", bin, sizeof(bin)), r->sock, log);
	assert_int_equal(proc_start(&run, argv, NULL), 0);
	mono_sleep_ms(400); /* 24 MiB at 50 Mbit/s: the run takes 1.3 s */
	assert_int_equal(rig_host_sh(r, 1, "ip link set t1 down"), 0);
	st = proc_wait(&run, 30000);
	text = slurp(log);
	if (st <= 0)
		fprintf(stderr, "run: exit %d: %s\n", st, text ? text : "");
	assert_true(st > 0); /* it ended, and failed */
	assert_non_null(text);
	if (!strstr(text, "h01") || !strstr(text, "t1"))
		fprintf(stderr, "run said: %s\n", text);
	assert_non_null(strstr(text, "h01"));
	assert_non_null(strstr(text, "t1"));
	free(text);
	/* The agent says why its fibres are not up. */
	mono_sleep_ms(1500);
	assert_int_equal(rig_ctl(r, &out, &err, "agents", NULL), 0);
	if (!strstr(out, "t1 is down"))
		fprintf(stderr, "agents: %s\n", out);
	assert_non_null(strstr(out, "t1 is down"));
	free(out);
	free(err);
	assert_int_equal(rig_host_sh(r, 1, "ip link set t1 up"), 0);
	assert_int_equal(rig_wait_agents(r, 3, 10000), 0);
	/* Its fibres up again, all three hosts take part. */
	for (i = 0; i < 100 && !all_up(r, 3); i++)
		mono_sleep_ms(50);
	assert_true(all_up(r, 3));
	run_ok(r, "retri", "64KiB");
	*state = NULL;
	assert_int_equal(rig_down(r), 0);
}

/* A removed circuit carries nothing once the switch has said COMPLD:
 * under continuous traffic, no frame sent after the answer arrives. */
static void
test_dark_before_compld(void **state)
{
	struct rig_opts o = {
	    .switch_time = "1ms", .netns = 1, .trx = 1, .no_agents = 1};
	struct rig *r;
	char        buf[2048];
	int         sfd, rfd, st, round;
	pid_t       tx, rx;
	uint64_t    done, last;

	if (!need_root())
		skip();
	assert_non_null(r = rig_up_opts(2, &o));
	*state = r; /* torn down even if an assertion fails */
	for (round = 0; round < 5; round++) {
		assert_int_equal(
		    rig_tl1(r, "ENT-PATCH::2,5:2:;", buf, sizeof(buf)), 0);
		assert_int_equal(
		    rig_tl1(r, "ENT-PATCH::1,6:2:;", buf, sizeof(buf)), 0);
		assert_int_equal(carrier(r, 0, 1), 1);
		assert_int_equal(carrier(r, 1, 1), 1);
		rx = stamped(r, 1, 1, 1500, &rfd);
		tx = stamped(r, 0, 0, 1000, &sfd);
		assert_true(rx > 0 && tx > 0);
		mono_sleep_ms(300); /* traffic crosses */
		assert_int_equal(
		    rig_tl1(r, "DLT-PATCH::1:2:;", buf, sizeof(buf)), 0);
		done = mono_ns();
		assert_int_equal(read(rfd, &last, sizeof(last)), sizeof(last));
		waitpid(rx, &st, 0);
		waitpid(tx, &st, 0);
		close(rfd);
		close(sfd);
		assert_true(last > 0); /* it did carry before */
		if (last > done)
			fprintf(stderr,
			        "round %d: a frame sent %.3f ms after the "
			        "COMPLD crossed\n",
			        round, (last - done) / 1e6);
		assert_true(last <= done);
		assert_int_equal(
		    rig_tl1(r, "DLT-PATCH::2:2:;", buf, sizeof(buf)), 0);
	}
	*state = NULL;
	assert_int_equal(rig_down(r), 0);
}

/* A second ocs-emu on the same testbed is refused, naming the first. */
static void
test_second_emu(void **state)
{
	struct rig_opts o = {
	    .switch_time = "1ms", .netns = 1, .trx = 1, .no_agents = 1};
	struct rig *r;
	char        bin[256], dp[64], buf[2048], *out, *err;
	char       *argv[] = {
	          NULL,      "--tl1", "127.0.0.1:0", "--datapath",  dp,
	          "--ports", "4",     "--rest",      "127.0.0.1:0", NULL};
	char want[64];

	if (!need_root())
		skip();
	assert_non_null(r = rig_up_opts(2, &o));
	*state = r; /* torn down even if an assertion fails */
	argv[0] = (char *)(uintptr_t)proc_bin("ocs-emu", bin, sizeof(bin));
	snprintf(dp, sizeof(dp), "netns:%s", r->netns);
	assert_int_not_equal(proc_run(argv, &out, &err), 0);
	snprintf(want, sizeof(want), "another ocs-emu (pid %d)",
	         (int)r->emu.pid);
	if (!strstr(err, want))
		fprintf(stderr, "second ocs-emu said: %s%s\n", out, err);
	assert_non_null(strstr(err, want));
	free(out);
	free(err);
	/* The first still carries light. */
	assert_int_equal(rig_tl1(r, "ENT-PATCH::2,5:2:;", buf, sizeof(buf)),
	                 0);
	assert_int_equal(carrier(r, 0, 1), 1);
	*state = NULL;
	assert_int_equal(rig_down(r), 0);
}

/* Links that retrain for 5 ms after light returns: every reconfigured
 * phase is released no sooner than 5 ms after the switch settled, no
 * frame is lost or unlit, and the report has the link-up term. */
static void
test_link_up(void **state)
{
	struct rig_opts o = {.switch_time = "1ms",
	                     .netns = 1,
	                     .netns_capture = 1,
	                     .link_up = "5ms",
	                     .run_conf = "link_up = 5ms\n"};
	struct rig     *r;
	char           *out, *err;
	json_t         *j, *rep, *ph, *p;
	json_error_t    je;
	size_t          k, n = 0;
	double          rl;

	if (!need_root())
		skip();
	assert_non_null(r = rig_up_opts(4, &o));
	*state = r; /* torn down even if an assertion fails */
	/* Dark at the start (nothing patched), joined and eligible. */
	assert_int_equal(rig_ctl(r, &out, &err, "agents", NULL), 0);
	if (!strstr(out, "t0 dark"))
		fprintf(stderr, "agents: %s\n", out);
	assert_non_null(strstr(out, "t0 dark"));
	free(out);
	free(err);
	run_ok(r, "retri", "256KiB");
	assert_int_equal(rig_ctl(r, &out, &err, "-j", "run", "--algo", "bruck",
	                         "--bytes", "256KiB", NULL),
	                 0);
	assert_non_null(j = json_loads(out, 0, &je));
	assert_non_null(rep = json_object_get(j, "report"));
	assert_true(json_is_true(json_object_get(rep, "verified")));
	assert_true(json_real_value(json_object_get(rep, "link_up_s")) ==
	            0.005);
	assert_true(json_real_value(json_object_get(rep, "delta_s")) >= 0.006);
	ph = json_object_get(rep, "phases");
	json_array_foreach(ph, k, p)
	{
		if (!json_is_true(json_object_get(p, "reconfigured")))
			continue;
		n++;
		/* The links retrain from the light's return, which comes
		 * after the switching time (1 ms), inside the reconfiguration:
		 * the release is at least 6 ms after it began.  link_s alone
		 * starts after ocsd's read-back and light check, which a busy
		 * machine can make longer than the retraining. */
		rl = json_real_value(json_object_get(p, "reconf_s")) +
		     json_real_value(json_object_get(p, "link_s"));
		if (rl < 0.006)
			fprintf(stderr, "phase %zu: reconf + link-up %.6f s\n",
			        k, rl);
		assert_true(rl >= 0.006);
	}
	assert_true(n > 0);
	json_decref(j);
	free(out);
	free(err);
	*state = NULL;
	assert_int_equal(rig_down(r), 0);
}

/* The switch side of a host's transceiver goes dark mid-run (its port
 * taken down): the run ends at once, naming host, interface and phase. */
static void
test_carrier_cut(void **state)
{
	struct rig_opts o = {.switch_time = "1ms",
	                     .netns = 1,
	                     .netns_rate = "50Mbps",
	                     .run_conf = "deadline = 60s\n"};
	struct rig     *r;
	struct proc     run;
	char            bin[256], log[300], cmd[900], *text;
	char           *argv[] = {"/bin/sh", "-c", cmd, NULL};
	int             st;
	uint64_t        t0;

	if (!need_root())
		skip();
	assert_non_null(r = rig_up_opts(3, &o));
	*state = r; /* torn down even if an assertion fails */
	snprintf(log, sizeof(log), "%s/run.out", r->dir);
	snprintf(cmd, sizeof(cmd),
	         "exec %s -s %s run --algo static --bytes 24MiB >%s 2>&1",
	         proc_bin("ocsctl", bin, sizeof(bin)), r->sock, log);
	assert_int_equal(proc_start(&run, argv, NULL), 0);
	/* Phase 0's circuits light h01's t1 (dark before the run), then
	 * the data flows: 24 MiB at 50 Mbit/s take 1.3 s. */
	assert_int_equal(carrier_of(r, 1, "t1", 1), 1);
	mono_sleep_ms(300);
	/* h01's t1 is port 4 (host h, transceiver t: 2h + t + 1). */
	snprintf(cmd, sizeof(cmd), "ip netns exec %s-sw ip link set p4 down",
	         r->netns);
	t0 = mono_ms();
	assert_int_equal(system(cmd), 0);
	st = proc_wait(&run, 60000);
	text = slurp(log);
	if (st <= 0 || !strstr(text, "h01 interface t1") ||
	    !strstr(text, "lost its carrier") || !strstr(text, "in phase"))
		fprintf(stderr, "run: exit %d: %s\n", st, text ? text : "");
	assert_true(st > 0);
	assert_non_null(strstr(text, "h01 interface t1"));
	assert_non_null(strstr(text, "lost its carrier"));
	assert_non_null(strstr(text, "in phase"));
	/* At once, not at the 60 s barrier deadline. */
	assert_true(mono_ms() - t0 < 10000);
	free(text);
	*state = NULL;
	assert_int_equal(rig_down(r), 0);
}

/* ocs-emu killed -9 mid-run: the kernel keeps its circuits and the data
 * comes through, but the switch is gone.  The run fails saying so and
 * that its map was not put back; it is never reported restored. */
static void
test_emu_killed(void **state)
{
	struct rig_opts o = {.switch_time = "1ms",
	                     .netns = 1,
	                     .netns_rate = "50Mbps",
	                     .run_conf = "deadline = 60s\n"};
	struct rig     *r;
	struct proc     run;
	char            bin[256], log[300], cmd[900], *text;
	char           *argv[] = {"/bin/sh", "-c", cmd, NULL};
	int             st;

	if (!need_root())
		skip();
	assert_non_null(r = rig_up_opts(3, &o));
	*state = r; /* torn down even if an assertion fails */
	snprintf(log, sizeof(log), "%s/run.out", r->dir);
	snprintf(cmd, sizeof(cmd),
	         "exec %s -s %s run --algo static --bytes 24MiB >%s 2>&1",
	         proc_bin("ocsctl", bin, sizeof(bin)), r->sock, log);
	assert_int_equal(proc_start(&run, argv, NULL), 0);
	/* Phase 0 lit (one configuration: no reconfiguration left to
	 * fail), the data flowing for 1.3 s: the switch dies. */
	assert_int_equal(carrier_of(r, 1, "t1", 1), 1);
	mono_sleep_ms(300);
	assert_int_equal(kill(r->emu.pid, SIGKILL), 0);
	st = proc_wait(&run, 60000);
	text = slurp(log);
	if (st <= 0 || !strstr(text, "the switch is gone") ||
	    !strstr(text, "not restored"))
		fprintf(stderr, "run: exit %d: %s\n", st, text ? text : "");
	assert_true(st > 0);
	assert_non_null(strstr(text, "every block verified, but the switch "
	                             "is gone"));
	assert_non_null(strstr(text, "its map was not restored"));
	assert_null(strstr(text, "the switch put back"));
	free(text);
	*state = NULL;
	assert_int_equal(rig_down(r), 0);
}

/* ocsctl check until its output has want (up to 10 s): its exit status,
 * the output in *out (the caller frees it). */
static int
check_until(struct rig *r, const char *want, char **out)
{
	char *err = NULL;
	int   i, rv = -1;

	*out = NULL;
	for (i = 0; i < 100; i++) {
		free(*out);
		free(err);
		rv = rig_ctl(r, out, &err, "check", NULL);
		if (*out && strstr(*out, want))
			break;
		mono_sleep_ms(100);
	}
	if (*out == NULL || !strstr(*out, want))
		fprintf(stderr, "check: exit %d, no \"%s\": %s%s\n", rv, want,
		        *out ? *out : "", err ? err : "");
	free(err);
	return (rv);
}

/* ocsctl check: every transceiver, the switch's side beside the host's;
 * a healthy testbed has no problem, an interface down and an MTU that
 * differs are named, and the exit status says so. */
static void
test_check(void **state)
{
	struct rig_opts o = {
	    .switch_time = "1ms", .netns = 1, .trx = 1, .quiet = 1};
	struct rig *r;
	char       *out, *err;

	if (!need_root())
		skip();
	assert_non_null(r = rig_up_opts(3, &o));
	*state = r; /* torn down even if an assertion fails */
	assert_int_equal(
	    rig_ctl(r, &out, &err, "connect", "h00.0", "h01.0", NULL), 0);
	free(out);
	free(err);
	/* h00, h01 lit and up; h02 dark (nothing patched): no problem. */
	assert_int_equal(check_until(r, "0 transceivers with problems", &out),
	                 0);
	assert_non_null(strstr(out, "h02.0"));
	assert_non_null(strstr(out, " dark "));
	/* Each heard the other's probe over the kernel datapath. */
	assert_non_null(strstr(out, " up         h01.0 "));
	assert_non_null(strstr(out, " up         h00.0 "));
	free(out);
	assert_int_equal(rig_host_sh(r, 1, "ip link set t0 down"), 0);
	assert_int_equal(check_until(r, "interface t0 is down", &out), 1);
	/* and its peer hears nothing from it, which is said there too. */
	if (!strstr(out, "could not send its probe"))
		fprintf(stderr, "%s", out);
	assert_non_null(strstr(out, "2 transceivers with problems"));
	assert_non_null(
	    strstr(out, "nothing heard: h01.0 could not send its probe"));
	free(out);
	assert_int_equal(rig_host_sh(r, 1, "ip link set t0 up"), 0);
	assert_int_equal(rig_host_sh(r, 2, "ip link set t0 mtu 1500"), 0);
	assert_int_equal(check_until(r, "MTU 1500, most have 9000", &out), 1);
	free(out);
	*state = NULL;
	assert_int_equal(rig_down(r), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_patch_dark, rig_teardown),
	    cmocka_unit_test_teardown(test_capture_unlit, rig_teardown),
	    cmocka_unit_test_teardown(test_algorithms, rig_teardown),
	    cmocka_unit_test_teardown(test_iface_down, rig_teardown),
	    cmocka_unit_test_teardown(test_dark_before_compld, rig_teardown),
	    cmocka_unit_test_teardown(test_second_emu, rig_teardown),
	    cmocka_unit_test_teardown(test_link_up, rig_teardown),
	    cmocka_unit_test_teardown(test_carrier_cut, rig_teardown),
	    cmocka_unit_test_teardown(test_emu_killed, rig_teardown),
	    cmocka_unit_test_teardown(test_check, rig_teardown),
	};

	/* OCS_TEST_FILTER=test_check: those tests only (a glob). */
	if (getenv("OCS_TEST_FILTER") != NULL)
		cmocka_set_test_filter(getenv("OCS_TEST_FILTER"));
	return (cmocka_run_group_tests(tests, NULL, NULL));
}

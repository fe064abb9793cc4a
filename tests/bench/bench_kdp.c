/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bench_kdp (root): the namespace testbed's kernel datapath, every
 * comparison measured in the same run.
 *   1. one stream of the agents' raw-Ethernet segments between two hosts
 *      through the switch (veth, tc mirred redirect, veth) against the
 *      same two namespaces joined by one veth pair, no switch;
 *   2. one reconfiguration of 81 ports (ENT-PATCH re-pointing all of
 *      them, switching time 0, answered once the kernel forwards): the
 *      kernel datapath against the relay, whose light path needs no
 *      kernel work;
 *   3. All-to-All on 9 hosts with fibres shaped to 1 Gbps against the
 *      model given that rate;
 *   4. the cost of links retraining in a phase (ocs-emu --link-up 0,
 *      100 us, 2 ms): per reconfigured phase the time from "switch
 *      settled" to "every link up" that ocsd measured, against the
 *      model's link-up term, and the run's total against the model's;
 *   5. removed circuits dark before the COMPLD, under continuous
 *      traffic: frames stamped after the DLT-PATCH's answer that still
 *      crossed (goal 0), over many deletions.
 * The reconfiguration's time is given as its spread (min, median, max):
 * on a busy machine it varies by several times.
 * `bench_kdp 2 5` runs those parts only.  Without root it says so and
 * exits 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/socket.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "agent/xport.h"
#include "proto/base/mono.h"
#include "tests/lib/rig.h"

#define STREAM_BYTES (256u << 20)
#define CHUNK        (1u << 20)

static int
sh(const char *fmt, ...)
{
	char    cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return (system(cmd));
}

static int
enter(const char *ns)
{
	char path[128];
	int  fd;

	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	if ((fd = open(path, O_RDONLY)) < 0 || setns(fd, CLONE_NEWNET) != 0)
		return (-1);
	close(fd);
	return (0);
}

/* In ns, send STREAM_BYTES on t0 as the agents do. */
static void
sender(const char *ns)
{
	struct xport x;
	uint8_t     *buf = malloc(CHUNK);
	uint64_t     sent = 0;
	char         err[256];
	ssize_t      w;
	size_t       off;

	if (buf == NULL || enter(ns) != 0 ||
	    xport_open(&x, &xport_kernel_ops, "t0", 1, 2, 1000, err,
	               sizeof(err)) != 0) {
		fprintf(stderr, "   sender in %s: %s\n", ns, err);
		_exit(1);
	}
	memset(buf, 0x5a, CHUNK);
	xport_epoch(&x, 1, 0, 0);
	mono_sleep_ms(300); /* the receiver is listening by then */
	while (sent < STREAM_BYTES)
		for (off = 0; off < CHUNK;) {
			w = xport_send(&x, buf + off, CHUNK - off);
			if (w == -EAGAIN) {
				usleep(50);
				continue;
			}
			if (w < 0)
				_exit(2);
			off += (size_t)w;
			sent += (uint64_t)w;
		}
	xport_close(&x);
	_exit(0);
}

/* In ns, take the stream on t0; bytes/s from first to last byte, or
 * -1 if anything was lost. */
static double
receive(const char *ns)
{
	struct xport x;
	uint8_t     *buf = malloc(CHUNK);
	uint64_t     got = 0, t0 = 0, t1 = 0, quiet = 0;
	char         err[256];
	ssize_t      r;

	if (buf == NULL || enter(ns) != 0 ||
	    xport_open(&x, &xport_kernel_ops, "t0", 1, 2, 1000, err,
	               sizeof(err)) != 0) {
		fprintf(stderr, "   receiver in %s: %s\n", ns, err);
		return (-1);
	}
	while (got < STREAM_BYTES) {
		r = xport_recv(&x, buf, CHUNK);
		if (r == -EAGAIN) {
			if (quiet == 0)
				quiet = mono_ms();
			/* 2 s of silence mid-stream, 10 s before its first
			 * byte: lost, said below, not waited for forever. */
			if (mono_ms() - quiet > (t0 ? 2000u : 10000u))
				break;
			usleep(20);
			continue;
		}
		if (r <= 0) {
			fprintf(stderr, "   receiver: %s\n",
			        xport_why(&x) ? xport_why(&x) : "error");
			break;
		}
		quiet = 0;
		if (t0 == 0)
			t0 = mono_ns();
		t1 = mono_ns();
		got += (uint64_t)r;
	}
	if (got < STREAM_BYTES) {
		struct tpacket_stats ts = {0};
		socklen_t            tl = sizeof(ts);

		getsockopt(xport_fd(&x), SOL_PACKET, PACKET_STATISTICS, &ts,
		           &tl);
		fprintf(stderr,
		        "   receiver in %s: %llu of %u MiB, the socket "
		        "dropped %u frames\n",
		        ns, (unsigned long long)(got >> 20),
		        STREAM_BYTES >> 20, ts.tp_drops);
	}
	xport_close(&x);
	free(buf);
	return (got == STREAM_BYTES && t1 > t0 ? got / ((t1 - t0) / 1e9) : -1);
}

/* The stream from host a to host b; bytes/s, or -1. */
static double
stream(const char *a, const char *b)
{
	pid_t  pid = fork();
	double bps;
	int    st;

	if (pid == 0)
		sender(a);
	if (pid < 0)
		return (-1);
	/* The receiver enters b in a child too: this process stays home. */
	{
		int   pfd[2];
		pid_t rp;

		if (pipe(pfd) != 0 || (rp = fork()) < 0)
			return (-1);
		if (rp == 0) {
			bps = receive(b);
			(void)!write(pfd[1], &bps, sizeof(bps));
			_exit(0);
		}
		close(pfd[1]);
		if (read(pfd[0], &bps, sizeof(bps)) != sizeof(bps))
			bps = -1;
		close(pfd[0]);
		waitpid(rp, &st, 0);
	}
	waitpid(pid, &st, 0);
	return (bps);
}

/* The median of three streams (the machine's other work varies). */
static double
best_of(const char *a, const char *b)
{
	double v[3], x;
	int    i, j;

	for (i = 0; i < 3; i++)
		v[i] = stream(a, b);
	for (i = 0; i < 3; i++)
		for (j = i + 1; j < 3; j++)
			if (v[j] < v[i])
				x = v[i], v[i] = v[j], v[j] = x;
	return (v[0] < 0 ? -1 : v[1]);
}

static void
part1(void)
{
	struct rig_opts o = {
	    .switch_time = "0", .netns = 1, .trx = 1, .no_agents = 1};
	struct rig *r = rig_up_opts(2, &o);
	char        a[64], b[64], buf[1024], pre[40];
	double      sw = -1, direct = -1;

	printf("1. one stream of %u MiB, raw Ethernet (MTU 9000), the "
	       "agents' kernel transport (median of 3)\n",
	       STREAM_BYTES >> 20);
	if (r != NULL) {
		snprintf(a, sizeof(a), "%s-h00", r->netns);
		snprintf(b, sizeof(b), "%s-h01", r->netns);
		/* h00.0 is ingress 1, h01.0 egress 4+2 on 4 ports a side. */
		/* Both ways: a NIC whose receiver has no light has no
		 * carrier and sends nothing (ocs-emu models that). */
		if (rig_tl1(r, "ENT-PATCH::2,5:2:;", buf, sizeof(buf)) == 0 &&
		    rig_tl1(r, "ENT-PATCH::1,6:2:;", buf, sizeof(buf)) == 0)
			sw = best_of(a, b);
		rig_down(r);
	}
	snprintf(pre, sizeof(pre), "bk%u", (unsigned)getpid());
	if (sh("ip netns add %s-a && ip netns add %s-b && "
	       "ip -n %s-a link add t0 mtu 9000 type veth peer name t0 "
	       "netns %s-b mtu 9000 && ip -n %s-a link set t0 up && "
	       "ip -n %s-b link set t0 up",
	       pre, pre, pre, pre, pre, pre) == 0) {
		snprintf(a, sizeof(a), "%s-a", pre);
		snprintf(b, sizeof(b), "%s-b", pre);
		/* A veth's carrier comes up a moment after both ends. */
		sh("for i in $(seq 50); do ip -n %s-a link show t0 | grep -q "
		   "LOWER_UP && ip -n %s-b link show t0 | grep -q LOWER_UP && "
		   "break; sleep 0.1; done",
		   pre, pre);
		direct = best_of(a, b);
	}
	sh("ip netns del %s-a 2>/dev/null; ip netns del %s-b 2>/dev/null", pre,
	   pre);
	printf("   %-40s %10s\n", "path", "MB/s");
	printf("   %-40s %10.0f\n", "through the switch (tc mirred)",
	       sw / 1e6);
	printf("   %-40s %10.0f\n", "one veth pair, no switch", direct / 1e6);
	if (sw > 0 && direct > 0)
		printf("   switch / direct: %.0f%% (goal 90%%)\n",
		       100 * sw / direct);
	else
		printf("   (a stream lost bytes or did not run: see above)\n");
}

/* Re-pointing all n ports REPOINTS times: min, median and max in
 * v[0..2], ms; 0, or -1 if one failed. */
#define REPOINTS 15
static int
repoint(struct rig *r, int n, int P, double *v)
{
	/* The answer holds a REPT EVT a port whose light went (81 of
	 * them, 19 KiB) before the COMPLD. */
	static char buf[1 << 17];
	char        cmd[8192];
	double      t[REPOINTS], x;
	int         k, i, j, off;
	uint64_t    t0;

	for (k = 0; k < REPOINTS; k++) {
		/* Polatis refuses to re-point a busy port: the old patches
		 * go first, in the same exchange, as ocsd sends them. */
		off = snprintf(cmd, sizeof(cmd), "DLT-PATCH::");
		for (i = 1; i <= n; i++)
			off += snprintf(cmd + off, sizeof(cmd) - (size_t)off,
			                "%s%d", i > 1 ? "&" : "", i);
		off += snprintf(cmd + off, sizeof(cmd) - (size_t)off,
		                ":3:;ENT-PATCH::");
		for (i = 1; i <= n; i++)
			off += snprintf(cmd + off, sizeof(cmd) - (size_t)off,
			                "%s%d", i > 1 ? "&" : "", i);
		off += snprintf(cmd + off, sizeof(cmd) - (size_t)off, ",");
		for (i = 1; i <= n; i++)
			off += snprintf(cmd + off, sizeof(cmd) - (size_t)off,
			                "%s%d", i > 1 ? "&" : "",
			                P + (i - 1 + k + 1) % n + 1);
		snprintf(cmd + off, sizeof(cmd) - (size_t)off, ":2:;");
		t0 = mono_ns();
		if (rig_tl1(r, cmd, buf, sizeof(buf)) != 0) {
			fprintf(stderr, "ENT-PATCH: %s\n", buf);
			return (-1);
		}
		t[k] = (mono_ns() - t0) / 1e6;
	}
	for (i = 0; i < REPOINTS; i++)
		for (j = i + 1; j < REPOINTS; j++)
			if (t[j] < t[i])
				x = t[i], t[i] = t[j], t[j] = x;
	v[0] = t[0];
	v[1] = t[REPOINTS / 2];
	v[2] = t[REPOINTS - 1];
	return (0);
}

static void
part2(void)
{
	struct rig_opts o = {.switch_time = "0", .trx = 1, .no_agents = 1};
	struct rig     *r;
	double          relay[3] = {-1, -1, -1}, kern[3] = {-1, -1, -1};
	int             n = 81;

	printf("\n2. one reconfiguration re-pointing %d ports, switching "
	       "time 0 (ENT-PATCH to COMPLD, %d times)\n",
	       n, REPOINTS);
	if ((r = rig_up_opts(n, &o)) != NULL) {
		(void)repoint(r, n, n + 2, relay);
		rig_down(r);
	}
	o.netns = 1;
	if ((r = rig_up_opts(n, &o)) != NULL) {
		(void)repoint(r, n, n + 2, kern);
		rig_down(r);
	}
	printf("   %-40s %8s %8s %8s\n", "light path", "min ms", "median",
	       "max");
	printf("   %-40s %8.2f %8.2f %8.2f\n", "relay (no kernel work)",
	       relay[0], relay[1], relay[2]);
	printf("   %-40s %8.2f %8.2f %8.2f\n",
	       "kernel datapath (81 tc filters)", kern[0], kern[1], kern[2]);
	if (relay[1] > 0 && kern[1] > 0)
		printf("   the kernel's part (medians): %.2f ms, %.1f us a "
		       "port\n",
		       kern[1] - relay[1], (kern[1] - relay[1]) * 1e3 / n);
}

static json_t *
run_json(struct rig *r, const char *algo, const char *bytes)
{
	char   *o, *e;
	json_t *j = NULL;

	if (rig_ctl(r, &o, &e, "-j", "run", "--algo", algo, "--bytes", bytes,
	            "--bandwidth", "100Mbps", NULL) == 0)
		j = json_loads(o, 0, NULL);
	else
		fprintf(stderr, "run failed: %s", e);
	free(o);
	free(e);
	return (j);
}

static void
part3(void)
{
	static const char *const algos[] = {"retri", "bridge", "static"};
	static const char *const sizes[] = {"1MiB", "16MiB", "64MiB"};
	struct rig_opts          o = {.switch_time = "1ms",
	                              .netns = 1,
	                              .netns_rate = "100Mbps",
	                              .run_conf = "bandwidth = 100Mbps\n"};
	struct rig              *r;
	size_t                   a, s;

	printf("\n3. All-to-All on 9 hosts, fibres shaped to 100 Mbps (18 "
	       "links the 2 cores can fill), switching\n   time 1 ms, against "
	       "the model at 100 Mbps\n");
	printf("   %-7s %7s %12s %12s %12s %7s\n", "algo", "size", "measured",
	       "model", "data only", "ratio");
	if ((r = rig_up_opts(9, &o)) == NULL)
		return;
	for (a = 0; a < 3; a++)
		for (s = 0; s < 3; s++) {
			json_t *j = run_json(r, algos[a], sizes[s]), *rep, *ph;
			double  m, p, data = 0;
			size_t  k;

			if (j == NULL)
				continue;
			rep = json_object_get(j, "report");
			m = json_number_value(json_object_get(rep, "total_s"));
			p = json_number_value(
			    json_object_get(rep, "predicted_s"));
			json_array_foreach(json_object_get(rep, "phases"), k,
			                   ph) data +=
			    json_number_value(json_object_get(ph, "data_s"));
			printf(
			    "   %-7s %7s %9.2f ms %9.2f ms %9.2f ms %7.2f\n",
			    algos[a], sizes[s], m * 1e3, p * 1e3, data * 1e3,
			    m / p);
			json_decref(j);
		}
	rig_down(r);
}

/* One run's links: per reconfigured phase the measured link-up (s). */
static int
links_of(json_t *rep, double *v, int max)
{
	json_t *ph;
	size_t  k;
	int     n = 0;

	json_array_foreach(json_object_get(rep, "phases"), k, ph)
	{
		if (n < max &&
		    json_is_true(json_object_get(ph, "reconfigured")) &&
		    json_object_get(ph, "link_s") != NULL)
			v[n++] =
			    json_number_value(json_object_get(ph, "link_s"));
	}
	return (n);
}

static int
cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x < y ? -1 : x > y);
}

static void
part4(void)
{
	static const char *const ups[] = {"0", "100us", "2ms"};
	struct rig_opts          o = {.switch_time = "1ms", .netns = 1};
	char                     conf[64];
	size_t                   u;

	printf("\n4. links retraining after a reconfiguration (ocs-emu "
	       "--link-up, ocsd [run] link_up alike):\n   Bruck 1 MiB on 4 "
	       "hosts, switching time 1 ms; per reconfigured phase the "
	       "time\n   from \"switch settled\" to \"every link up\" "
	       "ocsd measured, against the model's term\n");
	printf("   %-8s %7s %10s %10s %10s %10s %12s %12s\n", "link-up",
	       "phases", "min", "median", "max", "model", "run total",
	       "model total");
	for (u = 0; u < 3; u++) {
		struct rig *r;
		json_t     *j, *rep;
		double      v[256];
		int         n;

		o.link_up = ups[u];
		snprintf(conf, sizeof(conf), "link_up = %s\n", ups[u]);
		o.run_conf = conf;
		if ((r = rig_up_opts(4, &o)) == NULL)
			continue;
		if ((j = run_json(r, "bruck", "1MiB")) != NULL) {
			rep = json_object_get(j, "report");
			n = links_of(rep, v, 256);
			qsort(v, (size_t)n, sizeof(v[0]), cmp_dbl);
			printf(
			    "   %-8s %7d %7.3f ms %7.3f ms %7.3f ms %7.3f ms "
			    "%9.2f ms %9.2f ms\n",
			    ups[u], n, n ? v[0] * 1e3 : 0,
			    n ? v[n / 2] * 1e3 : 0, n ? v[n - 1] * 1e3 : 0,
			    json_number_value(
			        json_object_get(rep, "link_up_s")) *
			        1e3,
			    json_number_value(
			        json_object_get(rep, "total_s")) *
			        1e3,
			    json_number_value(
			        json_object_get(rep, "predicted_s")) *
			        1e3);
			json_decref(j);
		}
		rig_down(r);
	}
}

/*
 * In ns on t0, in a child: send stamped frames (the monotonic clock,
 * shared by every namespace) every 50 us for ms (recv 0), or receive
 * for ms and keep the stamps of the last LATE_RING that came (recv 1),
 * written to *fd.  The child's pid.
 */
#define LATE_RING 4096
static pid_t
stamped(const char *ns, int recv, int ms, int *fd)
{
	int   pfd[2];
	pid_t pid;

	if (pipe(pfd) != 0 || (pid = fork()) < 0)
		return (-1);
	if (pid == 0) {
		struct sockaddr_ll sl = {.sll_family = AF_PACKET,
		                         .sll_protocol = htons(0x88b6)};
		static uint64_t    ring[LATE_RING];
		uint8_t            f[64];
		uint64_t           dl = mono_ms() + (uint64_t)ms, t;
		uint32_t           got = 0;
		int                s;

		if (enter(ns) != 0)
			_exit(1);
		sl.sll_ifindex = (int)if_nametoindex("t0");
		s = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK, htons(0x88b6));
		if (s < 0 || bind(s, (struct sockaddr *)&sl, sizeof(sl)))
			_exit(1);
		memset(f, 0xff, 6);
		memset(f + 6, 0x02, 6);
		f[12] = 0x88;
		f[13] = 0xb6;
		while (mono_ms() < dl) {
			if (!recv) {
				t = mono_ns();
				memcpy(f + 14, &t, sizeof(t));
				(void)!send(s, f, sizeof(f), 0);
				usleep(50);
			} else if (read(s, f, sizeof(f)) == sizeof(f)) {
				memcpy(&t, f + 14, sizeof(t));
				ring[got++ % LATE_RING] = t;
			} else
				usleep(50);
		}
		(void)!write(pfd[1], &got, sizeof(got));
		(void)!write(pfd[1], ring, sizeof(ring));
		_exit(0);
	}
	close(pfd[1]);
	*fd = pfd[0];
	return (pid);
}

/* Read what a receiver kept: frames stamped after done, and the latest
 * stamp's lead over done (ns, 0 if none). */
static int
late_frames(int fd, uint64_t done, uint64_t *lead)
{
	static uint64_t ring[LATE_RING];
	uint32_t        got = 0, i, n;
	size_t          have = 0;
	ssize_t         k;
	int             late = 0;

	*lead = 0;
	if (read(fd, &got, sizeof(got)) != sizeof(got))
		return (-1);
	while (have < sizeof(ring) &&
	       (k = read(fd, (uint8_t *)ring + have, sizeof(ring) - have)) > 0)
		have += (size_t)k;
	n = got < LATE_RING ? got : LATE_RING;
	for (i = 0; i < n; i++)
		if (ring[i] > done) {
			late++;
			if (ring[i] - done > *lead)
				*lead = ring[i] - done;
		}
	return (got == 0 ? -1 : late);
}

static void
part5(void)
{
	struct rig_opts o = {
	    .switch_time = "1ms", .netns = 1, .trx = 1, .no_agents = 1};
	struct rig *r;
	char        buf[2048], a[64], b[64];
	int         sfd, rfd, st, round, late, total = 0, rounds = 0;
	pid_t       tx, rx;
	uint64_t    done, lead, maxlead = 0;

	printf("\n5. a removed circuit dark before the COMPLD: h00 sends "
	       "stamped frames every 50 us to h01,\n   the circuit is "
	       "deleted mid-stream; frames stamped after the answer that "
	       "crossed (goal 0)\n");
	if ((r = rig_up_opts(2, &o)) == NULL)
		return;
	snprintf(a, sizeof(a), "%s-h00", r->netns);
	snprintf(b, sizeof(b), "%s-h01", r->netns);
	for (round = 0; round < 20; round++) {
		if (rig_tl1(r, "ENT-PATCH::2,5:2:;", buf, sizeof(buf)) != 0 ||
		    rig_tl1(r, "ENT-PATCH::1,6:2:;", buf, sizeof(buf)) != 0)
			break;
		sh("for i in $(seq 100); do ip -n %s link show t0 | grep -q "
		   "LOWER_UP && ip -n %s link show t0 | grep -q LOWER_UP && "
		   "break; sleep 0.05; done",
		   a, b);
		rx = stamped(b, 1, 700, &rfd);
		tx = stamped(a, 0, 500, &sfd);
		mono_sleep_ms(200); /* traffic crosses */
		if (rig_tl1(r, "DLT-PATCH::1:2:;", buf, sizeof(buf)) != 0)
			break;
		done = mono_ns();
		late = late_frames(rfd, done, &lead);
		waitpid(rx, &st, 0);
		waitpid(tx, &st, 0);
		close(rfd);
		close(sfd);
		(void)rig_tl1(r, "DLT-PATCH::2:2:;", buf, sizeof(buf));
		if (late < 0)
			continue; /* nothing crossed at all: not a round */
		rounds++;
		total += late;
		if (lead > maxlead)
			maxlead = lead;
	}
	rig_down(r);
	printf("   %d deletions under traffic: %d late frames (goal 0)",
	       rounds, total);
	if (total)
		printf(", the latest %.3f ms after the COMPLD", maxlead / 1e6);
	printf("\n");
}

int
main(int argc, char **argv)
{
	static void (*const parts[])(void) = {part1, part2, part3, part4,
	                                      part5};
	int i;

	/* bench_kdp stream NS_A NS_B: one stream between two namespaces
	 * that exist (a testbed of netns.sh, patched). */
	if (argc == 4 && strcmp(argv[1], "stream") == 0) {
		double bps = stream(argv[2], argv[3]);

		printf("%.0f MB/s\n", bps / 1e6);
		return (bps > 0 ? 0 : 1);
	}
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("bench_kdp: the namespace testbed's kernel datapath (%ld "
	       "cores)\n\n",
	       sysconf(_SC_NPROCESSORS_ONLN));
	if (geteuid() != 0) {
		printf("skipped: needs root (network namespaces)\n");
		return (0);
	}
	/* bench_kdp [PART...]: those parts only (1 to 5), else all. */
	for (i = 1; i <= 5; i++) {
		int want = argc == 1, a;

		for (a = 1; a < argc; a++)
			want |= atoi(argv[a]) == i;
		if (want)
			parts[i - 1]();
	}
	return (0);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocs-sweep's testbeds (see sweep_bed.h): processes started with their
 * stderr in the scratch directory's logs, asked to die with the sweep
 * (PR_SET_PDEATHSIG) so that nothing outlives it even when it is
 * killed, and stopped with SIGTERM, then SIGKILL after two seconds.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "proto/base/mono.h"
#include "testbed/sweep/sweep_bed.h"
#include "testbed/sweep/sweep_cpu.h"

#define CTL_MAX_ARGS 40

/* Start argv with stdout on a pipe (*outfd, if outfd) and stderr into
 * log (or discarded); its pid, or -1. */
static pid_t
spawn(char *const argv[], const char *log, int *outfd, int *errfd)
{
	int   po[2] = {-1, -1}, pe[2] = {-1, -1};
	pid_t pid;

	if ((outfd && pipe2(po, O_CLOEXEC) != 0) ||
	    (errfd && pipe2(pe, O_CLOEXEC) != 0))
		goto fail;
	if ((pid = fork()) < 0)
		goto fail;
	if (pid == 0) {
		int fd = open(log ? log : "/dev/null",
		              O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

		prctl(PR_SET_PDEATHSIG, SIGTERM);
		/* A group of its own: the terminal's Ctrl-C is the sweep's
		 * to act on (it finishes the point in hand), not a signal
		 * that kills the testbed under the run. */
		setpgid(0, 0);
		if (fd >= 0)
			dup2(fd, 2);
		if (errfd)
			dup2(pe[1], 2);
		if (outfd)
			dup2(po[1], 1);
		else if (fd >= 0)
			dup2(fd, 1);
		if ((fd = open("/dev/null", O_RDONLY)) >= 0)
			dup2(fd, 0);
		execv(argv[0], argv);
		_exit(127);
	}
	if (outfd) {
		close(po[1]);
		*outfd = po[0];
	}
	if (errfd) {
		close(pe[1]);
		*errfd = pe[0];
	}
	return (pid);
fail:
	for (int i = 0; i < 2; i++) {
		if (po[i] >= 0)
			close(po[i]);
		if (pe[i] >= 0)
			close(pe[i]);
	}
	return (-1);
}

/* Wait for a process sent SIGTERM: two seconds from t0, then SIGKILL. */
static void
reap(pid_t *pid, uint64_t t0)
{
	if (*pid <= 0)
		return;
	while (waitpid(*pid, NULL, WNOHANG) == 0) {
		if (mono_ms() - t0 > 2000) {
			kill(*pid, SIGKILL);
			waitpid(*pid, NULL, 0);
			break;
		}
		mono_sleep_ms(10);
	}
	*pid = 0;
}

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return (remove(path));
}

/* Everything from two pipes until both close; both NUL-terminated. */
static int
collect(int fo, int fe, char **out, char **errs)
{
	struct pollfd p[2] = {{fo, POLLIN, 0}, {fe, POLLIN, 0}};
	char        **buf[2] = {out, errs};
	size_t        len[2] = {0, 0}, cap[2] = {0, 0};
	int           open_ = 2, i;

	*out = *errs = NULL;
	while (open_ > 0) {
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			return (-1);
		for (i = 0; i < 2; i++) {
			ssize_t n;

			if (p[i].fd < 0 || !p[i].revents)
				continue;
			if (len[i] + 4097 > cap[i]) {
				char *nb = realloc(*buf[i], cap[i] + 65536);

				if (nb == NULL)
					return (-1);
				*buf[i] = nb;
				cap[i] += 65536;
			}
			n = read(p[i].fd, *buf[i] + len[i], 4096);
			if (n > 0) {
				len[i] += (size_t)n;
				(*buf[i])[len[i]] = '\0';
			} else if (n == 0 || errno != EINTR) {
				close(p[i].fd);
				p[i].fd = -1;
				open_--;
			}
		}
	}
	for (i = 0; i < 2; i++)
		if (*buf[i] == NULL && (*buf[i] = calloc(1, 1)) == NULL)
			return (-1);
	return (0);
}

int
bed_ctl(const struct sweep_bed *b, char **out, char *err, size_t len, ...)
{
	char   *argv[CTL_MAX_ARGS], prog[600], *errs = NULL;
	va_list ap;
	int     n = 0, fo, fe, st = -1;
	pid_t   pid;

	snprintf(prog, sizeof(prog), "%s/ocsctl", b->bin);
	argv[n++] = prog;
	argv[n++] = "-j";
	argv[n++] = "-s";
	argv[n++] = (char *)(uintptr_t)b->ctl;
	va_start(ap, len);
	while (n < CTL_MAX_ARGS - 1 && (argv[n] = va_arg(ap, char *)) != NULL)
		n++;
	va_end(ap);
	argv[n] = NULL;
	*out = NULL;
	if ((pid = spawn(argv, NULL, &fo, &fe)) < 0) {
		snprintf(err, len, "%s: cannot start: %s", prog,
		         strerror(errno));
		return (-1);
	}
	if (collect(fo, fe, out, &errs) != 0 || waitpid(pid, &st, 0) < 0) {
		snprintf(err, len, "ocsctl: out of memory");
		free(*out);
		free(errs);
		*out = NULL;
		return (-1);
	}
	snprintf(err, len, "%.*s", (int)strcspn(errs, "\n"), errs);
	free(errs);
	return (WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

int
bed_cpu_snap(const struct sweep_bed *b, struct cpu_snap *s)
{
	static const char *const names[] = {"ocsd", "ocs-emu", "ocs-agent",
	                                    NULL};
	pid_t                    p[BED_MAX_AGENTS + 2];
	size_t                   n = 0;
	uint32_t                 h;

	if (!b->local)
		return (cpu_snap(s, NULL, 0, names));
	p[n++] = b->emu;
	p[n++] = b->ocsd;
	for (h = 0; h < b->nagents; h++)
		p[n++] = b->agent[h];
	return (cpu_snap(s, p, n, NULL));
}

int
bed_init(struct sweep_bed *b, const char *rate, char *err, size_t len)
{
	char    self[480];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	memset(b, 0, sizeof(*b));
	if (n <= 0) {
		snprintf(err, len, "/proc/self/exe: %s", strerror(errno));
		return (-1);
	}
	self[n] = '\0';
	snprintf(b->bin, sizeof(b->bin), "%s", dirname(self));
	snprintf(b->rate, sizeof(b->rate), "%s", rate);
	return (0);
}

/* A key of a JSON object's object, as text ("" if absent). */
static json_t *
jget(json_t *o, const char *a, const char *k)
{
	return (json_object_get(json_object_get(o, a), k));
}

int
bed_attach(struct sweep_bed *b, const char *addr, char *err, size_t len)
{
	json_t *j, *a;
	char   *out, why[300];
	size_t  i;
	int     st;

	b->nagents = 0;
	snprintf(b->ctl, sizeof(b->ctl), "%s", addr);
	if ((st = bed_ctl(b, &out, why, sizeof(why), "status", NULL)) != 0 ||
	    (j = json_loads(out, 0, NULL)) == NULL) {
		snprintf(err, len, "--ocsd %s: status: %s", addr,
		         st == 0 ? "not JSON" : why);
		free(out);
		return (-1);
	}
	free(out);
	if (!json_is_true(jget(j, "switch", "connected"))) {
		snprintf(err, len, "--ocsd %s: the switch is not connected",
		         addr);
		json_decref(j);
		return (-1);
	}
	b->switch_s = json_integer_value(jget(j, "switch", "switch_ms")) / 1e3;
	json_decref(j);
	if ((st = bed_ctl(b, &out, why, sizeof(why), "agents", NULL)) != 0 ||
	    (j = json_loads(out, 0, NULL)) == NULL) {
		snprintf(err, len, "--ocsd %s: agents: %s", addr,
		         st == 0 ? "not JSON" : why);
		free(out);
		return (-1);
	}
	free(out);
	a = json_object_get(j, "agents");
	for (i = 0; i < json_array_size(a); i++) {
		const char *state = json_string_value(
		    json_object_get(json_array_get(a, i), "state"));

		b->nagents += state && strcmp(state, "idle") == 0;
	}
	json_decref(j);
	return (0);
}

/* ocs-emu's addresses from its stdout, within 5 s: its TL1 and its
 * fibre relay's, or with the kernel datapath "netns". */
static int
emu_addrs(int fd, char *tl1, char *fib, size_t len)
{
	char     buf[1024] = "", *l;
	size_t   got = 0;
	uint64_t dl = mono_ms() + 5000;

	while (got < sizeof(buf) - 1 && mono_ms() < dl) {
		struct pollfd p = {fd, POLLIN, 0};
		ssize_t       n;

		if (poll(&p, 1, 100) <= 0)
			continue;
		if ((n = read(fd, buf + got, sizeof(buf) - 1 - got)) <= 0)
			break;
		got += (size_t)n;
		buf[got] = '\0';
		if (((l = strstr(buf, "ocs-emu: fibre ")) ||
		     (l = strstr(buf, "ocs-emu: datapath "))) &&
		    strchr(l, '\n'))
			break;
	}
	if (!(l = strstr(buf, "ocs-emu: tl1 ")) ||
	    sscanf(l, "ocs-emu: tl1 %63s", tl1) != 1)
		return (-1);
	if (strstr(buf, "ocs-emu: datapath ")) {
		snprintf(fib, len, "netns");
		return (0);
	}
	if (!(l = strstr(buf, "ocs-emu: fibre ")) ||
	    sscanf(l, "ocs-emu: fibre %63s", fib) != 1)
		return (-1);
	return (0);
}

static int
write_conf(const struct sweep_bed *b, const char *tl1, uint32_t n,
           const struct cmodel *m)
{
	char     path[400];
	uint32_t h, P = b->netns ? 2 * n : 2 * n + 2; /* netns: the plant's */
	FILE    *f;

	snprintf(path, sizeof(path), "%s/ocsd.conf", b->dir);
	if ((f = fopen(path, "we")) == NULL)
		return (-1);
	/* Whole microseconds: ocsd keeps the switching time in ms, the
	 * model's delta is the sweep's (the runs' placements are given). */
	fprintf(f,
	        "[switch]\ndriver = polatis\naddress = %s\nuser = root\n"
	        "password = root\nswitch_time = %.0fus\npoll = 0\n"
	        "[control]\nlisten = ipc://%s/ctl.sock\n[state]\ndir = "
	        "%s/state\n[agents]\nlisten = ipc://%s/agents.sock\n"
	        "secret_file = %s/secret\nheartbeat = "
	        "1s\n[run]\nbandwidth = %.0fbps\nalpha_s = %.0fns\nalpha_h = "
	        "%.0fns\nreconf_overhead = %.0fns\ndeadline = 300s\n"
	        "[cabling]\n",
	        tl1, b->switch_s * 1e6, b->dir, b->dir, b->dir, b->dir, m->bps,
	        m->alpha_s * 1e9, m->alpha_h * 1e9, m->reconf_s * 1e9);
	for (h = 0; h < n; h++)
		fprintf(f, "h%02u.0 = %u %u\nh%02u.1 = %u %u\n", h, 2 * h + 1,
		        2 * h + 1 + P, h, 2 * h + 2, 2 * h + 2 + P);
	return (fclose(f));
}

static int
write_secret(const struct sweep_bed *b)
{
	unsigned char r[32];
	char          path[400];
	FILE         *f;
	int           fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC), i;

	if (fd < 0 || read(fd, r, sizeof(r)) != (ssize_t)sizeof(r)) {
		if (fd >= 0)
			close(fd);
		return (-1);
	}
	close(fd);
	snprintf(path, sizeof(path), "%s/secret", b->dir);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) <
	        0 ||
	    (f = fdopen(fd, "w")) == NULL)
		return (-1);
	for (i = 0; i < 32; i++)
		fprintf(f, "%02x", r[i]);
	return (fclose(f));
}

/* The last lines of the scratch directory's logs, into err. */
static void
tails(const struct sweep_bed *b, const char *what, char *err, size_t len)
{
	char   cmd[700], *out = NULL;
	FILE  *p;
	size_t n;

	snprintf(cmd, sizeof(cmd),
	         "for f in '%s'/*.log; do [ -s \"$f\" ] && tail -n 3 \"$f\"; "
	         "done 2>/dev/null | tail -n 6",
	         b->dir);
	if ((p = popen(cmd, "r")) != NULL && (out = calloc(1, 2048)) != NULL) {
		n = fread(out, 1, 2047, p);
		out[n] = '\0';
	}
	if (p)
		pclose(p);
	snprintf(err, len, "%s%s%s", what,
	         out && *out ? "; the logs end:\n" : "", out ? out : "");
	free(out);
}

/* Poll ocsctl until the switch is connected and n agents are idle: up to
 * 30 s and 0.2 s an agent (a loaded machine starts them slowly). */
static int
wait_ready(struct sweep_bed *b, uint32_t n)
{
	uint64_t dl = mono_ms() + 30000 + 200 * (uint64_t)n;
	char     why[200];

	for (; mono_ms() < dl; mono_sleep_ms(100)) {
		struct sweep_bed t = *b;

		if (bed_attach(&t, b->ctl, why, sizeof(why)) == 0 &&
		    t.nagents >= n)
			return (0);
	}
	return (-1);
}

/* ip(8), for ip netns exec: where Debian puts it. */
static const char *
ip_prog(void)
{
	static const char *const at[] = {"/usr/sbin/ip", "/sbin/ip",
	                                 "/usr/bin/ip", "/bin/ip"};
	size_t                   i;

	for (i = 0; i < sizeof(at) / sizeof(at[0]); i++)
		if (access(at[i], X_OK) == 0)
			return (at[i]);
	return (at[0]);
}

static int
start_agents(struct sweep_bed *b, const char *fib, uint32_t n)
{
	char     prog[600], join[400], secret[400], host[16], log[400];
	char     ns[64];
	uint32_t h;

	snprintf(prog, sizeof(prog), "%s/ocs-agent", b->bin);
	snprintf(join, sizeof(join), "ipc://%s/agents.sock", b->dir);
	snprintf(secret, sizeof(secret), "%s/secret", b->dir);
	for (h = 0; h < n; h++) {
		char *argv[] = {
		    prog,     "--controller", join,
		    "--host", host,           "--secret-file",
		    secret,   "--fibre",      (char *)(uintptr_t)fib,
		    NULL};
		/* In the host's namespace, raw Ethernet on its veths (ip
		 * netns exec execs the agent: the pid is the agent's). */
		char *kargv[] = {(char *)(uintptr_t)ip_prog(),
		                 "netns",
		                 "exec",
		                 ns,
		                 prog,
		                 "--controller",
		                 join,
		                 "--host",
		                 host,
		                 "--secret-file",
		                 secret,
		                 "--transport",
		                 "kernel",
		                 "--iface",
		                 "t0,t1",
		                 NULL};

		snprintf(host, sizeof(host), "h%02u", h);
		snprintf(ns, sizeof(ns), "%s-%s", b->prefix, host);
		snprintf(log, sizeof(log), "%s/agent-%s.log", b->dir, host);
		if ((b->agent[h] =
		         spawn(b->netns ? kargv : argv, log, NULL, NULL)) < 0)
			return (-1);
		b->nagents = h + 1;
	}
	return (0);
}

/* testbed/netns.sh beside the programs' directory (the source tree's
 * bin/ and testbed/): up PREFIX n 2, or down PREFIX.  0 or -1. */
static int
plant(struct sweep_bed *b, uint32_t n)
{
	char  script[600], hosts[16], log[400];
	char *up[] = {"/bin/sh", script, "up",   b->prefix,
	              hosts,     "2",    "9000", NULL};
	char *down[] = {"/bin/sh", script, "down", b->prefix, NULL};
	pid_t pid;
	int   st = -1;

	snprintf(script, sizeof(script), "%s/../testbed/netns.sh", b->bin);
	snprintf(hosts, sizeof(hosts), "%u", n);
	snprintf(log, sizeof(log), "%s/netns.log", b->dir);
	if (access(script, R_OK) != 0)
		return (-1);
	if ((pid = spawn(n ? up : down, n ? log : NULL, NULL, NULL)) < 0 ||
	    waitpid(pid, &st, 0) < 0)
		return (-1);
	return (WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1);
}

static int
start_switch(struct sweep_bed *b, uint32_t n, char *tl1, char *fib)
{
	char  prog[600], log[400], ports[16], st[32], dp[64];
	int   fd = -1, rv;
	char *argv[] = {prog,      "--tl1",         "127.0.0.1:0",
	                "--fibre", "127.0.0.1:0",   "--ports",
	                ports,     "--switch-time", st,
	                "--rate",  b->rate,         NULL};

	snprintf(prog, sizeof(prog), "%s/ocs-emu", b->bin);
	snprintf(log, sizeof(log), "%s/emu.log", b->dir);
	snprintf(ports, sizeof(ports), "%u", b->netns ? 2 * n : 2 * n + 2);
	snprintf(st, sizeof(st), "%.0fns", b->switch_s * 1e9);
	if (b->netns) {
		/* The kernel carries the light; the rate shapes every host
		 * transceiver (a tbf). */
		snprintf(dp, sizeof(dp), "netns:%s", b->prefix);
		argv[3] = "--datapath";
		argv[4] = dp;
	}
	if ((b->emu = spawn(argv, log, &fd, NULL)) < 0)
		return (-1);
	rv = emu_addrs(fd, tl1, fib, 64);
	close(fd);
	return (rv);
}

int
bed_up(struct sweep_bed *b, uint32_t n, double delta, const struct cmodel *m,
       char *err, size_t len)
{
	char  tl1[64], fib[64], prog[600], conf[400], log[400];
	char *argv[] = {prog, "-d", "-f", conf, NULL};

	if (n > BED_MAX_AGENTS) {
		snprintf(err, len,
		         "%u agents: at most %d on the local testbed", n,
		         BED_MAX_AGENTS);
		return (-1);
	}
	b->local = 1;
	b->switch_s = delta;
	snprintf(b->dir, sizeof(b->dir), "%s/ocs-sweep.XXXXXX",
	         getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(b->dir) == NULL) {
		snprintf(err, len, "%s: %s", b->dir, strerror(errno));
		b->dir[0] = '\0';
		return (-1);
	}
	snprintf(b->ctl, sizeof(b->ctl), "ipc://%s/ctl.sock", b->dir);
	if (b->netns) {
		snprintf(b->prefix, sizeof(b->prefix), "ocssw%ld",
		         (long)getpid());
		if (plant(b, n) != 0) {
			tails(b,
			      "the namespaces did not come up "
			      "(testbed/netns.sh beside bin/, root)",
			      err, len);
			goto fail;
		}
	}
	if (start_switch(b, n, tl1, fib) != 0) {
		tails(b, "ocs-emu did not start", err, len);
		goto fail;
	}
	snprintf(prog, sizeof(prog), "%s/ocsd", b->bin);
	snprintf(conf, sizeof(conf), "%s/ocsd.conf", b->dir);
	snprintf(log, sizeof(log), "%s/ocsd.log", b->dir);
	if (write_secret(b) != 0 || write_conf(b, tl1, n, m) != 0) {
		snprintf(err, len, "%s: cannot write: %s", b->dir,
		         strerror(errno));
		goto fail;
	}
	if ((b->ocsd = spawn(argv, log, NULL, NULL)) < 0 ||
	    start_agents(b, fib, n) != 0 || wait_ready(b, n) != 0) {
		tails(b, "the testbed did not come up", err, len);
		goto fail;
	}
	return (0);
fail:
	bed_down(b);
	return (-1);
}

void
bed_down(struct sweep_bed *b)
{
	uint64_t t0 = mono_ms();
	uint32_t h;

	if (!b->local)
		return;
	/* Agents first (a run ends with them), then ocsd, then the switch:
	 * all told at once, each waited for. */
	for (h = 0; h < b->nagents; h++)
		if (b->agent[h] > 0)
			kill(b->agent[h], SIGTERM);
	for (h = 0; h < b->nagents; h++)
		reap(&b->agent[h], t0);
	if (b->ocsd > 0)
		kill(b->ocsd, SIGTERM);
	reap(&b->ocsd, mono_ms());
	if (b->emu > 0)
		kill(b->emu, SIGTERM);
	reap(&b->emu, mono_ms());
	b->nagents = 0;
	if (b->prefix[0] && plant(b, 0) != 0)
		fprintf(stderr,
		        "ocs-sweep: namespaces %s-*: not all removed\n",
		        b->prefix);
	b->prefix[0] = '\0';
	if (b->dir[0] && nftw(b->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS) != 0)
		fprintf(stderr, "ocs-sweep: cannot remove %s: %s\n", b->dir,
		        strerror(errno));
	b->dir[0] = '\0';
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* The test rig: ocs-emu, ocsd and n agents (see rig.h). */
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <unistd.h>
#include "proto/base/mono.h"
#include "proto/base/net.h"
#include "tests/lib/rig.h"

static int
write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "we");

	if (f == NULL)
		return (-1);
	fputs(text, f);
	fclose(f);
	return (chmod(path, mode));
}

int
rig_ctl(struct rig *r, char **out, char **err, ...)
{
	char    bin[256], *argv[32];
	int     n = 0;
	va_list ap;

	argv[n++] = (char *)(uintptr_t)proc_bin("ocsctl", bin, sizeof(bin));
	argv[n++] = "-s";
	argv[n++] = r->sock;
	va_start(ap, err);
	while (n < 31 && (argv[n] = va_arg(ap, char *)) != NULL)
		n++;
	va_end(ap);
	argv[n] = NULL;
	return (proc_run(argv, out, err));
}

int
rig_agent(struct rig *r, int h, const char *secret)
{
	return (rig_agent_opt(r, h, secret, NULL, NULL));
}

int
rig_agent_opt(struct rig *r, int h, const char *secret, const char *opt,
              const char *val)
{
	char   bin[256], host[16], sec[220], log[240], ns[48], ifaces[64];
	char  *argv[24];
	int    n = 0, i;
	size_t off;

	if (h >= RIG_MAX)
		return (-1);
	snprintf(host, sizeof(host), "h%02d", h);
	snprintf(sec, sizeof(sec), "%s/%s", r->dir, secret);
	snprintf(log, sizeof(log), "%s/agent-%s.log", r->dir, host);
	if (r->netns[0]) {
		snprintf(ns, sizeof(ns), "%s-%s", r->netns, host);
		/* ip netns exec enters the namespace and execs the agent,
		 * so the process is the agent's. */
		argv[n++] = access("/usr/sbin/ip", X_OK) == 0 ? "/usr/sbin/ip"
		                                              : "/sbin/ip";
		argv[n++] = "netns";
		argv[n++] = "exec";
		argv[n++] = ns;
	}
	argv[n++] = (char *)(uintptr_t)proc_bin("ocs-agent", bin, sizeof(bin));
	argv[n++] = "--controller";
	argv[n++] = r->join;
	argv[n++] = "--host";
	argv[n++] = host;
	argv[n++] = "--secret-file";
	argv[n++] = sec;
	if (r->netns[0]) {
		argv[n++] = "--transport";
		argv[n++] = "kernel";
		argv[n++] = "--iface";
		argv[n++] = ifaces;
		for (i = 0, off = 0; i < (r->trx[0] ? atoi(r->trx) : 2); i++)
			off += (size_t)snprintf(ifaces + off,
			                        sizeof(ifaces) - off, "%st%d",
			                        i ? "," : "", i);
	} else {
		argv[n++] = "--fibre";
		argv[n++] = r->fibres[0] ? r->fibres : r->fibre;
	}
	if (r->ca[0]) {
		argv[n++] = "--tls-ca";
		argv[n++] = r->ca;
	}
	if (r->trx[0]) {
		argv[n++] = "--transceivers";
		argv[n++] = r->trx;
	}
	if (opt != NULL) {
		argv[n++] = (char *)(uintptr_t)opt;
		argv[n++] = (char *)(uintptr_t)val;
	}
	argv[n] = NULL;
	return (proc_start(&r->agent[h], argv, log));
}

int
rig_wait_agents(struct rig *r, int n, int timeout_ms)
{
	char *o, *e, *p;
	int   i, idle = 0;

	for (i = 0; i < timeout_ms / 50; i++) {
		if (rig_ctl(r, &o, &e, "agents", NULL) == 0) {
			for (idle = 0, p = o; (p = strstr(p, " idle ")); p++)
				idle++;
		}
		free(o);
		free(e);
		if (idle == n)
			return (0);
		mono_sleep_ms(50);
	}
	fprintf(stderr, "rig: %d agents idle, expected %d\n", idle, n);
	return (-1);
}

/* testbed/netns.sh CMD PREFIX [HOSTS [TRX]]; its exit status. */
static int
netns_sh(const char *cmd, const char *prefix, int hosts, int trx)
{
	char  h[16], t[16], *o, *e;
	char *argv[] = {"sh",
	                "testbed/netns.sh",
	                (char *)(uintptr_t)cmd,
	                (char *)(uintptr_t)prefix,
	                h,
	                t,
	                NULL};
	int   rv;

	snprintf(h, sizeof(h), "%d", hosts);
	snprintf(t, sizeof(t), "%d", trx);
	if (hosts == 0)
		argv[4] = NULL;
	if (trx == 0) /* netns.sh fabric PREFIX HOSTS */
		argv[5] = NULL;
	rv = proc_run(argv, &o, &e);
	if (rv != 0)
		fprintf(stderr, "rig: netns.sh %s %s: %s", cmd, prefix, e);
	free(o);
	free(e);
	return (rv);
}

/* A prefix no other rig (or run) of this machine uses now (at most 17
 * characters: a fabric's switch B is PREFIX_b).  A fabric: transceiver
 * 0 of each host on switch A (PREFIX-sw), 1 on B (PREFIX_b-sw). */
static int
netns_up(struct rig *r, int n, int trx, int fabric)
{
	/* The process and the microsecond: apart from every other rig. */
	snprintf(r->netns, sizeof(r->netns), "rig%ux%u", (unsigned)getpid(),
	         (unsigned)(mono_ns() / 1000 % 1000000));
	if (netns_sh(fabric ? "fabric" : "up", r->netns, n,
	             fabric ? 0 : trx) != 0) {
		r->netns[0] = '\0';
		return (-1);
	}
	return (0);
}

int
rig_host_sh(struct rig *r, int h, const char *cmd)
{
	char  ns[48], *o, *e;
	char *argv[] = {
	    "ip", "netns", "exec", ns, "sh", "-c", (char *)(uintptr_t)cmd,
	    NULL};
	int rv;

	snprintf(ns, sizeof(ns), "%s-h%02d", r->netns, h);
	rv = proc_run(argv, &o, &e);
	free(o);
	free(e);
	return (rv);
}

struct rig *
rig_up(int n, const char *switch_time, const char *run_conf)
{
	struct rig_opts o = {.switch_time = switch_time, .run_conf = run_conf};

	return (rig_up_opts(n, &o));
}

int
rig_fault(struct rig *r, const char *spec)
{
	char cmd[300], buf[2048];

	snprintf(cmd, sizeof(cmd), "SET-EMU-FAULT:::2::%s;", spec);
	return (rig_tl1(r, cmd, buf, sizeof(buf)));
}

/* ocsd again with the same configuration and state directory, once the
 * last one is gone (stopped by the caller, any way); 0 once it answers
 * and holds the switch, -1 otherwise. */
/* ocsctl status says ocsd holds its switch (a fabric: both). */
static int
up(const struct rig *r, const char *o)
{
	const char *c = strstr(o, ": connected");

	return (c != NULL &&
	        (!r->fibres[0] || strstr(c + 1, ": connected") != NULL));
}

int
rig_ocsd_restart(struct rig *r)
{
	char  bin[256], cpath[300], log[300], *o, *e;
	char *argv[] = {(char *)(uintptr_t)proc_bin("ocsd", bin, sizeof(bin)),
	                "-d",
	                "-v",
	                "-f",
	                cpath,
	                NULL};
	int   i, ok = 0;

	snprintf(cpath, sizeof(cpath), "%s/ocsd.conf", r->dir);
	snprintf(log, sizeof(log), "%s/ocsd.log", r->dir);
	if (proc_start(&r->ocsd, argv, log) != 0)
		return (-1);
	for (i = 0; i < 100 && !ok; i++) {
		ok = rig_ctl(r, &o, &e, "status", NULL) == 0 && up(r, o);
		free(o);
		free(e);
		if (!ok)
			mono_sleep_ms(50);
	}
	return (ok ? 0 : -1);
}

int
rig_emu_restart(struct rig *r)
{
	char  bin[256], line[256], log[300];
	char *argv[] = {
	    (char *)(uintptr_t)proc_bin("ocs-emu", bin, sizeof(bin)),
	    "--tl1",
	    r->tl1,
	    "--fibre",
	    r->fibre,
	    "--rest",
	    r->rest,
	    "--ports",
	    r->emu_ports,
	    "--switch-time",
	    r->emu_st,
	    NULL};
	int i;

	proc_stop(&r->emu, SIGTERM);
	snprintf(log, sizeof(log), "%s/emu.log", r->dir);
	/* The old listeners' ports may take a moment to be free again. */
	for (i = 0; i < 50; i++) {
		if (proc_start(&r->emu, argv, log) == 0 &&
		    proc_line(&r->emu, line, sizeof(line), 2000) == 0)
			return (0);
		proc_stop(&r->emu, SIGKILL);
		usleep(100000);
	}
	return (-1);
}

/* A fabric's switch B: a second ocs-emu started as the first was (its
 * own switching time if st_b). */
static int
fabric_emu(struct rig *r, char **eargv, const char *st_b)
{
	char line[256], log[300], *st = eargv[10], *dp = eargv[4];
	char dp_b[64];
	int  rv;

	snprintf(log, sizeof(log), "%s/emu-b.log", r->dir);
	if (st_b != NULL)
		eargv[10] = (char *)(uintptr_t)st_b;
	/* In namespaces: B's kernel datapath is the testbed's second. */
	snprintf(dp_b, sizeof(dp_b), "netns:%s_b", r->netns);
	if (r->netns[0])
		eargv[4] = dp_b;
	rv = proc_start(&r->emu_b, eargv, log);
	eargv[10] = st;
	eargv[4] = dp;
	if (rv != 0 || proc_line(&r->emu_b, line, sizeof(line), 5000) != 0)
		return (-1);
	snprintf(r->tl1_b, sizeof(r->tl1_b), "%.60s", line + 13);
	if (proc_line(&r->emu_b, line, sizeof(line), 5000) != 0)
		return (-1);
	snprintf(r->fibre_b, sizeof(r->fibre_b), "%.60s", line + 15);
	if (proc_line(&r->emu_b, line, sizeof(line), 5000) != 0)
		return (-1);
	snprintf(r->rest_b, sizeof(r->rest_b), "%.60s", line + 14);
	snprintf(r->fibres, sizeof(r->fibres), "%s,%s", r->fibre, r->fibre_b);
	return (0);
}

struct rig *
rig_up_opts(int n, const struct rig_opts *ro)
{
	const char *switch_time = ro->switch_time;
	const char *run_conf = ro->run_conf;
	const char *driver = ro->driver ? ro->driver : "polatis";
	struct rig *r = calloc(1, sizeof(*r));
	char        bin[256], line[256], ports[16], path[300], log[300];
	char        cpath[300], st[32], addr[80], *conf = NULL, *o, *e;
	char        tlsconf[400];
	char       *eargv[] = {
	          NULL,     "--tl1",       "127.0.0.1:0", "--fibre", "127.0.0.1:0",
	          "--rest", "127.0.0.1:0", "--ports",     ports,     "--switch-time",
	          st,       NULL,          NULL,          NULL,      NULL,
	          NULL,     NULL,          NULL};
	char  *oargv[] = {NULL, "-d", "-v", "-f", cpath, NULL};
	char   dpath[64];
	int    T = ro->trx > 0 ? ro->trx : 2;
	size_t off, cap = 4096 + 32 * (size_t)T * n;
	int    h, i, P = T * n + 2, ok = 0;

	if (r == NULL || (n > RIG_MAX && !ro->no_agents) ||
	    (conf = malloc(cap)) == NULL)
		goto fail;
	r->n = n;
	if ((r->dir = proc_tmpdir("rig")) == NULL)
		goto fail;
	snprintf(ports, sizeof(ports), "%d", P);
	snprintf(st, sizeof(st), "%s", switch_time);
	if (ro->netns) {
		if (T != 2)
			snprintf(r->trx, sizeof(r->trx), "%d", T);
		/* A fabric in namespaces: a transceiver a plane. */
		if ((ro->fabric && T != 2) ||
		    netns_up(r, n, T, ro->fabric) != 0)
			goto fail;
		/* The kernel carries the light: no fibre listener. */
		snprintf(dpath, sizeof(dpath), "netns:%s", r->netns);
		eargv[3] = "--datapath";
		eargv[4] = dpath;
		i = 11;
		if (ro->netns_rate) {
			eargv[i++] = "--rate";
			eargv[i++] = (char *)(uintptr_t)ro->netns_rate;
		}
		if (ro->netns_capture)
			eargv[i++] = "--capture";
		if (ro->link_up) {
			eargv[i++] = "--link-up";
			eargv[i++] = (char *)(uintptr_t)ro->link_up;
		}
	}
	if (!ro->netns) {
		i = 11;
		if (ro->rate) {
			eargv[i++] = "--rate";
			eargv[i++] = (char *)(uintptr_t)ro->rate;
		}
		if (ro->link_up) {
			eargv[i++] = "--link-up";
			eargv[i++] = (char *)(uintptr_t)ro->link_up;
		}
	}
	eargv[0] = (char *)(uintptr_t)proc_bin("ocs-emu", bin, sizeof(bin));
	snprintf(log, sizeof(log), "%s/emu.log", r->dir);
	if (proc_start(&r->emu, eargv, log) != 0 ||
	    proc_line(&r->emu, line, sizeof(line), 5000) != 0)
		goto fail;
	snprintf(r->tl1, sizeof(r->tl1), "%.60s", line + 13);
	if (proc_line(&r->emu, line, sizeof(line), 5000) != 0)
		goto fail;
	/* "ocs-emu: fibre ADDR" or "ocs-emu: datapath netns:P" */
	if (!ro->netns)
		snprintf(r->fibre, sizeof(r->fibre), "%.60s", line + 15);
	if (proc_line(&r->emu, line, sizeof(line), 5000) != 0)
		goto fail;
	snprintf(r->rest, sizeof(r->rest), "%.60s", line + 14);
	if (ro->fabric && fabric_emu(r, eargv, ro->switch_time_b) != 0)
		goto fail;
	/* More than a transceiver a plane: each its plane's relay. */
	for (i = 0, off = 0; ro->fabric && T > 2 && i < T; i++)
		off += (size_t)snprintf(
		    r->fibres + off, sizeof(r->fibres) - off, "%s%s",
		    i ? "," : "", 2 * i / T ? r->fibre_b : r->fibre);
	snprintf(r->emu_ports, sizeof(r->emu_ports), "%s", ports);
	snprintf(r->emu_st, sizeof(r->emu_st), "%s", st);
	if (strcmp(driver, "calient") == 0)
		snprintf(addr, sizeof(addr), "http://%s", r->rest);
	else
		snprintf(addr, sizeof(addr), "%s", r->tl1);
	snprintf(path, sizeof(path), "%s/secret", r->dir);
	write_file(path, "correct horse battery staple\n", 0600);
	snprintf(path, sizeof(path), "%s/wrong", r->dir);
	write_file(path, "incorrect horse battery staple\n", 0600);
	snprintf(r->sock, sizeof(r->sock), "ipc://%s/ctl.sock", r->dir);
	snprintf(r->join, sizeof(r->join), "ipc://%s/agents.sock", r->dir);
	tlsconf[0] = '\0';
	if (ro->tls) {
		char  cmd[1200];
		char *sargv[] = {"sh", "-c", cmd, NULL};
		int   port = 20000 + (int)(getpid() % 20000);

		snprintf(r->ca, sizeof(r->ca), "%s/agents.pem", r->dir);
		snprintf(
		    cmd, sizeof(cmd),
		    "cd %s && openssl req -x509 -newkey rsa:2048 -nodes "
		    "-days 2 -subj /CN=127.0.0.1 -keyout k.pem -out c.pem "
		    "2>/dev/null && cat c.pem k.pem > agents.pem",
		    r->dir);
		if (proc_run(sargv, &o, &e) != 0) {
			fprintf(stderr, "rig: openssl: %s\n", e);
			free(o);
			free(e);
			goto fail;
		}
		free(o);
		free(e);
		snprintf(r->join, sizeof(r->join), "tls+tcp://127.0.0.1:%d",
		         port);
		snprintf(tlsconf, sizeof(tlsconf), "tls_cert_key = %s\n",
		         r->ca);
	}
	if (ro->fabric)
		off = (size_t)snprintf(
		    conf, cap,
		    "[switch A]\ndriver = polatis\naddress = %s\nuser = root\n"
		    "password = root\nswitch_time = %s\npoll = 0\n"
		    "timeout = %s\n"
		    "[switch B]\ndriver = %s\naddress = %s%s\n"
		    "user = root\npassword = root\nswitch_time = %s\n"
		    "poll = 0\ntimeout = %s\n",
		    r->tl1, st, ro->timeout ? ro->timeout : "2s",
		    ro->fabric == 2 ? "polatis" : "calient",
		    ro->fabric == 2 ? "" : "http://",
		    ro->fabric == 2 ? r->tl1_b : r->rest_b,
		    ro->switch_time_b ? ro->switch_time_b : st,
		    ro->timeout ? ro->timeout : "2s");
	else
		off = (size_t)snprintf(
		    conf, cap,
		    "[switch]\ndriver = %s\naddress = %s\nuser = root\n"
		    "password = root\nswitch_time = %s\npoll = 0\n"
		    "timeout = %s\n",
		    driver, addr, st, ro->timeout ? ro->timeout : "2s");
	off += (size_t)snprintf(
	    conf + off, cap - off,
	    "[control]\nlisten = %s\n[state]\ndir = %s/state\n"
	    "[agents]\nlisten = %s\n"
	    "%ssecret_file = %s/secret\n"
	    "heartbeat = 1s\n[run]\n%s%s[cabling]\n",
	    r->sock, r->dir, r->join, tlsconf, r->dir,
	    /* A key once: the test's deadline, if it gives one. */
	    run_conf && strstr(run_conf, "deadline") ? "" : "deadline = 30s\n",
	    run_conf ? run_conf : "");
	if (T != 2)
		snprintf(r->trx, sizeof(r->trx), "%d", T);
	/* A fabric: the first half of a host's transceivers on A, the
	 * rest on B (one each with two). */
	for (h = 0; h < n; h++)
		for (i = 0; i < T; i++)
			off += (size_t)snprintf(
			    conf + off, cap - off, "h%02d.%d = %s%s%d %d\n", h,
			    i, ro->fabric ? (2 * i / T ? "B" : "A") : "",
			    ro->fabric ? " " : "",
			    ro->fabric ? T / 2 * h + i % (T / 2) + 1
			               : T * h + i + 1,
			    ro->fabric ? T / 2 * h + i % (T / 2) + 1 + P
			               : T * h + i + 1 + P);
	snprintf(cpath, sizeof(cpath), "%s/ocsd.conf", r->dir);
	write_file(cpath, conf, 0644);
	oargv[0] = (char *)(uintptr_t)proc_bin("ocsd", bin, sizeof(bin));
	if (ro->quiet) { /* no -v: info level, as in service */
		oargv[2] = "-f";
		oargv[3] = cpath;
		oargv[4] = NULL;
	}
	snprintf(log, sizeof(log), "%s/ocsd.log", r->dir);
	if (proc_start(&r->ocsd, oargv, log) != 0)
		goto fail;
	for (i = 0; i < 100 && !ok; i++) {
		ok = rig_ctl(r, &o, &e, "status", NULL) == 0 && up(r, o);
		free(o);
		free(e);
		if (!ok)
			mono_sleep_ms(50);
	}
	if (!ok) {
		fprintf(stderr, "rig: ocsd did not reach the switch\n");
		goto fail;
	}
	for (h = 0; h < n && !ro->no_agents; h++)
		if (rig_agent(r, h, "secret") != 0)
			goto fail;
	if (!ro->no_agents && rig_wait_agents(r, n, 20000) != 0)
		goto fail;
	free(conf);
	return (r);
fail:
	free(conf);
	if (r)
		rig_down(r);
	return (NULL);
}

int
rig_down(struct rig *r)
{
	int h, dirty = 0;

	for (h = 0; h < RIG_MAX; h++)
		if (r->agent[h].pid) {
			proc_stop(&r->agent[h], SIGTERM);
			dirty |= proc_log_dirty(&r->agent[h]);
		}
	if (r->ocsd.pid)
		proc_stop(&r->ocsd, SIGTERM);
	if (r->emu.pid)
		proc_stop(&r->emu, SIGTERM);
	if (r->emu_b.pid)
		proc_stop(&r->emu_b, SIGTERM);
	dirty |= proc_log_dirty(&r->ocsd) | proc_log_dirty(&r->emu) |
	         proc_log_dirty(&r->emu_b);
	if (r->netns[0])
		netns_sh("down", r->netns, 0, 0);
	/* OCS_TEST_KEEP: the logs stay for a flake to be read. */
	if (getenv("OCS_TEST_KEEP") != NULL)
		fprintf(stderr, "rig: logs kept in %s\n", r->dir);
	else
		proc_rmtree(r->dir);
	free(r->dir);
	free(r);
	return (dirty ? -1 : 0);
}

int
rig_teardown(void **state)
{
	struct rig *r = *state;

	*state = NULL;
	return (r == NULL || rig_down(r) == 0 ? 0 : -1);
}

int
rig_tl1(struct rig *r, const char *cmd, char *buf, size_t sz)
{
	char     host[64], port[16], req[8192];
	uint64_t dl = mono_ms() + 5000;
	size_t   len = 0;
	ssize_t  k;
	int      fd, rv = -1;

	if (sz == 0 ||
	    net_hostport(r->tl1, NULL, host, sizeof(host), port,
	                 sizeof(port)) != 0 ||
	    (fd = net_connect(host, port, 2000, -1)) < 0)
		return (-1);
	snprintf(req, sizeof(req), "ACT-USER::root:1::root;%s", cmd);
	if (net_write_all(fd, req, strlen(req), dl, -1) == 0) {
		/* The answer to ctag 2 ends with the terminator ';'. */
		while (len + 1 < sz) {
			char *m;

			k = net_read_some(fd, buf + len, sz - 1 - len, dl, -1);
			if (k <= 0)
				break;
			len += (size_t)k;
			buf[len] = '\0';
			if ((m = strstr(buf, " 2 COMPLD")) != NULL &&
			    strchr(m, ';') != NULL) {
				rv = 0;
				break;
			}
			if ((m = strstr(buf, " 2 DENY")) != NULL &&
			    strchr(m, ';') != NULL)
				break;
		}
	}
	buf[len] = '\0';
	close(fd);
	return (rv);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A whole testbed on this machine for tests and benches: ocs-emu (TL1,
 * REST and fibres on ephemeral ports), ocsd driving it over TL1 (or REST)
 * with agents on IPC sockets in a scratch directory, and n ocs-agent
 * processes h00, h01, ... joined with a generated secret ("secret";
 * "wrong" holds another).
 */
#ifndef OCS_TEST_RIG_H
#define OCS_TEST_RIG_H

#include "tests/lib/proc.h"

#define RIG_MAX 96

struct rig {
	char       *dir;
	struct proc emu, ocsd, agent[RIG_MAX];
	int         n;
	char        tl1[64], fibre[64], sock[200], rest[64];
	char        join[80];                  /* where agents join */
	char        emu_ports[16], emu_st[32]; /* to restart ocs-emu alike */
	char        ca[300];   /* with TLS: the CA file agents verify with */
	char        trx[12];   /* transceivers a host, "" for 2 */
	char        netns[24]; /* the namespace testbed's prefix, or "" */
	/* A fabric (rig_opts.fabric): switch B's ocs-emu and its faces,
	 * and the agents' two relays ("FIBRE_A,FIBRE_B"). */
	struct proc emu_b;
	char        tl1_b[64], fibre_b[64], rest_b[64], fibres[300];
};

struct rig_opts {
	const char *switch_time; /* for ocs-emu and ocsd ("1ms") */
	const char *run_conf;    /* extra lines of ocsd's [run], or NULL */
	const char *driver;      /* polatis (default) or calient */
	const char *timeout;     /* ocsd's driver timeout (default 2s) */
	int         no_agents;   /* cable n hosts but start no agents (then
	                          * n may pass RIG_MAX: ocs-load's hosts) */
	int         tls;         /* agents join over tls+tcp:// (and their
	                          * links are TLS) */
	int         trx;         /* transceivers a host (0: 2) */
	/* The namespace testbed (root): hosts in namespaces, the kernel
	 * datapath, agents on --transport kernel; fibres at netns_rate
	 * (NULL: unshaped). */
	int         netns;
	const char *netns_rate;
	int         netns_capture; /* ocs-emu --capture */
	const char *link_up;       /* ocs-emu --link-up, or NULL */
	/* ocsd logs at info level, as in service (benches: a debug line
	 * per phase is time on the path they measure). */
	int quiet;
	/* A fabric of two switches, a plane each: switch A is the first
	 * ocs-emu through the polatis driver (TL1), switch B a second one
	 * through the calient driver (REST); transceiver .0 of every host
	 * is on A, .1 on B (two transceivers a host).  2: switch B over
	 * Polatis TL1 too.  With netns: each switch an ocs-emu kernel
	 * datapath of its own (netns.sh fabric). */
	int fabric;
	/* A fabric's switch B slower (or faster) than A: its ocs-emu's
	 * --switch-time and ocsd's, or NULL: switch_time. */
	const char *switch_time_b;
	/* The fibres' line rate on ocs-emu's relay (--rate), or NULL:
	 * unmetered. */
	const char *rate;
};

/* Bring it up; switch_time for ocs-emu and ocsd ("1ms"), run_conf extra
 * lines for ocsd's [run] section (or NULL).  NULL on failure (message on
 * stderr, everything stopped). */
struct rig *rig_up(int n, const char *switch_time, const char *run_conf);
struct rig *rig_up_opts(int n, const struct rig_opts *);
/* Stop everything; -1 if a daemon's log shows a sanitizer finding. */
int rig_down(struct rig *);
/* A cmocka teardown whose state is a rig, or NULL once the test took
 * its rig down itself: a test that fails an assertion leaves early, and
 * its testbed goes here.  -1 as rig_down. */
int rig_teardown(void **state);

/* ocsctl -s <rig> args... (NULL-terminated); exit status. */
int rig_ctl(struct rig *, char **out, char **err, ...);
/* Start agent h with the named secret file. */
int rig_agent(struct rig *, int h, const char *secret);
/* The same with one more option and its value (e.g. --mem-limit 2MiB). */
int rig_agent_opt(struct rig *, int h, const char *secret, const char *opt,
                  const char *val);
/* Log in to ocs-emu over TL1 and send cmd (with ctag 2); its answer in
 * buf.  0 on COMPLD, -1 otherwise. */
int rig_tl1(struct rig *, const char *cmd, char *buf, size_t sz);
/* Arm ocs-emu faults (SET-EMU-FAULT, see emu.h); 0 or -1. */
int rig_fault(struct rig *, const char *spec);
/* Restart ocs-emu on the same addresses (its patches are lost, as a
 * switch's are in a power cycle); 0 or -1. */
int rig_emu_restart(struct rig *);
/* Start ocsd again (same configuration and state) after the caller
 * stopped it; 0 once it answers and holds the switch, -1 otherwise. */
int rig_ocsd_restart(struct rig *);
/* Run cmd (sh -c) in host h's namespace; its exit status. */
int rig_host_sh(struct rig *, int h, const char *cmd);
/* Wait until n agents are idle; 0 or -1. */
int rig_wait_agents(struct rig *, int n, int timeout_ms);

#endif

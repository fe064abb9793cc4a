/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A whole testbed on this machine for tests and benches: ocs-emu (TL1 and
 * fibres on ephemeral ports), ocsd driving it over TL1 with agents on IPC
 * sockets in a scratch directory, and n ocs-agent processes h00, h01, ...
 * joined with a generated secret ("secret"; "wrong" holds another).
 */
#ifndef OCS_TEST_RIG_H
#define OCS_TEST_RIG_H

#include "tests/integ/proc.h"

#define RIG_MAX 96

struct rig {
	char       *dir;
	struct proc emu, ocsd, agent[RIG_MAX];
	int         n;
	char        tl1[64], fibre[64], sock[200];
};

/* Bring it up; switch_time for ocs-emu and ocsd ("1ms"), run_conf extra
 * lines for ocsd's [run] section (or NULL).  NULL on failure (message on
 * stderr, everything stopped). */
struct rig *rig_up(int n, const char *switch_time, const char *run_conf);
/* Stop everything; -1 if a daemon's log shows a sanitizer finding. */
int rig_down(struct rig *);

/* ocsctl -s <rig> args... (NULL-terminated); exit status. */
int rig_ctl(struct rig *, char **out, char **err, ...);
/* Start agent h with the named secret file. */
int rig_agent(struct rig *, int h, const char *secret);
/* Log in to ocs-emu over TL1 and send cmd (with ctag 2); its answer in
 * buf.  0 on COMPLD, -1 otherwise. */
int rig_tl1(struct rig *, const char *cmd, char *buf, size_t sz);
/* Wait until n agents are idle; 0 or -1. */
int rig_wait_agents(struct rig *, int n, int timeout_ms);

#endif

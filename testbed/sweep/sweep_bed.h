/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Where ocs-sweep's measured points run: a local testbed it starts and
 * stops itself, as make run builds one (ocs-emu with the point's
 * switching time and a metered relay, ocsd driving it over TL1 with the
 * sweep's model in its [run] section, n agents joined with a generated
 * secret, all in a scratch directory), the same with the kernel
 * carrying the light (--netns, root: hosts in network namespaces cabled
 * by testbed/netns.sh, ocs-emu's tc datapath over fibres shaped to the
 * rate, agents on raw Ethernet, as make run-netns builds it), or a
 * running ocsd at an address with its own agents and switch.  Either way a run is asked of ocsd by
 * ocsctl, the operator's client, and read from its JSON report.
 */
#ifndef OCS_SWEEP_BED_H
#define OCS_SWEEP_BED_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "collectives/cmodel.h"

#define BED_MAX_AGENTS 96

struct sweep_bed {
	char     bin[480]; /* the directory of ocsctl, ocsd, ocs-emu... */
	char     ctl[600]; /* ocsctl -s */
	char     dir[300]; /* scratch (local), "" otherwise */
	pid_t    emu, ocsd, agent[BED_MAX_AGENTS];
	uint32_t nagents;  /* joined (local: started) */
	double   switch_s; /* the switch's delta */
	char     rate[32]; /* local: the relay's line rate */
	int      local;
	int      netns;      /* local in namespaces (set before bed_up) */
	char     prefix[32]; /* netns: the namespaces' prefix, "" if none */
};

/* The programs beside this one (/proc/self/exe). */
int bed_init(struct sweep_bed *, const char *rate, char *err, size_t len);

/* Local: start ocs-emu (switching time delta), ocsd with model m and
 * nagents agents, and wait until they are all idle.  0, or -1 with the
 * reason (and the logs' last lines) in err, everything stopped. */
int bed_up(struct sweep_bed *, uint32_t nagents, double delta,
           const struct cmodel *m, char *err, size_t len);
/* Stop everything bed_up started and remove the scratch directory. */
void bed_down(struct sweep_bed *);

/* A running ocsd at addr: its joined agents and its switch's delta. */
int bed_attach(struct sweep_bed *, const char *addr, char *err, size_t len);

/* The CPU the bed's processes have used so far (local: those it
 * started; a running ocsd's: every ocsd, ocs-emu and ocs-agent on this
 * machine).  0 or -1. */
struct cpu_snap;
int bed_cpu_snap(const struct sweep_bed *, struct cpu_snap *);

/* Run ocsctl with args (NULL-terminated) against the bed; its stdout in
 * *out (malloc'd).  The exit status, or -1 with the reason in err. */
int bed_ctl(const struct sweep_bed *, char **out, char *err, size_t len, ...);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the CPU did while a measured point ran: the CPU time of each of
 * the testbed's processes (agents, ocsd, ocs-emu and its relay) and of
 * the whole machine, from /proc, before and after, so that a point whose
 * run was bound by the CPU (a process near a full core, or the sum near
 * the machine's cores) is flagged with the reason instead of being taken
 * for a measurement of the links.
 */
#ifndef OCS_SWEEP_CPU_H
#define OCS_SWEEP_CPU_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define CPU_MAX_PROCS 128
/* A process at this share of a core, or the testbed or the machine at
 * this share of its cores, is the bottleneck rather than the links: a
 * relay metering its fibres at the rate idles most of the time. */
#define CPU_BOUND_SHARE 0.85
/* A process that waited this share of the run for a CPU (others' work
 * on a busy machine) ran late for want of one, whatever it used. */
#define CPU_WAIT_SHARE 0.20

struct cpu_snap {
	uint64_t ns;                  /* monotonic */
	uint64_t host_busy, host_all; /* /proc/stat's cpu line, ticks */
	size_t   n;
	pid_t    pid[CPU_MAX_PROCS];
	char     name[CPU_MAX_PROCS][16];
	uint64_t ticks[CPU_MAX_PROCS]; /* utime + stime */
	uint64_t wait[CPU_MAX_PROCS];  /* ns runnable but not running */
};

/* The CPU used between two snapshots, in cores (CPU seconds a second). */
struct cpu_use {
	double   wall_s;
	double   max;     /* the busiest process */
	char     who[16]; /* its name */
	double   sum;     /* every process of the testbed */
	double   host;    /* the whole machine, ours and everybody else's */
	double   wait;    /* the longest any process waited for a CPU, a share
	                * of the run (/proc/PID/schedstat) */
	char     waiter[16];
	unsigned cores; /* the machine's */
};

/* The processes pids (n of them; a process gone reads as 0 ticks), or
 * with pids NULL every process whose name is one of names (a NULL-ended
 * list; a running ocsd's testbed, whose pids we do not hold). 0, or -1
 * if /proc/stat cannot be read. */
int cpu_snap(struct cpu_snap *, const pid_t *pids, size_t n,
             const char *const *names);
/* b - a, by pid. */
void cpu_used(const struct cpu_snap *a, const struct cpu_snap *b,
              struct cpu_use *u);
/* The worse of two uses, field by field (for repeated runs). */
void cpu_worst(struct cpu_use *acc, const struct cpu_use *u);
/* 1 and why (one line, no commas) if the use says the CPU, not the
 * links, bounded the run; 0 and "" otherwise. */
int cpu_bound(const struct cpu_use *, char *why, size_t len);

/* /proc/PID/stat's text into name and utime + stime; 0 or -1 (pure,
 * fuzzable: the name may hold anything, even ") "). */
int cpu_parse_stat(const char *text, char *name, size_t len, uint64_t *ticks);
/* /proc/stat's first line into busy and all ticks; 0 or -1. */
int cpu_parse_host(const char *text, uint64_t *busy, uint64_t *all);

#endif

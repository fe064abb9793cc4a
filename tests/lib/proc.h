/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Helpers for integration tests that start the real programs: spawn with
 * stdout on a pipe (for a "ready" line) and stderr to a log file, stop
 * with a signal and a bounded wait, run a command to completion capturing
 * its output, and scratch directories.
 */
#ifndef OCS_TEST_PROC_H
#define OCS_TEST_PROC_H

#include <stddef.h>
#include <sys/types.h>

struct proc {
	pid_t pid;
	int   out; /* read end of the child's stdout */
	char  log[256];
};

/* Path of a program in $OCS_BIN (default "bin"). */
const char *proc_bin(const char *name, char *buf, size_t len);

/* Start argv (argv[0] a path); stderr goes to errlog. 0 or -errno. */
int proc_start(struct proc *, char *const argv[], const char *errlog);
/* Read one line of the child's stdout within timeout_ms.  0 or -1. */
int proc_line(struct proc *, char *buf, size_t len, int timeout_ms);
/* Signal, wait up to 5 s, then SIGKILL.  Returns the wait status. */
int proc_stop(struct proc *, int sig);
/* SIGTERM, and how long it took to exit (ms, waited for up to 5 s, then
 * SIGKILL and -1); its wait status in *st. */
int proc_term_ms(struct proc *, int *st);
/* Is it still running? */
int proc_alive(struct proc *);
/* Wait up to timeout_ms for it to exit; its exit status, or -1. */
int proc_wait(struct proc *, int timeout_ms);

/* Run to completion; *out and *err are malloc'd (NUL-terminated).
 * Returns the exit status, or -1 if it did not exit normally. */
int proc_run(char *const argv[], char **out, char **err);

/* mkdtemp under /tmp; proc_rmtree removes it. */
char *proc_tmpdir(const char *tag);
void  proc_rmtree(const char *dir);

/* Did the process's stderr log report a sanitizer finding (ASan, UBSan,
 * LeakSanitizer)?  Prints the report to stderr when it did. */
int proc_log_dirty(const struct proc *);

/* Number of lines in s. */
size_t proc_nlines(const char *s);

/* User + system CPU seconds pid has used so far (/proc), or -1. */
double proc_cpu_s(pid_t pid);

#endif

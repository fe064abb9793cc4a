/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Logging for the daemons (ocsd, ocs-agent, ocs-emu), after OpenBSD's
 * log.h: stderr in the foreground, syslog when daemonised.  fatal
 * appends strerror(errno), fatalx does not; they are the only
 * calls that exit.  The level is checked before formatting.  The log
 * state is the one file-static set by log_init() from main and read-only
 * afterwards; errno is preserved.
 */
#ifndef OCS_LOG_H
#define OCS_LOG_H

#include <stdarg.h>
#include <stdint.h>

#define LOG_FMT(a, b) __attribute__((__format__(printf, a, b)))

/* verbose: 0 warnings and info, 1 debug, 2 traces. */
void log_init(const char *progname, int foreground, int verbose);

void log_warnx(const char *, ...) LOG_FMT(1, 2);
void log_info(const char *, ...) LOG_FMT(1, 2);
void log_debug(const char *, ...) LOG_FMT(1, 2);
void log_trace(const char *, ...) LOG_FMT(1, 2);
void vlog_trace(const char *, va_list) LOG_FMT(1, 0);
/*
 * Warnings a stranger can cause (a refused connection, a bad frame) go
 * through a limiter, one per kind of event, the caller's: at most
 * LOG_LIMIT_BURST lines every LOG_LIMIT_MS, the rest counted and said in
 * one line when the next window opens ("... and N more like it").  A
 * flood then costs a few lines a second, not the disk.  Not locked: the
 * caller serialises calls on one limiter.
 */
#define LOG_LIMIT_BURST 5
#define LOG_LIMIT_MS    10000
struct log_limit {
	uint64_t start_ms;
	uint32_t n, dropped;
	char     what[64]; /* the last dropped line's start, for the count */
};
void log_warnx_limited(struct log_limit *, const char *, ...) LOG_FMT(2, 3);
/* Say what the window dropped once it is over, whatever comes next (a
 * caller's periodic tick). */
void log_limit_tick(struct log_limit *);
void fatal(const char *, ...) LOG_FMT(1, 2) __attribute__((__noreturn__));
void fatalx(const char *, ...) LOG_FMT(1, 2) __attribute__((__noreturn__));

#endif

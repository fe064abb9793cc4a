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

#define LOG_FMT(a, b) __attribute__((__format__(printf, a, b)))

/* verbose: 0 warnings and info, 1 debug, 2 traces. */
void log_init(const char *progname, int foreground, int verbose);

void log_warnx(const char *, ...) LOG_FMT(1, 2);
void log_info(const char *, ...) LOG_FMT(1, 2);
void log_debug(const char *, ...) LOG_FMT(1, 2);
void log_trace(const char *, ...) LOG_FMT(1, 2);
void vlog_trace(const char *, va_list) LOG_FMT(1, 0);
void fatal(const char *, ...) LOG_FMT(1, 2) __attribute__((__noreturn__));
void fatalx(const char *, ...) LOG_FMT(1, 2) __attribute__((__noreturn__));

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/* Leveled logging to stderr or syslog (see log.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "proto/base/log.h"
#include "proto/base/mono.h"

/* The one exception to "no global mutable state": set once by main. */
static struct {
	const char *prog;
	int         foreground;
	int         verbose;
} log_state = {"ocs", 1, 0};

void
log_init(const char *progname, int foreground, int verbose)
{
	log_state.prog = progname;
	log_state.foreground = foreground;
	log_state.verbose = verbose;
	if (!foreground)
		openlog(progname, LOG_PID | LOG_NDELAY, LOG_DAEMON);
}

static void
vlog(int pri, const char *fmt, va_list ap, const char *suffix)
{
	char            msg[2048];
	struct timespec ts;
	struct tm       tm;
	int             saved = errno;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (log_state.foreground) {
		clock_gettime(CLOCK_REALTIME, &ts);
		localtime_r(&ts.tv_sec, &tm);
		fprintf(stderr, "%02d:%02d:%02d.%03ld %s: %s%s%s\n",
		        tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000,
		        log_state.prog, msg, suffix ? ": " : "",
		        suffix ? suffix : "");
	} else
		syslog(pri, "%s%s%s", msg, suffix ? ": " : "",
		       suffix ? suffix : "");
	errno = saved;
}

void
log_warnx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_WARNING, fmt, ap, NULL);
	va_end(ap);
}

void
log_limit_tick(struct log_limit *l)
{
	if (mono_ms() - l->start_ms < LOG_LIMIT_MS)
		return;
	if (l->dropped > 0)
		log_warnx("%u more like \"%s...\" in %d s (a flood: said once "
		          "a window)",
		          l->dropped, l->what, LOG_LIMIT_MS / 1000);
	l->n = l->dropped = 0;
}

void
log_warnx_limited(struct log_limit *l, const char *fmt, ...)
{
	va_list  ap;
	char     msg[2048];
	uint64_t now = mono_ms();

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (now - l->start_ms >= LOG_LIMIT_MS) {
		log_limit_tick(l);
		l->start_ms = now;
	}
	if (l->n < LOG_LIMIT_BURST) {
		l->n++;
		log_warnx("%s", msg);
		return;
	}
	if (l->dropped++ == 0)
		snprintf(l->what, sizeof(l->what), "%.40s", msg);
}

void
log_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_INFO, fmt, ap, NULL);
	va_end(ap);
}

void
log_debug(const char *fmt, ...)
{
	va_list ap;

	if (log_state.verbose < 1)
		return;
	va_start(ap, fmt);
	vlog(LOG_DEBUG, fmt, ap, NULL);
	va_end(ap);
}

void
vlog_trace(const char *fmt, va_list ap)
{
	if (log_state.verbose < 2)
		return;
	vlog(LOG_DEBUG, fmt, ap, NULL);
}

void
log_trace(const char *fmt, ...)
{
	va_list ap;

	if (log_state.verbose < 2)
		return;
	va_start(ap, fmt);
	vlog(LOG_DEBUG, fmt, ap, NULL);
	va_end(ap);
}

void
fatal(const char *fmt, ...)
{
	va_list ap;
	char    e[128];

	snprintf(e, sizeof(e), "%s", strerror(errno));
	va_start(ap, fmt);
	vlog(LOG_CRIT, fmt, ap, e);
	va_end(ap);
	exit(1);
}

void
fatalx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_CRIT, fmt, ap, NULL);
	va_end(ap);
	exit(1);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Detaching so that whoever started ocsd can trust the outcome: the
 * parent waits until the daemon says it is ready, and exits 0 only then;
 * any start-up error is printed on the caller's terminal and the parent
 * exits 1.  Readiness also goes to systemd (Type=notify, sd_notify) and a
 * pid file.  Everything that can fail happens before the parent lets go.
 */
#ifndef OCS_DAEMON_H
#define OCS_DAEMON_H

#include <limits.h>
#include <stddef.h>

struct daemon {
	int  fd;                /* the readiness pipe's write end, or -1 */
	char pidfile[PATH_MAX]; /* written once ready, removed at exit */
};

/*
 * Fork unless foreground.  The parent never returns: it waits for the
 * child's word and exits 0 (ready) or 1 (the child failed; its error is
 * already on stderr).  The child returns 0 in a new session, with stderr
 * still the caller's until daemon_ready.  Call before any thread starts.
 */
int daemon_start(struct daemon *, int foreground, const char *pidfile);

/* Start-up is over: pid file, sd_notify READY=1, the parent released,
 * stdio to /dev/null and the cwd to / (when detached).  0, or -errno with
 * err set (the pid file). */
int daemon_ready(struct daemon *, char *err, size_t errlen);

/* sd_notify a state ("RELOADING=1", "READY=1", "STOPPING=1"); a no-op
 * outside systemd. */
void daemon_notify(const char *state);

/* At exit: the pid file goes. */
void daemon_stop(struct daemon *);

/* Raise the soft limit on open files towards want (never past the hard
 * limit): every agent is a connection, and a subscriber.  The limit now
 * in force. */
unsigned long daemon_nofile(unsigned long want);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocsctl, the operator's command line: the command table and options
 * (ocsctl.c), the request to ocsd (ocsctl_rpc.c), the commands
 * (ocsctl_cmd.c), and the output, iproute2's way: each field written
 * once, as text or under its JSON key (ocsctl_out.c's calls, the
 * answers' layout in ocsctl_print.c); each command names what its reply
 * is.
 */
#ifndef OCS_OCSCTL_H
#define OCS_OCSCTL_H

#include <limits.h>
#include <stdint.h>

#include "ocsd/ocsctl_out.h"
#include "proto/auth.h"
#include "proto/msg.h"
#include "proto/wire.h"

enum out_kind {
	OUT_SHOW,    /* switch, circuits, patches, cabling */
	OUT_STATUS,  /* switch and map state */
	OUT_DIFF,    /* what differs between switch and desired map */
	OUT_AGENTS,  /* the joined agents */
	OUT_MESSAGE, /* what a change did */
	OUT_REPORT,  /* a run's report */
	OUT_PORTS,   /* every port's power and state */
	OUT_RUNS,    /* the runs kept */
	OUT_EVENTS,  /* what changed (watch) */
	OUT_NKINDS
};

/* What `show` prints; none set: all of it but ports. */
#define SHOW_SWITCH   0x1
#define SHOW_CIRCUITS 0x2
#define SHOW_PATCHES  0x4
#define SHOW_CABLING  0x8

/* How to print: -br (one line per object), and show's parts. */
struct out_opts {
	int      brief;
	unsigned show;
};

/* ocsctl_print.c: reply r as kind, into o.  0. */
int ocsctl_print(struct out *o, enum out_kind kind, const Ocs__CtlReply *r,
                 const struct out_opts *po);

/* Everything a command needs: where ocsd is, how to prove the secret,
 * how to print. */
struct opts {
	const char     *url;
	int             timeout_ms;
	int             timeout_set;
	char            defurl[PATH_MAX + 16];
	const char     *file; /* apply: for line numbers in errors */
	uint32_t       *lines;
	size_t          nlines;
	uint8_t         secret[AUTH_SEC_MAX + 1];
	size_t          slen; /* 0: no proof sent */
	const char     *ca;   /* tls+tcp:// */
	int             json; /* -j */
	struct out_opts po;
	int             force; /* --force: ocsctl_take_force */
	const char     *sw;    /* -S: a fabric's switch, or NULL */
};

/* "ocsctl: " and the message on stderr (control bytes escaped), and
 * with -j {"error": ...} on stdout too; returns 1. */
int ocsctl_fail(const struct opts *, const char *fmt, ...)
    __attribute__((__format__(printf, 2, 3)));

/* ocsctl_rpc.c: ask ocsd and print its answer as kind.  0, 1 after an
 * error (2 when ocsd found an argument wrong). */
/* run with --capture: the run, then what the switch's capture saw of it,
 * printed together; 1 if the capture could not be had. */
int ocsctl_run_capture(const struct opts *, Ocs__CtlRequest *);
int ocsctl_request(const struct opts *, Ocs__CtlRequest *, enum out_kind,
                   const char *what);
/* Ask only: the answer in *reply (msg_free it), or 1 after saying why (2
 * when ocsd found an argument wrong). */
int ocsctl_call(const struct opts *, Ocs__CtlRequest *, const char *what,
                Ocs__Msg **reply);
/* watch: print ocsd's events as they come, count of them (0: until
 * interrupted); with -j one JSON answer a line.  0, or 1 after an error. */
int ocsctl_watch_loop(const struct opts *, uint64_t count);

/* --force anywhere after a command that changes circuits: go ahead even
 * during a run (ocsd aborts it first), and apply even an empty map. */
void ocsctl_take_force(struct opts *, int *argc, char **argv);

/* ocsctl_cmd.c: the commands; argv[0] is the command's full name.  The
 * exit status: 0, 1 for failures, 2 for usage. */
int ocsctl_show(struct opts *, int, char **);
int ocsctl_status(struct opts *, int, char **);
int ocsctl_connect(struct opts *, int, char **);
int ocsctl_disconnect(struct opts *, int, char **);
int ocsctl_apply(struct opts *, int, char **);
int ocsctl_clear(struct opts *, int, char **);
int ocsctl_map(struct opts *, int, char **);
int ocsctl_agents(struct opts *, int, char **);
int ocsctl_run(struct opts *, int, char **);
int ocsctl_abort(struct opts *, int, char **);
int ocsctl_runs(struct opts *, int, char **);
int ocsctl_fault(struct opts *, int, char **);
int ocsctl_watch(struct opts *, int, char **);
/* ocsctl_check.c: every transceiver, the switch's side and the host's. */
int ocsctl_check(struct opts *, int, char **);

#endif

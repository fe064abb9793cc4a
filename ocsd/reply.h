/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Operator replies (ocs.CtlReply) built from ocsd's state: the one place
 * in ocsd besides the sockets' dispatch (ctl.c, agents.c) that names
 * protobuf types.  Everything a reply points to is allocated with it and
 * freed with it.
 */
#ifndef OCS_REPLY_H
#define OCS_REPLY_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "proto/msg.h"

struct ocsd;
struct sw;
struct run_report;
struct agent_info;
struct drv_port_state;

/* A reply under construction: the protobuf struct and everything it
 * points to, freed together. */
struct reply {
	Ocs__CtlReply r;
	void        **blk;
	size_t        nblk, cap;
	/* Reports decoded from runs.jsonl (proto/report.h's), freed with
	 * the reply: a list, and the one shown whole. */
	Ocs__RunReport **list;
	size_t           nlist;
	Ocs__RunReport  *owned;
};

/* reply.c: building replies (lock held by the caller where it reads d). */
void reply_init(struct reply *);
void reply_free(struct reply *);
/* Show, status and diff of switch s, or of every switch (s NULL).  A
 * lone switch fills the reply itself, a fabric's switches each their
 * own in r.switches (reply_for). */
void reply_show(struct reply *, const struct ocsd *, const struct sw *s);
void reply_status(struct reply *, const struct ocsd *, const struct sw *s);
void reply_diff(struct reply *, const struct ocsd *, const struct sw *s);
/* Where switch s's part of the reply goes: the reply itself for a lone
 * switch, else its own in r.switches (made on first use, named); NULL
 * when out of memory. */
Ocs__CtlReply *reply_for(struct reply *, const struct ocsd *,
                         const struct sw *s);
void           reply_run(struct reply *, const struct run_report *);
/* CAPTURE: what the switch's capture saw. */
struct drv_capture;
void reply_capture(struct reply *, const struct drv_capture *);
/* Reports kept as JSON (runs.c): a listing without phases, or with
 * whole the one given.  0 or -ENOMEM; reports that do not parse are
 * skipped with a warning. */
int reply_runs(struct reply *, const json_t *runs, int whole);
/* A run's report as its JSON line (aborted: why, or NULL); NULL when out
 * of memory. */
json_t *reply_run_json(const struct run_report *, const char *aborted);
/* Ports 1..nports + negress (st[p]), for ocsctl show ports. */
void reply_ports(struct reply *, const struct ocsd *, const struct sw *,
                 const struct drv_port_state *st, uint32_t nports,
                 uint32_t negress);
/* AGENTS: the registry's snapshot (agents_snapshot). */
void reply_agents(struct reply *, const struct agent_info *, uint32_t n);
/* WATCH: events ev[0..n), the newest number and whether some were lost. */
struct ev_rec;
void reply_events(struct reply *, const struct ev_rec *ev, size_t n,
                  uint64_t last, int lost);
/* PROBE: what each transceiver's probe found (agents_probe_result). */
struct probe_info;
void reply_probes(struct reply *, const struct probe_info *, uint32_t n);
void reply_message(struct reply *, const char *fmt, ...)
    __attribute__((__format__(printf, 2, 3)));

#endif

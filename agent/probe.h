/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The agent's part of ocsctl check (ocs.proto Probe, Heard): a probe
 * frame (agent/frame.h) out of each transceiver ocsd names, and what the
 * agent's receivers hear meanwhile, from whom.  Idle only: it reads the
 * transceivers as no run does.
 */
#ifndef OCS_PROBE_H
#define OCS_PROBE_H

#include <stddef.h>
#include <stdint.h>

#include "agent/xport.h"
#include "proto/amsg.h"

/* A probe is sent again this long after the first (a receiver that was
 * between two polls when the first came drained it unread). */
#define PROBE_AGAIN_MS 100

/*
 * Send host's probe with p's nonce out of every transceiver i < n in
 * p->send (x[i] open where open[i]), then listen on every open one until
 * each in p->listen has heard a probe of this nonce (and the probes
 * were sent again), or p->wait_ms pass.  What was heard, each (receiver,
 * sender) once, into out[0..cap); *nout their count.  Blocks up to
 * p->wait_ms.  Returns the transmitters whose probe could not be sent
 * (a bit each), or -ENOMEM.
 */
int probe_run(struct xport *x, const int *open, uint32_t n, const char *host,
              const struct amsg_probe *p, struct amsg_heard *out, size_t cap,
              size_t *nout);

/* Find the probes of nonce in buf[0..*len) heard on receiver trx:
 * each whole one is added to out (unless there already), the bytes
 * before a good one are dropped, and what may begin one is kept at
 * the front; *len is what is left.  For the stream transports, whose
 * bytes come in any cut. */
void probe_scan(uint8_t *buf, size_t *len, uint32_t trx, uint32_t nonce,
                struct amsg_heard *out, size_t cap, size_t *nout);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The executor: runs one node's part of a collective, phase by phase,
 * over its transceivers.  It sends the blocks the plan says in frames of
 * `chunk` bytes, relays frames passing through (forwarded as they come,
 * so long paths pipeline), receives and verifies what ends here (CRC at
 * every hop, content against the pattern), and finishes a phase only when
 * everything it should send, relay and receive has been.  Any
 * verification failure, timeout, unexpected frame or abort stops the run
 * with one precise reason.
 *
 * Memory is O(m): block slots for the most blocks the node holds at once
 * (plan.max_blocks, about m to 2m bytes), plus frame buffers per port;
 * an output queue grows only to hold relay backlog (at most the phase's
 * relay volume through the port).  Nothing is allocated per block or per
 * frame while running.
 */
#ifndef OCS_EXEC_H
#define OCS_EXEC_H

#include <stddef.h>
#include <stdint.h>

#include "agent/xport.h"
#include "collectives/plan.h"

#define EXEC_MAX_PORTS 8

struct exec;

/* Abort hook: polled on fd; check() returns 1 and a reason to stop. */
struct exec_abort {
	int fd;
	int (*check)(void *arg, char *reason, size_t len);
	void *arg;
	/* Planes apart (plan.nplanes > 1): the planes released since the
	 * last barrier, a bit each, as check() last heard them; a port
	 * sends (its own frames and relays) only once its plane is.  NULL:
	 * every plane is lit at the release. */
	uint32_t (*lit)(void *arg);
};

/* Is the plan one this executor can carry out?  0, or -EINVAL with the
 * reason in err.  exec_new checks it too. */
int exec_check(const struct plan *, char *err, size_t errlen);

/*
 * Set up a run: buffers sized from the plan, the node's own blocks
 * filled with the pattern.  ports[i] is transceiver i.  0, -ENOMEM,
 * -EINVAL (a plan this node cannot carry out; reason in err), or
 * -ECANCELED (an abort came on the session while it set up).
 */
int  exec_new(struct exec **, const struct plan *, struct xport *ports,
              const struct exec_abort *, char *err, size_t errlen);
void exec_free(struct exec *);

/* Run phase k to completion.  0 with *done filled, or -ECANCELED (abort),
 * -ETIMEDOUT, -EPROTO (a bad or unexpected frame, a verification
 * failure), -EPIPE (a fibre unplugged), with one line in err. */
int exec_phase(struct exec *, uint32_t k, struct plan_done *done, char *err,
               size_t errlen);

/* After the last phase: the node holds exactly its n * parts blocks.
 * *verified gets the blocks whose content was checked only now (the sums
 * a ReduceScatter or AllReduce ends with that no frame brought). */
int exec_finish(struct exec *, uint64_t *verified, char *err, size_t errlen);

/* Memory held by the executor, bytes (for the bench). */
size_t exec_mem(const struct exec *);

/* Between runs: read and discard what the fibres carry.  Returns how
 * many of them are unplugged (closed by the switch's side). */
uint32_t exec_drain(struct xport *ports, uint32_t nports);

#endif

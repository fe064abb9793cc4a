/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: what an agent does with bytes from the controller.
 * The message is decoded and checked (size, version, body); a plan is
 * taken apart and checked by the executor, and a small accepted plan is
 * set up for real (buffers, the node's own blocks) and torn down.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent/exec.h"
#include "proto/plan.h"
#include "proto/msg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	Ocs__Msg    *m;
	struct plan  p;
	struct exec *e;
	struct xport x[EXEC_MAX_PORTS];
	char         err[512];
	int          rv;

	err[0] = '\0';
	if (msg_decode(data, len, &m, err, sizeof(err)) != 0) {
		if (err[0] == '\0')
			abort();
		return (0);
	}
	if (m->body_case == OCS__MSG__BODY_PLAN) {
		err[0] = '\0';
		rv = plan_decode(m->plan, m->run_id, 2, &p, err, sizeof(err));
		if (rv == 0)
			rv = exec_check(&p, err, sizeof(err));
		if (rv != 0 && rv != -ENOMEM && err[0] == '\0')
			abort();
		/* Accepted plans stay within what they claim: the two
		 * transceivers, or (servers) the first local_from of them
		 * and the local links after. */
		if (rv == 0 &&
		    (p.node >= p.n ||
		     p.nports !=
		         (p.local_from ? p.local_from + p.nlocal : 2) ||
		     p.local_from > 2 || p.nports > EXEC_MAX_PORTS))
			abort();
		if (rv == 0 && p.bytes <= (1u << 20) &&
		    (uint64_t)p.max_blocks * (p.bytes / p.n + 1) <=
		        (8u << 20)) {
			memset(x, 0, sizeof(x));
			if (exec_new(&e, &p, x, NULL, err, sizeof(err)) == 0)
				exec_free(e);
		}
		plan_free(&p);
	}
	msg_free(m);
	return (0);
}

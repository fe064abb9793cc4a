/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef OCS_AGENT_PLAN_H
#define OCS_AGENT_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "agent/exec.h"
#include "proto/ocs.pb-c.h"

/*
 * Fill p from the plan message m of run `run` for an agent with ntrx
 * transceivers; p's block arrays point into m, which must outlive it.
 * 0, -EINVAL (reason in err) or -ENOMEM; free p with exec_plan_free
 * either way.
 */
int plan_from_msg(const Ocs__Plan *m, uint64_t run, uint32_t ntrx,
                  struct exec_plan *p, char *err, size_t len);

#endif

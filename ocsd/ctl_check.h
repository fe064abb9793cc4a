/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef OCS_CTL_CHECK_H
#define OCS_CTL_CHECK_H

#include <stddef.h>

#include "proto/ocs.pb-c.h"
#include "proto/wire.h"

/* PROBE (ocsctl check): how long its probes have, default and bounds. */
#define CTL_PROBE_MS     500
#define CTL_PROBE_MIN_MS 50
#define CTL_PROBE_MAX_MS 5000

/* A control request, or the Hello that asks for a challenge first.
 * 0, or -MSG_EBODY / -MSG_EFIELD with one line in why. */
int ctl_check(const Ocs__Msg *, char *why, size_t len);

#endif

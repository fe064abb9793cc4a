/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef OCS_CTL_CHECK_H
#define OCS_CTL_CHECK_H

#include <stddef.h>

#include "proto/ocs.pb-c.h"

/* Entries of one apply at most: far more than any switch has ports. */
#define CTL_MAX_PAIRS 65536
/* A run's topology text and chunks per node (synthesised collectives). */
#define CTL_MAX_TOPOLOGY (1u << 20)
#define CTL_MAX_CHUNKS   64

/* A control request, or the Hello that asks for a challenge first.
 * 0, or -MSG_EBODY / -MSG_EFIELD with one line in why. */
int ctl_check(const Ocs__Msg *, char *why, size_t len);

#endif

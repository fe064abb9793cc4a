/* SPDX-License-Identifier: BSD-2-Clause */
/* ocs-plan's skewed All-to-All mode (--matrix, skplan.c). */
#ifndef COLL_SKPLAN_H
#define COLL_SKPLAN_H

#include <stddef.h>

#include "collectives/plan_cli.h"

/* Run the mode; the exit status. */
int skplan_run(const struct plan_opts *);

#endif

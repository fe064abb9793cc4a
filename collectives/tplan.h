/* SPDX-License-Identifier: BSD-2-Clause */
/* ocs-plan's fixed-topology mode (tplan.c). */
#ifndef COLL_TPLAN_H
#define COLL_TPLAN_H

#include <stddef.h>

#include "collectives/plan_cli.h"
#include "collectives/topo.h"

/* A topology from --topology: generator, shipped name or file.  0 or a
 * negative code with one line in err. */
int tplan_load(const char *spec, struct topo *, char *err, size_t errlen);
/* The same, a TE-CCL input's instance in *inst (num_chunks 0 if spec is
 * not one; inst nullable), and in note (nullable) what differs from the
 * tool the file is from ("" when nothing: topo_taccl.h, topo_teccl.h). */
struct topo_teccl;
int tplan_load_teccl(const char *spec, struct topo *, struct topo_teccl *inst,
                     char *note, size_t notelen, char *err, size_t errlen);

/* Run the mode; the exit status. */
int tplan_run(const struct plan_opts *);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/* The kernel datapath's capture (emu_cap.c). */
#ifndef OCS_EMU_CAP_H
#define OCS_EMU_CAP_H

#include <stddef.h>
#include <stdint.h>

struct emu_cap;

/* In the testbed's switch namespace (the caller entered it): capture on
 * "dark" and on every port p<j>, j in 1..n, with have[j] set.  0, or
 * -errno with the reason in err. */
int emu_cap_open(struct emu_cap **, uint32_t n, const int *have, char *err,
                 size_t len);
int emu_cap_start(struct emu_cap *);
/* What the capture saw of run `run` (low 32 bits of its id), so far or
 * kept: "FRAMES=n,UNLIT=u[,FIRST=phase/node][,GAPS=k:ms&...]".  0, or
 * -ENOENT if no frame of that run was seen. */
int emu_cap_query(struct emu_cap *, uint32_t run, char *out, size_t len);
/* Stop (printing the last run's summary) and free. */
void emu_cap_close(struct emu_cap *);

#endif

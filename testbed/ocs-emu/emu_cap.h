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
/* The accounting alone, without libpcap's handles (emu_cap_open's first
 * step; tests feed it with emu_cap_frame).  0 or -ENOMEM. */
int emu_cap_new(struct emu_cap **, uint32_t n);
/* One frame that entered port `port` (0: the dark sink) at t seconds.
 * A frame of a later run amid the one being seen is held until that run
 * is clearly under way (see emu_cap.c); the caller holds no lock (tests)
 * or the capture's (its thread). */
struct cap_frame {
	uint32_t port, run, phase, src;
	double   t;
};
void emu_cap_frame(struct emu_cap *, const struct cap_frame *);
/* What the capture saw of run `run` (low 32 bits of its id), so far or
 * kept: "FRAMES=n,UNLIT=u,DROPS=d[,FIRST=phase/node][,GAPS=k:ms&...]"
 * (DROPS: frames libpcap's buffers could not hold, so not counted).  0, or
 * -ENOENT if no frame of that run was seen. */
int emu_cap_query(struct emu_cap *, uint32_t run, char *out, size_t len);
/* Stop (printing the last run's summary) and free. */
void emu_cap_close(struct emu_cap *);

#endif

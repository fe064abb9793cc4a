/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The kernel datapath of ocs-emu (emu_kdp.c): cross-connects as tc mirred
 * redirects between the veth ports of a namespace testbed.
 */
#ifndef OCS_EMU_KDP_H
#define OCS_EMU_KDP_H

#include <stddef.h>
#include <stdint.h>

struct emu;
struct emu_kdp;

struct emu_kdp_conf {
	char     prefix[32]; /* the testbed: PREFIX-sw, PREFIX-hNN */
	uint64_t rate_bps;   /* a fibre's line rate, 0 = unshaped */
	uint64_t delay_ns;   /* a fibre's propagation delay (needs rate) */
	int      capture;    /* libpcap on the ports (emu_cap.c) */
};

/* Find the testbed's ports and power them up dark, shape the fibres.
 * Call before any thread starts.  0, or -errno with the reason in err. */
int emu_kdp_open(struct emu *, const struct emu_kdp_conf *, struct emu_kdp **,
                 char *err, size_t len);
/* Start following the model. */
int emu_kdp_start(struct emu_kdp *);
/* What --capture saw of a run (emu_cap.h); -ENOTSUP without it. */
int emu_kdp_capture(struct emu_kdp *, uint32_t run, char *out, size_t len);
/* Stop, and leave every port dark. */
void emu_kdp_close(struct emu_kdp *);

#endif

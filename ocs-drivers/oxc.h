/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The optical cross-connect model shared by the in-process emu driver and
 * ocs-emu: N ingress ports 1..N, N egress ports N+1..2N, unidirectional
 * patches, a switching time during which a changed path is dark, shutters,
 * failed ports and a power reading.  Pure: time is passed in (ns on any
 * monotonic clock), nothing here does I/O, and every change is validated
 * as a whole before any of it is applied.
 */
#ifndef OCS_OXC_H
#define OCS_OXC_H

#include <stddef.h>
#include <stdint.h>

#include "ocs-drivers/drv.h"

#define OXC_LIT_DBM  (-3.0)  /* light a host transmitter puts in */
#define OXC_LOSS_DB  1.0     /* insertion loss of a path */
#define OXC_NO_LIGHT (-99.0) /* what a power monitor reads without light */

enum oxc_boot {
	OXC_BOOT_DARK,    /* power up with no patches */
	OXC_BOOT_RESTORE, /* power up with the saved patches */
};

/* Why a change was refused: code is -DRV_EPORT (port out of range),
 * -DRV_EBUSY (port in another patch), -EINVAL (a port twice in one
 * command, or nothing to do); port names the culprit, other its peer. */
struct oxc_err {
	int      code;
	uint32_t port, other;
};

struct oxc {
	uint32_t  n;
	uint16_t *out_of; /* [n + 1]: ingress -> egress, 0 if none */
	uint16_t *in_of;  /* [2n + 1]: egress -> ingress, 0 if none */
	uint64_t *settle; /* [n + 1]: when ingress i's patch passes light */
	uint8_t  *closed; /* [2n + 1]: shutter closed */
	uint8_t  *failed; /* [2n + 1]: port failed (no light at all) */
	uint64_t  switch_ns;
	int       busy_replace; /* patching a busy port re-points it */
	enum oxc_boot boot;
	uint64_t      gen; /* bumped on every change of patches */

	/* A datapath that carries the light itself (ocs-emu's kernel
	 * datapath) sets carried: then light from ingress i passes only
	 * once carried[i] says the datapath forwards it, and every change
	 * of i's patch clears it, so no reading shows light the datapath
	 * does not carry yet.  changed, if set, is called (under the
	 * caller's lock) after every change of patches. */
	uint8_t *carried; /* [n + 1], or NULL */
	void (*changed)(void *arg);
	void *changed_arg;
};

int  oxc_init(struct oxc *, uint32_t n, uint64_t switch_ns);
void oxc_free(struct oxc *);

/* Patch every in -> out, all or nothing; an existing identical patch is
 * kept as it is (no dark period).  0, or err->code with *err filled. */
int oxc_connect(struct oxc *, const struct drv_patch *, size_t np,
                uint64_t now, struct oxc_err *err);
/* Remove the patch on each port (ingress or egress side); an unpatched
 * port is not an error.  0, or err->code with *err filled. */
int oxc_disconnect(struct oxc *, const uint16_t *ports, size_t np,
                   uint64_t now, struct oxc_err *err);
/* Remove every patch. */
void oxc_clear(struct oxc *);

/* Apply `k` of the patches only (a fault: a batch that stops half way).
 * Validation is the same as oxc_connect's. */
int oxc_connect_prefix(struct oxc *, const struct drv_patch *, size_t np,
                       size_t k, uint64_t now, struct oxc_err *err);

/* Number of patches. */
uint32_t oxc_count(const struct oxc *);
/* The latest time at which a current patch settles (0 if none). */
uint64_t oxc_settled_at(const struct oxc *);

/* Would the mirrors pass light from ingress `in` now (settled, open,
 * not failed), whatever a datapath carries? */
int oxc_passes(const struct oxc *, uint32_t in, uint64_t now);
/* Does the datapath (if any) carry every path the mirrors pass now? */
int oxc_carried_all(const struct oxc *, uint64_t now);
/* Does light from ingress `in` reach its egress now? */
int oxc_lit(const struct oxc *, uint32_t in, uint64_t now);
/* Power a monitor on `port` reads now, dBm (OXC_NO_LIGHT if dark). */
double oxc_power(const struct oxc *, uint32_t port, uint64_t now);
/* Port in range 1..2N? */
int oxc_valid_port(const struct oxc *, uint32_t port);

#endif

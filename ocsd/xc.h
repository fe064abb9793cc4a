/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Cross-connect requests in the operator's terms, turned into patches
 * through the cabling map: a duplex circuit between two transceivers is
 * two patches (A's TX ingress -> B's RX egress, and back); raw port
 * numbers make one patch.  Pure functions over a config and maps, so the
 * translation is unit-tested without a switch.  Errors are one line
 * naming the endpoint, the port and what holds it.
 */
#ifndef OCS_XC_H
#define OCS_XC_H

#include <stddef.h>
#include <stdint.h>

#include "ocsd/conf.h"
#include "ocsd/map.h"

struct xc_ep {
	const struct conf_trx *trx; /* or NULL for a raw port */
	uint32_t               port;
};

/*
 * Every function here works on one switch, sw (an index of conf.sw): its
 * ports and the transceivers cabled to it.  A transceiver on another
 * switch is refused, named with its switch.
 */

/* A transceiver name or a port number 1..2n.  0 or -EINVAL (err). */
int xc_resolve(const struct conf *, uint32_t sw, uint32_t n, const char *s,
               struct xc_ep *, char *err, size_t errlen);

/* "3 (h0.0 TX)" or "70 (h2.1 RX)" or "3". */
const char *xc_port_name(const struct conf *, uint32_t sw, uint32_t n,
                         uint32_t port, char *buf, size_t len);

/*
 * Patches for "connect a b" (1 or 2 into p), refused when a port is in a
 * different patch in `desired` or `live`.  0 or -EINVAL / -DRV_EBUSY.
 */
int xc_connect(const struct conf *, uint32_t sw, const struct map *desired,
               const struct map *live, const char *a, const char *b,
               struct drv_patch p[2], size_t *np, char *err, size_t errlen);

/* Ingress ports to clear for "disconnect a" (in either map); *nin may be
 * 0 when nothing is patched.  ins needs room for 4.  0 or -EINVAL. */
int xc_disconnect(const struct conf *, uint32_t sw, const struct map *desired,
                  const struct map *live, const char *a, uint16_t *ins,
                  size_t *nin, char *err, size_t errlen);

/* A whole map from pairs (ocsctl apply): every port used once.  target
 * is initialised here.  0, -EINVAL (entry index named), -ENOMEM. */
int xc_build(const struct conf *, uint32_t sw, uint32_t n, char *const *a,
             char *const *b, size_t npairs, struct map *target, char *err,
             size_t errlen);

/* Apply a delta to a map (disconnect ingress ports, then connect). */
void xc_delta(struct map *, const uint16_t *ins, size_t nin,
              const struct drv_patch *p, size_t np);

struct xc_circuit {
	const struct conf_trx *a, *b;
	int                    complete;
};
/* Circuits between transceivers cabled to switch sw in its map m. */
size_t xc_circuits(const struct conf *, uint32_t sw, const struct map *m,
                   struct xc_circuit *out, size_t cap);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The polatis-netconf driver's reading of a switch's data (the content
 * of <data> in a <get> reply, parsed by libyang: data nodes where the
 * client's context knows the optical-switch module, opaque ones where it
 * does not): cross-connects into a map, opm-power and port-config into
 * port states.  Pure: no I/O.
 */
#ifndef OCS_PNC_TREE_H
#define OCS_PNC_TREE_H

#include <libyang/libyang.h>
#include <stddef.h>
#include <stdint.h>

#include "ocs-drivers/drv.h"

#define PNC_NS "http://www.polatis.com/yang/optical-switch"

/* The number of port-config ports (the switch's 2N), or -DRV_EPROTO. */
int pnc_count_ports(const struct lyd_node *data, char *err, size_t len);

/* map[in] = out for in = 1..n from cross-connects (map has n + 1
 * entries, cleared first).  0, or -DRV_EPROTO (a port outside 1..n and
 * n+1..2n, an egress twice, a pair without both) with err. */
int pnc_map(const struct lyd_node *data, uint32_t n, uint16_t *map, char *err,
            size_t len);

/* st[k] for ports[k] from opm-power (dBm) and port-config's status
 * (FAILED).  Ports the data does not mention read DRV_NO_READING.  0, or
 * -DRV_EPROTO (a power that is not a number in -200..50 dBm) with err. */
int pnc_port_states(const struct lyd_node *data, const uint16_t *ports,
                    size_t n, struct drv_port_state *st, char *err,
                    size_t len);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The switch driver interface.  The controller never talks TL1 or HTTP
 * itself: it calls drv_apply()/drv_read_map() on a handle found by name.
 *
 * Ports follow the Polatis convention for every driver: an N x N switch
 * has ingress ports 1..N and egress ports N+1..2N, and a patch connects
 * one ingress to one egress (unidirectional).  A duplex circuit between
 * two transceivers is two patches; drivers for duplex devices translate.
 *
 * Ops are synchronous and bounded by opts.timeout_ms; callers that must
 * not block (ocsd's event handling) run them on a worker thread.  A handle
 * is used by one thread at a time.
 */
#ifndef OCS_DRV_H
#define OCS_DRV_H

#include <stddef.h>
#include <stdint.h>

#include "proto/base/errbase.h"

#define DRV_PORT_NONE 0
#define DRV_MAX_PORTS 4096 /* per side */

enum drv_err { /* returned negated: -DRV_EDENIED */
	       DRV_EBASE = ERR_BASE_DRV,
	       DRV_EDENIED, /* the device refused the command (TL1 DENY, status
	                       0) */
	       DRV_EPARTIAL, /* a batch may be half applied: read the map back
	                      */
	       DRV_EAUTH,    /* login refused */
	       DRV_EPROTO, /* the device answered something we cannot parse */
	       DRV_EPORT,  /* a port outside the device's range */
	       DRV_EBUSY,  /* a port already in another patch */
	       DRV_EUNKNOWN, /* no driver of that name */
	       DRV_EPERM,    /* logged in, but not allowed (read-only) */
	       DRV_ELIGHT,   /* patched, but the path carries no light */
	       DRV_EMAX
};

struct drv_opts {
	const char *user, *password;
	int         timeout_ms; /* every network operation; > 0 */
	const char *ca_file;    /* https: verify the device against it */
	/* polatis: TL1 over SSH instead of TCP, the switch's host key
	 * checked against (and, for a host it has not seen, added to)
	 * this OpenSSH known_hosts file; polatis-netconf: always SSH,
	 * known_hosts required. */
	int         ssh;
	const char *known_hosts;
	/* emu driver: size and switching time of the in-process model. */
	uint32_t ports;
	uint32_t switch_ms;
	/* Optional: a descriptor (> 0; 0 is none) that becomes readable
	 * when the caller must stop.  Every wait of the driver (connect,
	 * reply, backoff, switching time) then ends at once with
	 * -ECANCELED, and the connection is dropped: an apply cut off so
	 * may be half done.  The caller owns it and keeps it readable. */
	int cancel_fd;
	/* Optional trace hook for wire traffic (libraries do not log). */
	void (*trace)(void *arg, const char *fmt, ...)
	    __attribute__((__format__(printf, 2, 3)));
	void *trace_arg;
};

struct drv_caps {
	uint32_t nports; /* N: ingress 1..N, egress N+1..2N */
	/* An N x M switch: M egress ports N+1..N+M (0: M = N).  With M < N
	 * egress N+M+1..2N do not exist; with M > N those above 2N are out
	 * of this numbering, and a patch on one is reported, not hidden. */
	uint32_t nout;
	int      bidirectional; /* device circuits are duplex */
	int      atomic_apply; /* a failed batch leaves the device unchanged */
	uint32_t switch_ms;    /* typical switching time */
};

/* What a port's monitor reads. */
#define DRV_DARK_DBM (-40.0) /* at or below: no light */
struct drv_port_state {
	double dbm;    /* DRV_NO_READING if the device has no monitor */
	int    failed; /* the device says FAILED / no hardware */
};
#define DRV_NO_READING (-1000.0)

struct drv_patch {
	uint16_t in, out;
};

/* One reconfiguration: the disconnects go first, then the connects. */
struct drv_batch {
	const uint16_t         *disconnect; /* ingress ports */
	size_t                  ndisconnect;
	const struct drv_patch *connect;
	size_t                  nconnect;
};

/* What ocs-emu's capture saw of a run (RTRV-EMU-CAPTURE). */
#define DRV_CAP_GAPS 256
struct drv_capture {
	uint64_t frames, unlit;
	int      has_drops; /* frames the capture itself lost (libpcap) */
	uint64_t drops;
	int      has_first; /* the first unlit frame's phase and node */
	uint32_t first_phase, first_node;
	uint32_t ngaps;
	struct {
		uint32_t phase;
		double   ms;
	} gap[DRV_CAP_GAPS];
};

struct drv_ops {
	const char *name;      /* "emu", "polatis", "calient" */
	size_t      priv_size; /* allocated and zeroed by drv_open() */

	/* Remember url and opts (copied) and connect, blocking at most
	 * opts->timeout_ms.  A connection failure is returned, but the
	 * handle stays usable: later ops reconnect.  -EINVAL for a bad url. */
	int (*open)(void *priv, const char *url, const struct drv_opts *);
	/* Log out and release everything; safe after a failed open. */
	void (*close)(void *priv);
	/* Capabilities; may need the device (size query). */
	int (*caps)(void *priv, struct drv_caps *);
	/* Apply a batch.  0; -DRV_EDENIED (device refused, nothing of this
	 * batch applied); -DRV_EPARTIAL (the device may be half done: read
	 * the map back); -ETIMEDOUT, -ECONNREFUSED, -ECONNRESET, -DRV_EAUTH,
	 * -DRV_EPROTO.  Never retried inside: applying is not idempotent. */
	int (*apply)(void *priv, const struct drv_batch *);
	/* map[in] = out or DRV_PORT_NONE for in = 1..nports; map has
	 * nports + 1 entries (map[0] unused).  Idempotent: drivers retry it
	 * once after a lost connection. */
	int (*read_map)(void *priv, uint16_t *map, size_t nports);
	/* Optional: the optical state of ports (1..2N): measured power and
	 * whether the device declares the port failed.  Idempotent. */
	int (*ports_state)(void *priv, const uint16_t *ports, size_t n,
	                   struct drv_port_state *st);
	/* Optional: read_map and ports_state in one exchange with the
	 * device, where its dialect lets both be outstanding at once (the
	 * read-back and the light check after a batch).  Idempotent.
	 * Returns read_map's outcome; ports_state's goes to *srv. */
	int (*read_map_state)(void *priv, uint16_t *map, size_t nports,
	                      const uint16_t *ports, size_t n,
	                      struct drv_port_state *st, int *srv);
	/* Optional: apply, then read_map_state, the reads sent with the
	 * batch's last command where the dialect lets them be outstanding
	 * together (reads change nothing, and the device answers in turn,
	 * so they see the batch's outcome).  Returns apply's outcome, the
	 * reads' in *mrv and *srv; -ENOTSUP in *mrv when the reads did not
	 * go out (the batch stopped first). */
	int (*apply_read)(void *priv, const struct drv_batch *, uint16_t *map,
	                  size_t nports, const uint16_t *ports, size_t n,
	                  struct drv_port_state *st, int *mrv, int *srv);
	/* Optional: device text of the last failure ("IDNV Invalid OXC
	 * port: 1000"), or NULL. */
	const char *(*last_error)(void *priv);
	/* Optional: arm faults on an emulated switch (ocs-emu's spec, for
	 * rehearsals); the device's answer is in *now.  A real switch does
	 * not know the command and refuses it: -DRV_EDENIED, nothing
	 * changed.  Never changes a circuit. */
	int (*inject)(void *priv, const char *spec, char *now, size_t len);
	/* Optional, for devices that name their ports (CALIENT 1.1.1):
	 * the duplex port p (ingress p, egress N + p) of a name, known
	 * once connected.  0, -ENOENT (no such port), -ENOTCONN. */
	int (*port_lookup)(void *priv, const char *name, uint32_t *p);
	/* Optional, with port_lookup: is name written as this device
	 * writes its ports (no switch asked: a configuration is checked
	 * before it connects)?  1 or 0. */
	int (*port_name_ok)(const char *name);
	/* Optional: what an emulated switch's capture saw of a run (the low
	 * 32 bits of its id), as ocs-emu answers RTRV-EMU-CAPTURE.  A real
	 * switch refuses it: -DRV_EDENIED.  Never changes a circuit. */
	int (*capture)(void *priv, uint32_t run, struct drv_capture *);
};

struct drv {
	const struct drv_ops *ops;
	void                 *priv;
	char                  name[16];
	char                  url[256];
	struct drv_caps       caps; /* cached after the first drv_caps() */
	int                   have_caps;
	uint64_t              last_ns; /* duration of the last op */
};

extern const struct drv_ops drv_emu_ops;
extern const struct drv_ops drv_polatis_ops;
extern const struct drv_ops drv_polatis_netconf_ops;
extern const struct drv_ops drv_calient_ops;
extern const struct drv_ops drv_calient_tl1_ops;

/* Ops by name, or NULL; names lists them for messages. */
const struct drv_ops *drv_lookup(const char *name);
/* Is name a port name of driver's devices (drv_ops.port_name_ok)?  0 for
 * an unknown driver and for one whose ports are numbers only.  driver
 * NULL: of any driver's. */
int         drv_port_name_ok(const char *driver, const char *name);
const char *drv_names(void);

/* Open a handle.  *out is set even when the connection failed (the error
 * is returned and later calls retry), and NULL only for -DRV_EUNKNOWN,
 * -EINVAL (bad url or opts) and -ENOMEM. */
int  drv_open(struct drv **out, const char *name, const char *url,
              const struct drv_opts *);
void drv_close(struct drv *);

int drv_caps(struct drv *, struct drv_caps *);
/* Egress ports the numbering can use: N+1..N+drv_nout(), min(N, M). */
uint32_t drv_nout(const struct drv_caps *);
/* Checks every port against the caps (-DRV_EPORT) and that no port
 * appears twice among the connects (-EINVAL) before calling the driver. */
int         drv_apply(struct drv *, const struct drv_batch *);
int         drv_read_map(struct drv *, uint16_t *map, size_t nports);
const char *drv_last_error(struct drv *);
/* -ENOTSUP when the driver cannot tell. */
int drv_ports_state(struct drv *, const uint16_t *ports, size_t n,
                    struct drv_port_state *st);

/* drv_read_map, and drv_ports_state of ports (n > 0) into st, in one
 * exchange where the driver can.  Returns the map's outcome, and the
 * states' in *srv (-ENOTSUP when the driver cannot tell them). */
int drv_read_map_state(struct drv *, uint16_t *map, size_t nports,
                       const uint16_t *ports, size_t n,
                       struct drv_port_state *st, int *srv);

/* drv_apply, with a read-back of the map and of ports' states in the
 * batch's last exchange where the driver can.  Returns the batch's
 * outcome, the map read's in *mrv and the states' in *srv; -ENOTSUP in
 * *mrv when the reads did not go out: the caller reads back, after
 * taking drv_last_error and last_ns of the batch. */
int drv_apply_read(struct drv *, const struct drv_batch *, uint16_t *map,
                   size_t nports, const uint16_t *ports, size_t n,
                   struct drv_port_state *st, int *mrv, int *srv);

/* -ENOTSUP when the driver cannot ask. */
int drv_capture(struct drv *, uint32_t run, struct drv_capture *);
/* -ENOTSUP when the driver cannot; -EINVAL for a spec with blanks or
 * separators of the protocol. */
int drv_inject(struct drv *, const char *spec, char *now, size_t len);

/* -ENOTSUP when the driver's ports have no names. */
int drv_port_lookup(struct drv *, const char *name, uint32_t *p);

/* Own range, else strerror(-rv). */
const char *drv_strerror(int rv);

#endif

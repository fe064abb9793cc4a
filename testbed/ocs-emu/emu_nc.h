/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocs-emu's NETCONF face inside.  The server (emu_netconf.c) runs
 * libnetconf2 on sessions the SSH face hands it; libyang parses every
 * message against ietf-netconf and the Polatis optical-switch module
 * (emu_nc_ctx.c).  What is ours is pure and separately tested: the
 * switch as a data tree (emu_nc_data.c), RFC 6241's subtree filter
 * (emu_nc_filter.c), and an edit-config's tree mapped to one batch of
 * patches (emu_nc_edit.c).
 */
#ifndef OCS_EMU_NC_H
#define OCS_EMU_NC_H

#include <libyang/libyang.h>
#include <stddef.h>
#include <stdint.h>

#include "ocs-drivers/oxc.h"
#include "testbed/ocs-emu/emu_user.h"

struct emu;

/* Where Debian's libyuma-base puts ietf-netconf and friends. */
#define EMU_NC_YANG_DIR "/usr/share/yuma/modules/ietf"
#define EMU_NC_NS       "http://www.polatis.com/yang/optical-switch"
#define EMU_NC_BASE_NS  "urn:ietf:params:xml:ns:netconf:base:1.0"
#define EMU_NC_PLTS_NS  "http://www.polatis.com/yang/polatis-switch"

/*
 * The contexts.  srv, libnetconf2's, parses every message: ietf-netconf
 * (feature writable-running only: the switch has no candidate) and
 * ietf-netconf-monitoring (get-schema) from dir.  data adds our
 * optical-switch module and holds the switch's data.  The module is
 * kept out of srv so that the contents of <config> and <filter> reach
 * us as opaque nodes with every attribute, as the client wrote them:
 * libyang drops an attribute without a namespace from a node it knows,
 * and ONOS's driver writes operation="delete" so.  0, or -EINVAL with
 * err saying which module could not be loaded.
 */
int emu_nc_ctx_new(const char *dir, struct ly_ctx **srv, struct ly_ctx **data,
                   char *err, size_t len);
/* The module's capability in the hello (libnetconf2 escapes it). */
#define EMU_NC_CAPABILITY                                                     \
	EMU_NC_NS "?module=optical-switch&revision=2018-03-22"

/* Top-level containers of optical-switch, as bits of a "want" mask. */
enum {
	EMU_NC_PRODINF = 1 << 0, /* product-information (state) */
	EMU_NC_XC = 1 << 1,      /* cross-connects */
	EMU_NC_PORTS = 1 << 2,   /* port-config */
	EMU_NC_OPM = 1 << 3,     /* opm-power (state) */
	EMU_NC_VOA = 1 << 4,     /* voa: the attenuators */
	EMU_NC_OPMCFG = 1 << 5,  /* opm-config: the monitors' settings */
	EMU_NC_ALL = 0x3f,
};
/* The mask of the top-level elements a subtree filter names (all of
 * ours for a filter with foreign or no elements: they select nothing
 * anyway). */
unsigned emu_nc_want(const struct lyd_node *filter);

/* The switch as data: the wanted containers, configuration only for
 * get-config.  Caller holds e->mtx.  0 or -ENOMEM; *tree may be NULL
 * (nothing wanted). */
int emu_nc_data(struct emu *, const struct ly_ctx *, unsigned want,
                int config_only, uint64_t now_ns, struct lyd_node **tree);

/*
 * RFC 6241 section 6: what of data the subtree filter (the children of
 * <filter>, data or opaque nodes) selects, as a new forest in *out (NULL:
 * nothing).  Namespaces must match; content-match nodes compare the
 * canonical value.  0 or -ENOMEM.
 */
int emu_nc_filter(const struct lyd_node *data, const struct lyd_node *filter,
                  struct lyd_node **out);

/* An rpc-error as the server sends it: tag is libnetconf2's NC_ERR. */
struct emu_nc_err {
	int  tag;
	char msg[200];
	char elem[64]; /* bad-element, "" none */
	char ns[128];  /* bad-namespace (unknown-namespace) */
	char path[96]; /* error-path, "" none */
};

enum emu_nc_op {
	EMU_NC_MERGE,
	EMU_NC_REPLACE,
	EMU_NC_CREATE,
	EMU_NC_DELETE,
	EMU_NC_REMOVE,
	EMU_NC_NONE,
};

struct emu_nc_pair {
	uint32_t       in, out; /* out 0: not given */
	enum emu_nc_op op;
};
/* An entry of port-config, voa or opm-config (list: its EMU_NC_ bit);
 * has says which leaves came (EMU_NC_HAS_). */
enum {
	EMU_NC_HAS_LABEL = 1 << 0,
	EMU_NC_HAS_MODE = 1 << 1,
	EMU_NC_HAS_LEVEL = 1 << 2,
	EMU_NC_HAS_REF = 1 << 3,
	EMU_NC_HAS_WAVE = 1 << 4,
	EMU_NC_HAS_OFFSET = 1 << 5,
};
struct emu_nc_port {
	unsigned       list;
	uint32_t       port;
	enum emu_nc_op op;
	unsigned       has;
	char           label[33]; /* "" with HAS_LABEL: cleared */
	int            mode;      /* EMU_ATTEN_* */
	double         level, wave, offset;
	uint32_t       ref;
};

/* An edit-config's content, read but not yet held against the switch. */
struct emu_nc_edit {
	int                 xc;    /* cross-connects appears */
	enum emu_nc_op      xc_op; /* its own operation */
	struct emu_nc_pair *pair;
	size_t              npair;
	unsigned            lists; /* EMU_NC_PORTS, _VOA, _OPMCFG appear */
	enum emu_nc_op      list_op[3]; /* their own operations, that order */
	struct emu_nc_port *port;
	size_t              nport, cap;
};

/* Read the content of <config> (the children of the anyxml, data or
 * opaque nodes) for an nports x nports switch, default-operation dflt.
 * 0, or -EINVAL with *err (unknown-namespace, unknown-element,
 * invalid-value, bad-attribute, too-big, operation-not-supported) and
 * nothing kept, or -ENOMEM. */
int  emu_nc_edit_parse(const struct lyd_node *config, enum emu_nc_op dflt,
                       uint32_t nports, struct emu_nc_edit *,
                       struct emu_nc_err *);
void emu_nc_edit_free(struct emu_nc_edit *);

/* One of port-config, voa, opm-config into ed->port (emu_nc_port.c): a
 * port the switch has, an attenuator on an egress port, values in the
 * switch's ranges (attenuation 0..60 dB, wavelength 1250..1650 nm,
 * offset -20..20 dB).  0, -EINVAL with *err, -ENOMEM. */
int emu_nc_ports_parse(const struct lyd_node *list, enum emu_nc_op dflt,
                       uint32_t nports, struct emu_nc_edit *,
                       struct emu_nc_err *);
/* Hold ed's port entries against the switch's ports (an attenuator mode
 * that needs a level it neither gets nor has, a level or reference its
 * mode refuses) and, with apply, make them so.  Caller holds e->mtx.
 * 0, or -EINVAL with *err and nothing changed. */
int emu_nc_ports_apply(const struct emu_nc_edit *, struct emu *, int apply,
                       struct emu_nc_err *);
/* "VOA_MODE_ABSOLUTE" for EMU_ATTEN_ABSOLUTE, ... */
const char *emu_nc_atten_mode(int mode);

/* Shared by the tree files: a data or opaque node's namespace ("" for
 * none) and children; the error for a foreign element (0 for ours) and
 * for an unknown one; the nc:operation on n (or an operation attribute
 * of no namespace, as ONOS writes it), else inherited; a port number in
 * lo..hi; the siblings from n on.  emu_nc_fail fills err, -EINVAL. */
const char            *emu_nc_ns(const struct lyd_node *);
const struct lyd_node *emu_nc_kids(const struct lyd_node *);
int    emu_nc_ours(const struct lyd_node *, struct emu_nc_err *);
int    emu_nc_unknown(const struct lyd_node *, const char *in,
                      struct emu_nc_err *);
int    emu_nc_op_of(const struct lyd_node *, enum emu_nc_op inherited,
                    enum emu_nc_op *, struct emu_nc_err *);
int    emu_nc_port_of(const struct lyd_node *, uint32_t lo, uint32_t hi,
                      uint32_t *, struct emu_nc_err *);
size_t emu_nc_count(const struct lyd_node *);
__attribute__((__format__(printf, 3, 4))) int
emu_nc_fail(struct emu_nc_err *, int tag, const char *fmt, ...);

/* One batch of patches for the switch x as it is: the ingress ports to
 * free (*disc), then the patches to make (*conn), both malloc'd.  All or
 * nothing: 0, or -EINVAL with *err (in-use, data-exists, data-missing,
 * invalid-value, missing-element) and nothing to do, or -ENOMEM. */
int emu_nc_edit_plan(const struct emu_nc_edit *, const struct oxc *x,
                     uint16_t **disc, size_t *ndisc, struct drv_patch **conn,
                     size_t *nconn, struct emu_nc_err *);

/* A client's bytes, in order, before libnetconf2 reads them: 1 once
 * they declare an empty namespace (xmlns="", xmlns:p=""), which crashes
 * Debian 12's libyang (emu_nc_guard.c); the session is then closed.
 * state is a struct emu_nc_guard, zeroed for each session. */
struct emu_nc_guard {
	unsigned char st;
	char          q;
	int           seen;
};
int emu_nc_guard(void *state, const void *buf, size_t len);

/* The face: start (the context, libnetconf2's server), hand it the
 * sessions the SSH face authenticated, stop (every session closed and
 * its thread joined).  One per process: libnetconf2's server is. */
struct emu_nc;
int  emu_nc_start(struct emu *, struct emu_nc **, char *err, size_t len);
int  emu_nc_put(void *nc, int fd, const char *user, enum emu_priv);
void emu_nc_stop(struct emu_nc *);

#endif

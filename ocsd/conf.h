/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocsd's configuration file (INI, parsed with inih):
 *
 *   [switch]                    ; one switch, or several named ones:
 *                               ; [switch A], [switch B] (a fabric: one
 *                               ; per transceiver plane)
 *   driver = polatis            ; polatis | calient | emu
 *   address = 127.0.0.1:3082    ; calient: http[s]://HOST[:PORT]
 *   ca_file = /etc/ocsd/ca.pem  ; calient https: verify the switch
 *   transport = tcp             ; polatis: tcp | ssh (TL1 over SSH)
 *   known_hosts = FILE          ; ssh: host keys (default STATE/known_hosts)
 *   user = root
 *   password = root             ; or password_file = /path
 *   timeout = 5s                ; every driver operation
 *   switch_time = 25ms          ; its switching time (emu: the model's)
 *   ports = 64                  ; emu driver only: the switch size
 *   poll = 30s                  ; read the switch back this often, 0 never
 *   light_check = yes           ; after a change, check the new paths
 *                               ; carry light (port power / FAILED)
 *
 *   [control]
 *   listen = ipc:///run/ocsd/ctl.sock
 *   secret_file = /etc/ocsd/ctl.secret ; if set, every request proves it
 *                                      ; (ocsctl -k FILE)
 *   tls_cert_key = /etc/ocsd/ctl.pem    ; for listen = tls+tcp://ADDR:PORT
 *                                      ; (ocsctl -C CAFILE)
 *
 *   [state]
 *   dir = /var/lib/ocsd
 *   reconcile = hold            ; hold | push | adopt, if the switch differs
 *
 *   [agents]
 *   listen = tcp://10.0.0.1:7410   ; where agents join (none: no agents)
 *   secret_file = /etc/ocsd/secret ; the shared secret of the join proof
 *   tls_cert_key = /etc/ocsd/agents.pem ; for tls+tcp:// listen and link
 *                                  ; (ocs-agent --tls-ca CAFILE)
 *   link = tcp://10.0.0.1:7411     ; the agent links (everything after
 *                                  ; the join); default: listen's host
 *                                  ; on a port the kernel picks, TLS when
 *                                  ; listen is (old name: barrier)
 *   events = ...                   ; no longer used (aborts travel on
 *                                  ; the agent link): ignored
 *   heartbeat = 2s
 *
 *   [run]
 *   bandwidth = 10Gbps          ; the model's per-link rate
 *   alpha_s = 200us             ; the model's per-phase start-up
 *   alpha_h = 50us              ; the model's per-hop latency
 *   reconf_overhead = 300us     ; the model's cost of a reconfiguration
 *                               ; beyond the switch's delta
 *   scaleup_bandwidth = 400Mbps ; servers (--gpus-per-server): the local
 *   scaleup_alpha = 20us        ; links between a server's agents
 *   model = lab.model           ; or all six from a model file
 *                               ; (ocs-sweep --calibrate; cmodel.h)
 *   chunk = 64KiB               ; frame payload
 *   deadline = 30s              ; any phase, or a barrier, at most
 *
 *   [cabling]
 *   h0.0 = 1 65                 ; TX on ingress 1, RX on egress 65
 *   h1.0 = 1.1.2 2.1.2          ; or as a CALIENT names its ports: TX
 *                               ; into 1.1.2, RX from 2.1.2 (looked up
 *                               ; on the switch when it connects)
 *   h2.1 = B 3 67               ; with named switches, each line names
 *                               ; its switch first
 *
 *   [servers]                   ; optional: which hosts share a server
 *   s0 = h0 h2                  ; (FAST's server level: skewed runs
 *   s1 = h1 h3                  ; without --gpus-per-server use it);
 *                               ; 2..8 hosts each, all of one size, a
 *                               ; host in one server, cabled
 *
 * A fresh struct is filled and validated as a whole; errors read
 * "<file>:<line>: <key>: "<value>": <reason>".
 */
#ifndef OCS_CONF_H
#define OCS_CONF_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/base/errbase.h"
#include "proto/wire.h"

#define CONF_NAME_MAX      64
#define CONF_PORT_NAME_MAX 32
#define CONF_SWITCH_MAX    8 /* switches in a fabric */
#define CONF_SWNAME_MAX    WIRE_SWNAME_MAX
#define CONF_SERVER_HOSTS  8   /* hosts a server (gpus-per-server's 8) */
#define CONF_SERVERS_MAX   512 /* servers: a run's 1024 nodes in pairs */

enum conf_err {
	CONF_EBASE = ERR_BASE_CONF,
	CONF_EPARSE, /* the file has an error (message filled) */
	CONF_EMAX
};

enum conf_reconcile {
	CONF_RECON_HOLD,  /* log the difference, change nothing */
	CONF_RECON_PUSH,  /* make the switch match the saved map */
	CONF_RECON_ADOPT, /* take the switch's map as the desired one */
};

struct conf_trx {
	char     name[CONF_NAME_MAX]; /* "host.index" */
	uint32_t sw;                  /* its switch: an index of conf.sw */
	uint32_t in, out;             /* ingress (TX), egress (RX); 0 while
	                                 named ends are not looked up */
	char     in_name[CONF_PORT_NAME_MAX]; /* the device's names, or "" */
	char     out_name[CONF_PORT_NAME_MAX];
};

/* One switch: a [switch] section, or a [switch NAME] one. */
struct conf_switch {
	char     name[CONF_SWNAME_MAX]; /* "" for a lone [switch] */
	char     driver[16];
	char     address[256];
	char     ca_file[PATH_MAX];
	int      ssh;                   /* polatis: TL1 over SSH */
	char     known_hosts[PATH_MAX]; /* ssh; "": in state */
	char     user[64], password[128];
	int      timeout_ms;
	uint32_t switch_ms;
	uint32_t ports; /* emu driver */
	uint32_t poll_ms;
	int      light_check;
	/* trx index + 1 by ingress and by egress port on this switch (0:
	 * none), rebuilt whenever ports are resolved. */
	uint32_t *at_in, *at_out;
};

/* One line of [servers]: a server's name and its hosts, in order (GPU
 * k of the server is host[k]). */
struct conf_server {
	char name[CONF_SWNAME_MAX];
	char host[CONF_SERVER_HOSTS][CONF_NAME_MAX];
};

struct conf {
	char                path[PATH_MAX];
	struct conf_switch  sw[CONF_SWITCH_MAX];
	uint32_t            nsw; /* at least 1 */
	char                control[PATH_MAX + 16];
	char                ctl_secret_file[PATH_MAX];
	char                ctl_tls_cert_key[PATH_MAX];
	char                agents_tls[PATH_MAX];
	char                state_dir[PATH_MAX];
	enum conf_reconcile reconcile;
	char                agents[PATH_MAX + 16];
	char                events[PATH_MAX + 16]; /* no longer used */
	char                link[PATH_MAX + 16];   /* "": derived */
	char                secret_file[PATH_MAX];
	uint32_t            heartbeat_ms;
	double              run_bps, run_alpha_s, run_alpha_h;
	double              run_reconf_s; /* a reconfiguration beyond delta */
	double           run_su_bps, run_su_alpha; /* servers' local links */
	char             run_model[64]; /* the model file's name, or "" */
	uint32_t         run_chunk, run_deadline_ms;
	double           run_link_up_s;        /* the model's link-up */
	uint32_t         run_link_deadline_ms; /* links up after a switch */
	int              run_idle_lit; /* after a run, loop dark hosts */
	struct conf_trx *trx;
	size_t           ntrx;
	/* [servers]: nsrv servers of srv_size hosts each (0: none). */
	struct conf_server *srv;
	uint32_t            nsrv, srv_size;
	/* Lookups in O(log n) for thousands of hosts (O(1) by port, per
	 * switch: conf_switch.at_in): trx indices sorted by name. */
	uint32_t *by_name;
};

/* Parse and validate a file, or INI text (name is used in messages).
 * 0, or -CONF_EPARSE / -ENOMEM with one line in err. */
int  conf_load(const char *path, struct conf **out, char *err, size_t errlen);
int  conf_parse(const char *text, const char *name, struct conf **out,
                char *err, size_t errlen);
void conf_free(struct conf *);

/* The transceiver called name, or NULL. */
const struct conf_trx *conf_trx_find(const struct conf *, const char *name);
/* The transceiver cabled to ingress `in` / egress `out` of switch sw, or
 * NULL. */
const struct conf_trx *conf_trx_by_in(const struct conf *, uint32_t sw,
                                      uint32_t in);
const struct conf_trx *conf_trx_by_out(const struct conf *, uint32_t sw,
                                       uint32_t out);
/* The switch called name ("" or "-": a lone [switch]): its index, or -1. */
int conf_switch_find(const struct conf *, const char *name);
/* A switch's name for people: its own, or "switch" for a lone one. */
const char *conf_switch_label(const struct conf *, uint32_t sw);

/* The duplex port a switch gives a name (drv_port_lookup's contract). */
typedef int (*conf_lookup_fn)(void *arg, const char *name, uint32_t *p);
/* Number the ends named as the device names them (duplex port p: TX into
 * ingress p, RX from egress n + q), then conf_check_ports.  0 or -EINVAL
 * with the transceiver named in err.  Writes c->trx: the caller holds
 * whatever lock its readers take. */
int conf_resolve_ports(struct conf *, uint32_t sw, uint32_t n, uint32_t m,
                       conf_lookup_fn lookup, void *arg, char *err,
                       size_t len);
/* Check switch sw's cabling against a switch of n ingress ports and m
 * egress ports the numbering uses (n + 1..n + m); 0 or -EINVAL
 * with the first offending transceiver named in err. */
int conf_check_ports(const struct conf *, uint32_t sw, uint32_t n, uint32_t m,
                     char *err, size_t len);

/* Did a switch's section change between two configs (reconnect)? */
int conf_switch_changed(const struct conf_switch *,
                        const struct conf_switch *);
/* Do two configs have the same switches, by name and order? */
int conf_same_switches(const struct conf *, const struct conf *);
/* Carry the ports named ends were resolved to from old to c, for every
 * transceiver cabled alike in both (a reload keeps them until the
 * switch's worker looks them up again). */
void conf_carry_ports(struct conf *c, const struct conf *old);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocs-emu: an emulated optical circuit switch that answers like the real
 * ones on the wire.  One switch model (ocs-drivers/oxc.c) behind a mutex,
 * with control faces (TL1 now) that each run their own loop.
 */
#ifndef OCS_EMU_H
#define OCS_EMU_H

#include <limits.h>
#include <pthread.h>
#include <stdint.h>

#include "ocs-drivers/oxc.h"
#include "ocs-drivers/rest.h"
#include "proto/base/mono.h"
#include "testbed/ocs-emu/emu_kdp.h"
#include "testbed/ocs-emu/emu_user.h"

/*
 * Injected faults (emu_fault.c), set by --fault and by the control
 * commands (TL1 SET-EMU-FAULT, REST POST /rest/emu/?id=fault), which are
 * themselves exempt so a fault can always be cleared.
 */
struct emu_fault {
	int      refuse_login; /* every login refused (TL1 PICC, HTTP 401) */
	uint32_t drop_after;   /* every (K+1)-th command: connection dropped */
	uint32_t delay_ms;     /* every reply this much later */
	int      deny_half;    /* a batch stops half way and is refused */
	int      garbage;      /* replies are bytes of no protocol */
	uint32_t slow;         /* switching time multiplier (0, 1: none) */
};

struct emu_conf {
	char          tl1[128];         /* ADDR:PORT */
	char          rest[128];        /* ADDR:PORT, "" = no REST face */
	char          tl1_calient[128]; /* ADDR:PORT, "" = no CALIENT TL1 */
	char          tl1_ssh[128];     /* ADDR:PORT, "" = no TL1 over SSH */
	char          netconf[128];     /* ADDR:PORT, "" = no NETCONF */
	char          viewer[200]; /* REST read-only USER:PASSWORD, or "" */
	char          fibre[128];  /* ADDR:PORT, "" = no light path */
	uint32_t      ports;
	uint64_t      switch_ns;
	int           ack_immediate; /* COMPLD before the switching time */
	int           busy_replace;
	char          user[64], password[128];
	char          state[PATH_MAX]; /* "" = no persistence */
	enum oxc_boot boot;            /* when there is no state file yet */
	char          sid[64];
	size_t        block_bytes;    /* TL1 '>' continuation threshold */
	int           autonomous;     /* unused: REPT EVT is every session's
	                               * default, as on the switch */
	uint32_t      login_grace_ms; /* TL1: no login by then, closed */
	uint32_t      idle_timeout_s; /* TL1 session timeout at start */
	char          datapath[40]; /* "" (the fibre relay) or netns:PREFIX */
	uint64_t      rate_bps;     /* fibre line rate, 0: unmetered */
	uint64_t      fibre_delay_ns; /* and propagation delay */
	int           capture;        /* and libpcap on its ports */
	char          link_up[256];   /* --link-up: TIME or PORT=TIME, ... */
};

/* A CALIENT connection (emu_conn.c): duplex ports a, b; bi a-b or uni
 * a>b; active (its patches are made) or idle (provisioned). */
struct emu_conn {
	uint32_t a, b;
	int      bi, active;
	char     name[REST_CONN_MAX];  /* "" = named by its ports */
	char     group[REST_CONN_MAX]; /* "" = SYSTEM */
};
struct emu_conns {
	struct emu_conn *v; /* room for N */
	size_t           n;
	uint64_t         synced; /* x.gen they agree with */
};

struct emu {
	struct emu_conf  c;
	pthread_mutex_t  mtx; /* guards everything below */
	struct oxc       x;
	char             sid[64];
	uint32_t         idle_timeout_s; /* TL1 session idle timeout, 0 none */
	uint64_t         saved_gen;      /* x.gen when last saved */
	struct emu_fault fault;
	uint64_t         rest_reqs; /* REST requests, for drop_after */

	int64_t clock_s; /* ED-DAT: headers' time minus the host's */

	/* Light-path counters per port (1..2N), updated by the fibre
	 * thread with atomics and read by the control faces. */
	uint64_t *cnt_in;   /* bytes entering at an ingress */
	uint64_t *cnt_out;  /* bytes leaving at an egress */
	uint64_t *cnt_drop; /* bytes lost at an ingress (dark, unpatched) */
	uint32_t *corrupt;  /* test hook: flip a byte of the next chunk */

	/* What else a port holds (1..2N): its label (Polatis; CALIENT's
	 * alias), its power monitor's settings and its attenuator. */
	struct emu_port *port;

	struct rest_names names; /* CALIENT's names of duplex ports 1..N */
	/* The kernel datapath's capture (emu_kdp_capture), or NULL; a
	 * pointer so the faces do not link the datapath. */
	int (*capture)(struct emu_kdp *, uint32_t run, char *out, size_t len);
	struct emu_kdp  *kdp;
	struct emu_conns conns; /* CALIENT's connections */
	struct emu_users users; /* the accounts TL1 (and SSH) log in as */

	/* Links (emu_link.c): each duplex port's retrain time, [N + 1]
	 * (NULL: none, links come up with the light); link_any: some is
	 * not 0. */
	uint64_t *link_ns;
	int       link_any;
	/* A datapath that carries the light itself (the kernel's) tracks
	 * the model: dp_gen is the generation of patches it has wholly
	 * applied, new paths carried and removed ones dark, so that a
	 * change is answered only once the light really follows it (the
	 * hosts' carriers follow after, as on real optics). */
	int      dp_track;
	uint64_t dp_gen;
	/* With dp_track: an eventfd the datapath writes whenever dp_gen
	 * moves, so that an answer waiting for it goes out at once. */
	int dp_wake;
};

/* Has the datapath (if any) applied every change of patches: every path
 * the mirrors pass carried, every removed one dark?  Caller holds mtx. */
static inline int
emu_dp_done(const struct emu *e, uint64_t now_ns)
{
	return (oxc_carried_all(&e->x, now_ns) &&
	        (!e->dp_track || e->dp_gen == e->x.gen));
}

/* --link-up's SPEC (comma-separated TIME for every port, PORT=TIME for
 * one duplex port; later items win) into ns[1..nports] (all 0 first).
 * 0, or -EINVAL with the bad item named in err, -ENOMEM. */
int emu_link_parse(const char *spec, uint32_t nports, uint64_t *ns, char *err,
                   size_t len);
/* Is the link of duplex port k up now: light reaches its receiver
 * (egress N+k) and has, since its path settled, for the port's retrain
 * time?  Caller holds mtx. */
int emu_link_up(const struct emu *e, uint32_t k, uint64_t now_ns);

#define EMU_LABEL_MAX 32 /* characters of a port label */
#define EMU_TH_TYPES  3  /* power thresholds: LOS, LOW, HIGH */
struct emu_port {
	char     label[EMU_LABEL_MAX + 1];
	uint16_t wave;   /* PMON: calibration wavelength, nm */
	double   offset; /* PMON: calibration offset, dB */
	uint8_t  atime;  /* PMON: averaging time code, 1..8 */
	uint16_t rwave;  /* REVPMON: the reverse monitor's, the same */
	double   roffset;
	uint8_t  ratime;
	uint8_t  amode;  /* VOA mode (EMU_ATTEN_*), egress ports only */
	double   alevel; /* VOA level, dB */
	uint32_t aref;   /* VOA reference port (relative), 0: the patched */
	double   th[EMU_TH_TYPES];    /* thresholds, dBm */
	uint8_t thmode[EMU_TH_TYPES]; /* their monitoring: OFF, SINGLE, CONT */
	uint32_t flap_off_ms, flap_on_ms, flap_cycles; /* ENT-PORT-FLAP */
	uint64_t flap_start_ms; /* OPR-PORT-FLAP, 0: not flapping */
};
/* A port label (or CALIENT alias): printable, no quotes or separators
 * of either protocol, EMU_LABEL_MAX at most. */
int emu_label_ok(const char *);
enum {
	EMU_ATTEN_NONE,
	EMU_ATTEN_FIXED,
	EMU_ATTEN_MAXIMUM,
	EMU_ATTEN_ABSOLUTE,
	EMU_ATTEN_CONVERGED,
	EMU_ATTEN_RELATIVE,
};
/* Port p's power in dBm as its monitor reads it now: the light the model
 * carries, less the attenuator's and with a flapping shutter's dark
 * intervals.  Caller holds mtx. */
double emu_port_power(const struct emu *, uint32_t p, uint64_t now_ns);

/* The switch model of e->c.ports ports a side and every per-port array,
 * at their defaults (port monitors at 1550 nm, attenuators off), and the
 * --user account.  0, -EINVAL (a user name or password the switch
 * refuses) or -ENOMEM (everything freed); emu_model_free after a 0. */
int  emu_model_init(struct emu *);
void emu_model_free(struct emu *);

/*
 * CALIENT's connections (emu_conn.c); the caller holds mtx.  sync first
 * agrees them with the patches other faces changed.  add refuses ports
 * in use ("Ports are being used: P is in C", -DRV_EBUSY), a name in use
 * (-EEXIST) and bad ports (-DRV_EPORT), with the text in err.
 */
int              emu_conn_init(struct emu *);
void             emu_conn_free(struct emu *);
void             emu_conn_sync(struct emu *);
const char      *emu_conn_name(const struct emu *, const struct emu_conn *,
                               char *buf, size_t len);
struct emu_conn *emu_conn_find(struct emu *, const char *name);
/* The connection through port p's in half (light enters) or out half. */
struct emu_conn *emu_conn_at(struct emu *, uint32_t p, int out_half);
int emu_conn_add(struct emu *, const struct emu_conn *, int activate,
                 uint64_t now, char *err, size_t len);
int emu_conn_activate(struct emu *, struct emu_conn *, uint64_t now, char *err,
                      size_t len);
void emu_conn_deactivate(struct emu *, struct emu_conn *, uint64_t now);
/* c is invalid afterwards (the array moves). */
void emu_conn_delete(struct emu *, struct emu_conn *, uint64_t now);
void emu_conn_clear(struct emu *);

/* The light path: accept fibres on lfd and carry bytes between ports
 * that are patched and lit, until stopfd is readable.  0 or -errno. */
int emu_fibre_serve(struct emu *, int lfd, int stopfd);

/* State file: size, boot mode, SID, users and (boot restore) the
 * patches.
 * 0, -ENOENT (no file), or -EINVAL with a message in err. */
int emu_state_load(struct emu *, char *err, size_t errlen);
/* Write it atomically (temp file, fsync, rename).  Caller holds mtx. */
int emu_state_save(struct emu *);

/* The TL1 faces, one dialect each: Polatis (--tl1) and CALIENT
 * (--tl1-calient) on the same switch model. */
struct emu_tl1_dialect;
extern const struct emu_tl1_dialect emu_tl1_polatis, emu_tl1_calient;

/*
 * Sessions another face hands to a TL1 server (TL1 over SSH): a stream
 * fd carrying TL1 both ways, its user already authenticated.  put is
 * safe from any thread; the server owns fd from a 0 on (-ENOSPC: the
 * caller keeps it).
 */
struct emu_tl1_inbox;
int  emu_tl1_inbox_new(struct emu_tl1_inbox **);
void emu_tl1_inbox_free(struct emu_tl1_inbox *);
int  emu_tl1_inbox_put(struct emu_tl1_inbox *, int fd, const char *user,
                       enum emu_priv);

/* Serve a dialect on listen fd lfd (and the sessions put into ib, if
 * not NULL) until the stop fd is readable.  Returns 0, or -errno on a
 * fatal error. */
int emu_tl1_serve(struct emu *, const struct emu_tl1_dialect *, int lfd,
                  int stopfd, struct emu_tl1_inbox *ib);

/*
 * For tests and fuzzing: run bytes through a fresh TL1 session that is
 * not on a socket, exactly as the server would handle them, with held
 * replies released at once.  Everything the session would have sent is
 * appended to out.  0 or -ENOMEM.
 */
struct tl1_buf;
int emu_tl1_feed(struct emu *, const struct emu_tl1_dialect *, const char *in,
                 size_t len, struct tl1_buf *out);

/*
 * Faults: apply a spec, comma-separated items
 *   none | login | drop=K | delay=TIME | deny-half | garbage | slow[=F]
 *   | lose=PORT | restore=PORT
 * ("none" clears everything but lost ports; "restore" a lost port).
 * Caller holds mtx.  0, or -EINVAL with the bad item named in err (and
 * nothing changed).
 */
int emu_fault_set(struct emu *, const char *spec, char *err, size_t errlen);
/* The current faults, as a spec ("none" if there are none). */
void emu_fault_fmt(const struct emu *, char *buf, size_t len);
/* Bytes a faulty switch sends instead of a reply. */
extern const char emu_garbage[];

/* The SSH faces (emu_ssh.c) on sc->addr: password logins of the
 * switch's users, each session's channel (a shell, or the subsystem
 * named) handed to the face's server by sc->hand, which owns fd from a 0
 * on.  The host key is the state directory's ssh_host_ed25519_key (made
 * on first use), or one for this run without --state.  0, or -EINVAL (a
 * bad address or key; err says which) or -errno; stop joins every
 * connection's thread. */
struct emu_ssh_conf {
	const char *what;      /* "ssh", "netconf": in the log */
	const char *opt;       /* "--tl1-ssh": in errors */
	const char *addr;      /* ADDR:PORT */
	const char *port;      /* the default port */
	const char *subsystem; /* NULL: a shell; "netconf" */
	int (*hand)(void *arg, int fd, const char *user, enum emu_priv);
	void *arg;
	/* Optional: fed what the client sends, in order, with a state of
	 * guard_size bytes zeroed for each connection; 1 closes it. */
	int (*guard)(void *state, const void *buf, size_t len);
	size_t guard_size;
};
struct emu_ssh;
int emu_ssh_start(struct emu *, const struct emu_ssh_conf *, struct emu_ssh **,
                  char *bound, size_t blen, char *err, size_t errlen);
void emu_ssh_stop(struct emu_ssh *);

/* The REST face (CALIENT dialect) on nng's HTTP server: start on
 * e->c.rest, writing the bound "ADDR:PORT" to bound; stop and free. */
struct emu_rest;
int  emu_rest_start(struct emu *, struct emu_rest **, char *bound, size_t bl,
                    char *err, size_t errlen);
void emu_rest_stop(struct emu_rest *);

#endif

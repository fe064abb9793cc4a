/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Inside ocs-emu's TL1 faces: the server (emu_tl1.c) runs sessions and
 * dispatches each command to a verb of its dialect (the Polatis one in
 * emu_tl1_polatis.c and emu_tl1_port.c, the CALIENT one in
 * emu_tl1_calient.c), which answers through the helpers here.  All of
 * them run with the emulator's mutex held.
 */
#ifndef OCS_EMU_TL1_INT_H
#define OCS_EMU_TL1_INT_H

#include <stdint.h>
#include <sys/types.h>

#include "ocs-drivers/tl1.h"
#include "proto/base/log.h"
#include "testbed/ocs-emu/emu.h"

#define LOG_FMT_(a, b) __attribute__((__format__(printf, a, b)))
#define MAX_SESS       64
/* Sessions kept for logged-in users: connections that have not logged
 * in take the others at most, the oldest giving way to a new one, so a
 * flood of strangers never locks the switch's controller out. */
#define SESS_RESERVED 16

struct sess {
	int            fd;
	struct tl1_buf in, out, held;
	int            logged_in, inhibit, closing;
	char           user[64]; /* who logged in */
	enum emu_priv  priv;     /* and their access class */
	const char    *prompt;  /* after every reply (TL1 over SSH), or NULL */
	uint64_t       due_ms;  /* held reply goes out then; 0 = none */
	int            dp_wait; /* and is due, waiting for the datapath */
	uint64_t       last_ms;
	unsigned       id;
	uint32_t       ncmds;   /* for the drop fault */
	int            control; /* answering a fault-control command */
};

struct srv {
	struct emu                   *e;
	const struct emu_tl1_dialect *d;
	struct sess                  *s[MAX_SESS];
	uint32_t                      atag;
	unsigned                      next_id;
	struct log_limit              flood; /* strangers' events, said a few
	                                      * a window */
};

typedef void (*emu_tl1_fn)(struct srv *, struct sess *, struct tl1_cmd *);

struct emu_tl1_verb {
	const char *verb;
	int priv; /* the class it needs (EMU_PRIV_*); 0: not even a login */
	emu_tl1_fn fn;
};

/* What differs between the dialects the one server speaks. */
struct emu_tl1_dialect {
	const char                *name;     /* "polatis", "calient" */
	const struct emu_tl1_verb *verbs[5]; /* tables, looked up in turn */
	const size_t              *nverbs[5];
	int parse_flags; /* tl1_cmd_parse's (CALIENT: CTAG optional) */
	/* A command before the login: the code and the text clients match
	 * to log in again. */
	const char *nologin_code, *nologin_text;
	/* Sent on connecting and after every reply (CALIENT's "agent> "),
	 * or NULL; and the same for sessions over SSH. */
	const char *prompt, *ssh_prompt;
};

/* Data lines of a reply. */
struct lines {
	char **v;
	size_t n, cap;
};
int  addl(struct lines *, const char *fmt, ...) LOG_FMT_(2, 3);
void lines_free(struct lines *);

/* Answers.  A reply held until due_ms (a patch change answers once the
 * mirrors settle) stops the session reading its next command. */
void respond(struct srv *, struct sess *, const char *ctag, enum tl1_status,
             const char *code, const char *comment, const struct lines *,
             uint64_t due_ms);
void deny(struct srv *, struct sess *, const char *ctag, const char *code,
          const char *fmt, ...) LOG_FMT_(5, 6);
void compld(struct srv *, struct sess *, const char *ctag,
            const struct lines *);
/* "REPT EVT" to every logged-in session that has not inhibited them. */
void report_evt(struct srv *, const char *line);
/* Save the state file if the model changed. */
void persist(struct srv *);
/* The header's time: the host's, moved by ED-DAT. */
time_t emu_now(const struct srv *);

/* The value of KEY=value in the command's blocks (quotes removed), or
 * NULL. */
const char *keyword(const struct tl1_cmd *, const char *key, char *buf,
                    size_t len);
/*
 * Every KEY=value of the blocks from `from` on is one of keys (NULL-
 * terminated): 0, or -EINVAL after answering IPNV "Unexpected parameter
 * K in block N" (blocks counted from 0 at the one after the CTAG).
 */
int params_only(struct srv *, struct sess *, const struct tl1_cmd *,
                size_t from, const char *const *keys);
/*
 * The ports of the AID into a fresh array (*out, freed by the caller):
 * ALL or empty for every port (with need, empty is refused).  A list
 * longer than the switch has ports is IIAC "Too many ports"; a port it
 * does not have, IDNV "Invalid OXC port: P".  The count, or -EINVAL
 * after answering.
 */
ssize_t port_list(struct srv *, struct sess *, const struct tl1_cmd *,
                  int need, uint32_t **out);
/* A whole decimal number in [lo, hi] (a leading - allowed): 0/-EINVAL. */
int number_in(const char *s, long lo, long hi, long *v);

/* SET-EMU-FAULT:::<ctag>::<spec>; in every dialect. */
void emu_tl1_cmd_set_fault(struct srv *, struct sess *, struct tl1_cmd *);

extern const struct emu_tl1_verb emu_tl1_polatis_verbs[];
extern const size_t              emu_tl1_polatis_nverbs;
extern const struct emu_tl1_verb emu_tl1_port_verbs[];
extern const size_t              emu_tl1_port_nverbs;
extern const struct emu_tl1_verb emu_tl1_secu_verbs[];
extern const size_t              emu_tl1_secu_nverbs;
extern const struct emu_tl1_verb emu_tl1_voa_verbs[];
extern const size_t              emu_tl1_voa_nverbs;

/* What the switch says to a command of a class above the session's. */
void emu_tl1_denied(struct srv *, struct sess *, const struct tl1_cmd *);

#endif

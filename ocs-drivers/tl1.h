/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A pure TL1 (GR-831) codec, shared by the Polatis driver and ocs-emu:
 * bytes in, structs out; no I/O.  See spec/ocs-protocols.md section 1.
 *
 * Commands:   VERB-MOD:TID:AID:CTAG:GB:payload...;
 * Responses:  \r\n\n   SID YY-MM-DD HH:MM:SS\r\n
 *             M  CTAG COMPLD|DENY\r\n
 *                "quoted data"\r\n         (COMPLD)
 *                IDNV\r\n  / * comment * /\r\n  (DENY: code, then text)
 *             ;                           (or '>' when more blocks follow)
 * Autonomous: the same frame with "A  ATAG REPT ..." (or *C, **, *^, A^)
 *             instead of the M line; only M lines carry a CTAG.
 * Acks:       IP CTAG\r\n<   (also OK, RL, NA, NG, PF)
 */
#ifndef OCS_TL1_H
#define OCS_TL1_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "ocs-drivers/drv.h"

#define TL1_MAX_MSG   (1u << 20) /* a response block bigger is garbage */
#define TL1_MAX_CMD   (1u << 18) /* longest command accepted */
#define TL1_MAX_BLKS  8          /* fields after the CTAG */
#define TL1_MAX_QTAG  14         /* characters inside a quoted CTAG */
#define TL1_MAX_LINES (1u << 16)

/* A growable output buffer. */
struct tl1_buf {
	char  *p;
	size_t len, cap;
};
int tl1_buf_printf(struct tl1_buf *, const char *fmt, ...)
    __attribute__((__format__(printf, 2, 3)));
int  tl1_buf_put(struct tl1_buf *, const char *s, size_t n);
void tl1_buf_consume(struct tl1_buf *, size_t n);
void tl1_buf_free(struct tl1_buf *);

/* ---- commands ----------------------------------------------------------- */

struct tl1_cmd {
	char        verb[48]; /* upper case */
	const char *tid, *aid, *ctag;
	const char *blk[TL1_MAX_BLKS]; /* GB, then payload blocks */
	size_t      nblk;
	char       *buf; /* owns the strings above */
};

/*
 * Parse one command (the bytes up to, not including, the ';').  Verbs are
 * upper-cased; a quoted TID keeps its quotes stripped, an unquoted one
 * must be a name (a letter, then letters, digits, - and _).  Returns 0,
 * or -EINVAL with *off set to the 0-based offset of the error (a device's
 * "Parse error at offset N" counts from 1): a missing or malformed CTAG,
 * a malformed TID, an empty verb, an unterminated quote.  *off is -1 when the CTAG is the only problem
 * (IICT), else the offending offset (IITA for the TID, IICM for the verb).
 * tl1_cmd_free() is safe after any result.
 */
enum tl1_perr {
	TL1_PERR_VERB = 1, /* IICM */
	TL1_PERR_TID,      /* IITA */
	TL1_PERR_CTAG,     /* IICT */
	TL1_PERR_SYNTAX,   /* IISP */
};
#define TL1_PARSE_CTAG_OPTIONAL 0x1 /* missing CTAG reads as "0" */
int  tl1_cmd_parse(const char *s, size_t len, int flags, struct tl1_cmd *,
                   enum tl1_perr *perr, size_t *off);
void tl1_cmd_free(struct tl1_cmd *);

/* Append "VERB:TID:AID:CTAG" then `rest` (which starts with ':' or is
 * empty) and ";\r\n".  0 or -ENOMEM. */
int tl1_cmd_fmt(struct tl1_buf *, const char *verb, const char *tid,
                const char *aid, uint32_t ctag, const char *rest);

/*
 * AID port lists: "3", "1&2&7", "1&&8", "1&&4&9", combined.  Ranges are
 * ascending and inclusive.  tl1_aid_parse() fills at most cap ports and
 * returns the count, or -EINVAL with *bad pointing at the token that is
 * not a port number (copied into badbuf), or -E2BIG.
 */
ssize_t tl1_aid_parse(const char *s, uint32_t *ports, size_t cap, char *badbuf,
                      size_t badlen);
/* Append a list, runs of consecutive ports as a&&b. */
int tl1_aid_fmt(struct tl1_buf *, const uint16_t *ports, size_t n);
/* Append "ins,outs" for patches (sorted by ingress here), runs where
 * both sides step by one as a&&b on both sides. */
int tl1_aid_fmt_patches(struct tl1_buf *, const struct drv_patch *, size_t n);

/* ---- responses ---------------------------------------------------------- */

enum tl1_kind {
	TL1_RESP = 1, /* M line: a reply to a command */
	TL1_AUTO,     /* autonomous message */
	TL1_ACK,      /* IP/OK/RL/NA/NG/PF acknowledgement */
};

enum tl1_status {
	TL1_COMPLD = 1,
	TL1_DENY,
	TL1_PRTL,
	TL1_DELAY,
	TL1_RTRV,
};

struct tl1_resp {
	enum tl1_kind   kind;
	char            sid[64];
	char            date[12], time[12];
	char            tag[16];  /* CTAG (RESP, ACK) or ATAG (AUTO) */
	enum tl1_status status;   /* RESP */
	char            alarm[4]; /* AUTO: "A", "*C", "**", "*^", "A^" */
	char            verb[64]; /* AUTO: "REPT EVT PORT" */
	char            ack[4];   /* ACK: "IP", "OK", ... */
	int             more;     /* ended with '>': another block follows */
	char            code[8];  /* DENY: error code ("IDNV") */
	char            comment[256]; /* text of the first comment */
	char          **lines;        /* data lines, quotes removed */
	size_t          nlines;
};

/*
 * Parse one message from the front of buf.  Returns the bytes consumed
 * (> 0, the message is in *r), 0 if more bytes are needed, -EPROTO if the
 * bytes are not TL1 (the stream cannot be resynchronised), -EMSGSIZE if a
 * message grows past TL1_MAX_MSG, -ENOMEM.  tl1_resp_free() after a
 * positive return.
 */
ssize_t tl1_resp_parse(const char *buf, size_t len, struct tl1_resp *r);
void    tl1_resp_free(struct tl1_resp *);

/* A DENY's device text: "IDNV Invalid OXC port: 1000". */
void tl1_resp_errtext(const struct tl1_resp *, char *buf, size_t len);

/* A data line that starts with this byte is sent as it is after it,
 * without quotes (a device's free-format lines). */
#define TL1_LINE_RAW '\001'

/*
 * Server side: append a response.  Data lines are quoted here; when they
 * exceed block_bytes (0: never) the response is split into several blocks
 * with the same CTAG, all but the last ending in '>'.
 */
int tl1_resp_fmt(struct tl1_buf *, const char *sid, time_t when,
                 const char *ctag, enum tl1_status, const char *code,
                 const char *comment, char *const *lines, size_t nlines,
                 size_t block_bytes);
/* Server side: an autonomous message. */
int tl1_auto_fmt(struct tl1_buf *, const char *sid, time_t when,
                 const char *alarm, uint32_t atag, const char *verb,
                 const char *line);

const char *tl1_status_name(enum tl1_status);

/* ocs-emu's RTRV-EMU-CAPTURE line into *c (tl1_capture.c); 0, or
 * -EINVAL with the place named in err. */
struct drv_capture;
int tl1_capture_parse(const char *line, struct drv_capture *c, char *err,
                      size_t len);

#endif

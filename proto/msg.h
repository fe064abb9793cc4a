/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The glue between nng messages and proto/ocs.proto: packing, unpacking
 * with the checks every receiver needs (size, version, a body), error
 * codes, and nng's error numbers converted once, where they are received.
 */
#ifndef OCS_MSG_H
#define OCS_MSG_H

#include <stddef.h>
#include <stdint.h>

#include <nng/nng.h>

#include "proto/base/errbase.h"
#include "proto/ocs.pb-c.h"

#define MSG_VERSION   1
#define MSG_MAX_BYTES (4u << 20) /* largest message any socket accepts */
#define MSG_MAX_STR   256        /* longest name in a request */

enum msg_err {
	MSG_EBASE = ERR_BASE_MSG,
	MSG_EVERSION, /* protocol version mismatch */
	MSG_EDECODE,  /* not a valid protobuf Msg */
	MSG_ESIZE,    /* too large */
	MSG_EBODY,    /* no body, or the wrong kind of body */
	MSG_EFIELD,   /* a field missing or out of range */
	MSG_ENNG_BASE = ERR_BASE_MSG + 256, /* + nng error number */
	MSG_EMAX = ERR_BASE_MSG + 256 + 4096
};
_Static_assert((int)MSG_EMAX <= (int)ERR_BASE_REST,
               "msg's range overlaps rest's");

/* Own range (and nng's), else strerror(-rv). */
const char *msg_strerror(int rv);

/* nng's positive NNG_E* into a negative errno where one fits, else
 * -(MSG_ENNG_BASE + rv). */
int msg_nngerr(int nng_rv);

/* Pack into a new nng message.  0, -ENOMEM, -MSG_ESIZE. */
int msg_encode(const Ocs__Msg *, nng_msg **out);

/*
 * Unpack and check: size, decodable, our version, a body.  On failure
 * returns the code and puts a one-line reason in why.  Free *out with
 * msg_free().
 */
int  msg_decode(const void *buf, size_t len, Ocs__Msg **out, char *why,
                size_t whylen);
void msg_free(Ocs__Msg *);

/* A Msg with version and seq set, body unset. */
void msg_init(Ocs__Msg *, uint64_t seq);

/* Build an Error reply. */
int msg_error(uint64_t seq, int code, const char *text, nng_msg **out);

/*
 * One exchange on a REQ socket: pack m (its seq set), send, wait for the
 * answer (the socket's timeouts), unpack and check that it answers m's
 * seq.  An Error body is a valid answer: the caller reads its code and
 * text.  peer names the other side in err ("controller tcp://...").
 * 0 with *rep (free with msg_free), else a negative code and one line in
 * err.  Blocks for up to the socket's send and receive timeouts.
 */
int msg_call(nng_socket, const Ocs__Msg *m, const char *peer, Ocs__Msg **rep,
             char *err, size_t errlen);

/* A string field a peer sent: present, not too long, printable. */
int msg_str_ok(const char *s);

/* The name of a body ("ready", "join"), for logs; "?" if unknown. */
const char *msg_body_name(int body_case);

#endif

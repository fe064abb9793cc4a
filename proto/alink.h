/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The agent link: after its join (over nng), an agent and ocsd speak
 * ocs.proto Msgs on one stream socket, each framed by its length (4
 * bytes, big-endian), with TLS whenever the join is (OpenSSL, TLS 1.3, the
 * join's certificate rules).  A barrier then costs a write and a read an
 * agent, not nng's thread hand-offs per message (tests/bench/sock_floor.c
 * measures both).
 *
 * This file is both ends' wire: the TLS contexts, one connection's
 * reads and writes (with or without TLS), frames in and out, and the
 * agent's side of an exchange (connect, ask, wait for the answer).  What
 * the messages say is proto/amsg.h's; ocsd's event loop is
 * ocsd/aglink.c.
 */
#ifndef OCS_ALINK_H
#define OCS_ALINK_H

#include <stddef.h>
#include <stdint.h>

#include "proto/msg.h"

#define ALINK_TOKEN     16  /* bytes of a join's link token */
#define ALINK_FIRST_MAX 256 /* a frame before the Attach is accepted */
#define ALINK_HDR       4

struct ssl_st;
struct ssl_ctx_st;

/*
 * TLS contexts: a server's from a PEM file holding its certificate (chain)
 * and key, a client's from a CA file (the server's certificate must
 * verify, and name the host dialled).  0, or -EINVAL / -ENOMEM with one
 * line in err.
 */
int  alink_tls_server(const char *cert_key, struct ssl_ctx_st **out, char *err,
                      size_t errlen);
int  alink_tls_client(const char *ca, struct ssl_ctx_st **out, char *err,
                      size_t errlen);
void alink_tls_free(struct ssl_ctx_st *);

/* One connection's socket (non-blocking), with its TLS session or not. */
struct alink_io {
	int            fd;
	struct ssl_st *ssl;
	int            want_write; /* the last call waits to write */
};

/* Take fd (non-blocking, connected); ctx NULL for plain.  server: the
 * accepting end.  host: the name the client checks (NULL on a server).
 * 0 or -ENOMEM; the handshake is alink_io_handshake's. */
int alink_io_init(struct alink_io *, int fd, struct ssl_ctx_st *ctx,
                  int server, const char *host);
/* Advance the TLS handshake: 0 done (at once without TLS), -EAGAIN
 * (wait for the fd: io->want_write says which way), or -EPROTO with the
 * reason in err. */
int alink_io_handshake(struct alink_io *, char *err, size_t errlen);
/* Write what the socket takes now: > 0 bytes, -EAGAIN, -EPROTO, -errno.
 * With TLS a write that returned -EAGAIN must be retried with the same
 * bytes. */
long alink_io_write(struct alink_io *, const void *buf, size_t len);
/* Say we are done sending (TLS close_notify, then a TCP half-close) and
 * keep the socket open to read: a close with the peer's bytes unread
 * would reset the connection and could destroy what we sent last. */
void alink_io_shutdown_wr(struct alink_io *);
/* Close the socket and free the TLS session. */
void alink_io_close(struct alink_io *);

/* m (version and seq the caller's) framed into a new buffer of *len
 * bytes, to free().  0, -ENOMEM, -MSG_ESIZE. */
int alink_pack(const Ocs__Msg *m, uint8_t **buf, size_t *len);

/* Frames arriving on one connection. */
struct alink_rx {
	uint8_t *b;
	size_t   len, cap;
	size_t   max; /* largest frame accepted */
};

/* Read what the connection has now, up to a read that leaves room (the
 * kernel had no more; with TLS, up to a record after which OpenSSL holds
 * nothing: what the socket may still have is for the next call): > 0
 * bytes, 0 at the end, -EAGAIN when it had nothing, -errno.  An end
 * after some bytes is the next call's. */
long alink_rx_read(struct alink_rx *, struct alink_io *);
/* The next whole frame, decoded: 1 with *m (msg_free it), 0 when none is
 * whole yet, or a negative code and one line in why (a frame longer than
 * max, or not a Msg): the connection cannot go on. */
int  alink_rx_next(struct alink_rx *, Ocs__Msg **m, char *why, size_t whylen);
void alink_rx_free(struct alink_rx *);

/* ---- the agent's end -------------------------------------------------- */

/* The URL to dial for a JoinReply's link: its own, with the host the
 * agent joined (from joined, an nng URL) where it names none or a
 * wildcard.  0, or -EINVAL (a link URL that is none of tcp://,
 * tls+tcp://, ipc://). */
int alink_url(const char *link, const char *joined, char *out, size_t len);

/* A connected link: its socket and the frames read from it. */
struct alink_conn {
	struct alink_io io;
	struct alink_rx rx;
	char            url[300];
};

/*
 * Connect to url (tls+tcp:// needs ctx, a client context) within
 * timeout_ms, TLS handshake included.  0, or a negative code and one line
 * in err naming url.
 */
int alink_connect(struct alink_conn *, const char *url, struct ssl_ctx_st *ctx,
                  int timeout_ms, char *err, size_t errlen);
void alink_disconnect(struct alink_conn *);

/* Send m (its seq set by the caller) within the deadline: 0 or a code
 * and one line in err. */
int alink_send(struct alink_conn *, const Ocs__Msg *m, uint64_t deadline,
               char *err, size_t errlen);
/*
 * The next frame within the deadline (mono_ms()): 1 with *m, or a
 * negative code and one line in err (-ECONNRESET: ocsd closed the link,
 * -ETIMEDOUT).  A deadline of 0 only looks at what is there: 0 when
 * nothing whole is.
 */
int alink_recv(struct alink_conn *, uint64_t deadline, Ocs__Msg **m, char *err,
               size_t errlen);
/*
 * For a caller with its own poller (level-triggered), woken when the
 * socket is readable: alink_fill reads once (1: something came, 0:
 * nothing yet, or a negative code as alink_recv's and one line in err);
 * alink_take hands out the frames read so far without reading (1 with
 * *m, 0 when none is whole, or a negative code and one line in err: a
 * bad frame).  What the socket still holds wakes the poller again:
 * reading until EAGAIN would cost a read(2) a frame.
 */
int alink_fill(struct alink_conn *, char *err, size_t errlen);
int alink_take(struct alink_conn *, Ocs__Msg **m, char *err, size_t errlen);
/*
 * One exchange: send m (its seq set), then wait up to timeout_ms for the
 * answer with that seq.  Answers to requests given up on are skipped; an
 * Abort pushed for run (seq 0, run_id run; run 0: none) is the answer.
 * 0 with *rep (an Error body included; msg_free it), else a negative
 * code and one line in err.
 */
int alink_call(struct alink_conn *, const Ocs__Msg *m, uint64_t run,
               int timeout_ms, Ocs__Msg **rep, char *err, size_t errlen);

#endif

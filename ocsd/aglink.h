/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocsd's end of the agent links (proto/alink.h): one thread, one epoll
 * set, every agent's connection, TLS when configured.  The thread
 * accepts, completes TLS handshakes, sends each connection its Challenge
 * (a fresh nonce), and reads frames outside the lock; it hands all that
 * one wake-up brought to its owner under the lock in one go, so that a
 * barrier's Readys cost a read each and not nng's hand-offs.  Answers
 * are written at once by whoever holds the lock (a release: one write an
 * agent, no thread between); what a socket does not take at once waits
 * in the connection's queue, written by the thread as the socket drains.
 * It knows connections and frames, not agents: agents.c owns what a
 * connection means.
 *
 * Threads and locks: the link thread calls the events with the owner's
 * lock (given to aglink_open) held; every other call below is made with
 * that lock held, from any thread.  A TLS session is touched by the
 * thread's reads and by writers: each connection has its own small lock
 * for it, never held while waiting.
 */
#ifndef OCS_AGLINK_H
#define OCS_AGLINK_H

#include <stddef.h>
#include <stdint.h>

#include <nng/nng.h>
#include <nng/supplemental/util/platform.h>

#include "proto/alink.h"

struct aglink;
struct aglink_conn;

/* Called with the lock held; any member may be NULL. */
struct aglink_events {
	void *arg;
	/* A frame: on a connection nobody owns yet (owner NULL: it must
	 * be an Attach, which the owner takes with aglink_own, or the
	 * connection is refused) or on an owned one. */
	void (*msg)(void *arg, struct aglink_conn *, void *owner,
	            const Ocs__Msg *);
	/* An owned connection is gone: its owner forgets it. */
	void (*closed)(void *arg, void *owner, const char *why);
};

/*
 * Listen on url (tcp://, tls+tcp:// with cert_key, ipc://) and start the
 * thread; bound gets the address agents are told (with the real port
 * where url asked for port 0).  0, or a negative code and one line in
 * err.
 */
int aglink_open(const char *url, const char *cert_key, nng_mtx       *lock,
                const struct aglink_events *, struct aglink **, char *bound,
                size_t bl, char *err, size_t el);
/*
 * Stop the thread and free every connection.  Without the lock; no
 * event comes after it returns.  The owner has let go of every
 * connection first (aglink_drop, under the lock): nothing may still
 * point to one.
 */
void aglink_close(struct aglink *);

/* With the lock held: */

/* The owner takes c: its frames come with owner from now on, and may be
 * as large as any message. */
void aglink_own(struct aglink_conn *, void *owner);
/* The nonce of c's Challenge, and who is on the other end ("1.2.3.4:5",
 * "ipc"). */
const uint8_t *aglink_nonce(const struct aglink_conn *);
const char    *aglink_peer(const struct aglink_conn *);
/* Send m (version and seq the caller's): written now or queued.  A
 * connection that lets its queue grow past what any answer needs is
 * ended (its owner told).  0 or a negative code. */
int aglink_send(struct aglink_conn *, const Ocs__Msg *m);
/* Answer req on c: Idle when code is 0, else an Error with text. */
void aglink_reply(struct aglink_conn *, uint64_t seq, int code,
                  const char *text);
/* The owner is done with c (or refuses it): what the socket took goes
 * out, what still waits in the queue does not; the thread closes it,
 * and closed() is not called. */
void aglink_drop(struct aglink_conn *);

#endif

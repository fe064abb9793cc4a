/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocsd's end of the barrier link (proto/barlink.h): one thread, one
 * epoll set, every agent's connection.  It reads frames outside the lock
 * and hands all that one wake-up brought to its owner under the lock in
 * one go, so a barrier's Readys cost a read each and not nng's hand-offs;
 * answers are written at once by whoever holds the lock (the release:
 * one write an agent, no thread between).  It knows connections and
 * frames, not agents: agents.c owns what a connection means.
 */
#ifndef OCS_BAR_H
#define OCS_BAR_H

#include <stddef.h>

#include <nng/nng.h>
#include <nng/supplemental/util/platform.h>

#include "proto/barlink.h"

struct bar;
struct bar_conn;

/* Called with the lock held; any member may be NULL. */
struct bar_events {
	void *arg;
	/* The first frame of a connection: 0 adopts it (bar_own), else
	 * it is refused with that code and the line in why. */
	int (*attach)(void *arg, struct bar_conn *, const Ocs__Msg *,
	              char *why, size_t len);
	/* A frame on an adopted connection. */
	void (*msg)(void *arg, struct bar_conn *, void *owner,
	            const Ocs__Msg *);
	/* An adopted connection is gone: its owner forgets it. */
	void (*closed)(void *arg, void *owner, const char *why);
};

/*
 * Listen on url (barlink_addr's forms) and start the thread; bound gets
 * the address agents are told (tcp://host:0 with its real port).  0, or
 * a negative code and one line in err.
 */
int  bar_open(const char *url, nng_mtx *lock, const struct bar_events *,
              struct bar **, char *bound, size_t bl, char *err, size_t el);
void bar_close(struct bar *);

/* With the lock held: */
void bar_own(struct bar_conn *, void *owner);
/* Send m (version and seq the caller's); a connection that cannot take
 * it whole at once is dropped (an agent reads its answers: its buffer
 * is never full).  0 or a negative code. */
int bar_send(struct bar_conn *, const Ocs__Msg *m);
/* Answer req on c: Idle when code is 0, else an Error with text. */
void bar_reply(struct bar_conn *, const Ocs__Msg *req, int code,
               const char *text);
/* The owner is done with it: closed by the thread, closed() not called. */
void bar_drop(struct bar_conn *);

#endif

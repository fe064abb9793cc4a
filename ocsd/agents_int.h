/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Between the registry (agents.c) and its transports: where a message
 * came from and how to answer it.  The join socket (agjoin.c) and the
 * agent links (aglink.c, through agents.c) each describe a message's
 * origin as an apeer and hand it to agents_hear, the registry's one
 * entry.
 */
#ifndef OCS_AGENTS_INT_H
#define OCS_AGENTS_INT_H

#include "ocsd/agents.h"
#include "proto/auth.h"
#include "proto/base/idmap.h"
#include "proto/base/log.h"

/* The registry, for the files that read it (agents_view.c) besides the
 * one that keeps it (agents.c). */
struct agents {
	struct ocsd         *d;
	struct agjoin       *join;
	struct aglink       *links;
	int                  closing;
	struct agent       **a;
	uint32_t             na, next_id;
	struct idmap         byid; /* agent id -> its live record */
	uint8_t              secret[AUTH_SEC_MAX + 1];
	size_t               slen;
	struct auth_chal    *chal; /* CHAL_MAX */
	nng_aio             *tick;
	struct agents_events ev; /* the runner's callbacks */
	char                 link_url[PATH_MAX + 32]; /* told to agents */
	/* ocsctl check's probe (agents_probe.c): its nonce, until when
	 * it runs, and what each agent is given to listen. */
	uint32_t probe_nonce, probe_listen_ms;
	uint64_t probe_until;
	/* Refusals a stranger can cause, said a few at a time. */
	struct log_limit refused;
};

struct apeer;

/* Answer a's held request, if any, with m on its link (agents.c). */
void agents_answer(struct agent *a, Ocs__Msg *m);

struct apeer_ops {
	/* Answer the request with m (its version and seq are set here,
	 * from the peer's).  Called at most once a request. */
	void (*answer)(struct apeer *, Ocs__Msg *m);
	/* Who it is, for a log line. */
	void (*name)(struct apeer *, char *buf, size_t len);
};

struct apeer {
	const struct apeer_ops *ops;
	uint64_t                seq;  /* the request's */
	uint32_t                pipe; /* join socket: the nng pipe, else 0 */
	struct aglink_conn     *link; /* a link: the connection, else NULL */
	void                   *ctx;  /* the transport's own */
};

/*
 * A message for the registry, with d->mtx held.  owner: the agent whose
 * link it came on (NULL on the join socket and before the attach).  The
 * request is answered through from, at once or later (a held Poll or
 * Ready, on a link only).
 */
void agents_hear(struct agents *, struct apeer *from, struct agent *owner,
                 const Ocs__Msg *m);

/* agjoin.c: the join socket (nng REP) on url; hear() is agents_hear.
 * 0, or a negative code with one line in err. */
struct agjoin;
int agjoin_open(struct agents *, nng_mtx *lock, const char *url,
                const char *cert_key, struct agjoin **, char *bound, size_t bl,
                char *err, size_t el);
/* Without the lock: no message comes after it returns. */
void agjoin_close(struct agjoin *);

#endif

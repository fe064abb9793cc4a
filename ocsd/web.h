/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocs-web: the live view of ocsd, beside it as bgplgd is beside bgpd.  A
 * separate process that asks ocsd over its control socket as ocsctl does
 * (ctlc.c) and answers browsers: the page's files (ocsd/www/, read at
 * start), JSON endpoints that are ocsctl -j's answers (ocsctl_print.c),
 * and an event stream (server-sent events) fed by one held WATCH on ocsd
 * (web_feed.c), so a hundred pages cost ocsd one watcher.
 *
 * Threads: the HTTP loop (web_srv.c: one poll loop, every socket
 * non-blocking), WEB_WORKERS workers that ask ocsd for the endpoints
 * (web_api.c), and the feed.  They meet under w->mtx only: jobs to the
 * workers, answers and broadcasts back to the loop, which an eventfd
 * wakes.
 */
#ifndef OCS_WEB_H
#define OCS_WEB_H

#include <stddef.h>
#include <stdint.h>

#include <nng/nng.h>
#include <nng/supplemental/util/platform.h>

#include "ocsd/ctlc.h"
#include "ocsd/web_http.h"
#include "proto/wire.h"

#define WEB_CONN_MAX 512 /* connections at once; more get a 503 */
#define WEB_SSE_MAX  128 /* event streams at once */
#define WEB_JOBS_MAX 64  /* endpoint requests waiting for ocsd */
#define WEB_WORKERS  2   /* requests to ocsd at once */
#define WEB_HEAD_MS                                                           \
	10000             /* a request head must come within this
                            * (--head-timeout) */
#define WEB_IDLE_MS 60000 /* a kept-alive connection idle this long */
#define WEB_LINGER_MS                                                         \
	5000 /* after an answer that ends a connection, its peer's
	      * rest is read (and dropped) at most this long */
#define WEB_SSE_PEND                                                          \
	(4u << 20)                /* unsent stream bytes before a slow
                                   * reader is dropped */
#define WEB_FILE_MAX  (32u << 20) /* a sweep or plan file served */
#define WEB_LIST_MAX  16          /* --sweep and --plan each */
#define WEB_HISTORY   200         /* events kept for pages that come later */
#define WEB_RUNS_KEEP 8 /* records of finished runs kept (they never change) */
#define WEB_PORTS_MS                                                          \
	2000 /* a reading of the switch's ports served
                                  * this long to every page: ocsd reads the
                                  * switch as for one page however many */

#define WEB_SWITCHES_MAX 16 /* switches whose port readings are kept */
#define WEB_SWNAME_MAX   WIRE_SWNAME_MAX /* a switch's name and its NUL */

/* What the feed keeps and streams (event: NAME). */
enum web_snap {
	WEB_SNAP_SHOW,
	WEB_SNAP_STATUS,
	WEB_SNAP_AGENTS,
	WEB_SNAP_RUNS,
	WEB_SNAP_OCSD, /* {"ok": true} or {"error": ...}: ocsd reachable */
	WEB_NSNAP
};

struct web_opts {
	const char *listen;        /* HOST:PORT */
	const char *assets;        /* the page's directory */
	const char *tls;           /* certificate and key (PEM), or NULL */
	const char *auth_file;     /* user:password, or NULL */
	char        auth_b64[400]; /* "Basic ..." expected, or "" */
	const char *sweeps[WEB_LIST_MAX];
	int         nsweeps;
	const char *plans[WEB_LIST_MAX];
	int         nplans;
	struct ctlc ctl;
	int         loopback; /* bound to a loopback address */
	uint64_t    head_ms;  /* a request head's time to come whole */
	int         verbose;
};

struct web_asset {
	const char *name; /* "/app.js" */
	const char *type;
	char       *data;
	size_t      len;
	char        etag[24]; /* "\"HASH\"": its content's */
};

struct wjob;
struct wmsg;
struct wconn;
struct ssl_ctx_st;

struct web {
	const struct web_opts *o;
	int                    lfd, wake_fd, sig_fd;
	char                   bound[80]; /* HOST:PORT as bound */
	uint16_t               port;
	struct ssl_ctx_st     *tls;
	struct web_asset       assets[8];
	int                    nassets;

	struct wconn *conn[WEB_CONN_MAX];
	int           nconn, nsse;
	uint64_t      next_id;

	/* Under mtx: */
	nng_mtx     *mtx;
	nng_cv      *cv;
	struct wjob *jobs, *jobs_tail, *done;
	int          njobs;
	struct wmsg *bcast, *bcast_tail;
	char        *snap[WEB_NSNAP];      /* compact JSON, the latest */
	char        *history[WEB_HISTORY]; /* events' compact JSON */
	int          nhist, hist_at;
	int          stop;
	nng_thread  *workers[WEB_WORKERS];
	nng_thread  *feed;
	int          feed_done; /* the feed's thread has ended */
	uint64_t     feed_seq;  /* ocsd's last event seen */
	struct {
		char     sw[WEB_SWNAME_MAX]; /* "": the lone switch */
		char    *body;               /* /api/ports's last, and when */
		nng_time at;
	} ports[WEB_SWITCHES_MAX];
	struct {
		uint64_t id;       /* 0: none */
		int      timeline; /* /api/timeline/ID's form */
		char    *body;
		uint64_t used; /* the least recently used goes first */
	} runs[WEB_RUNS_KEEP];
	uint64_t runs_tick;
};

/* web_srv.c: listen (0 or -1 with the error said), serve until SIGINT or
 * SIGTERM, close. */
int  web_listen(struct web *);
int  web_serve(struct web *);
void web_close(struct web *);
/* Wake the loop (any thread). */
void web_wake(struct web *);

/* web_assets.c: the page's files read from dir once (0, or -1 said),
 * index.html's links to the others made /NAME?v=HASH so a browser keeps
 * them for good (a new file is a new URL) and revalidates index.html
 * alone; freed.  web_asset_route answers a request for one of them (0
 * with *resp) or says it is none (404). */
int  web_assets_load(struct web *, const char *dir);
void web_assets_free(struct web *);
int  web_asset_route(struct web *, const struct web_req *r, char **resp,
                     size_t *len);

/* web_api.c: the endpoints.  web_route answers r on conn id: 0 when
 * answered or queued (the loop gets the answer from web_take_done),
 * else an HTTP status to answer with and why (naming the parameter and
 * its value).  The workers: start and stop. */
int  web_route(struct web *, uint64_t conn_id, const struct web_req *r,
               char **resp, size_t *len, char *why, size_t wl);
int  web_workers_start(struct web *);
void web_workers_stop(struct web *);

/* web_cache.c: what is kept of ocsd's answers.  A switch's ("": the lone
 * one) port reading when younger than WEB_PORTS_MS, and a run's record
 * (ocsctl's, or the timeline's form): a copy (malloc'd), or NULL: ask
 * ocsd, then keep its answer. */
char *web_ports_cached(struct web *, const char *sw);
void  web_ports_keep(struct web *, const char *sw, const char *body);
char *web_run_cached(struct web *, uint64_t id, int timeline);
void  web_run_keep(struct web *, uint64_t id, int timeline, const char *body);
/* The records of runs kept forgotten: ocsd was away, and one that
 * restarted with its history gone may give an id to another run. */
void web_runs_forget(struct web *);
/* Everything kept, freed. */
void web_cache_free(struct web *);
/* A finished job: its connection and its whole response (malloc'd), or
 * 0 when none is left.  Under no lock (takes mtx). */
uint64_t web_take_done(struct web *, char **resp, size_t *len);
/* A whole response: head and body (malloc'd) into *resp. 0 or -ENOMEM. */
int web_response(int status, const char *type, const char *body, size_t blen,
                 int keep_alive, int head_only, const char *cache,
                 const char *extra, char **resp, size_t *len);

/* web_feed.c: the feed's thread; it stops with w->stop. */
int  web_feed_start(struct web *);
void web_feed_stop(struct web *);
/* The next message for every event stream (malloc'd "event: ...\n
 * data: ...\n\n"), or NULL. */
char *web_take_bcast(struct web *, size_t *len);
/* What a new stream is sent first: every snapshot and the history
 * (malloc'd), or NULL when out of memory. */
char *web_stream_start(struct web *, size_t *len);
/* /api/snap: every snapshot the feed holds as one object, {"show": ...,
 * "status": ..., ...} (malloc'd), or NULL when out of memory.  From
 * memory: a page draws from it while its event stream connects. */
char *web_snap_all(struct web *);

#endif

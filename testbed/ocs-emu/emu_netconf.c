/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The NETCONF face (ocs-emu --netconf ADDR:PORT): RFC 6241 over SSH
 * (RFC 6242) as a Polatis serves it.  The SSH face authenticates a
 * switch user and hands over the "netconf" subsystem's bytes; each
 * session then has a thread of its own, in which libnetconf2 reads the
 * hello and the RPCs (its framing, libyang's parsing) and calls back
 * here: get and get-config (the switch as data, subtree-filtered),
 * edit-config (one batch of patches on running, all or nothing, answered
 * once the mirrors settle), lock, unlock and kill-session.  close-session
 * and get-schema are libnetconf2's own.  Idle sessions close after the
 * switch's session timeout, as TL1's do.
 */
#include <errno.h>
#include <nc_server.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "proto/base/log.h"
#include "proto/base/mono.h"
#include "testbed/ocs-emu/emu.h"
#include "testbed/ocs-emu/emu_nc.h"

#define NC_MAX_SESS 64  /* sessions at once, the SSH face's limit */
#define NC_POLL_MS  100 /* how soon a session sees a stop or a kill */

struct emu_nc;

struct nsess {
	struct emu_nc     *face;
	pthread_t          thr;
	int                fd;
	char               user[EMU_USER_MAX + 1];
	enum emu_priv      priv;
	uint32_t           id; /* NETCONF session-id, 0 before the hello */
	int                kill, done;
	uint32_t           killed_by;
	struct nc_session *ns;
};

struct emu_nc {
	struct emu     *e;
	struct ly_ctx  *ctx;  /* libnetconf2's: messages */
	struct ly_ctx  *dctx; /* and optical-switch: the switch's data */
	pthread_mutex_t mtx;  /* guards s[], stop, lock_sid */
	struct nsess   *s[NC_MAX_SESS];
	int             stop;
	uint32_t        lock_sid; /* running locked by, 0: nobody */
	uint64_t        rpcs;     /* RPCs served, for the drop fault */
};

/* ---- replies ------------------------------------------------------------ */

static struct nc_server_reply *
err_reply(const struct ly_ctx *ctx, const struct emu_nc_err *er)
{
	struct lyd_node *e;

	switch (er->tag) {
	case NC_ERR_MISSING_ELEM:
	case NC_ERR_BAD_ELEM:
	case NC_ERR_UNKNOWN_ELEM:
		e = nc_err(ctx, er->tag, NC_ERR_TYPE_APP, er->elem);
		break;
	case NC_ERR_BAD_ATTR:
		e = nc_err(ctx, er->tag, NC_ERR_TYPE_APP, "operation",
		           er->elem);
		break;
	case NC_ERR_UNKNOWN_NS:
		e = nc_err(ctx, er->tag, NC_ERR_TYPE_APP, er->elem, er->ns);
		break;
	case NC_ERR_DATA_EXISTS:
	case NC_ERR_DATA_MISSING:
		e = nc_err(ctx, er->tag);
		break;
	case NC_ERR_LOCK_DENIED:
		e = nc_err(ctx, er->tag, (uint32_t)atoi(er->elem));
		break;
	default:
		e = nc_err(ctx, er->tag, NC_ERR_TYPE_APP);
	}
	if (e == NULL)
		return (NULL);
	nc_err_set_msg(e, er->msg, "en");
	if ((er->tag == NC_ERR_INVALID_VALUE || er->tag == NC_ERR_IN_USE ||
	     er->tag == NC_ERR_DATA_MISSING ||
	     er->tag == NC_ERR_DATA_EXISTS) &&
	    er->elem[0])
		nc_err_add_bad_elem(e, er->elem);
	return (nc_server_reply_err(e));
}

__attribute__((__format__(printf, 3, 4))) static struct nc_server_reply *
refuse(const struct ly_ctx *ctx, int tag, const char *fmt, ...)
{
	struct emu_nc_err er = {.tag = tag};
	va_list           ap;

	va_start(ap, fmt);
	vsnprintf(er.msg, sizeof(er.msg), fmt, ap);
	va_end(ap);
	return (err_reply(ctx, &er));
}

/* A child of an RPC by name, or NULL. */
static const struct lyd_node *
arg(const struct lyd_node *rpc, const char *name)
{
	const struct lyd_node *c;

	LY_LIST_FOR(lyd_child(rpc), c)
	if (strcmp(LYD_NAME(c), name) == 0)
		return (c);
	return (NULL);
}

/* The content of an anyxml (<filter>, <config>): its tree, or NULL. */
static const struct lyd_node *
content(const struct lyd_node *any)
{
	const struct lyd_node_any *a = (const struct lyd_node_any *)any;

	if (any == NULL || any->schema == NULL ||
	    !(any->schema->nodetype & LYD_NODE_ANY) ||
	    a->value_type != LYD_ANYDATA_DATATREE)
		return (NULL);
	return (a->value.tree);
}

/* ---- get-schema (RFC 6022) ---------------------------------------------- */

/* Any module of the data context, optical-switch included (libnetconf2's
 * own callback knows its context only). */
static struct nc_server_reply *
get_schema(struct lyd_node *rpc, struct nc_session *ns)
{
	struct nsess          *s = nc_session_get_data(ns);
	const struct lyd_node *id = arg(rpc, "identifier"),
	                      *ver = arg(rpc, "version"),
	                      *fmt = arg(rpc, "format");
	const struct lys_module *m;
	struct lyd_node         *out = NULL;
	char                    *text = NULL;
	int                      yin;

	if (s == NULL || id == NULL)
		return (NULL);
	yin = fmt && strstr(lyd_get_value(fmt), "yin") != NULL;
	m = ver && lyd_get_value(ver)[0]
	        ? ly_ctx_get_module(s->face->dctx, lyd_get_value(id),
	                            lyd_get_value(ver))
	        : ly_ctx_get_module_latest(s->face->dctx, lyd_get_value(id));
	if (m == NULL)
		return (refuse(s->face->ctx, NC_ERR_INVALID_VALUE,
		               "No schema %s", lyd_get_value(id)));
	if (lys_print_mem(&text, m, yin ? LYS_OUT_YIN : LYS_OUT_YANG, 0) ||
	    lyd_dup_single(rpc, NULL, 0, &out) ||
	    lyd_new_any(out, NULL, "data", text, 1, LYD_ANYDATA_STRING, 1,
	                NULL)) {
		free(text);
		lyd_free_all(out);
		return (
		    refuse(s->face->ctx, NC_ERR_RES_DENIED, "out of memory"));
	}
	return (nc_server_reply_data(out, NC_WD_EXPLICIT, NC_PARAMTYPE_FREE));
}

/* ---- get, get-config ---------------------------------------------------- */

static struct nc_server_reply *
do_get(struct nsess *s, struct lyd_node *rpc, int config_only)
{
	struct emu_nc         *f = s->face;
	const struct lyd_node *flt = arg(rpc, "filter"), *fc = content(flt);
	struct lyd_node       *data = NULL, *sel, *out = NULL;
	const struct lyd_meta *m;
	int                    rv;

	if (flt != NULL)
		for (m = flt->meta; m != NULL; m = m->next)
			if (strcmp(m->name, "type") == 0 &&
			    strcmp(lyd_get_meta_value(m), "subtree") != 0)
				return (refuse(f->ctx, NC_ERR_OP_NOT_SUPPORTED,
				               "filter type %s: the switch "
				               "filters subtrees only",
				               lyd_get_meta_value(m)));
	pthread_mutex_lock(&f->e->mtx);
	rv = emu_nc_data(f->e, f->dctx, flt ? emu_nc_want(fc) : EMU_NC_ALL,
	                 config_only, mono_ns(), &data);
	pthread_mutex_unlock(&f->e->mtx);
	if (rv == 0 && flt != NULL) {
		/* An empty filter selects nothing (RFC 6241 6.4.2). */
		rv = emu_nc_filter(data, fc, &sel);
		lyd_free_all(data);
		data = sel;
	}
	if (rv != 0 || lyd_dup_single(rpc, NULL, 0, &out) != LY_SUCCESS ||
	    lyd_new_any(out, NULL, "data", data, 1, LYD_ANYDATA_DATATREE, 1,
	                NULL) != LY_SUCCESS) {
		lyd_free_all(data);
		lyd_free_all(out);
		return (refuse(f->ctx, NC_ERR_RES_DENIED, "out of memory"));
	}
	return (nc_server_reply_data(out, NC_WD_EXPLICIT, NC_PARAMTYPE_FREE));
}

/* ---- edit-config -------------------------------------------------------- */

static enum emu_nc_op
dflt_op(const struct lyd_node *rpc)
{
	const struct lyd_node *d = arg(rpc, "default-operation");
	const char            *v = d ? lyd_get_value(d) : NULL;

	if (v && strcmp(v, "replace") == 0)
		return (EMU_NC_REPLACE);
	if (v && strcmp(v, "none") == 0)
		return (EMU_NC_NONE);
	return (EMU_NC_MERGE);
}

/* The batch on the model, with e->mtx held: 0, -EINVAL (a port setting
 * the switch refuses: nothing changed), or -EIO when the deny-half fault
 * stopped it (er says so). */
static int
apply(struct emu *e, const struct emu_nc_edit *ed, const uint16_t *disc,
      size_t nd, const struct drv_patch *conn, size_t nc,
      struct emu_nc_err *er)
{
	struct oxc_err oe;
	uint64_t       now = mono_ns();

	if (emu_nc_ports_apply(ed, e, 0, er) != 0)
		return (-EINVAL);
	emu_nc_ports_apply(ed, e, 1, er);
	if (nd)
		oxc_disconnect(&e->x, disc, nd, now, &oe);
	if (nc && e->fault.deny_half && nc > 1) {
		oxc_connect_prefix(&e->x, conn, nc, nc / 2, now, &oe);
		er->tag = NC_ERR_OP_FAILED;
		snprintf(er->msg, sizeof(er->msg),
		         "Equipment fault after %zu of %zu patches", nc / 2,
		         nc);
		return (-EIO);
	}
	if (nc)
		oxc_connect(&e->x, conn, nc, now, &oe);
	return (0);
}

static void
persist(struct emu *e)
{
	int rv;

	if (e->x.gen != e->saved_gen && (rv = emu_state_save(e)) != 0)
		log_warnx("saving state to %s: %s", e->c.state, strerror(-rv));
}

static struct nc_server_reply *
locked_out(struct nsess *s)
{
	uint32_t owner;

	pthread_mutex_lock(&s->face->mtx);
	owner = s->face->lock_sid;
	pthread_mutex_unlock(&s->face->mtx);
	if (owner == 0 || owner == s->id)
		return (NULL);
	return (refuse(s->face->ctx, NC_ERR_IN_USE,
	               "running is locked by session %u", owner));
}

static struct nc_server_reply *
do_edit(struct nsess *s, struct lyd_node *rpc)
{
	struct emu_nc          *f = s->face;
	struct emu             *e = f->e;
	struct emu_nc_edit      ed;
	struct emu_nc_err       er = {0};
	struct nc_server_reply *r;
	struct drv_patch       *conn = NULL;
	uint16_t               *disc = NULL;
	size_t                  nd = 0, nc = 0;
	uint64_t                gen, settle = 0;
	int                     rv;

	if (s->priv < EMU_PRIV_USER)
		return (refuse(f->ctx, NC_ERR_ACCESS_DENIED,
		               "User %s may not change the switch", s->user));
	if ((r = locked_out(s)) != NULL)
		return (r);
	if ((rv = emu_nc_edit_parse(content(arg(rpc, "config")), dflt_op(rpc),
	                            e->x.n, &ed, &er)) != 0)
		return (rv == -ENOMEM ? refuse(f->ctx, NC_ERR_RES_DENIED,
		                               "out of memory")
		                      : err_reply(f->ctx, &er));
	pthread_mutex_lock(&e->mtx);
	gen = e->x.gen;
	rv = emu_nc_edit_plan(&ed, &e->x, &disc, &nd, &conn, &nc, &er);
	if (rv == 0)
		rv = apply(e, &ed, disc, nd, conn, nc, &er);
	persist(e);
	if (rv == 0 && e->x.gen != gen && !e->c.ack_immediate)
		settle = mono_ms() + (e->x.switch_ns + 999999) / 1000000;
	pthread_mutex_unlock(&e->mtx);
	emu_nc_edit_free(&ed);
	free(disc);
	free(conn);
	if (rv == -ENOMEM)
		return (refuse(f->ctx, NC_ERR_RES_DENIED, "out of memory"));
	if (rv != 0)
		return (err_reply(f->ctx, &er));
	log_debug("netconf[%u]: %zu patch%s removed, %zu made", s->id, nd,
	          nd == 1 ? "" : "es", nc);
	/* The reply once the mirrors have settled, as TL1's COMPLD. */
	while (settle && mono_ms() < settle)
		usleep((useconds_t)(settle - mono_ms()) * 1000);
	return (nc_server_reply_ok());
}

/* ---- port-shutter-set-state (polatis-switch) ---------------------------- */

/* Open (port-enab) and close (port-disab) shutters, all or none. */
static struct nc_server_reply *
shutters(struct lyd_node *rpc, struct nc_session *ns)
{
	struct nsess          *s = nc_session_get_data(ns);
	struct emu            *e;
	const struct lyd_node *c;
	unsigned long          p;
	int                    pass;

	if (s == NULL)
		return (NULL);
	e = s->face->e;
	if (s->priv < EMU_PRIV_USER)
		return (refuse(s->face->ctx, NC_ERR_ACCESS_DENIED,
		               "User %s may not change the switch", s->user));
	pthread_mutex_lock(&e->mtx);
	for (pass = 0; pass < 2; pass++)
		LY_LIST_FOR(lyd_child(rpc), c)
		{
			p = strtoul(lyd_get_value(c), NULL, 10);
			if (!pass && !oxc_valid_port(&e->x, (uint32_t)p)) {
				pthread_mutex_unlock(&e->mtx);
				return (refuse(s->face->ctx,
				               NC_ERR_INVALID_VALUE,
				               "Invalid OXC port: %lu", p));
			}
			if (pass)
				e->x.closed[p] =
				    strcmp(LYD_NAME(c), "port-disab") == 0;
		}
	pthread_mutex_unlock(&e->mtx);
	return (nc_server_reply_ok());
}

/* ---- sessions: lock, unlock, kill-session ------------------------------- */

static struct nc_server_reply *
do_lock(struct nsess *s, int lock)
{
	struct emu_nc    *f = s->face;
	struct emu_nc_err er = {0};

	pthread_mutex_lock(&f->mtx);
	if (lock && f->lock_sid == 0)
		f->lock_sid = s->id;
	else if (lock) {
		er.tag = NC_ERR_LOCK_DENIED;
		snprintf(er.elem, sizeof(er.elem), "%u", f->lock_sid);
		snprintf(er.msg, sizeof(er.msg), "Lock held by session %u",
		         f->lock_sid);
	} else if (f->lock_sid == s->id)
		f->lock_sid = 0;
	else {
		er.tag = NC_ERR_OP_FAILED;
		snprintf(er.msg, sizeof(er.msg),
		         "running is not locked by this session");
	}
	pthread_mutex_unlock(&f->mtx);
	return (er.tag ? err_reply(f->ctx, &er) : nc_server_reply_ok());
}

static struct nc_server_reply *
do_kill(struct nsess *s, struct lyd_node *rpc)
{
	struct emu_nc         *f = s->face;
	const struct lyd_node *a = arg(rpc, "session-id");
	uint32_t               sid = a ? (uint32_t)atol(lyd_get_value(a)) : 0;
	int                    i, found = 0;

	if (s->priv < EMU_PRIV_ADMIN)
		return (refuse(f->ctx, NC_ERR_ACCESS_DENIED,
		               "User %s is not in the admin group", s->user));
	if (sid == s->id)
		return (refuse(f->ctx, NC_ERR_INVALID_VALUE,
		               "session %u is this one: close-session ends it",
		               sid));
	pthread_mutex_lock(&f->mtx);
	for (i = 0; i < NC_MAX_SESS; i++) {
		struct nsess *o = f->s[i];

		if (o && o->id == sid && !o->done && !o->kill) {
			o->kill = 1;
			o->killed_by = s->id;
			found = 1;
		}
	}
	if (found && f->lock_sid == sid)
		f->lock_sid = 0; /* its locks go with it */
	pthread_mutex_unlock(&f->mtx);
	if (!found)
		return (refuse(f->ctx, NC_ERR_INVALID_VALUE, "No session %u",
		               sid));
	log_info("netconf[%u]: session %u killed", s->id, sid);
	return (nc_server_reply_ok());
}

/* The faults that concern a reply: 1 when the connection goes. */
static int
faulty(struct nsess *s)
{
	struct emu *e = s->face->e;
	uint32_t    delay, drop;
	int         garbage;
	uint64_t    k;

	pthread_mutex_lock(&e->mtx);
	delay = e->fault.delay_ms;
	drop = e->fault.drop_after;
	garbage = e->fault.garbage;
	pthread_mutex_unlock(&e->mtx);
	pthread_mutex_lock(&s->face->mtx);
	k = ++s->face->rpcs;
	pthread_mutex_unlock(&s->face->mtx);
	if (delay)
		usleep(delay * 1000u);
	if (garbage)
		(void)!write(s->fd, emu_garbage, strlen(emu_garbage));
	if (garbage || (drop && k % (drop + 1) == 0)) {
		shutdown(s->fd, SHUT_RDWR);
		return (1);
	}
	return (0);
}

static struct nc_server_reply *
rpc_clb(struct lyd_node *rpc, struct nc_session *ns)
{
	struct nsess *s = nc_session_get_data(ns);
	const char   *name = LYD_NAME(rpc);

	if (s == NULL)
		return (NULL);
	if (faulty(s))
		return (nc_server_reply_ok()); /* nobody reads it */
	if (rpc->schema == NULL ||
	    strcmp(rpc->schema->module->name, "ietf-netconf") != 0)
		return (refuse(s->face->ctx, NC_ERR_OP_NOT_SUPPORTED,
		               "%s: not an operation of this switch", name));
	if (strcmp(name, "get") == 0)
		return (do_get(s, rpc, 0));
	if (strcmp(name, "get-config") == 0)
		return (do_get(s, rpc, 1));
	if (strcmp(name, "edit-config") == 0)
		return (do_edit(s, rpc));
	if (strcmp(name, "lock") == 0 || strcmp(name, "unlock") == 0)
		return (do_lock(s, strcmp(name, "lock") == 0));
	if (strcmp(name, "kill-session") == 0)
		return (do_kill(s, rpc));
	return (refuse(s->face->ctx, NC_ERR_OP_NOT_SUPPORTED,
	               "%s: not supported by this switch", name));
}

/* ---- a session's thread ------------------------------------------------- */

/* Poll the session until it ends, is killed or the face stops. */
static void
serve(struct nsess *s, struct nc_pollsession *ps)
{
	struct emu_nc *f = s->face;
	uint64_t       last = mono_ms(), idle_ms;
	int            r, stop, kill;

	for (;;) {
		pthread_mutex_lock(&f->mtx);
		stop = f->stop;
		kill = s->kill;
		pthread_mutex_unlock(&f->mtx);
		if (stop || kill)
			break;
		r = nc_ps_poll(ps, NC_POLL_MS, NULL);
		if (r & (NC_PSPOLL_RPC | NC_PSPOLL_BAD_RPC))
			last = mono_ms();
		if (r & (NC_PSPOLL_SESSION_TERM | NC_PSPOLL_SESSION_ERROR |
		         NC_PSPOLL_ERROR | NC_PSPOLL_NOSESSIONS))
			return;
		pthread_mutex_lock(&f->e->mtx);
		idle_ms = (uint64_t)f->e->idle_timeout_s * 1000;
		pthread_mutex_unlock(&f->e->mtx);
		if (idle_ms && mono_ms() - last >= idle_ms) {
			log_info("netconf[%u]: idle for %llu s, closing",
			         s->id, (unsigned long long)(idle_ms / 1000));
			nc_session_set_term_reason(s->ns,
			                           NC_SESSION_TERM_TIMEOUT);
			return;
		}
	}
	if (kill) {
		nc_session_set_term_reason(s->ns, NC_SESSION_TERM_KILLED);
		nc_session_set_killed_by(s->ns, s->killed_by);
	}
}

static void *
sess_main(void *arg)
{
	struct nsess          *s = arg;
	struct emu_nc         *f = s->face;
	struct nc_session     *ns = NULL;
	struct nc_pollsession *ps = NULL;
	NC_MSG_TYPE            m;

	m = nc_accept_inout(s->fd, s->fd, s->user, &ns);
	if (m != NC_MSG_HELLO) {
		log_info("netconf: %s: no hello (%s), closing", s->user,
		         m == NC_MSG_WOULDBLOCK ? "timed out" : "bad or none");
		goto out;
	}
	nc_session_set_data(ns, s);
	pthread_mutex_lock(&f->mtx);
	s->ns = ns;
	s->id = nc_session_get_id(ns);
	pthread_mutex_unlock(&f->mtx);
	log_info("netconf[%u]: %s, NETCONF 1.%d", s->id, s->user,
	         nc_session_get_version(ns) ? 1 : 0);
	if ((ps = nc_ps_new()) != NULL && nc_ps_add_session(ps, ns) == 0) {
		serve(s, ps);
		nc_ps_del_session(ps, ns);
	}
	nc_ps_free(ps);
	pthread_mutex_lock(&f->mtx);
	if (f->lock_sid == s->id)
		f->lock_sid = 0;
	s->ns = NULL;
	pthread_mutex_unlock(&f->mtx);
	log_debug("netconf[%u]: closed", s->id);
	nc_session_free(ns, NULL);
out:
	close(s->fd); /* libnetconf2 leaves a caller's descriptors open */
	pthread_mutex_lock(&f->mtx);
	s->done = 1;
	pthread_mutex_unlock(&f->mtx);
	nc_thread_destroy();
	return (NULL);
}

/* Join the threads of sessions that ended (all of them when stopping). */
static void
reap(struct emu_nc *f, int all)
{
	int i;

	for (i = 0; i < NC_MAX_SESS; i++) {
		struct nsess *s;

		pthread_mutex_lock(&f->mtx);
		s = f->s[i];
		if (s && (all || s->done))
			f->s[i] = NULL;
		else
			s = NULL;
		pthread_mutex_unlock(&f->mtx);
		if (s != NULL) {
			pthread_join(s->thr, NULL);
			free(s);
		}
	}
}

int
emu_nc_put(void *arg, int fd, const char *user, enum emu_priv priv)
{
	struct emu_nc *f = arg;
	struct nsess  *s;
	int            i;

	reap(f, 0);
	if ((s = calloc(1, sizeof(*s))) == NULL)
		return (-ENOMEM);
	s->face = f;
	s->fd = fd;
	s->priv = priv;
	snprintf(s->user, sizeof(s->user), "%s", user);
	pthread_mutex_lock(&f->mtx);
	for (i = 0; i < NC_MAX_SESS && f->s[i]; i++)
		;
	if (i == NC_MAX_SESS || f->stop ||
	    pthread_create(&s->thr, NULL, sess_main, s) != 0) {
		pthread_mutex_unlock(&f->mtx);
		free(s);
		return (-ENOSPC);
	}
	f->s[i] = s;
	pthread_mutex_unlock(&f->mtx);
	return (0);
}

/* ---- the face ----------------------------------------------------------- */

static void
nc_log(const struct nc_session *ns, NC_VERB_LEVEL level, const char *msg)
{
	(void)ns;
	if (level == NC_VERB_ERROR)
		log_info("netconf: %s", msg);
	else
		log_debug("netconf: %s", msg);
}

static void
ly_log(LY_LOG_LEVEL level, const char *msg, const char *path)
{
	(void)level;
	log_debug("netconf: yang: %s%s%s", msg, path ? " at " : "",
	          path ? path : "");
}

/* An RPC's own callback, in its schema node (libnetconf2's way). */
static void
set_clb(struct ly_ctx *ctx, const char *path, nc_rpc_clb clb)
{
	const struct lysc_node *n = lys_find_path(ctx, NULL, path, 0);
	union {
		nc_rpc_clb f;
		void      *p;
	} u = {.f = clb};

	if (n != NULL)
		((struct lysc_node *)(uintptr_t)n)->priv = u.p;
}

int
emu_nc_start(struct emu *e, struct emu_nc **out, char *err, size_t len)
{
	struct emu_nc *f;
	uint32_t       grace = (e->c.login_grace_ms + 999) / 1000;

	if ((f = calloc(1, sizeof(*f))) == NULL)
		return (-ENOMEM);
	f->e = e;
	pthread_mutex_init(&f->mtx, NULL);
	nc_set_print_clb_session(nc_log);
	nc_verbosity(NC_VERB_ERROR);
	ly_set_log_clb(ly_log, 1);
	if (emu_nc_ctx_new(EMU_NC_YANG_DIR, &f->ctx, &f->dctx, err, len) !=
	    0) {
		pthread_mutex_destroy(&f->mtx);
		free(f);
		return (-EINVAL);
	}
	set_clb(f->ctx, "/ietf-netconf-monitoring:get-schema", get_schema);
	set_clb(f->ctx, "/polatis-switch:port-shutter-set-state", shutters);
	if (nc_server_init(f->ctx) != 0 ||
	    nc_server_set_capability(EMU_NC_CAPABILITY) != 0) {
		snprintf(err, len,
		         "netconf: cannot start libnetconf2's server");
		ly_ctx_destroy(f->ctx);
		ly_ctx_destroy(f->dctx);
		pthread_mutex_destroy(&f->mtx);
		free(f);
		return (-ENOMEM);
	}
	nc_set_global_rpc_clb(rpc_clb);
	/* A client that never says hello is cut after the login grace. */
	nc_server_set_hello_timeout((uint16_t)(grace ? grace : 60));
	nc_server_set_idle_timeout(0); /* ours: the switch's timeout */
	*out = f;
	return (0);
}

void
emu_nc_stop(struct emu_nc *f)
{
	if (f == NULL)
		return;
	pthread_mutex_lock(&f->mtx);
	f->stop = 1;
	pthread_mutex_unlock(&f->mtx);
	reap(f, 1);
	nc_server_destroy();
	ly_ctx_destroy(f->ctx);
	ly_ctx_destroy(f->dctx);
	pthread_mutex_destroy(&f->mtx);
	free(f);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The polatis-netconf driver: a Polatis over NETCONF (RFC 6241 over SSH,
 * default port 830) and its optical-switch YANG module, as SDN
 * controllers drive one.  libssh connects and logs in with the switch
 * user's password, the host key checked against a known_hosts file
 * (sshkh.c); libnetconf2 then runs the session (hello, framing, the
 * module fetched with get-schema, replies parsed by libyang).  A batch
 * is one edit-config of running (its disconnects as pairs removed, its
 * connects as pairs merged); the map and port power are read with one
 * <get> whose subtree filter names cross-connects, opm-power and
 * port-config; after a batch that get goes out behind the edit-config
 * without waiting, so a reconfiguration is one exchange.  A lost or
 * timed-out session is dropped and made again by the next call.
 */
#include <errno.h>
#include <limits.h>
#include <nc_client.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocs-drivers/drv.h"
#include "ocs-drivers/pnc_tree.h"
#include "ocs-drivers/sshkh.h"
#include "proto/base/mono.h"
#include "proto/base/net.h"

#define PNC_DEFPORT  "830"
#define PNC_SLICE_MS 100 /* how soon a wait sees the cancel descriptor */
/* Ports whose power a light check asks for one by one; more, and the
 * whole opm-power is read. */
#define PNC_FEW_PORTS 64

struct pnc {
	char host[256], port[16];
	char user[64], pass[128];
	char known_hosts[PATH_MAX];
	int  timeout_ms, cancel_fd;
	void (*trace)(void *, const char *, ...);
	void              *trace_arg;
	struct nc_session *ns;
	int                fd; /* the session's TCP socket (libssh's) */
	uint32_t           nports, switch_ms;
	char               err[512];
};

__attribute__((__format__(printf, 2, 3))) static void
seterr(struct pnc *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->err, sizeof(p->err), fmt, ap);
	va_end(ap);
}

static void
quiet(const struct nc_session *s, NC_VERB_LEVEL l, const char *m)
{
	(void)s, (void)l, (void)m; /* libraries do not log: errors return */
}

static void
quiet_ly(LY_LOG_LEVEL l, const char *m, const char *path)
{
	(void)l, (void)m, (void)path;
}

static void
init_once(void)
{
	nc_client_init();
	nc_set_print_clb_session(quiet);
	nc_verbosity(NC_VERB_ERROR);
	ly_set_log_clb(quiet_ly, 0);
}

static void
drop(struct pnc *p)
{
	if (p->ns != NULL)
		nc_session_free(p->ns, NULL);
	p->ns = NULL;
	p->fd = -1;
}

/* Did the switch close the session while it was idle (its session
 * timeout)?  Then it is made again before a batch is sent into it, never
 * found closed in the middle of one.  Bytes on the socket with nothing
 * outstanding are read: SSH's own (a window adjust) change nothing, an
 * end marks the session invalid. */
static int
stale(struct pnc *p)
{
	struct pollfd    pfd = {.fd = p->fd, .events = POLLIN};
	struct lyd_node *envp = NULL, *op = NULL;
	NC_MSG_TYPE      m;

	if (p->fd < 0)
		return (1);
	if (poll(&pfd, 1, 0) == 0)
		return (0);
	m = nc_recv_notif(p->ns, 0, &envp, &op);
	lyd_free_all(envp);
	lyd_free_all(op);
	return (m == NC_MSG_ERROR ||
	        nc_session_get_status(p->ns) != NC_STATUS_RUNNING);
}

/* ---- the session -------------------------------------------------------- */

static int
ssh_login(struct pnc *p, ssh_session ss, uint64_t deadline)
{
	long secs = (long)((deadline - mono_ms() + 999) / 1000);
	int  port = atoi(p->port), no = 0, yes = 1, rv;
	char who[300], fp[128];

	if (ssh_options_set(ss, SSH_OPTIONS_HOST, p->host) != 0 ||
	    ssh_options_set(ss, SSH_OPTIONS_PORT, &port) != 0 ||
	    ssh_options_set(ss, SSH_OPTIONS_USER, p->user) != 0 ||
	    ssh_options_set(ss, SSH_OPTIONS_TIMEOUT, &secs) != 0 ||
	    ssh_options_set(ss, SSH_OPTIONS_PROCESS_CONFIG, &no) != 0 ||
	    ssh_options_set(ss, SSH_OPTIONS_NODELAY, &yes) != 0 ||
	    ssh_options_set(ss, SSH_OPTIONS_KNOWNHOSTS, p->known_hosts) != 0 ||
	    ssh_options_set(ss, SSH_OPTIONS_GLOBAL_KNOWNHOSTS, "/dev/null") !=
	        0)
		return (-ENOMEM);
	snprintf(who, sizeof(who), "%s:%s", p->host, p->port);
	if (ssh_connect(ss) != SSH_OK) {
		seterr(p, "connecting to %s over ssh: %s", who,
		       ssh_get_error(ss));
		return (-ECONNREFUSED);
	}
	if ((rv = sshkh_check(ss, who, p->known_hosts, fp, sizeof(fp), p->err,
	                      sizeof(p->err))) != 0)
		return (rv);
	if (fp[0] && p->trace)
		p->trace(p->trace_arg, "netconf: %s: host key %s added to %s",
		         who, fp, p->known_hosts);
	if (ssh_userauth_password(ss, NULL, p->pass) != SSH_AUTH_SUCCESS) {
		seterr(p, "login as %s on %s refused: %s", p->user, who,
		       ssh_get_error(ss));
		return (-DRV_EAUTH);
	}
	return (0);
}

static int xchg(struct pnc *p, struct nc_rpc **rpc, const char *const *what,
                int *res, size_t n, struct lyd_node **data, uint64_t deadline);

/* The size: port-config lists the switch's 2N ports. */
static int
learn_size(struct pnc *p, uint64_t deadline)
{
	static const char flt[] = "<port-config xmlns=\"" PNC_NS "\"><port>"
	                          "<port-id/></port></port-config>";
	struct nc_rpc    *rpc =
	    nc_rpc_get(flt, NC_WD_UNKNOWN, NC_PARAMTYPE_CONST);
	struct lyd_node *data = NULL;
	const char      *what = "get";
	int              rv, res = 0;

	if (rpc == NULL)
		return (-ENOMEM);
	if ((rv = xchg(p, &rpc, &what, &res, 1, &data, deadline)) == 0 &&
	    (rv = res) == 0 &&
	    (rv = pnc_count_ports(data, p->err, sizeof(p->err))) > 0) {
		p->nports = (uint32_t)rv / 2;
		rv = 0;
	}
	lyd_free_all(data);
	nc_rpc_free(rpc);
	return (rv);
}

static int
ensure(struct pnc *p, uint64_t deadline)
{
	ssh_session ss;
	int         rv;

	if (p->ns != NULL &&
	    nc_session_get_status(p->ns) == NC_STATUS_RUNNING && !stale(p))
		return (0);
	drop(p);
	if (mono_ms() >= deadline)
		return (-ETIMEDOUT);
	if ((ss = ssh_new()) == NULL)
		return (-ENOMEM);
	if ((rv = ssh_login(p, ss, deadline)) != 0) {
		ssh_free(ss);
		return (rv);
	}
	/* libnetconf2's from here, freed with the session. */
	p->fd = ssh_get_fd(ss);
	if ((p->ns = nc_connect_libssh(ss, NULL)) == NULL) {
		p->fd = -1;
		seterr(p, "%s:%s: no NETCONF session (hello refused?)",
		       p->host, p->port);
		return (-DRV_EPROTO);
	}
	if ((rv = learn_size(p, deadline)) != 0)
		drop(p);
	return (rv);
}

/* ---- one exchange ------------------------------------------------------- */

/* The child of an opaque or data node by name, or NULL. */
static const struct lyd_node *
child(const struct lyd_node *n, const char *name)
{
	const struct lyd_node *c;

	c = n->schema ? lyd_child(n)
	              : ((const struct lyd_node_opaq *)n)->child;
	for (; c != NULL; c = c->next)
		if (strcmp(LYD_NAME(c), name) == 0)
			return (c);
	return (NULL);
}

/* An rpc-reply's rpc-error: -DRV_EDENIED, or -DRV_EPARTIAL when the
 * switch says the operation failed (it may have stopped half way); the
 * tag and message in p->err.  0 for <ok/> and data. */
static int
reply_error(struct pnc *p, const struct lyd_node *envp, const char *what)
{
	const struct lyd_node *e, *n;
	const char            *tag = NULL, *msg = NULL;

	if (envp == NULL || (e = child(envp, "rpc-error")) == NULL)
		return (0);
	if ((n = child(e, "error-tag")) != NULL)
		tag = lyd_get_value(n);
	if ((n = child(e, "error-message")) != NULL)
		msg = lyd_get_value(n);
	seterr(p, "%s: %s: %s", what, tag ? tag : "?", msg ? msg : "");
	return (tag && strcmp(tag, "operation-failed") == 0 ? -DRV_EPARTIAL
	                                                    : -DRV_EDENIED);
}

/* The content of a <get> reply's <data>, moved out of op. */
static struct lyd_node *
take_data(struct lyd_node *op)
{
	struct lyd_node_any *a;
	struct lyd_node     *t, *c;

	if (op == NULL)
		return (NULL);
	for (c = lyd_child(op); c != NULL; c = c->next)
		if (strcmp(LYD_NAME(c), "data") == 0)
			break;
	a = (struct lyd_node_any *)c;
	if (a == NULL || a->schema == NULL ||
	    a->value_type != LYD_ANYDATA_DATATREE)
		return (NULL);
	t = a->value.tree;
	a->value.tree = NULL;
	return (t);
}

/* Wait for one reply, in slices that see the cancel descriptor. */
static int
recv_one(struct pnc *p, struct nc_rpc *rpc, uint64_t id, uint64_t deadline,
         struct lyd_node **envp, struct lyd_node **op)
{
	NC_MSG_TYPE m;

	for (;;) {
		uint64_t now = mono_ms();
		int      slice;

		if (now >= deadline) {
			seterr(p, "%s:%s: no reply within %d ms", p->host,
			       p->port, p->timeout_ms);
			return (-ETIMEDOUT);
		}
		slice = (int)(deadline - now);
		if (slice > PNC_SLICE_MS)
			slice = PNC_SLICE_MS;
		m = nc_recv_reply(p->ns, rpc, id, slice, envp, op);
		if (m == NC_MSG_REPLY)
			return (0);
		if (m == NC_MSG_NOTIF)
			continue;
		if (m != NC_MSG_WOULDBLOCK) {
			seterr(p,
			       "%s:%s: the session ended or sent a reply "
			       "that does not parse",
			       p->host, p->port);
			return (-ECONNRESET);
		}
		if (p->cancel_fd > 0 &&
		    poll(
		        &(struct pollfd){.fd = p->cancel_fd, .events = POLLIN},
		        1, 0) > 0)
			return (-ECANCELED);
	}
}

/*
 * Send rpc[0..n-1] at once, then read their replies in turn: res[k] is
 * rpc[k]'s (0, or an rpc-error's -DRV_EDENIED / -DRV_EPARTIAL), the last
 * one's data (a <get>) goes to *data.  Returns 0, or the session's
 * failure (then the session is dropped, and res[k] of the replies not
 * read is that failure too).
 */
static int
xchg(struct pnc *p, struct nc_rpc **rpc, const char *const *what, int *res,
     size_t n, struct lyd_node **data, uint64_t deadline)
{
	uint64_t         id[2];
	struct lyd_node *envp, *op;
	size_t           k, sent;
	int              rv = 0;

	*data = NULL;
	for (sent = 0; sent < n; sent++)
		if (nc_send_rpc(p->ns, rpc[sent], p->timeout_ms, &id[sent]) !=
		    NC_MSG_RPC) {
			seterr(p, "%s:%s: cannot send %s", p->host, p->port,
			       what[sent]);
			rv = -ECONNRESET;
			break;
		}
	for (k = 0; k < sent && rv == 0; k++) {
		envp = op = NULL;
		if ((rv = recv_one(p, rpc[k], id[k], deadline, &envp, &op)) !=
		    0)
			break;
		res[k] = reply_error(p, envp, what[k]);
		if (res[k] == 0 && k + 1 == n)
			*data = take_data(op);
		lyd_free_all(envp);
		lyd_free_all(op);
	}
	if (rv != 0) {
		/* A batch that went out may have been applied. */
		for (; k < n; k++)
			res[k] = rv;
		drop(p);
	}
	return (rv);
}

/* ---- requests ----------------------------------------------------------- */

/* A string of at most cap bytes built by appending. */
struct sbuf {
	char  *s;
	size_t len, cap;
};

__attribute__((__format__(printf, 2, 3))) static void
add(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int     n;

	if (b->s == NULL || b->len >= b->cap)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += n > 0 ? (size_t)n : 0;
}

/* Is ingress in among the batch's connects? */
static int
reconnected(const struct drv_batch *b, uint16_t in)
{
	size_t i;

	for (i = 0; i < b->nconnect; i++)
		if (b->connect[i].in == in)
			return (1);
	return (0);
}

/*
 * One batch in one <cross-connects>: its disconnects as pairs removed
 * ("remove": an unpatched port is no error, as DLT-PATCH's), its
 * connects as pairs merged; an ingress in both is one pair replaced (a
 * list entry appears once in an edit).
 */
static char *
edit_xml(const struct drv_batch *b)
{
	struct sbuf x = {.cap = 160 + 112 * (b->ndisconnect + b->nconnect)};
	uint8_t    *moved = calloc(DRV_MAX_PORTS + 1, 1);
	size_t      i;

	if (moved == NULL || (x.s = malloc(x.cap)) == NULL) {
		free(moved);
		return (NULL);
	}
	add(&x, "<cross-connects xmlns=\"" PNC_NS "\" "
	        "xmlns:nc=\"urn:ietf:params:xml:ns:netconf:base:1.0\">");
	for (i = 0; i < b->ndisconnect; i++) {
		if (b->disconnect[i] <= DRV_MAX_PORTS &&
		    reconnected(b, b->disconnect[i]))
			moved[b->disconnect[i]] = 1;
		else
			add(&x,
			    "<pair nc:operation=\"remove\"><ingress>%u"
			    "</ingress></pair>",
			    b->disconnect[i]);
	}
	for (i = 0; i < b->nconnect; i++)
		add(&x,
		    "<pair%s><ingress>%u</ingress><egress>%u</egress></pair>",
		    b->connect[i].in <= DRV_MAX_PORTS &&
		            moved[b->connect[i].in]
		        ? " nc:operation=\"replace\""
		        : "",
		    b->connect[i].in, b->connect[i].out);
	add(&x, "</cross-connects>");
	free(moved);
	if (x.len >= x.cap) {
		free(x.s);
		return (NULL);
	}
	return (x.s);
}

/* The filter of a read: the map (map), the ports' power and status (n
 * ports; a few one by one, many as all and power only). */
static char *
get_xml(int map, const uint16_t *ports, size_t n)
{
	int         few = n <= PNC_FEW_PORTS;
	struct sbuf x = {.cap = 512 + (few ? 2 * 96 * n : 0)};
	size_t      i;

	if ((x.s = malloc(x.cap)) == NULL)
		return (NULL);
	x.s[0] = '\0';
	if (map)
		add(&x, "<cross-connects xmlns=\"" PNC_NS "\"/>");
	/* Many ports: their power alone (a failed port reads dark too),
	 * not every port's configuration. */
	if (n && !few)
		add(&x, "<opm-power xmlns=\"" PNC_NS "\"/>");
	if (n && few) {
		add(&x, "<opm-power xmlns=\"" PNC_NS "\">");
		for (i = 0; i < n; i++)
			add(&x, "<port><port-id>%u</port-id><power/></port>",
			    ports[i]);
		add(&x, "</opm-power><port-config xmlns=\"" PNC_NS "\">");
		for (i = 0; i < n; i++)
			add(&x, "<port><port-id>%u</port-id><status/></port>",
			    ports[i]);
		add(&x, "</port-config>");
	}
	if (x.len >= x.cap) {
		free(x.s);
		return (NULL);
	}
	return (x.s);
}

/*
 * The batch b (if not NULL) and then a read of the map and of ports'
 * state (if asked), sent together.  Returns the batch's outcome (0
 * without one); the map's in *mrv, the states' in *srv.
 */
static int
run(struct pnc *p, const struct drv_batch *b, uint16_t *map, size_t nports,
    const uint16_t *ports, size_t n, struct drv_port_state *st, int *mrv,
    int *srv)
{
	static const char *const what[] = {"edit-config", "get"};
	uint64_t         deadline = mono_ms() + (uint64_t)p->timeout_ms;
	struct nc_rpc   *rpc[2] = {NULL, NULL};
	struct lyd_node *data = NULL;
	char            *ex = NULL, *gx = NULL;
	int              res[2] = {0, 0}, rv, read = map || n, k = 0;

	*mrv = *srv = read ? 0 : -ENOTSUP;
	p->err[0] = '\0';
	if ((rv = ensure(p, deadline)) != 0)
		return (*mrv = *srv = rv);
	if (map != NULL && nports != p->nports)
		return (*mrv = *srv = -EINVAL);
	rv = -ENOMEM;
	if (b != NULL &&
	    ((ex = edit_xml(b)) == NULL ||
	     (rpc[k++] = nc_rpc_edit(
	          NC_DATASTORE_RUNNING, NC_RPC_EDIT_DFLTOP_UNKNOWN,
	          NC_RPC_EDIT_TESTOPT_UNKNOWN, NC_RPC_EDIT_ERROPT_UNKNOWN, ex,
	          NC_PARAMTYPE_CONST)) == NULL))
		goto done;
	if (read && ((gx = get_xml(map != NULL, ports, n)) == NULL ||
	             (rpc[k++] = nc_rpc_get(gx, NC_WD_UNKNOWN,
	                                    NC_PARAMTYPE_CONST)) == NULL))
		goto done;
	rv =
	    xchg(p, rpc, b ? what : what + 1, res, (size_t)k, &data, deadline);
	if (read) {
		*mrv = *srv = res[k - 1];
		if (*mrv == 0 && map)
			*mrv = pnc_map(data, p->nports, map, p->err,
			               sizeof(p->err));
		if (*srv == 0 && n)
			*srv = pnc_port_states(data, ports, n, st, p->err,
			                       sizeof(p->err));
	}
	rv = b ? res[0] : 0;
done:
	for (k = 0; k < 2; k++)
		nc_rpc_free(rpc[k]);
	lyd_free_all(data);
	free(ex);
	free(gx);
	return (rv);
}

/* ---- the ops ------------------------------------------------------------ */

static int
pnc_open(void *priv, const char *url, const struct drv_opts *o)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	struct pnc           *p = priv;

	pthread_once(&once, init_once);
	p->fd = -1;
	if (strncmp(url, "netconf://", 10) == 0)
		url += 10;
	if (net_hostport(url, PNC_DEFPORT, p->host, sizeof(p->host), p->port,
	                 sizeof(p->port)) != 0 ||
	    o->user == NULL || o->password == NULL ||
	    strlen(o->user) >= sizeof(p->user) ||
	    strlen(o->password) >= sizeof(p->pass) || o->known_hosts == NULL ||
	    strlen(o->known_hosts) >= sizeof(p->known_hosts))
		return (-EINVAL);
	snprintf(p->user, sizeof(p->user), "%s", o->user);
	snprintf(p->pass, sizeof(p->pass), "%s", o->password);
	snprintf(p->known_hosts, sizeof(p->known_hosts), "%s", o->known_hosts);
	p->timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : 5000;
	p->cancel_fd = o->cancel_fd;
	p->trace = o->trace;
	p->trace_arg = o->trace_arg;
	p->switch_ms = o->switch_ms;
	return (ensure(p, mono_ms() + (uint64_t)p->timeout_ms));
}

static void
pnc_close(void *priv)
{
	struct pnc    *p = priv;
	struct nc_rpc *rpc;

	/* close-session, as a client that leaves tidily does. */
	if (p->ns != NULL && (rpc = nc_rpc_act_generic_xml(
	                          "<close-session xmlns=\"urn:ietf:params:xml:"
	                          "ns:netconf:base:1.0\"/>",
	                          NC_PARAMTYPE_CONST)) != NULL) {
		uint64_t id;

		nc_send_rpc(p->ns, rpc, 500, &id);
		nc_rpc_free(rpc);
	}
	drop(p);
}

static int
pnc_caps(void *priv, struct drv_caps *c)
{
	struct pnc *p = priv;
	int         rv;

	if ((rv = ensure(p, mono_ms() + (uint64_t)p->timeout_ms)) != 0)
		return (rv);
	memset(c, 0, sizeof(*c));
	c->nports = p->nports;
	c->switch_ms = p->switch_ms;
	return (0);
}

static int
pnc_apply(void *priv, const struct drv_batch *b)
{
	int mrv, srv;

	return (run(priv, b, NULL, 0, NULL, 0, NULL, &mrv, &srv));
}

static int
retryable(int rv)
{
	return (rv == -ECONNRESET || rv == -ETIMEDOUT || rv == -DRV_EPROTO);
}

/* Reads are idempotent: one more try on a fresh session. */
static int
pnc_read_map_state(void *priv, uint16_t *map, size_t nports,
                   const uint16_t *ports, size_t n, struct drv_port_state *st,
                   int *srv)
{
	int mrv;

	run(priv, NULL, map, nports, ports, n, st, &mrv, srv);
	if (retryable(mrv) || retryable(*srv))
		run(priv, NULL, map, nports, ports, n, st, &mrv, srv);
	return (mrv);
}

static int
pnc_read_map(void *priv, uint16_t *map, size_t nports)
{
	int srv;

	return (pnc_read_map_state(priv, map, nports, NULL, 0, NULL, &srv));
}

static int
pnc_ports_state(void *priv, const uint16_t *ports, size_t n,
                struct drv_port_state *st)
{
	int srv;

	pnc_read_map_state(priv, NULL, 0, ports, n, st, &srv);
	return (srv);
}

static int
pnc_apply_read(void *priv, const struct drv_batch *b, uint16_t *map,
               size_t nports, const uint16_t *ports, size_t n,
               struct drv_port_state *st, int *mrv, int *srv)
{
	return (run(priv, b, map, nports, ports, n, st, mrv, srv));
}

static const char *
pnc_last_error(void *priv)
{
	struct pnc *p = priv;

	return (p->err[0] ? p->err : NULL);
}

const struct drv_ops drv_polatis_netconf_ops = {
    .name = "polatis-netconf",
    .priv_size = sizeof(struct pnc),
    .open = pnc_open,
    .close = pnc_close,
    .caps = pnc_caps,
    .apply = pnc_apply,
    .read_map = pnc_read_map,
    .ports_state = pnc_ports_state,
    .read_map_state = pnc_read_map_state,
    .apply_read = pnc_apply_read,
    .last_error = pnc_last_error,
};

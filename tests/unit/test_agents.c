/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_agents.c: ocsd's agent registry (agents.c, agjoin.c,
 * aglink.c) in one process, joined by the agent's own session code
 * (agent/session.c) and by hand (proto/amsg.h): the join and its proof,
 * a second join of a live host, a hung host (no heartbeat), a rejoin
 * that replaces the lost record, an eviction and a closed link; on the
 * agent link, the attach as a proof that no replay passes, one link at
 * a time, messages out of place, TLS; a shutdown racing agents that
 * go; and a probe's Heard (ocsctl check) checked before it is taken.  The runner is this test: it registers callbacks and records what
 * the registry tells it.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <nng/nng.h>
#include <nng/protocol/reqrep0/req.h>

#include "agent/session.h"
#include "ocsd/agents.h"
#include "ocsd/conf.h"
#include "ocsd/run.h"
#include "proto/base/mono.h"
#include "proto/link.h"

#define SECRET "0123456789abcdef0123456789abcdef"
#define HB_MS  250

struct fx {
	struct ocsd    d;
	struct agents *ag;
	char           dir[64];
	char           join[128]; /* where agents join */
	char           ca[128];   /* with TLS: the CA file */
	uint32_t       nlost, npoll;
	char           last_lost[64];
};

/* The runner is this test: no run is ever in progress (reply.c asks). */
int
run_where(const struct ocsd *d, uint64_t *id, uint32_t *phase)
{
	(void)d, (void)id, (void)phase;
	return (0);
}

int
run_planning(const struct ocsd *d, char *buf, size_t len)
{
	(void)d, (void)buf, (void)len;
	return (0);
}

static void
ev_poll(void *arg, struct agent *a)
{
	struct fx *f = arg;

	(void)a;
	f->npoll++;
}

static void
ev_lost(void *arg, struct agent *a, const char *why)
{
	(void)why;
	struct fx *f = arg;

	f->nlost++;
	snprintf(f->last_lost, sizeof(f->last_lost), "%s", a->host);
}

/* A certificate for 127.0.0.1, its key beside it: the CA agents trust. */
static int
make_cert(struct fx *f)
{
	char cmd[600];

	snprintf(f->ca, sizeof(f->ca), "%s/agents.pem", f->dir);
	snprintf(cmd, sizeof(cmd),
	         "cd %s && openssl req -x509 -newkey rsa:2048 -nodes -days 2 "
	         "-subj /CN=127.0.0.1 -keyout k.pem -out c.pem 2>/dev/null "
	         "&& cat c.pem k.pem > agents.pem",
	         f->dir);
	return (system(cmd) == 0 ? 0 : -1);
}

static int
setup_with(void **state, int tls, int hb_ms)
{
	struct fx *f = calloc(1, sizeof(*f));
	char       conf[1024], path[128], err[256], extra[256] = "";
	int        fd;

	if (f == NULL)
		return (-1);
	snprintf(f->dir, sizeof(f->dir), "/tmp/ocs-test-agents-XXXXXX");
	if (mkdtemp(f->dir) == NULL)
		return (-1);
	snprintf(path, sizeof(path), "%s/secret", f->dir);
	if ((fd = open(path, O_WRONLY | O_CREAT, 0600)) < 0 ||
	    write(fd, SECRET, strlen(SECRET)) < 0 || close(fd) != 0)
		return (-1);
	snprintf(f->join, sizeof(f->join), "ipc://%s/ag.sock", f->dir);
	if (tls) {
		if (make_cert(f) != 0)
			return (-1);
		snprintf(f->join, sizeof(f->join), "tls+tcp://127.0.0.1:%d",
		         20000 + (int)(getpid() % 20000));
		snprintf(extra, sizeof(extra), "tls_cert_key = %s\n", f->ca);
	}
	snprintf(conf, sizeof(conf),
	         "[switch]\ndriver = emu\nports = 8\n"
	         "[agents]\nlisten = %s\nsecret_file = %s\n"
	         "heartbeat = %dms\n%s"
	         "[cabling]\nh0.0 = 1 9\nh0.1 = 2 10\nh1.0 = 3 11\n"
	         "h1.1 = 4 12\n",
	         f->join, path, hb_ms, extra);
	if (conf_parse(conf, "t.conf", &f->d.conf, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s\n", err);
		return (-1);
	}
	nng_mtx_alloc(&f->d.mtx);
	nng_cv_alloc(&f->d.cv, f->d.mtx);
	if (agents_open(&f->d, &f->ag) != 0)
		return (-1);
	agents_notify(f->ag, &(struct agents_events){
	                         .arg = f, .poll = ev_poll, .lost = ev_lost});
	*state = f;
	return (0);
}

/* Heartbeats of HB_MS: hosts are lost within a test's time. */
static int
setup(void **state)
{
	return (setup_with(state, 0, HB_MS));
}

/* Tests that do not watch heartbeats have long ones: their own steps
 * (a TLS handshake, an RSA key made by openssl, 40 rounds of joins) may
 * outlast three short ones on a loaded machine, and the host be lost. */
static int
setup_tls(void **state)
{
	return (setup_with(state, 1, 2000));
}

static int
setup_slow_hb(void **state)
{
	return (setup_with(state, 0, 2000));
}

static int
teardown(void **state)
{
	struct fx *f = *state;
	char       cmd[128];

	agents_close(f->ag);
	conf_free(f->d.conf);
	nng_cv_free(f->d.cv);
	nng_mtx_free(f->d.mtx);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", f->dir);
	free(f);
	return (system(cmd) == 0 ? 0 : -1);
}

static void
sess_init(struct fx *f, struct session *s, const char *host,
          const char *secret)
{
	char err[256];

	memset(s, 0, sizeof(*s));
	snprintf(s->controller, sizeof(s->controller), "%s", f->join);
	snprintf(s->tls_ca, sizeof(s->tls_ca), "%s", f->ca);
	snprintf(s->host, sizeof(s->host), "%s", host);
	memcpy(s->secret, secret, strlen(secret));
	s->secret_len = strlen(secret);
	s->ntrx = 2;
	s->fibres_up = 2;
	s->timeout_ms = 2000;
	assert_int_equal(session_open(s, err, sizeof(err)), 0);
}

/* The registry's view of host, under the lock as the daemon reads it:
 * its live record if it has one. */
static int
info_of(struct fx *f, const char *host, struct agent_info *out)
{
	struct agent_info ai[16];
	uint32_t          n, i;
	int               found = 0;

	nng_mtx_lock(f->d.mtx);
	n = agents_snapshot(&f->d, ai, 16);
	nng_mtx_unlock(f->d.mtx);
	for (i = 0; i < n; i++)
		if (strcmp(ai[i].host, host) == 0 &&
		    (!found || strcmp(ai[i].state, "lost") != 0)) {
			*out = ai[i];
			found = 1;
		}
	return (found);
}

static int
state_of(struct fx *f, const char *host, char *out, size_t len)
{
	struct agent_info ai;

	if (!info_of(f, host, &ai))
		return (0);
	snprintf(out, len, "%s", ai.state);
	return (1);
}

static uint32_t
active(struct fx *f)
{
	struct agent *a[8];
	uint32_t      n;

	nng_mtx_lock(f->d.mtx);
	n = agents_active(&f->d, a, 8);
	nng_mtx_unlock(f->d.mtx);
	return (n);
}

static void
wait_lost(struct fx *f, uint32_t n)
{
	int i;

	for (i = 0; i < 400 && f->nlost < n; i++)
		mono_sleep_ms(5);
	assert_int_equal(f->nlost, n);
}

static void
test_agents_join_and_refusals(void **state)
{
	struct fx        *f = *state;
	struct session    s0, s1, bad, dup;
	struct agent_info ai;
	char              err[256], st[32];

	sess_init(f, &s0, "h0", SECRET);
	assert_int_equal(session_join(&s0, err, sizeof(err)), 0);
	/* The ports come from the cabling, resolved at the join. */
	assert_int_equal(s0.ingress[1], 2);
	assert_int_equal(s0.egress[1], 10);
	assert_true(info_of(f, "h0", &ai));
	assert_string_equal(ai.state, "idle");
	assert_true(ai.link);

	sess_init(f, &bad, "h1", "not the secret at all, no");
	assert_int_equal(session_join(&bad, err, sizeof(err)), -AMSG_EREFUSED);
	assert_non_null(strstr(err, "wrong proof of the secret"));
	assert_false(state_of(f, "h1", st, sizeof(st)));

	sess_init(f, &s1, "h9", SECRET); /* not cabled */
	assert_int_equal(session_join(&s1, err, sizeof(err)), -AMSG_EREFUSED);
	assert_non_null(strstr(err, "no cabling for h9.0"));

	/* A host whose link is up elsewhere is not replaced, and the one
	 * refused may try again (it is not told to give up). */
	sess_init(f, &dup, "h0", SECRET);
	assert_int_equal(session_join(&dup, err, sizeof(err)), -EEXIST);
	assert_non_null(strstr(err, "has already joined"));
	assert_int_equal(f->nlost, 0);
	assert_int_equal(active(f), 1);
	session_close(&dup);
	session_close(&s1);
	session_close(&bad);
	session_close(&s0);
}

/* A host that stops asking (SIGSTOP keeps its link) is lost after three
 * heartbeats; it joins again and replaces its lost self. */
static void
test_agents_hung_host_lost_then_replaced(void **state)
{
	struct fx          *f = *state;
	struct session      s;
	struct session_plan sp;
	char                err[256], st[32];
	uint64_t            t0, t_poll;

	sess_init(f, &s, "h1", SECRET);
	assert_int_equal(session_join(&s, err, sizeof(err)), 0);
	/* One poll: held for a heartbeat, then answered Idle. */
	t_poll = t0 = mono_ms();
	assert_int_equal(session_poll(&s, &sp, err, sizeof(err)), 0);
	assert_true(mono_ms() - t0 >= HB_MS / 2);
	assert_int_equal(f->npoll, 1);
	/* Then silence. */
	for (t0 = mono_ms(); mono_ms() - t0 < 40 * HB_MS;) {
		mono_sleep_ms(HB_MS / 2);
		assert_true(state_of(f, "h1", st, sizeof(st)));
		if (strcmp(st, "lost") == 0)
			break;
	}
	assert_string_equal(st, "lost");
	/* Not before three heartbeats since it was last heard, which is no
	 * earlier than the poll was sent (a late answer on a busy machine
	 * shortens the silence seen from here, not from ocsd). */
	assert_true(mono_ms() - t_poll >= 2 * HB_MS);
	assert_int_equal(f->nlost, 1);
	assert_string_equal(f->last_lost, "h1");
	assert_int_equal(active(f), 0);
	/* The same host joins again on the same connection. */
	assert_int_equal(session_join(&s, err, sizeof(err)), 0);
	assert_true(state_of(f, "h1", st, sizeof(st)));
	assert_string_equal(st, "idle");
	assert_int_equal(active(f), 1);
	session_close(&s);
}

static void
test_agents_evict_and_close(void **state)
{
	struct fx          *f = *state;
	struct session      s0, s1;
	struct session_plan sp;
	char                err[256], st[32];

	sess_init(f, &s0, "h0", SECRET);
	sess_init(f, &s1, "h1", SECRET);
	assert_int_equal(session_join(&s0, err, sizeof(err)), 0);
	assert_int_equal(session_join(&s1, err, sizeof(err)), 0);
	assert_int_equal(active(f), 2);
	nng_mtx_lock(f->d.mtx);
	assert_int_equal(agents_evict(&f->d, "h0", err, sizeof(err)), 0);
	assert_int_equal(agents_evict(&f->d, "h7", err, sizeof(err)), -ENOENT);
	nng_mtx_unlock(f->d.mtx);
	assert_string_equal(err, "evict: no agent of host \"h7\" has joined");
	assert_int_equal(f->nlost, 1);
	assert_string_equal(f->last_lost, "h0");
	/* Evicted, its link is closed: the next poll says so, and the
	 * agent joins again. */
	assert_int_equal(session_poll(&s0, &sp, err, sizeof(err)),
	                 -ECONNRESET);
	assert_non_null(strstr(err, "ocsd closed it"));
	/* A closed link is a loss at once. */
	session_close(&s1);
	wait_lost(f, 2);
	assert_string_equal(f->last_lost, "h1");
	assert_true(state_of(f, "h1", st, sizeof(st)));
	assert_string_equal(st, "lost");
	assert_int_equal(active(f), 0);
	session_close(&s0);
}

/* ---- the link, by hand --------------------------------------------------- */

/* Join as host by hand on a REQ socket of our own: *j to attach with. */
static void
join_by_hand(struct fx *f, nng_socket *req, const char *host,
             struct amsg_joined *j)
{
	struct amsg_host h = {.host = host,
	                      .ntrx = 2,
	                      .secret = (const uint8_t *)SECRET,
	                      .slen = strlen(SECRET)};
	struct amsg_out  o;
	Ocs__Msg        *ch, *rep;
	char             err[256];

	assert_int_equal(nng_req0_open(req), 0);
	assert_int_equal(link_dial(*req, f->join, f->ca, 0, err, sizeof(err)),
	                 0);
	amsg_hello(&o, 1, &h);
	assert_int_equal(msg_call(*req, &o.m, "ocsd", &ch, err, sizeof(err)),
	                 0);
	assert_int_equal(amsg_join(&o, 2, &h, ch, err, sizeof(err)), 0);
	assert_int_equal(msg_call(*req, &o.m, "ocsd", &rep, err, sizeof(err)),
	                 0);
	assert_int_equal(amsg_joined(rep, &h, f->join, j, err, sizeof(err)),
	                 0);
	msg_free(ch);
	msg_free(rep);
}

/* Connect to the link and read its Challenge. */
static Ocs__Msg *
challenged(struct alink_conn *c, const struct amsg_joined *j)
{
	Ocs__Msg *ch;
	char      err[256];

	assert_int_equal(
	    alink_connect(c, j->link, NULL, 2000, err, sizeof(err)), 0);
	assert_int_equal(
	    alink_recv(c, mono_ms() + 2000, &ch, err, sizeof(err)), 1);
	assert_int_equal(ch->body_case, OCS__MSG__BODY_CHALLENGE);
	return (ch);
}

/* The answer to m on c: its body, and the error's text in why. */
static int
exchange(struct alink_conn *c, const Ocs__Msg *m, char *why, size_t len)
{
	Ocs__Msg *rep;
	char      err[256];
	int       b;

	if (alink_call(c, m, 0, 2000, &rep, err, sizeof(err)) != 0) {
		snprintf(why, len, "%s", err);
		return (-1);
	}
	b = rep->body_case;
	snprintf(why, len, "%s",
	         b == OCS__MSG__BODY_ERROR ? rep->error->text : "");
	msg_free(rep);
	return (b);
}

/*
 * The attach is a proof for this join and this connection's nonce: the
 * frame a sniffer saw on one link is refused on another; a second good
 * attach while the first link is up is refused, counted and said, and
 * the live link goes on; a stranger's first frame that is no Attach, and
 * a Poll on the join socket, are refused.
 */
static void
test_agents_attach_is_a_proof(void **state)
{
	struct fx         *f = *state;
	struct amsg_host   h = {.host = "h0",
	                        .ntrx = 2,
	                        .secret = (const uint8_t *)SECRET,
	                        .slen = strlen(SECRET)};
	struct amsg_joined j;
	struct amsg_out    oa, ob;
	struct alink_conn  a, b, c;
	struct agent_info  ai;
	nng_socket         req;
	Ocs__Msg          *ch, *rep;
	char               why[256];

	join_by_hand(f, &req, "h0", &j);
	/* Link a attaches as it should. */
	ch = challenged(&a, &j);
	assert_int_equal(amsg_attach(&oa, 3, ch, &h, &j, why, sizeof(why)), 0);
	msg_free(ch);
	assert_int_equal(exchange(&a, &oa.m, why, sizeof(why)),
	                 OCS__MSG__BODY_IDLE);
	/* Link b replays a's Attach, byte for byte: another nonce. */
	msg_free(challenged(&b, &j));
	assert_int_equal(exchange(&b, &oa.m, why, sizeof(why)),
	                 OCS__MSG__BODY_ERROR);
	assert_non_null(
	    strstr(why, "wrong proof for this join and this link"));
	alink_disconnect(&b);
	/* Link c proves it well, but a's is up: refused, not replaced. */
	ch = challenged(&c, &j);
	assert_int_equal(amsg_attach(&ob, 3, ch, &h, &j, why, sizeof(why)), 0);
	msg_free(ch);
	assert_int_equal(exchange(&c, &ob.m, why, sizeof(why)),
	                 OCS__MSG__BODY_ERROR);
	assert_non_null(strstr(why, "its link from"));
	alink_disconnect(&c);
	assert_true(info_of(f, "h0", &ai));
	assert_int_equal(ai.attach_refused, 1);
	assert_true(ai.link);
	assert_int_equal(f->nlost, 0);
	/* a goes on: a Poll is held, then answered Idle. */
	amsg_poll(&oa, 4, j.agent_id, 2, NULL);
	assert_int_equal(exchange(&a, &oa.m, why, sizeof(why)),
	                 OCS__MSG__BODY_IDLE);
	/* A Ready with no run is refused on the link, which stays. */
	assert_int_equal(amsg_ready(&oa, 5, 7, j.agent_id, 0, NULL, 0, 0, 0),
	                 0);
	assert_int_equal(exchange(&a, &oa.m, why, sizeof(why)),
	                 OCS__MSG__BODY_ERROR);
	assert_non_null(strstr(why, "no run in progress"));
	/* A Poll on the join socket is out of place there. */
	amsg_poll(&ob, 6, j.agent_id, 2, NULL);
	assert_int_equal(msg_call(req, &ob.m, "ocsd", &rep, why, sizeof(why)),
	                 0);
	assert_int_equal(rep->body_case, OCS__MSG__BODY_ERROR);
	assert_non_null(strstr(rep->error->text, "unexpected on the join"));
	msg_free(rep);
	/* A stranger whose first frame is not an Attach is shown out. */
	msg_free(challenged(&b, &j));
	assert_int_equal(exchange(&b, &ob.m, why, sizeof(why)),
	                 OCS__MSG__BODY_ERROR);
	assert_non_null(strstr(why, "before its attach"));
	alink_disconnect(&b);
	/* a's end is the agent's: lost at once. */
	alink_disconnect(&a);
	wait_lost(f, 1);
	nng_close(req);
}

/* Over TLS: the join, the link (its certificate checked), a poll. */
static void
test_agents_tls_link(void **state)
{
	struct fx          *f = *state;
	struct session      s;
	struct session_plan sp;
	struct agent_info   ai;
	char                err[256];

	sess_init(f, &s, "h0", SECRET);
	if (session_join(&s, err, sizeof(err)) != 0)
		fail_msg("join: %s", err);
	assert_non_null(strstr(s.link.url, "tls+tcp://127.0.0.1:"));
	assert_int_equal(session_poll(&s, &sp, err, sizeof(err)), 0);
	assert_true(info_of(f, "h0", &ai));
	assert_true(ai.link);
	assert_int_equal(ai.readys, 0);
	/* A CA that did not sign ocsd's certificate: the link is refused
	 * before anything is said on it. */
	{
		struct amsg_joined j;
		struct alink_conn  c;
		struct ssl_ctx_st *other;
		nng_socket         req;
		char               cmd[300], path[128];

		snprintf(path, sizeof(path), "%s/other.pem", f->dir);
		snprintf(cmd, sizeof(cmd),
		         "openssl req -x509 -newkey rsa:2048 -nodes -days 2 "
		         "-subj /CN=127.0.0.1 -keyout /dev/null -out %s "
		         "2>/dev/null",
		         path);
		assert_int_equal(system(cmd), 0);
		assert_int_equal(
		    alink_tls_client(path, &other, err, sizeof(err)), 0);
		join_by_hand(f, &req, "h1", &j);
		assert_int_equal(
		    alink_connect(&c, j.link, other, 2000, err, sizeof(err)),
		    -EPROTO);
		assert_non_null(strstr(err, "certificate"));
		assert_int_equal(
		    alink_connect(&c, j.link, NULL, 2000, err, sizeof(err)),
		    -EINVAL);
		alink_tls_free(other);
		nng_close(req);
	}
	session_close(&s);
}

/* ---- shutdown ------------------------------------------------------------ */

struct leaver {
	struct session *s;
	int             n;
};

static void *
leave(void *arg)
{
	struct leaver *l = arg;
	int            i;

	for (i = 0; i < l->n; i++)
		session_close(&l->s[i]);
	return (NULL);
}

/*
 * ocsd stops while its agents go: every link closing (each a loss,
 * under the lock, on the link thread) races agents_close.  The registry
 * lets go of every link under the lock before the link thread frees any
 * (a loss once reached a link freed under it: ASan's use-after-free).
 * Many rounds, so that the race is met.
 */
/* A Heard is taken only for the agent's own probe, whole and sane. */
static void
test_agents_probe_heard_checked(void **state)
{
	struct agent   a;
	Ocs__Heard     h;
	Ocs__HeardFrom f[2], *fp[2] = {&f[0], &f[1]};
	uint32_t       unsent[] = {1};
	char           err[300];

	(void)state;
	memset(&a, 0, sizeof(a));
	snprintf(a.host, sizeof(a.host), "h04");
	a.ntrx = 2;
	ocs__heard__init(&h);
	ocs__heard_from__init(&f[0]);
	ocs__heard_from__init(&f[1]);
	f[0] = (Ocs__HeardFrom){f[0].base, 1, "h05", 0};
	f[1] = (Ocs__HeardFrom){f[1].base, 0, "h06", 1};
	h.nonce = 9;
	h.heard = fp;
	h.n_heard = 2;
	h.unsent = unsent;
	h.n_unsent = 1;
	/* No probe asked of it: refused, nothing taken. */
	assert_int_equal(agents_probe_heard(&a, &h, err, sizeof(err)),
	                 -MSG_EFIELD);
	assert_non_null(strstr(err, "nonce 9 answers no probe"));
	a.probe.nonce = 9;
	a.probe.sent = 1;
	/* A receiver it does not have, or a name no host has. */
	f[0].trx = 2;
	assert_int_equal(agents_probe_heard(&a, &h, err, sizeof(err)),
	                 -MSG_EFIELD);
	assert_non_null(strstr(err, "not a transceiver of h04"));
	f[0].trx = 1;
	f[1].host = "h 6";
	assert_int_equal(agents_probe_heard(&a, &h, err, sizeof(err)),
	                 -MSG_EFIELD);
	assert_false(a.probe.answered);
	f[1].host = "h06";
	assert_int_equal(agents_probe_heard(&a, &h, err, sizeof(err)), 0);
	assert_true(a.probe.answered);
	assert_int_equal(a.probe.nheard, 2);
	assert_string_equal(a.probe.heard[1].host, "h06");
	assert_int_equal(a.probe.heard[1].from_trx, 1);
	assert_int_equal(a.probe.unsent, 2);
}

static void
test_agents_close_while_agents_go(void **state)
{
	struct fx     *f = *state;
	struct session s[2];
	struct leaver  l = {s, 2};
	pthread_t      t;
	char           err[256];
	int            round, i;

	for (round = 0; round < 40; round++) {
		for (i = 0; i < 2; i++) {
			sess_init(f, &s[i], i ? "h1" : "h0", SECRET);
			if (session_join(&s[i], err, sizeof(err)) != 0)
				fail_msg("round %d, h%d: %s", round, i, err);
		}
		assert_int_equal(pthread_create(&t, NULL, leave, &l), 0);
		agents_close(f->ag);
		assert_int_equal(pthread_join(t, NULL), 0);
		assert_null(f->d.ag);
		assert_int_equal(agents_open(&f->d, &f->ag), 0);
		agents_notify(f->ag, &(struct agents_events){.arg = f,
		                                             .poll = ev_poll,
		                                             .lost = ev_lost});
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_agents_join_and_refusals,
	                                    setup, teardown),
	    cmocka_unit_test_setup_teardown(
	        test_agents_hung_host_lost_then_replaced, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_agents_evict_and_close, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_agents_attach_is_a_proof,
	                                    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_agents_tls_link, setup_tls,
	                                    teardown),
	    cmocka_unit_test(test_agents_probe_heard_checked),
	    cmocka_unit_test_setup_teardown(test_agents_close_while_agents_go,
	                                    setup_slow_hb, teardown),
	};

	/* As ocsd and ocs-agent do: a TLS peer that hung up (the wrong CA
	 * refused) is an error on the write, not the end of the process. */
	signal(SIGPIPE, SIG_IGN);
	return (cmocka_run_group_tests_name("agents", tests, NULL, NULL));
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_agents.c: ocsd's agent registry (agents.c) in one
 * process, joined by the agent's own session code (agent/session.c) over
 * an ipc socket: the join and its proof, a second join of a live host, a
 * hung host (no heartbeat), a rejoin that replaces the lost record, an
 * eviction and a closed connection; with a barrier link, the attach, a
 * Ready on it, and a host whose link alone closed.  The runner is this test: it
 * registers callbacks and records what the registry tells it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/session.h"
#include "ocsd/agents.h"
#include "ocsd/run.h"
#include "proto/base/mono.h"

#define SECRET "0123456789abcdef0123456789abcdef"
#define HB_MS  100

struct fx {
	struct ocsd    d;
	struct agents *ag;
	char           dir[64];
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

static void
ev_poll(void *arg, struct agent *a)
{
	struct fx *f = arg;

	(void)a;
	f->npoll++;
}

static void
ev_lost(void *arg, struct agent *a)
{
	struct fx *f = arg;

	f->nlost++;
	snprintf(f->last_lost, sizeof(f->last_lost), "%s", a->host);
}

static int
setup_with(void **state, int bar)
{
	struct fx *f = calloc(1, sizeof(*f));
	char       conf[1024], path[128], err[256], bl[128] = "";
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
	if (bar)
		snprintf(bl, sizeof(bl), "barrier = ipc://%s/bar.sock\n",
		         f->dir);
	snprintf(conf, sizeof(conf),
	         "[switch]\ndriver = emu\nports = 8\n"
	         "[agents]\nlisten = ipc://%s/ag.sock\n"
	         "events = ipc://%s/ev.sock\nsecret_file = %s\n"
	         "heartbeat = %dms\n%s"
	         "[cabling]\nh0.0 = 1 9\nh0.1 = 2 10\nh1.0 = 3 11\n"
	         "h1.1 = 4 12\n",
	         f->dir, f->dir, path, HB_MS, bl);
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

static int
setup(void **state)
{
	return (setup_with(state, 0));
}

static int
setup_bar(void **state)
{
	return (setup_with(state, 1));
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
	snprintf(s->controller, sizeof(s->controller), "ipc://%s/ag.sock",
	         f->dir);
	snprintf(s->host, sizeof(s->host), "%s", host);
	memcpy(s->secret, secret, strlen(secret));
	s->secret_len = strlen(secret);
	s->ntrx = 2;
	s->fibres_up = 2;
	s->timeout_ms = 2000;
	assert_int_equal(session_open(s, err, sizeof(err)), 0);
}

/* The registry's view, under the lock as the daemon reads it. */
static void
info(struct fx *f, struct reply *rp)
{
	reply_init(rp);
	nng_mtx_lock(f->d.mtx);
	agents_info(&f->d, rp);
	nng_mtx_unlock(f->d.mtx);
}

/* Host's state. */
static int
state_of(struct fx *f, const char *host, char *out, size_t len)
{
	struct reply rp;
	size_t       i;
	int          found = 0;

	info(f, &rp);
	for (i = 0; i < rp.r.n_agents; i++)
		if (strcmp(rp.r.agents[i]->host, host) == 0 &&
		    (!found || strcmp(rp.r.agents[i]->state, "lost") != 0)) {
			snprintf(out, len, "%s", rp.r.agents[i]->state);
			found = 1;
		}
	reply_free(&rp);
	return (found);
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
test_agents_join_and_refusals(void **state)
{
	struct fx     *f = *state;
	struct session s0, s1, bad, dup;
	char           err[256], st[32];

	sess_init(f, &s0, "h0", SECRET);
	assert_int_equal(session_join(&s0, err, sizeof(err)), 0);
	/* The ports come from the cabling, resolved at the join. */
	assert_int_equal(s0.ingress[1], 2);
	assert_int_equal(s0.egress[1], 10);
	assert_true(state_of(f, "h0", st, sizeof(st)));
	assert_string_equal(st, "idle");

	sess_init(f, &bad, "h1", "not the secret at all, no");
	assert_int_equal(session_join(&bad, err, sizeof(err)), -SESS_EREFUSED);
	assert_non_null(strstr(err, "wrong proof of the secret"));
	assert_false(state_of(f, "h1", st, sizeof(st)));

	sess_init(f, &s1, "h9", SECRET); /* not cabled */
	assert_int_equal(session_join(&s1, err, sizeof(err)), -SESS_EREFUSED);
	assert_non_null(strstr(err, "no cabling for h9.0"));

	/* A host still connected elsewhere is not replaced. */
	sess_init(f, &dup, "h0", SECRET);
	assert_int_equal(session_join(&dup, err, sizeof(err)), -SESS_EREFUSED);
	assert_non_null(strstr(err, "has already joined"));
	assert_int_equal(f->nlost, 0);
	assert_int_equal(active(f), 1);
	session_close(&dup);
	session_close(&s1);
	session_close(&bad);
	session_close(&s0);
}

/* A host that stops asking (SIGSTOP keeps its connection) is lost after
 * three heartbeats; it joins again and replaces its lost self. */
static void
test_agents_hung_host_lost_then_replaced(void **state)
{
	struct fx          *f = *state;
	struct session      s;
	struct session_plan sp;
	char                err[256], st[32];
	uint64_t            t0;

	sess_init(f, &s, "h1", SECRET);
	assert_int_equal(session_join(&s, err, sizeof(err)), 0);
	/* One poll: held for a heartbeat, then answered Idle. */
	t0 = mono_ms();
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
	assert_true(mono_ms() - t0 >= 2 * HB_MS);
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
	struct fx     *f = *state;
	struct session s0, s1;
	char           err[256], st[32];
	int            i;

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
	/* Evicted, its next poll is told to join again. */
	{
		struct session_plan sp;

		assert_int_equal(session_poll(&s0, &sp, err, sizeof(err)),
		                 -EPERM);
	}
	/* A closed connection is a loss at once (nng's pipe event). */
	session_close(&s1);
	for (i = 0; i < 200 && f->nlost < 2; i++)
		mono_sleep_ms(5);
	assert_int_equal(f->nlost, 2);
	assert_string_equal(f->last_lost, "h1");
	assert_true(state_of(f, "h1", st, sizeof(st)));
	assert_string_equal(st, "lost");
	assert_int_equal(active(f), 0);
	session_close(&s0);
}

/* Whether host is attached to the barrier link, and its Readys there. */
static int
on_link(struct fx *f, const char *host, uint64_t *readys)
{
	struct reply rp;
	size_t       i;
	int          on = -1;

	info(f, &rp);
	for (i = 0; i < rp.r.n_agents; i++)
		if (strcmp(rp.r.agents[i]->host, host) == 0 &&
		    strcmp(rp.r.agents[i]->state, "lost") != 0) {
			on = rp.r.agents[i]->barrier_link;
			*readys = rp.r.agents[i]->barrier_readys;
		}
	reply_free(&rp);
	return (on);
}

static void
test_agents_barrier_link(void **state)
{
	struct fx     *f = *state;
	struct session s;
	char           err[256], st[32];
	uint64_t       n = 9;
	int            i;

	sess_init(f, &s, "h0", SECRET);
	assert_int_equal(session_join(&s, err, sizeof(err)), 0);
	assert_true(s.have_bar);
	assert_int_equal(on_link(f, "h0", &n), 1);
	assert_int_equal(n, 0);
	/* A Ready goes on the link; with no run it is refused there, and
	 * the link stays. */
	assert_int_equal(session_ready(&s, 0, NULL, 0, 0, 0, err, sizeof(err)),
	                 -OCSD_EREQUEST);
	assert_non_null(strstr(err, "no run in progress"));
	assert_true(s.have_bar);
	assert_int_equal(on_link(f, "h0", &n), 1);
	/* The link alone closes: the host is lost at a tick, and says so. */
	close(s.bar_fd);
	s.have_bar = 0;
	for (i = 0; i < 200 && f->nlost < 1; i++)
		mono_sleep_ms(5);
	assert_int_equal(f->nlost, 1);
	assert_true(state_of(f, "h0", st, sizeof(st)));
	assert_string_equal(st, "lost");
	/* It joins again and attaches anew. */
	assert_int_equal(session_join(&s, err, sizeof(err)), 0);
	assert_true(s.have_bar);
	assert_int_equal(on_link(f, "h0", &n), 1);
	session_close(&s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_agents_join_and_refusals,
	                                    setup, teardown),
	    cmocka_unit_test_setup_teardown(
	        test_agents_hung_host_lost_then_replaced, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_agents_barrier_link,
	                                    setup_bar, teardown),
	    cmocka_unit_test_setup_teardown(test_agents_evict_and_close, setup,
	                                    teardown),
	};

	return (cmocka_run_group_tests_name("agents", tests, NULL, NULL));
}

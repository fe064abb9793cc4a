/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/integ/test_security.c: operators prove the control secret (a
 * request without proof, or with a wrong one, is refused and logged with
 * the peer), the operator socket is 0660, a message over the size limit
 * is refused, and the control socket over TLS (tls+tcp://) with a
 * self-signed certificate: verified with the right CA, refused without
 * one or with another; and agents joining over TLS and running a
 * collective.  ocsd drives the in-process emu driver in the first three.
 * The agent link refuses strangers: a wrong proof, an agent that has not
 * joined, a first frame that is not an Attach, a frame over the limit;
 * every Ready of a run goes on it, over TLS when the join is.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <cmocka.h>

#include <jansson.h>
#include <nng/nng.h>
#include <nng/protocol/reqrep0/req.h>

#include "proto/alink.h"
#include "proto/base/mono.h"
#include "proto/base/net.h"
#include "proto/auth.h"
#include "proto/msg.h"
#include "tests/lib/proc.h"
#include "tests/lib/rig.h"

struct fx {
	char       *dir;
	struct proc ocsd;
	char        url[300], conf[300], key[300], ca[300], other[300];
};

static void
write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
}

/* A self-signed certificate and key for CN=127.0.0.1, in one file. */
static void
make_cert(const char *dir, const char *name, char *pem, size_t len)
{
	char  key[300], crt[300], cmd[2000];
	char *o, *e;
	char *argv[] = {"sh", "-c", cmd, NULL};

	snprintf(key, sizeof(key), "%s/%s.key", dir, name);
	snprintf(crt, sizeof(crt), "%s/%s.crt", dir, name);
	snprintf(pem, len, "%s/%s.pem", dir, name);
	snprintf(cmd, sizeof(cmd),
	         "openssl req -x509 -newkey rsa:2048 -nodes -days 2 "
	         "-subj /CN=127.0.0.1 -keyout %s -out %s && cat %s %s > %s",
	         key, crt, crt, key, pem);
	if (proc_run(argv, &o, &e) != 0)
		fail_msg("openssl: %s", e);
	free(o);
	free(e);
}

static void
start(struct fx *f, const char *listen, const char *extra)
{
	char  bin[256], log[300], conf[2000];
	char *argv[] = {(char *)(uintptr_t)proc_bin("ocsd", bin, sizeof(bin)),
	                "-d",
	                "-v",
	                "-f",
	                f->conf,
	                NULL};

	snprintf(f->url, sizeof(f->url), "%s", listen);
	snprintf(conf, sizeof(conf),
	         "[switch]\ndriver = emu\nports = 8\nswitch_time = 1ms\n"
	         "[control]\nlisten = %s\nsecret_file = %s\n%s"
	         "[state]\ndir = %s/state\n[cabling]\nh0.0 = 1 9\n"
	         "h1.0 = 2 10\n",
	         listen, f->key, extra ? extra : "", f->dir);
	write_file(f->conf, conf, 0644);
	snprintf(log, sizeof(log), "%s/ocsd.log", f->dir);
	assert_int_equal(proc_start(&f->ocsd, argv, log), 0);
}

/* ocsctl [-k key] [-C ca] -s url args... */
static int
ctl(struct fx *f, const char *key, const char *ca, char **o, char **e, ...)
{
	char    bin[256], *argv[16];
	int     n = 0;
	va_list ap;

	argv[n++] = (char *)(uintptr_t)proc_bin("ocsctl", bin, sizeof(bin));
	if (key) {
		argv[n++] = "-k";
		argv[n++] = (char *)(uintptr_t)key;
	}
	if (ca) {
		argv[n++] = "-C";
		argv[n++] = (char *)(uintptr_t)ca;
	}
	argv[n++] = "-t";
	argv[n++] = "3s";
	argv[n++] = "-s";
	argv[n++] = f->url;
	va_start(ap, e);
	while (n < 15 && (argv[n] = va_arg(ap, char *)) != NULL)
		n++;
	va_end(ap);
	argv[n] = NULL;
	return (proc_run(argv, o, e));
}

static void
wait_up(struct fx *f, const char *ca)
{
	char *o, *e;
	int   i, rv = -1;

	for (i = 0; i < 100 && rv != 0; i++) {
		rv = ctl(f, f->key, ca, &o, &e, "status", NULL);
		free(o);
		free(e);
		if (rv != 0)
			mono_sleep_ms(50);
	}
	assert_int_equal(rv, 0);
}

static int
setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	f->dir = proc_tmpdir("security");
	snprintf(f->conf, sizeof(f->conf), "%s/ocsd.conf", f->dir);
	snprintf(f->key, sizeof(f->key), "%s/ctl.secret", f->dir);
	snprintf(f->other, sizeof(f->other), "%s/other.secret", f->dir);
	write_file(f->key, "operators only, please: 0123456789\n", 0600);
	write_file(f->other, "somebody else's secret 0123456789\n", 0600);
	*state = f;
	return (0);
}

static int
teardown(void **state)
{
	struct fx *f = *state;
	int        dirty = 0;

	if (f->ocsd.pid) {
		proc_stop(&f->ocsd, SIGTERM);
		dirty = proc_log_dirty(&f->ocsd);
	}
	proc_rmtree(f->dir);
	free(f->dir);
	free(f);
	return (dirty ? -1 : 0);
}

static int
log_has(struct fx *f, const char *needle)
{
	char   buf[65536];
	FILE  *fp = fopen(f->ocsd.log, "r");
	size_t n;

	assert_non_null(fp);
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	return (strstr(buf, needle) != NULL);
}

static void
test_control_secret(void **state)
{
	struct fx  *f = *state;
	char        listen[320], *o, *e;
	struct stat st;

	snprintf(listen, sizeof(listen), "ipc://%s/ctl.sock", f->dir);
	start(f, listen, NULL);
	wait_up(f, NULL);
	assert_int_equal(stat(listen + 6, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0660);
	/* No proof: refused, one line, and logged with the peer. */
	assert_int_equal(
	    ctl(f, NULL, NULL, &o, &e, "connect", "h0.0", "h1.0", NULL), 1);
	assert_non_null(strstr(e, "needs proof of the control secret"));
	assert_int_equal(proc_nlines(e), 1);
	free(o);
	free(e);
	assert_true(log_has(f, "refused: this ocsd needs proof"));
	assert_true(log_has(f, "from ipc "));
	/* The wrong secret. */
	assert_int_equal(
	    ctl(f, f->other, NULL, &o, &e, "connect", "h0.0", "h1.0", NULL),
	    1);
	assert_non_null(strstr(e, "wrong proof of the control secret"));
	free(o);
	free(e);
	/* Nothing happened; with the secret it works. */
	assert_int_equal(ctl(f, f->key, NULL, &o, &e, "-j", "show", NULL), 0);
	{
		json_t *j = json_loads(o, 0, NULL);

		assert_non_null(j);
		assert_int_equal(
		    json_array_size(json_object_get(j, "circuits")), 0);
		json_decref(j);
	}
	free(o);
	free(e);
	assert_int_equal(
	    ctl(f, f->key, NULL, &o, &e, "connect", "h0.0", "h1.0", NULL), 0);
	free(o);
	free(e);
	/* A secret file others can read is refused by ocsctl itself. */
	chmod(f->other, 0644);
	assert_int_equal(ctl(f, f->other, NULL, &o, &e, "status", NULL), 1);
	assert_non_null(strstr(e, "-k"));
	free(o);
	free(e);
}

/* Messages over the size limit and undecodable ones. */
static void
test_oversized_message(void **state)
{
	struct fx *f = *state;
	char       listen[320];
	nng_socket s;
	nng_msg   *m;
	Ocs__Msg  *rep;
	char       why[200];

	snprintf(listen, sizeof(listen), "ipc://%s/ctl.sock", f->dir);
	start(f, listen, NULL);
	wait_up(f, NULL);
	/* Over MSG_MAX_BYTES: the daemon hangs up on the header alone, and
	 * lives.  Raw SP over the UNIX socket (an nng REQ socket closing
	 * with that message half written can block for good). */
	{
		struct sockaddr_un   sa = {.sun_family = AF_UNIX};
		static const uint8_t hello[8] = {0, 'S',  'P', 0,
		                                 0, 0x30, 0,   0};
		uint8_t              hdr[9] = {0x01}, peer[8], junk[64];
		uint64_t             big = (uint64_t)MSG_MAX_BYTES + 1, dl;
		int                  fd, i;
		ssize_t              r = 1;

		snprintf(sa.sun_path, sizeof(sa.sun_path), "%.100s",
		         listen + 6);
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		assert_true(fd >= 0);
		assert_int_equal(
		    connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
		assert_int_equal(write(fd, hello, 8), 8);
		dl = mono_ms() + 3000;
		assert_int_equal(net_read_some(fd, peer, 8, dl, -1), 8);
		for (i = 0; i < 8; i++)
			hdr[1 + i] = (uint8_t)(big >> (56 - 8 * i));
		assert_int_equal(write(fd, hdr, 9), 9);
		memset(junk, 0x0a, sizeof(junk));
		(void)!write(fd, junk, sizeof(junk));
		while (r > 0)
			r = net_read_some(fd, junk, sizeof(junk), dl, -1);
		/* Closed, not timed out: a hang-up with our junk still
		 * unread reaches us as a reset instead of an end of file
		 * (it did once in about 20 runs). */
		assert_true(r == 0 || r == -ECONNRESET);
		close(fd);
	}
	assert_true(proc_alive(&f->ocsd));
	/* Garbage of a legal size: an error reply naming the problem. */
	assert_int_equal(nng_req0_open(&s), 0);
	nng_socket_set_ms(s, NNG_OPT_RECVTIMEO, 3000);
	assert_int_equal(nng_dial(s, listen, NULL, 0), 0);
	assert_int_equal(nng_msg_alloc(&m, 100), 0);
	memset(nng_msg_body(m), 0xff, 100);
	assert_int_equal(nng_sendmsg(s, m, 0), 0);
	assert_int_equal(nng_recvmsg(s, &m, 0), 0);
	assert_int_equal(msg_decode(nng_msg_body(m), nng_msg_len(m), &rep, why,
	                            sizeof(why)),
	                 0);
	assert_int_equal(rep->body_case, OCS__MSG__BODY_ERROR);
	msg_free(rep);
	nng_msg_free(m);
	nng_close(s);
	assert_true(log_has(f, "rejected a message from ipc"));
}

static void
test_control_tls(void **state)
{
	struct fx *f = *state;
	char       pem[300], otherpem[300], listen[80], extra[400], *o, *e;
	int        port = 20000 + (int)(getpid() % 20000);

	make_cert(f->dir, "ctl", pem, sizeof(pem));
	make_cert(f->dir, "stranger", otherpem, sizeof(otherpem));
	snprintf(listen, sizeof(listen), "tls+tcp://127.0.0.1:%d", port);
	snprintf(extra, sizeof(extra), "tls_cert_key = %s\n", pem);
	start(f, listen, extra);
	wait_up(f, pem);
	assert_int_equal(
	    ctl(f, f->key, pem, &o, &e, "connect", "h0.0", "h1.0", NULL), 0);
	free(o);
	free(e);
	/* No CA: ocsctl will not talk TLS blind. */
	assert_int_equal(ctl(f, f->key, NULL, &o, &e, "status", NULL), 1);
	assert_non_null(strstr(e, "TLS needs a CA file"));
	free(o);
	free(e);
	/* Another CA: the server is not trusted, no answer. */
	assert_int_equal(ctl(f, f->key, otherpem, &o, &e, "status", NULL), 1);
	free(o);
	free(e);
	/* Without its certificate ocsd refuses the configuration. */
	proc_stop(&f->ocsd, SIGTERM);
	{
		char  bin[256];
		char *argv[] = {
		    (char *)(uintptr_t)proc_bin("ocsd", bin, sizeof(bin)),
		    "-n", "-f", f->conf, NULL};

		start(f, listen, NULL);
		proc_stop(&f->ocsd, SIGTERM);
		assert_int_equal(proc_run(argv, &o, &e), 1);
		assert_non_null(strstr(e, "tls_cert_key is required"));
		free(o);
		free(e);
	}
}

/* Every agent is on its link, and has said Ready on it. */
static void
readys_on_link(struct rig *r)
{
	json_t *j, *a;
	char   *out, *err;
	size_t  i;

	assert_int_equal(rig_ctl(r, &out, &err, "-j", "agents", NULL), 0);
	assert_non_null(j = json_loads(out, 0, NULL));
	assert_int_equal(json_array_size(json_object_get(j, "agents")), r->n);
	json_array_foreach(json_object_get(j, "agents"), i, a)
	{
		json_int_t n =
		    json_integer_value(json_object_get(a, "readys"));

		if (n < 1 || !json_is_true(json_object_get(a, "link")))
			fail_msg("agent %zu: %lld readys: %s", i, (long long)n,
			         out);
	}
	json_decref(j);
	free(out);
	free(err);
}

static void
run_retri(struct rig *r)
{
	char *out, *err;
	int   rv;

	rv = rig_ctl(r, &out, &err, "run", "--algo", "retri", "--bytes",
	             "256KiB", "--reconfig", "all", NULL);
	if (rv != 0 || strstr(out, "0 errors") == NULL)
		fail_msg("exit %d: %s %s", rv, out, err);
	free(out);
	free(err);
}

/* Agents join over tls+tcp:// and run, their links TLS too (the link's
 * address says so). */
static void
test_agents_tls(void **state)
{
	struct rig_opts o = {.switch_time = "1ms", .tls = 1};
	struct rig     *r = rig_up_opts(3, &o);

	(void)state;
	assert_non_null(r);
	assert_non_null(strstr(r->join, "tls+tcp://"));
	run_retri(r);
	readys_on_link(r);
	{
		char *out, *err;

		assert_int_equal(rig_ctl(r, &out, &err, "agents", NULL), 0);
		assert_non_null(strstr(out, "link from 127.0.0.1:"));
		free(out);
		free(err);
	}
	assert_int_equal(rig_down(r), 0);
}

/* A stranger on the agent link: challenged, frame f (len bytes) sent,
 * then the answer's error text (or "" for none) into buf, and the link
 * closed. */
static void
stranger(struct rig *r, const void *f, size_t len, char *buf, size_t bl)
{
	struct alink_rx rx = {.max = MSG_MAX_BYTES};
	struct alink_io io;
	char            addr[400], why[200];
	Ocs__Msg       *m = NULL;
	uint64_t        until = mono_ms() + 5000;
	long            n;
	int             fd, rv = 0, challenged = 0;

	snprintf(addr, sizeof(addr), "unix:%s/agents.sock.link", r->dir);
	assert_true((fd = net_connect_addr(addr, 2000)) >= 0);
	assert_int_equal(alink_io_init(&io, fd, NULL, 0, NULL), 0);
	assert_int_equal(net_write_all(fd, f, len, until, -1), 0);
	buf[0] = '\0';
	/* Until the end: ocsd closes every refused link. */
	while (mono_ms() < until) {
		n = alink_rx_read(&rx, &io);
		if (n == 0)
			break;
		if (n == -EAGAIN) {
			mono_sleep_ms(5);
			continue;
		}
		if (n < 0)
			break; /* reset: what was refused is closed */
		while ((rv = alink_rx_next(&rx, &m, why, sizeof(why))) == 1) {
			if (m->body_case == OCS__MSG__BODY_CHALLENGE)
				challenged++;
			else {
				assert_int_equal(m->body_case,
				                 OCS__MSG__BODY_ERROR);
				snprintf(buf, bl, "%s", m->error->text);
			}
			msg_free(m);
		}
	}
	assert_true(mono_ms() < until);
	assert_int_equal(challenged, 1);
	alink_rx_free(&rx);
	alink_io_close(&io);
}

static void
attach_as(struct rig *r, uint32_t id, size_t prooflen, char *buf, size_t bl)
{
	uint8_t     proof[AUTH_PROOF + 1] = {0}, *f;
	size_t      len;
	Ocs__Msg    m;
	Ocs__Attach at;

	msg_init(&m, 7);
	ocs__attach__init(&at);
	at.agent_id = id;
	at.proof.data = proof;
	at.proof.len = prooflen;
	m.body_case = OCS__MSG__BODY_ATTACH;
	m.attach = &at;
	assert_int_equal(alink_pack(&m, &f, &len), 0);
	stranger(r, f, len, buf, bl);
	free(f);
}

static void
test_agent_link_strangers(void **state)
{
	struct rig_opts o = {.switch_time = "1ms"};
	struct rig     *r = rig_up_opts(3, &o);
	Ocs__Ready      rd;
	uint8_t         big[8] = {0x40, 0, 0, 0, 1, 2, 3, 4}, *f;
	size_t          len;
	char            t[300];
	Ocs__Msg        m;

	(void)state;
	assert_non_null(r);
	run_retri(r);
	readys_on_link(r);
	attach_as(r, 1, AUTH_PROOF, t, sizeof(t));
	if (strstr(t, "wrong proof") == NULL)
		fail_msg("a wrong proof: \"%s\"", t);
	attach_as(r, 1, AUTH_PROOF + 1, t, sizeof(t));
	assert_non_null(strstr(t, "wrong proof"));
	attach_as(r, 999, AUTH_PROOF, t, sizeof(t));
	if (strstr(t, "no such agent") == NULL)
		fail_msg("an agent that has not joined: \"%s\"", t);
	/* A Ready before any Attach. */
	msg_init(&m, 8);
	ocs__ready__init(&rd);
	rd.agent_id = 1;
	m.body_case = OCS__MSG__BODY_READY;
	m.ready = &rd;
	assert_int_equal(alink_pack(&m, &f, &len), 0);
	stranger(r, f, len, t, sizeof(t));
	free(f);
	if (strstr(t, "before its attach") == NULL)
		fail_msg("a Ready first: \"%s\"", t);
	/* A frame of a GiB is not read: the link just ends. */
	stranger(r, big, sizeof(big), t, sizeof(t));
	assert_string_equal(t, "");
	/* None of it touched the agents' links. */
	run_retri(r);
	readys_on_link(r);
	assert_int_equal(rig_down(r), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_control_secret, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_oversized_message, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_control_tls, setup, teardown),
	    cmocka_unit_test(test_agents_tls),
	    cmocka_unit_test(test_agent_link_strangers),
	};

	signal(SIGPIPE, SIG_IGN);
	return (cmocka_run_group_tests_name("security", tests, NULL, NULL));
}

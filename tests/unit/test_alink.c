/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_alink.c: the agent link's reads (proto/alink.c), in
 * the clear and over TLS on a socket pair: what one read hands out and
 * how many read(2)s it costs (counted on OpenSSL's socket BIO), and the
 * fill/take pair that pollers use (frames read so far, one read a
 * wakeup, the peer's end, a frame over the limit).
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/ssl.h>

#include "proto/alink.h"

struct fx {
	char               dir[64];
	struct ssl_ctx_st *srv, *cli; /* NULL: in the clear */
	struct alink_io    a;         /* ocsd's end */
	struct alink_conn  b;         /* the agent's end */
	long               reads;     /* read(2)s on b, with TLS */
};

/* Counts the reads OpenSSL makes on b's socket: each is one read(2). */
static long
count_reads(BIO *bio, int oper, const char *argp, size_t len, int argi,
            long argl, int ret, size_t *processed)
{
	struct fx *f = (struct fx *)BIO_get_callback_arg(bio);

	(void)argp, (void)len, (void)argi, (void)argl, (void)processed;
	if (oper == (BIO_CB_READ | BIO_CB_RETURN))
		f->reads++;
	return (ret);
}

static void
handshake(struct fx *f)
{
	char err[256];
	int  ra = -EAGAIN, rb = -EAGAIN, i;

	for (i = 0; i < 1000 && (ra != 0 || rb != 0); i++) {
		if (ra == -EAGAIN)
			ra = alink_io_handshake(&f->a, err, sizeof(err));
		if (rb == -EAGAIN)
			rb = alink_io_handshake(&f->b.io, err, sizeof(err));
		if ((ra != 0 && ra != -EAGAIN) || (rb != 0 && rb != -EAGAIN))
			fail_msg("handshake: %s", err);
	}
	assert_int_equal(ra, 0);
	assert_int_equal(rb, 0);
}

static int
setup_with(void **state, int tls)
{
	struct fx *f = calloc(1, sizeof(*f));
	char       cmd[400], pem[128], err[256];
	int        sv[2];

	if (f == NULL)
		return (-1);
	*state = f;
	if (tls) {
		snprintf(f->dir, sizeof(f->dir), "/tmp/ocs-alink-XXXXXX");
		if (mkdtemp(f->dir) == NULL)
			return (-1);
		snprintf(
		    cmd, sizeof(cmd),
		    "cd %s && openssl req -x509 -newkey rsa:2048 -nodes "
		    "-days 2 -subj /CN=127.0.0.1 -keyout k.pem -out c.pem "
		    "2>/dev/null && cat c.pem k.pem > both.pem",
		    f->dir);
		snprintf(pem, sizeof(pem), "%s/both.pem", f->dir);
		if (system(cmd) != 0 ||
		    alink_tls_server(pem, &f->srv, err, sizeof(err)) != 0 ||
		    alink_tls_client(pem, &f->cli, err, sizeof(err)) != 0)
			return (-1);
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) != 0)
		return (-1);
	f->b.io.fd = -1;
	if (alink_io_init(&f->a, sv[0], f->srv, 1, NULL) != 0 ||
	    alink_io_init(&f->b.io, sv[1], f->cli, 0, "127.0.0.1") != 0)
		return (-1);
	f->b.rx.max = 1024;
	snprintf(f->b.url, sizeof(f->b.url), "test");
	if (tls) {
		handshake(f);
		BIO_set_callback_ex(SSL_get_rbio(f->b.io.ssl), count_reads);
		BIO_set_callback_arg(SSL_get_rbio(f->b.io.ssl), (char *)f);
	}
	return (0);
}

static int
setup_plain(void **state)
{
	return (setup_with(state, 0));
}

static int
setup_tls(void **state)
{
	return (setup_with(state, 1));
}

static int
teardown(void **state)
{
	struct fx *f = *state;
	char       cmd[128];
	int        rv = 0;

	alink_io_close(&f->a);
	alink_disconnect(&f->b);
	alink_tls_free(f->srv);
	alink_tls_free(f->cli);
	if (f->dir[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", f->dir);
		rv = system(cmd) == 0 ? 0 : -1;
	}
	free(f);
	return (rv);
}

/* ocsd's end sends an Idle numbered seq: one frame, one TLS record. */
static void
send_idle(struct fx *f, uint64_t seq)
{
	Ocs__Msg  m;
	Ocs__Idle idle;
	uint8_t  *buf;
	size_t    len;

	msg_init(&m, seq);
	ocs__idle__init(&idle);
	m.body_case = OCS__MSG__BODY_IDLE;
	m.idle = &idle;
	assert_int_equal(alink_pack(&m, &buf, &len), 0);
	assert_int_equal(alink_io_write(&f->a, buf, len), (long)len);
	free(buf);
}

/* The next frame taken is an Idle numbered seq. */
static void
take_idle(struct fx *f, uint64_t seq)
{
	Ocs__Msg *m;
	char      err[256];

	assert_int_equal(alink_take(&f->b, &m, err, sizeof(err)), 1);
	assert_int_equal(m->body_case, OCS__MSG__BODY_IDLE);
	assert_int_equal(m->seq, seq);
	msg_free(m);
}

/*
 * Over TLS a read hands out every record OpenSSL read ahead, so that
 * nothing waits inside it while the socket looks idle, and costs one
 * read(2) for all of them: asking on until EAGAIN cost one more each
 * time (a barrier's Ready, a release's answer).
 */
static void
test_alink_tls_one_read(void **state)
{
	struct fx *f = *state;
	Ocs__Msg  *m;
	char       why[256];

	send_idle(f, 1);
	assert_true(alink_rx_read(&f->b.rx, &f->b.io) > 0);
	assert_int_equal(f->reads, 1);
	take_idle(f, 1);
	/* Three records at once: one read(2), all three handed out. */
	send_idle(f, 2);
	send_idle(f, 3);
	send_idle(f, 4);
	f->reads = 0;
	assert_true(alink_rx_read(&f->b.rx, &f->b.io) > 0);
	assert_int_equal(f->reads, 1);
	assert_false(SSL_has_pending(f->b.io.ssl));
	take_idle(f, 2);
	take_idle(f, 3);
	take_idle(f, 4);
	assert_int_equal(alink_rx_next(&f->b.rx, &m, why, sizeof(why)), 0);
	/* Nothing there: one read, told so. */
	f->reads = 0;
	assert_int_equal(alink_rx_read(&f->b.rx, &f->b.io), -EAGAIN);
	assert_int_equal(f->reads, 1);
}

/* A poller's pair: take reads nothing, fill reads once. */
static void
fill_and_take(struct fx *f)
{
	Ocs__Msg *m;
	char      err[256];

	assert_int_equal(alink_take(&f->b, &m, err, sizeof(err)), 0);
	assert_int_equal(alink_fill(&f->b, err, sizeof(err)), 0);
	send_idle(f, 7);
	send_idle(f, 8);
	/* Sent, not yet read: take does not read. */
	assert_int_equal(alink_take(&f->b, &m, err, sizeof(err)), 0);
	assert_int_equal(alink_fill(&f->b, err, sizeof(err)), 1);
	take_idle(f, 7);
	take_idle(f, 8);
	assert_int_equal(alink_take(&f->b, &m, err, sizeof(err)), 0);
	/* The peer's end, said as ocsd's. */
	alink_io_shutdown_wr(&f->a);
	assert_int_equal(alink_fill(&f->b, err, sizeof(err)), -ECONNRESET);
	assert_non_null(strstr(err, "ocsd closed it"));
}

static void
test_alink_fill_take_plain(void **state)
{
	fill_and_take(*state);
}

static void
test_alink_fill_take_tls(void **state)
{
	fill_and_take(*state);
}

/* A frame over the limit is the taker's error, named. */
static void
test_alink_take_too_long(void **state)
{
	struct fx *f = *state;
	uint8_t    hdr[ALINK_HDR] = {0, 0, 0x10, 0}; /* 4 096 > 1 024 */
	Ocs__Msg  *m = NULL;
	char       err[256];

	assert_int_equal(alink_io_write(&f->a, hdr, sizeof(hdr)),
	                 (long)sizeof(hdr));
	assert_int_equal(alink_fill(&f->b, err, sizeof(err)), 1);
	assert_int_equal(alink_take(&f->b, &m, err, sizeof(err)), -MSG_ESIZE);
	assert_null(m);
	assert_non_null(strstr(err, "4096 bytes, limit 1024"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_alink_tls_one_read, setup_tls,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_alink_fill_take_plain,
	                                    setup_plain, teardown),
	    cmocka_unit_test_setup_teardown(test_alink_fill_take_tls,
	                                    setup_tls, teardown),
	    cmocka_unit_test_setup_teardown(test_alink_take_too_long,
	                                    setup_plain, teardown),
	};

	/* A write to a peer gone is an error here, not a signal. */
	signal(SIGPIPE, SIG_IGN);
	return (cmocka_run_group_tests_name("alink", tests, NULL, NULL));
}

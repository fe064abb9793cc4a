/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_msg.c: packing and the checks every receiver relies on
 * (size, decodable, version, a body), nng's errors converted once, and
 * msg_call against a real REP socket over inproc answering right, with
 * another seq, with garbage, or not at all.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include <nng/nng.h>
#include <nng/protocol/reqrep0/rep.h>
#include <nng/protocol/reqrep0/req.h>
#include <nng/supplemental/util/platform.h>

#include "proto/msg.h"

static void
test_msg_round_trip(void **state)
{
	Ocs__Msg   m, *out;
	Ocs__Hello h;
	nng_msg   *nm;
	char       why[128];

	(void)state;
	msg_init(&m, 42);
	ocs__hello__init(&h);
	h.host = "h00";
	m.body_case = OCS__MSG__BODY_HELLO;
	m.hello = &h;
	assert_int_equal(msg_encode(&m, &nm), 0);
	assert_int_equal(msg_decode(nng_msg_body(nm), nng_msg_len(nm), &out,
	                            why, sizeof(why)),
	                 0);
	nng_msg_free(nm);
	assert_int_equal(out->seq, 42);
	assert_int_equal(out->body_case, OCS__MSG__BODY_HELLO);
	assert_string_equal(out->hello->host, "h00");
	msg_free(out);
}

static void
test_msg_decode_refuses_bad_input(void **state)
{
	static const uint8_t garbage[] = {0xff, 0xff, 0xff, 0xff, 0x0f};
	Ocs__Msg             m, *out;
	nng_msg             *nm;
	char                 why[128];

	(void)state;
	assert_int_equal(
	    msg_decode(garbage, sizeof(garbage), &out, why, sizeof(why)),
	    -MSG_EDECODE);
	assert_null(out);
	assert_int_equal(
	    msg_decode(garbage, MSG_MAX_BYTES + 1u, &out, why, sizeof(why)),
	    -MSG_ESIZE);
	/* No body. */
	msg_init(&m, 1);
	assert_int_equal(msg_encode(&m, &nm), 0);
	assert_int_equal(msg_decode(nng_msg_body(nm), nng_msg_len(nm), &out,
	                            why, sizeof(why)),
	                 -MSG_EBODY);
	nng_msg_free(nm);
	/* Another version. */
	msg_init(&m, 1);
	m.version = MSG_VERSION + 1;
	{
		Ocs__Error e;

		ocs__error__init(&e);
		e.text = "x";
		m.body_case = OCS__MSG__BODY_ERROR;
		m.error = &e;
		assert_int_equal(msg_encode(&m, &nm), 0);
	}
	assert_int_equal(msg_decode(nng_msg_body(nm), nng_msg_len(nm), &out,
	                            why, sizeof(why)),
	                 -MSG_EVERSION);
	assert_non_null(strstr(why, "version"));
	nng_msg_free(nm);
}

static void
test_msg_errors_are_named(void **state)
{
	(void)state;
	assert_int_equal(msg_nngerr(0), 0);
	assert_int_equal(msg_nngerr(NNG_ETIMEDOUT), -ETIMEDOUT);
	assert_int_equal(msg_nngerr(NNG_ECONNREFUSED), -ECONNREFUSED);
	assert_int_equal(msg_nngerr(NNG_ESYSERR + EIO), -EIO);
	assert_int_equal(msg_nngerr(NNG_EPROTO),
	                 -(MSG_ENNG_BASE + NNG_EPROTO));
	assert_string_equal(msg_strerror(-(MSG_ENNG_BASE + NNG_EPROTO)),
	                    nng_strerror(NNG_EPROTO));
	assert_string_equal(msg_strerror(-MSG_EVERSION),
	                    "protocol version mismatch");
	assert_string_equal(msg_strerror(-ENOMEM), strerror(ENOMEM));
	assert_string_equal(msg_strerror(-MSG_EMAX), "unknown error");
}

static void
test_msg_str_ok(void **state)
{
	char longs[MSG_MAX_STR + 2];

	(void)state;
	assert_int_equal(msg_str_ok("h00"), 1);
	assert_int_equal(msg_str_ok(""), 0);
	assert_int_equal(msg_str_ok(NULL), 0);
	assert_int_equal(msg_str_ok("a\nb"), 0);
	assert_int_equal(msg_str_ok("a\x7f"), 0);
	memset(longs, 'a', sizeof(longs) - 1);
	longs[sizeof(longs) - 1] = '\0';
	assert_int_equal(msg_str_ok(longs), 0);
}

/* The REP side: answers one request as told, on its own thread. */
enum how { ANSWER, OTHER_SEQ, GARBAGE, SILENT, HANGUP };
struct peer {
	nng_socket rep;
	enum how   how;
};

static void
serve_one(void *arg)
{
	struct peer *p = arg;
	nng_msg     *nm;
	Ocs__Msg    *q;
	char         why[128];

	if (nng_recvmsg(p->rep, &nm, 0) != 0)
		return;
	if (msg_decode(nng_msg_body(nm), nng_msg_len(nm), &q, why,
	               sizeof(why)) != 0) {
		nng_msg_free(nm);
		return;
	}
	nng_msg_free(nm);
	if (p->how == SILENT || p->how == HANGUP) {
		msg_free(q);
		if (p->how == HANGUP)
			nng_close(p->rep);
		return;
	}
	if (p->how == GARBAGE) {
		nng_msg_alloc(&nm, 0);
		nng_msg_append(nm, "\xff\xff\xff", 3);
	} else
		msg_error(q->seq + (p->how == OTHER_SEQ), -EPERM, "no", &nm);
	msg_free(q);
	nng_sendmsg(p->rep, nm, 0);
}

static int
call_once(enum how how, char *err, size_t errlen)
{
	struct peer p = {.how = how};
	nng_socket  req;
	nng_thread *thr;
	Ocs__Msg    m, *rep = NULL;
	Ocs__Hello  h;
	int         rv;

	assert_int_equal(nng_rep0_open(&p.rep), 0);
	assert_int_equal(nng_req0_open(&req), 0);
	assert_int_equal(nng_listen(p.rep, "inproc://test-msg", NULL, 0), 0);
	assert_int_equal(nng_dial(req, "inproc://test-msg", NULL, 0), 0);
	nng_socket_set_ms(req, NNG_OPT_RECVTIMEO, 200);
	/* As ocsctl's: a request is never sent again. */
	nng_socket_set_ms(req, NNG_OPT_REQ_RESENDTIME, NNG_DURATION_INFINITE);
	assert_int_equal(nng_thread_create(&thr, serve_one, &p), 0);
	msg_init(&m, 77);
	ocs__hello__init(&h);
	h.host = "h00";
	m.body_case = OCS__MSG__BODY_HELLO;
	m.hello = &h;
	rv = msg_call(req, &m, "peer P", &rep, err, errlen);
	if (rv == 0) {
		assert_int_equal(rep->body_case, OCS__MSG__BODY_ERROR);
		assert_int_equal(rep->error->code, -EPERM);
		msg_free(rep);
	} else
		assert_null(rep);
	nng_close(req);
	nng_close(p.rep);
	nng_thread_destroy(thr);
	return (rv);
}

static void
test_msg_call(void **state)
{
	char err[256];

	(void)state;
	assert_int_equal(call_once(ANSWER, err, sizeof(err)), 0);
	assert_int_equal(call_once(OTHER_SEQ, err, sizeof(err)), -MSG_EBODY);
	assert_string_equal(err, "peer P answered another request");
	assert_int_equal(call_once(GARBAGE, err, sizeof(err)), -MSG_EDECODE);
	assert_non_null(strstr(err, "peer P: bad answer: "));
	assert_int_equal(call_once(SILENT, err, sizeof(err)), -ETIMEDOUT);
	assert_non_null(strstr(err, "peer P: no answer: "));
	/* The peer goes after reading the request: said so, not timed out. */
	assert_int_equal(call_once(HANGUP, err, sizeof(err)), -ECONNRESET);
	assert_non_null(
	    strstr(err, "peer P closed the connection before answering"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_msg_round_trip),
	    cmocka_unit_test(test_msg_decode_refuses_bad_input),
	    cmocka_unit_test(test_msg_errors_are_named),
	    cmocka_unit_test(test_msg_str_ok),
	    cmocka_unit_test(test_msg_call),
	};

	return (cmocka_run_group_tests_name("msg", tests, NULL, NULL));
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_auth.c: the join proof against openssl dgst's HMAC, the
 * secret file's checks, and the challenge table both of ocsd's sockets
 * use (one per pipe, once, until it expires, bound to its label).
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proto/auth.h"

static void
test_auth_proof_matches_openssl_hmac(void **state)
{
	/* openssl dgst -sha256 -hmac 0123456789abcdef over
	 * "ocs-join" | bytes 1..32 | "h00". */
	static const char *want = "94fbe2902020493a6b820e1057b4acc6"
	                          "b4f5ebfea05a293539db8c5926224cf4";
	uint8_t            nonce[AUTH_NONCE], out[AUTH_PROOF];
	char               hex[2 * AUTH_PROOF + 1];
	int                i;

	(void)state;
	for (i = 0; i < AUTH_NONCE; i++)
		nonce[i] = (uint8_t)(i + 1);
	assert_int_equal(auth_proof((const uint8_t *)"0123456789abcdef", 16,
	                            nonce, AUTH_NONCE, "h00", out),
	                 0);
	for (i = 0; i < AUTH_PROOF; i++)
		snprintf(hex + 2 * i, 3, "%02x", out[i]);
	assert_string_equal(hex, want);
	assert_int_equal(
	    auth_proof((const uint8_t *)"k", 1, nonce, 65, "h", out), -EINVAL);
}

static void
test_auth_equal_compares_every_byte(void **state)
{
	uint8_t a[AUTH_PROOF] = {0}, b[AUTH_PROOF] = {0};

	(void)state;
	assert_int_equal(auth_equal(a, b, sizeof(a)), 1);
	b[AUTH_PROOF - 1] = 1;
	assert_int_equal(auth_equal(a, b, sizeof(a)), 0);
}

static void
write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
}

static void
test_auth_secret_file_checks(void **state)
{
	char    path[] = "/tmp/ocs-test-auth-XXXXXX", err[256];
	uint8_t buf[AUTH_SEC_MAX + 1];
	size_t  len = 0;
	int     fd;

	(void)state;
	assert_true((fd = mkstemp(path)) >= 0);
	close(fd);
	write_file(path, "0123456789abcdef\n", 0600);
	assert_int_equal(auth_read_secret(path, buf, &len, err, sizeof(err)),
	                 0);
	assert_int_equal(len, 16); /* the newline is not part of it */
	write_file(path, "0123456789abcdef\n", 0644);
	assert_int_equal(auth_read_secret(path, buf, &len, err, sizeof(err)),
	                 -EINVAL);
	assert_non_null(strstr(err, "readable by others"));
	write_file(path, "short\n", 0600);
	assert_int_equal(auth_read_secret(path, buf, &len, err, sizeof(err)),
	                 -EINVAL);
	assert_non_null(strstr(err, "5 bytes"));
	unlink(path);
	assert_int_equal(auth_read_secret(path, buf, &len, err, sizeof(err)),
	                 -ENOENT);
}

static void
test_auth_chal_serves_once(void **state)
{
	struct auth_chal tab[4];
	const uint8_t   *n;
	uint8_t          copy[AUTH_NONCE];

	(void)state;
	memset(tab, 0, sizeof(tab));
	assert_non_null(n = auth_chal_issue(tab, 4, 7, "h00", 1000));
	memcpy(copy, n, AUTH_NONCE);
	/* Another pipe, label or nonce does not take it. */
	assert_int_equal(
	    auth_chal_take(tab, 4, 8, copy, AUTH_NONCE, "h00", 1001), 0);
	assert_int_equal(
	    auth_chal_take(tab, 4, 7, copy, AUTH_NONCE, "h01", 1001), 0);
	copy[0] ^= 1;
	assert_int_equal(
	    auth_chal_take(tab, 4, 7, copy, AUTH_NONCE, "h00", 1001), 0);
	copy[0] ^= 1;
	assert_int_equal(auth_chal_take(tab, 4, 7, copy, 3, "h00", 1001), 0);
	assert_int_equal(
	    auth_chal_take(tab, 4, 7, copy, AUTH_NONCE, "h00", 1001), 1);
	/* Once. */
	assert_int_equal(
	    auth_chal_take(tab, 4, 7, copy, AUTH_NONCE, "h00", 1002), 0);
}

static void
test_auth_chal_expires_and_is_reused(void **state)
{
	struct auth_chal tab[2];
	const uint8_t   *n;
	uint8_t          first[AUTH_NONCE];

	(void)state;
	memset(tab, 0, sizeof(tab));
	assert_non_null(n = auth_chal_issue(tab, 2, 1, NULL, 1000));
	memcpy(first, n, AUTH_NONCE);
	assert_non_null(auth_chal_issue(tab, 2, 2, NULL, 1000));
	/* Full: a third pipe waits until one expires. */
	assert_null(auth_chal_issue(tab, 2, 3, NULL, 1000));
	/* Pipe 1 asks again: its slot is replaced, not a second taken. */
	assert_non_null(n = auth_chal_issue(tab, 2, 1, NULL, 1500));
	assert_int_equal(
	    auth_chal_take(tab, 2, 1, first, AUTH_NONCE, NULL, 1500), 0);
	/* Expired ones neither prove nor block. */
	assert_int_equal(auth_chal_take(tab, 2, 1, n, AUTH_NONCE, NULL,
	                                1500 + AUTH_CHAL_MS + 1),
	                 0);
	assert_non_null(
	    auth_chal_issue(tab, 2, 3, NULL, 1500 + AUTH_CHAL_MS + 1));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_auth_proof_matches_openssl_hmac),
	    cmocka_unit_test(test_auth_equal_compares_every_byte),
	    cmocka_unit_test(test_auth_secret_file_checks),
	    cmocka_unit_test(test_auth_chal_serves_once),
	    cmocka_unit_test(test_auth_chal_expires_and_is_reused),
	};

	return (cmocka_run_group_tests_name("auth", tests, NULL, NULL));
}

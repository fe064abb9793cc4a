/* SPDX-License-Identifier: BSD-2-Clause */
/* Shared-secret proofs over OpenSSL (see auth.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "proto/auth.h"

int
auth_read_secret(const char *path, uint8_t *buf, size_t *len, char *err,
                 size_t errlen)
{
	struct stat st;
	FILE       *f;
	size_t      n;
	int         e;

	if ((f = fopen(path, "re")) == NULL) {
		e = errno;
		snprintf(err, errlen, "secret file %s: %s", path, strerror(e));
		return (-e);
	}
	if (fstat(fileno(f), &st) == 0 && (st.st_mode & 0007)) {
		snprintf(
		    err, errlen,
		    "secret file %s: readable by others (mode %03o); chmod "
		    "600 it",
		    path, (unsigned)(st.st_mode & 0777));
		fclose(f);
		return (-EINVAL);
	}
	n = fread(buf, 1, AUTH_SEC_MAX + 1, f);
	fclose(f);
	if (n > 0 && buf[n - 1] == '\n')
		n--;
	if (n > 0 && buf[n - 1] == '\r')
		n--;
	if (n < AUTH_SEC_MIN || n > AUTH_SEC_MAX) {
		snprintf(err, errlen,
		         "secret file %s: %zu bytes, expected %d to %d", path,
		         n, AUTH_SEC_MIN, AUTH_SEC_MAX);
		return (-EINVAL);
	}
	*len = n;
	return (0);
}

int
auth_nonce(uint8_t nonce[AUTH_NONCE])
{
	return (RAND_bytes(nonce, AUTH_NONCE) == 1 ? 0 : -EIO);
}

int
auth_proof(const uint8_t *secret, size_t slen, const uint8_t *nonce,
           size_t nlen, const char *host, uint8_t out[AUTH_PROOF])
{
	uint8_t msg[8 + 64 + 256];
	size_t  hl = strlen(host), ol = 0;

	if (nlen > 64 || hl > 256)
		return (-EINVAL);
	memcpy(msg, "ocs-join", 8);
	memcpy(msg + 8, nonce, nlen);
	memcpy(msg + 8 + nlen, host, hl);
	if (EVP_Q_mac(NULL, "HMAC", NULL, "SHA256", NULL, secret, slen, msg,
	              8 + nlen + hl, out, AUTH_PROOF, &ol) == NULL ||
	    ol != AUTH_PROOF)
		return (-EIO);
	return (0);
}

int
auth_attach_proof(const uint8_t *secret, size_t slen, const uint8_t *nonce,
                  const uint8_t *token, size_t tlen, const char *host,
                  uint8_t out[AUTH_PROOF])
{
	uint8_t msg[10 + AUTH_NONCE + 64 + 256];
	size_t  hl = strlen(host), ol = 0, n = 0;

	if (tlen > 64 || hl > 256)
		return (-EINVAL);
	memcpy(msg, "ocs-attach", 10);
	n = 10;
	memcpy(msg + n, nonce, AUTH_NONCE);
	n += AUTH_NONCE;
	memcpy(msg + n, token, tlen);
	n += tlen;
	memcpy(msg + n, host, hl);
	n += hl;
	if (EVP_Q_mac(NULL, "HMAC", NULL, "SHA256", NULL, secret, slen, msg, n,
	              out, AUTH_PROOF, &ol) == NULL ||
	    ol != AUTH_PROOF)
		return (-EIO);
	return (0);
}

int
auth_equal(const uint8_t *a, const uint8_t *b, size_t len)
{
	return (CRYPTO_memcmp(a, b, len) == 0);
}

const uint8_t *
auth_chal_issue(struct auth_chal *tab, size_t n, uint32_t pipe,
                const char *label, uint64_t now)
{
	struct auth_chal *ch = NULL;
	size_t            i;

	/* The pipe's own slot first, so one peer never holds two. */
	for (i = 0; i < n && ch == NULL; i++)
		if (tab[i].pipe == pipe)
			ch = &tab[i];
	for (i = 0; i < n && ch == NULL; i++)
		if (tab[i].expires < now)
			ch = &tab[i];
	if (ch == NULL || auth_nonce(ch->nonce) != 0)
		return (NULL);
	ch->pipe = pipe;
	ch->expires = now + AUTH_CHAL_MS;
	snprintf(ch->label, sizeof(ch->label), "%s", label ? label : "");
	return (ch->nonce);
}

int
auth_chal_take(struct auth_chal *tab, size_t n, uint32_t pipe,
               const uint8_t *nonce, size_t nlen, const char *label,
               uint64_t now)
{
	size_t i;

	if (nonce == NULL || nlen != AUTH_NONCE)
		return (0);
	for (i = 0; i < n; i++) {
		struct auth_chal *ch = &tab[i];

		if (ch->pipe != pipe || ch->expires < now || ch->expires == 0)
			continue;
		if (!auth_equal(ch->nonce, nonce, AUTH_NONCE) ||
		    strcmp(ch->label, label ? label : "") != 0)
			return (0);
		ch->expires = 0; /* a nonce serves once */
		return (1);
	}
	return (0);
}

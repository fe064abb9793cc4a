/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Proof of a shared secret for joining: HMAC-SHA256(secret, "ocs-join" |
 * nonce | host), and for attaching the agent link that follows, computed
 * with OpenSSL.  The secret never crosses the
 * wire; a fresh random nonce per join makes a recorded proof useless.
 */
#ifndef OCS_AUTH_H
#define OCS_AUTH_H

#include <stddef.h>
#include <stdint.h>

#define AUTH_NONCE   32
#define AUTH_PROOF   32
#define AUTH_SEC_MIN 16
#define AUTH_SEC_MAX 1024

/* Read a secret file: at least AUTH_SEC_MIN bytes, one trailing newline
 * dropped, not readable by others.  0 or -errno/-EINVAL (reason in err). */
int auth_read_secret(const char *path, uint8_t *buf, size_t *len, char *err,
                     size_t errlen);
/* A random nonce.  0 or -EIO. */
int auth_nonce(uint8_t nonce[AUTH_NONCE]);
/* The proof.  0 or -EIO. */
int auth_proof(const uint8_t *secret, size_t slen, const uint8_t *nonce,
               size_t nlen, const char *host, uint8_t out[AUTH_PROOF]);
/* The agent link's Attach: HMAC-SHA256(secret, "ocs-attach" | nonce |
 * token | host), nonce the link's own Challenge (AUTH_NONCE bytes),
 * token the join's (up to 64 bytes).  0, -EINVAL or -EIO. */
int auth_attach_proof(const uint8_t *secret, size_t slen, const uint8_t *nonce,
                      const uint8_t *token, size_t tlen, const char *host,
                      uint8_t out[AUTH_PROOF]);
/* Constant-time comparison of a proof; 1 if equal. */
int auth_equal(const uint8_t *a, const uint8_t *b, size_t len);

/*
 * Outstanding challenges, one per nng pipe, each good once and for
 * AUTH_CHAL_MS: ocsd's control socket and its agent socket both hand a
 * nonce to a Hello and take it back with the request that proves the
 * secret.  The table is the caller's (an array of n slots, zeroed);
 * calls do not lock, the caller serialises them.
 */
#define AUTH_CHAL_MS 10000

struct auth_chal {
	uint32_t pipe;
	uint64_t expires; /* mono_ms(); 0 when free or used */
	char     label[64];
	uint8_t  nonce[AUTH_NONCE];
};

/* A fresh nonce for pipe (its earlier one, if any, is replaced), bound to
 * label ("" for none).  The nonce, or NULL when every slot is live or the
 * random source failed. */
const uint8_t *auth_chal_issue(struct auth_chal *tab, size_t n, uint32_t pipe,
                               const char *label, uint64_t now);
/* Use up pipe's live challenge if nonce (nlen bytes) and label match it.
 * 1 if one did, else 0. */
int auth_chal_take(struct auth_chal *tab, size_t n, uint32_t pipe,
                   const uint8_t *nonce, size_t nlen, const char *label,
                   uint64_t now);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/* ReTri helpers exposed for tests: balanced ternary and the centred offset. */
#ifndef COLL_RETRI_H
#define COLL_RETRI_H

#include <stdint.h>

/* Smallest s with radix^s >= n (s >= 1 for n >= 2). */
uint32_t retri_nphases(uint64_t n, uint32_t radix);

/*
 * Centred offset of (d - r) mod n: v itself when 2v <= n, else v - n, so
 * the result lies in [-(n-1)/2, (n-1)/2] for odd n and (-n/2, n/2] for even
 * n (the one tie, v = n/2, is taken as +n/2).
 */
int64_t retri_centre(uint64_t v, uint64_t n);

/* Balanced ternary digits of x, least significant first, into tau[0..s-1];
 * returns 0, or -ERANGE if x needs more than s digits. */
int retri_digits(int64_t x, uint32_t s, int8_t *tau);

/* The same in balanced base b = 2q + 1 (odd, >= 3): digits -q..q. */
int retri_digits_b(int64_t x, uint32_t s, uint32_t b, int8_t *tau);

#define RETRI_MAX_RADIX 9 /* 8 transceivers a node, CIRC_MAX_RINGS rings */

#endif

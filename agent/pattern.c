/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The pattern: 64-bit word w of a block is seed + w * K, K odd (a Weyl
 * sequence), the seed a hash of (run, r, d, part); bytes are little-endian
 * within words, so any offset can be produced on its own.  Every word of
 * a block differs from every other, and blocks differ by their seeds, so
 * a wrong, moved or misdirected byte shows; the loops vectorise, which
 * keeps verification off the critical path.
 */
#include <string.h>

#include "agent/pattern.h"

#define K 0x9e3779b97f4a7c15ull

static uint64_t
mix(uint64_t x)
{
	x += K;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return (x ^ (x >> 31));
}

static uint64_t
seed(uint64_t run, uint32_t r, uint32_t d, uint32_t part)
{
	return (
	    mix(mix(run) ^ ((uint64_t)r << 32 | d) ^ ((uint64_t)part << 62)));
}

static uint64_t
word(uint64_t s, uint64_t w)
{
	return (s + w * K);
}

/* Byte i (0..7) of word w. */
static uint8_t
byte_of(uint64_t s, uint64_t w, unsigned i)
{
	return ((uint8_t)(word(s, w) >> (8 * i)));
}

/*
 * Four words at a time, each the one four before plus 4K: additions in
 * two SSE2 registers, where w * K per word would be a multiply each (no
 * 64-bit vector multiply below AVX-512).  Native width, so the compiler
 * keeps them in registers.  Little-endian words: x86.
 */
typedef uint64_t v2w __attribute__((vector_size(16)));

static void
fill_words(uint8_t *buf, size_t nw, uint64_t v0)
{
	v2w    a = {v0, v0 + K}, b = {v0 + 2 * K, v0 + 3 * K};
	v2w    step = {4 * K, 4 * K};
	size_t j;

	for (j = 0; j + 4 <= nw; j += 4, a += step, b += step) {
		memcpy(buf + 8 * j, &a, 16);
		memcpy(buf + 8 * j + 16, &b, 16);
	}
	for (; j < nw; j++) {
		uint64_t x = v0 + j * K;

		memcpy(buf + 8 * j, &x, 8);
	}
}

/* The OR of the differences of nw words of buf from the pattern's words
 * starting at value v0: 0 if they all match.  With to, the words are
 * also copied there, in the same pass (inlined apart for each case). */
static inline __attribute__((always_inline)) uint64_t
diff_words(const uint8_t *buf, uint8_t *to, size_t nw, uint64_t v0)
{
	v2w      a = {v0, v0 + K}, b = {v0 + 2 * K, v0 + 3 * K};
	v2w      step = {4 * K, 4 * K}, da = {0, 0}, db = {0, 0}, g, h;
	uint64_t r, x;
	size_t   j;

	for (j = 0; j + 4 <= nw; j += 4, a += step, b += step) {
		memcpy(&g, buf + 8 * j, 16);
		memcpy(&h, buf + 8 * j + 16, 16);
		if (to != NULL) {
			memcpy(to + 8 * j, &g, 16);
			memcpy(to + 8 * j + 16, &h, 16);
		}
		da |= g ^ a;
		db |= h ^ b;
	}
	da |= db;
	r = da[0] | da[1];
	for (; j < nw; j++) {
		memcpy(&x, buf + 8 * j, 8);
		if (to != NULL)
			memcpy(to + 8 * j, &x, 8);
		r |= x ^ (v0 + j * K);
	}
	return (r);
}

void
pat_fill(uint8_t *buf, size_t len, uint64_t run, uint32_t r, uint32_t d,
         uint32_t part, uint64_t off)
{
	uint64_t s = seed(run, r, d, part);
	size_t   i = 0;

	/* Unaligned head, whole words, tail. */
	while (i < len && (off + i) % 8 != 0) {
		buf[i] = byte_of(s, (off + i) / 8, (unsigned)((off + i) % 8));
		i++;
	}
	fill_words(buf + i, (len - i) / 8, word(s, (off + i) / 8));
	i += (len - i) / 8 * 8;
	for (; i < len; i++)
		buf[i] = byte_of(s, (off + i) / 8, (unsigned)((off + i) % 8));
}

/* The first wrong byte's offset in the block, or -1; with to, buf is
 * also copied there (up to the wrong byte's stretch at least). */
static inline __attribute__((always_inline)) int64_t
check(const uint8_t *buf, uint8_t *to, size_t len, uint64_t s, uint64_t off)
{
	uint64_t w, v, got;
	size_t   i = 0;
	unsigned b;

	for (; i < len && (off + i) % 8 != 0; i++) {
		if (buf[i] !=
		    byte_of(s, (off + i) / 8, (unsigned)((off + i) % 8)))
			return ((int64_t)(off + i));
		if (to != NULL)
			to[i] = buf[i];
	}
	/* Compare whole stretches with no branch inside; find the byte
	 * only when one differs. */
	w = (off + i) / 8;
	while (i + 8 <= len) {
		size_t j, end = i + 8 * 512 <= len ? i + 8 * 512
		                                   : i + (len - i) / 8 * 8;

		if (diff_words(buf + i, to != NULL ? to + i : NULL,
		               (end - i) / 8, word(s, w))) {
			for (j = i; j < end; j += 8) {
				v = word(s, w + (j - i) / 8);
				memcpy(&got, buf + j, 8);
				for (b = 0; b < 8; b++)
					if (((got ^ v) >> (8 * b)) & 0xff)
						return (
						    (int64_t)(off + j + b));
			}
		}
		w += (end - i) / 8;
		i = end;
	}
	for (; i < len; i++) {
		if (buf[i] !=
		    byte_of(s, (off + i) / 8, (unsigned)((off + i) % 8)))
			return ((int64_t)(off + i));
		if (to != NULL)
			to[i] = buf[i];
	}
	return (-1);
}

int64_t
pat_check(const uint8_t *buf, size_t len, uint64_t run, uint32_t r, uint32_t d,
          uint32_t part, uint64_t off)
{
	return (check(buf, NULL, len, seed(run, r, d, part), off));
}

int64_t
pat_check_copy(uint8_t *to, const uint8_t *buf, size_t len, uint64_t run,
               uint32_t r, uint32_t d, uint32_t part, uint64_t off)
{
	return (check(buf, to, len, seed(run, r, d, part), off));
}

/* Little-endian 32-bit elements, whatever the host's order. */
static uint32_t
le32(const uint8_t *p)
{
	return ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	        (uint32_t)p[3] << 24);
}

static void
put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

void
pat_add32(uint8_t *dst, const uint8_t *src, size_t len)
{
	size_t i;

	for (i = 0; i + 4 <= len; i += 4)
		put_le32(dst + i, le32(dst + i) + le32(src + i));
}

void
pat_fill_sum(uint8_t *buf, uint8_t *tmp, size_t len, uint64_t run, uint32_t n,
             uint32_t d, uint32_t part, uint64_t off)
{
	uint32_t r;

	pat_fill(buf, len, run, 0, d, part, off);
	for (r = 1; r < n; r++) {
		pat_fill(tmp, len, run, r, d, part, off);
		pat_add32(buf, tmp, len);
	}
}

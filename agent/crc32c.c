/* SPDX-License-Identifier: BSD-2-Clause */
/* CRC32C with a hardware path and a byte-table fallback. */
#include <string.h>

#include "agent/crc32c.h"

#define POLY 0x82f63b78u /* reflected Castagnoli */

static uint32_t
crc32c_table(uint32_t crc, const uint8_t *p, size_t len)
{
	static uint32_t tab[256];
	static int      init;
	uint32_t        i, j, c;

	/* Built on first use; a race writes the same values twice. */
	if (!__atomic_load_n(&init, __ATOMIC_ACQUIRE)) {
		for (i = 0; i < 256; i++) {
			for (c = i, j = 0; j < 8; j++)
				c = c & 1 ? (c >> 1) ^ POLY : c >> 1;
			tab[i] = c;
		}
		__atomic_store_n(&init, 1, __ATOMIC_RELEASE);
	}
	while (len--)
		crc = tab[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return (crc);
}

#if defined(__x86_64__)
/*
 * The instruction has a latency of three cycles and a throughput of one:
 * one chain of it runs at a third of what the core can do.  Three lanes
 * of LANE bytes run side by side, and are joined by linearity of the
 * register: crc(r, A.B) = shift(crc(r, A), |B|) ^ crc(0, B), where
 * shift(r, L) = crc(r, L zero bytes) is a linear map of r, tabulated.
 */
#define LANE 1024

struct crc_shift {
	uint32_t t[4][256];
	int      init;
};

__attribute__((target("sse4.2"))) static uint32_t
crc32c_1(uint64_t c, const uint8_t *p, size_t len)
{
	uint64_t w;

	while (len >= 8) {
		memcpy(&w, p, 8);
		c = __builtin_ia32_crc32di(c, w);
		p += 8;
		len -= 8;
	}
	while (len--)
		c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
	return ((uint32_t)c);
}

static const struct crc_shift *
shift_table(void)
{
	/* Constant once built; a race builds the same values twice. */
	static struct crc_shift sh;
	static const uint8_t    zero[LANE];
	uint32_t                basis[32], k, v, b, x;

	if (__atomic_load_n(&sh.init, __ATOMIC_ACQUIRE))
		return (&sh);
	for (b = 0; b < 32; b++)
		basis[b] = crc32c_1(1u << b, zero, LANE);
	for (k = 0; k < 4; k++)
		for (v = 0; v < 256; v++) {
			for (x = 0, b = 0; b < 8; b++)
				if (v & (1u << b))
					x ^= basis[8 * k + b];
			sh.t[k][v] = x;
		}
	__atomic_store_n(&sh.init, 1, __ATOMIC_RELEASE);
	return (&sh);
}

static uint32_t
shift(const struct crc_shift *sh, uint32_t r)
{
	return (sh->t[0][r & 0xff] ^ sh->t[1][(r >> 8) & 0xff] ^
	        sh->t[2][(r >> 16) & 0xff] ^ sh->t[3][r >> 24]);
}

__attribute__((target("sse4.2"))) static uint32_t
crc32c_hw(uint32_t crc, const uint8_t *p, size_t len)
{
	const struct crc_shift *sh = len >= 3 * LANE ? shift_table() : NULL;
	uint64_t                c0 = crc, c1, c2, w;
	size_t                  i;

	for (; len >= 3 * LANE; p += 3 * LANE, len -= 3 * LANE) {
		c1 = c2 = 0;
		for (i = 0; i < LANE; i += 8) {
			memcpy(&w, p + i, 8);
			c0 = __builtin_ia32_crc32di(c0, w);
			memcpy(&w, p + LANE + i, 8);
			c1 = __builtin_ia32_crc32di(c1, w);
			memcpy(&w, p + 2 * LANE + i, 8);
			c2 = __builtin_ia32_crc32di(c2, w);
		}
		c0 = shift(sh, shift(sh, (uint32_t)c0) ^ (uint32_t)c1) ^
		     (uint32_t)c2;
	}
	return (crc32c_1(c0, p, len));
}
#endif

uint32_t
crc32c(uint32_t crc, const void *buf, size_t len)
{
	crc = ~crc;
#if defined(__x86_64__)
	if (__builtin_cpu_supports("sse4.2"))
		return (~crc32c_hw(crc, buf, len));
#endif
	return (~crc32c_table(crc, buf, len));
}

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
__attribute__((target("sse4.2"))) static uint32_t
crc32c_hw(uint32_t crc, const uint8_t *p, size_t len)
{
	uint64_t c = crc, w;

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

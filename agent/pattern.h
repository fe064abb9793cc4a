/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Block contents: every byte of block B[r,d].part in run `run` is a
 * function of (run, r, d, part, offset), so any holder can check what it
 * received without the original (content, not just length).
 */
#ifndef OCS_PATTERN_H
#define OCS_PATTERN_H

#include <stddef.h>
#include <stdint.h>

/* Fill buf with the bytes [off, off + len) of the block. */
void pat_fill(uint8_t *buf, size_t len, uint64_t run, uint32_t r, uint32_t d,
              uint32_t part, uint64_t off);
/* -1 if buf holds those bytes, else the offset (in the block) of the
 * first wrong byte. */
int64_t pat_check(const uint8_t *buf, size_t len, uint64_t run, uint32_t r,
                  uint32_t d, uint32_t part, uint64_t off);
/* The same, and buf copied to `to` in the same pass (a receive checked
 * into its slot; what follows a wrong byte may not be copied). */
int64_t pat_check_copy(uint8_t *to, const uint8_t *buf, size_t len,
                       uint64_t run, uint32_t r, uint32_t d, uint32_t part,
                       uint64_t off);

/*
 * Reductions sum int32 elements (little-endian, wrapping): dst += src
 * over len bytes (whole elements).  pat_fill_sum puts in buf the sum,
 * over r = 0..n-1, of the bytes [off, off + len) of blocks (r, d, part)
 * (tmp: len bytes of room), so the holder of a reduced block can check
 * it; off and len are multiples of 4.
 */
void pat_add32(uint8_t *dst, const uint8_t *src, size_t len);
void pat_fill_sum(uint8_t *buf, uint8_t *tmp, size_t len, uint64_t run,
                  uint32_t n, uint32_t d, uint32_t part, uint64_t off);

#endif

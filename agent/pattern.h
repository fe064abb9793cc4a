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

#endif

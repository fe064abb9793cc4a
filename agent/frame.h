/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Data frames on a fibre.  A frame carries one chunk of one block of one
 * transfer; frames are whole and in order on a fibre (TCP), so relays can
 * forward them as they come (chunked, pipelined).  All fields are little
 * endian.  The CRC32C covers the header (except hops, which each relay
 * decrements) and the payload, so every hop checks every frame.
 *
 *	0  magic	"OCSF"
 *	4  run		low 32 bits of the run id
 *	8  phase	u16
 *	10 hops		u16, hops still to go; 1 at the last hop
 *	12 src, dst	u32, the transfer's end points
 *	20 block	u32, block id
 *	24 off		u32, offset of the chunk in the block
 *	28 len		u32, payload bytes
 *	32 crc		u32
 *	36 payload
 */
#ifndef OCS_FRAME_H
#define OCS_FRAME_H

#include <stddef.h>
#include <stdint.h>

#define FRAME_MAGIC       0x4653434fu /* "OCSF" little endian */
#define FRAME_HDR         36u
#define FRAME_MAX_PAYLOAD (1u << 20)

struct frame {
	uint32_t run;
	uint16_t phase, hops;
	uint32_t src, dst, block, off, len, crc;
};

/* Encode a header for payload p (len bytes) into out[FRAME_HDR]. */
void frame_put(uint8_t *out, const struct frame *, const void *p);
/* Decode a header (no CRC check).  0, or -EPROTO if the magic is wrong. */
int frame_get(const uint8_t *in, struct frame *);
/* Does the CRC in f match header and payload? */
int frame_crc_ok(const uint8_t *hdr, const struct frame *, const void *p);
/* Rewrite the hops field in an encoded header. */
void frame_set_hops(uint8_t *hdr, uint16_t hops);

#endif

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
 *
 * A probe (ocsctl check, idle agents only) is a frame of its own kind:
 * magic "OCSP", run, phase, hops, dst and off 0, src the sending
 * transceiver, block the check's nonce, and the sending host's name as
 * its payload.  The executor skips it whole (it is never data, whatever
 * run id a run has), so a probe late into a run disturbs nothing.
 */
#ifndef OCS_FRAME_H
#define OCS_FRAME_H

#include <stddef.h>
#include <stdint.h>

#define FRAME_MAGIC       0x4653434fu /* "OCSF" little endian */
#define FRAME_HDR         36u
#define FRAME_MAX_PAYLOAD (1u << 20)

#define FRAME_PROBE_MAGIC 0x5053434fu /* "OCSP" little endian */
#define FRAME_PROBE_HOST  48          /* a host name's bytes, less one */
#define FRAME_PROBE_MAX   (FRAME_HDR + FRAME_PROBE_HOST)

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

struct frame_probe {
	uint32_t nonce, trx;
	char     host[FRAME_PROBE_HOST];
};
/* Encode a probe into out[FRAME_PROBE_MAX]: its length.  The host name
 * is cut to FRAME_PROBE_HOST - 1 bytes. */
size_t frame_probe_put(uint8_t *out, const struct frame_probe *);
/* Is the header at in[FRAME_HDR] a probe's?  Its whole length (header
 * and host), or 0 when it is not one (another magic, a length no probe
 * has).  The CRC is frame_probe_get's to check. */
size_t frame_probe_len(const uint8_t *in);
/* Decode the probe at in (len bytes there): its length, 0 when more
 * bytes are needed, -EPROTO when it is not a good probe (magic, length,
 * CRC, a host name with bytes no host name has). */
int frame_probe_get(const uint8_t *in, size_t len, struct frame_probe *);

#endif

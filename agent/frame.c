/* SPDX-License-Identifier: BSD-2-Clause */
/* Frame headers: encode, decode, CRC (see frame.h). */
#include <errno.h>
#include <string.h>

#include "agent/crc32c.h"
#include "agent/frame.h"

static void
put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static uint32_t
get32(const uint8_t *p)
{
	return ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	        (uint32_t)p[3] << 24);
}

/* CRC of the header with hops and crc zeroed, then the payload. */
static uint32_t
frame_crc(const uint8_t *hdr, const void *p, uint32_t len)
{
	uint8_t h[FRAME_HDR];

	memcpy(h, hdr, FRAME_HDR);
	memset(h + 10, 0, 2);
	memset(h + 32, 0, 4);
	return (crc32c(crc32c(0, h, FRAME_HDR), p, len));
}

static void
put_hdr(uint8_t *out, uint32_t magic, const struct frame *f, const void *p)
{
	put32(out, magic);
	put32(out + 4, f->run);
	out[8] = (uint8_t)f->phase;
	out[9] = (uint8_t)(f->phase >> 8);
	frame_set_hops(out, f->hops);
	put32(out + 12, f->src);
	put32(out + 16, f->dst);
	put32(out + 20, f->block);
	put32(out + 24, f->off);
	put32(out + 28, f->len);
	put32(out + 32, frame_crc(out, p, f->len));
}

void
frame_put(uint8_t *out, const struct frame *f, const void *p)
{
	put_hdr(out, FRAME_MAGIC, f, p);
}

void
frame_set_hops(uint8_t *hdr, uint16_t hops)
{
	hdr[10] = (uint8_t)hops;
	hdr[11] = (uint8_t)(hops >> 8);
}

int
frame_get(const uint8_t *in, struct frame *f)
{
	if (get32(in) != FRAME_MAGIC)
		return (-EPROTO);
	f->run = get32(in + 4);
	f->phase = (uint16_t)(in[8] | in[9] << 8);
	f->hops = (uint16_t)(in[10] | in[11] << 8);
	f->src = get32(in + 12);
	f->dst = get32(in + 16);
	f->block = get32(in + 20);
	f->off = get32(in + 24);
	f->len = get32(in + 28);
	f->crc = get32(in + 32);
	return (0);
}

int
frame_crc_ok(const uint8_t *hdr, const struct frame *f, const void *p)
{
	return (frame_crc(hdr, p, f->len) == f->crc);
}

size_t
frame_probe_put(uint8_t *out, const struct frame_probe *pr)
{
	struct frame f = {0};
	size_t       n = strnlen(pr->host, FRAME_PROBE_HOST - 1);

	f.src = pr->trx;
	f.block = pr->nonce;
	f.len = (uint32_t)n;
	memcpy(out + FRAME_HDR, pr->host, n);
	put_hdr(out, FRAME_PROBE_MAGIC, &f, out + FRAME_HDR);
	return (FRAME_HDR + n);
}

size_t
frame_probe_len(const uint8_t *in)
{
	uint32_t len = get32(in + 28);

	if (get32(in) != FRAME_PROBE_MAGIC || len == 0 ||
	    len >= FRAME_PROBE_HOST)
		return (0);
	return (FRAME_HDR + len);
}

int
frame_probe_get(const uint8_t *in, size_t len, struct frame_probe *pr)
{
	struct frame f;
	size_t       n, i;

	if (len < FRAME_HDR)
		return (0);
	if ((n = frame_probe_len(in)) == 0)
		return (-EPROTO);
	if (len < n)
		return (0);
	f.len = (uint32_t)(n - FRAME_HDR);
	f.crc = get32(in + 32);
	if (!frame_crc_ok(in, &f, in + FRAME_HDR))
		return (-EPROTO);
	/* A name as ocsd takes them: letters, digits, '-', '_', '.'. */
	for (i = 0; i < f.len; i++) {
		uint8_t c = in[FRAME_HDR + i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '-' || c == '_' ||
		      c == '.'))
			return (-EPROTO);
	}
	memset(pr, 0, sizeof(*pr));
	pr->trx = get32(in + 12);
	pr->nonce = get32(in + 20);
	memcpy(pr->host, in + FRAME_HDR, f.len);
	return ((int)n);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: ocs-emu's TL1 command handling, from bytes on the
 * wire to replies, on a small switch model, in both dialects (Polatis,
 * then CALIENT on a fresh model).  Every reply must itself be well-formed
 * TL1 that our own parser accepts (CALIENT's "agent> " prompt between
 * them aside).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ocs-drivers/tl1.h"
#include "proto/base/log.h"
#include "testbed/ocs-emu/emu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

static void
one(const struct emu_tl1_dialect *d, const uint8_t *data, size_t len)
{
	static struct emu e; /* reset below; static only to avoid the stack */
	struct tl1_buf    out = {0};
	struct tl1_resp   r;
	size_t            off = 0;
	ssize_t           n;

	memset(&e, 0, sizeof(e));
	strcpy(e.c.user, "root");
	strcpy(e.c.password, "root");
	strcpy(e.sid, "EMU");
	e.c.block_bytes = 64;
	e.c.switch_ns = 1000;
	pthread_mutex_init(&e.mtx, NULL);
	e.c.ports = 8;
	/* The model as ocs-emu makes it: counters, per-port state. */
	if (emu_model_init(&e) != 0)
		abort();
	if (emu_tl1_feed(&e, d, (const char *)data, len, &out) != 0)
		abort();
	while (off < out.len) {
		if (d == &emu_tl1_calient) {
			while (off < out.len && strchr("\r\n", out.p[off]) &&
			       out.p[off])
				off++;
			if (out.len - off >= 7 &&
			    memcmp(out.p + off, "agent> ", 7) == 0) {
				off += 7;
				continue;
			}
		}
		n = tl1_resp_parse(out.p + off, out.len - off, &r);
		if (n <= 0)
			abort();
		tl1_resp_free(&r);
		off += (size_t)n;
	}
	tl1_buf_free(&out);
	emu_model_free(&e);
	pthread_mutex_destroy(&e.mtx);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	log_init("fuzz", 1, -1);
	one(&emu_tl1_polatis, data, len);
	one(&emu_tl1_calient, data, len);
	return (0);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: ocs-emu's TL1 command handling, from bytes on the
 * wire to replies, on a small switch model.  Every reply must itself be
 * well-formed TL1 that our own parser accepts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ocs-drivers/tl1.h"
#include "proto/base/log.h"
#include "testbed/ocs-emu/emu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static struct emu e; /* reset below; static only to avoid the stack */
	struct tl1_buf    out = {0};
	struct tl1_resp   r;
	size_t            off = 0;
	ssize_t           n;

	memset(&e, 0, sizeof(e));
	log_init("fuzz", 1, -1);
	strcpy(e.c.user, "root");
	strcpy(e.c.password, "root");
	strcpy(e.sid, "EMU");
	e.c.block_bytes = 64;
	e.c.switch_ns = 1000;
	pthread_mutex_init(&e.mtx, NULL);
	if (oxc_init(&e.x, 8, 1000) != 0)
		abort();
	/* As ocs-emu has them: light-path counters and the corrupt hook. */
	e.cnt_in = calloc(2 * 8 + 1, sizeof(*e.cnt_in));
	e.cnt_out = calloc(2 * 8 + 1, sizeof(*e.cnt_out));
	e.cnt_drop = calloc(2 * 8 + 1, sizeof(*e.cnt_drop));
	e.corrupt = calloc(2 * 8 + 1, sizeof(*e.corrupt));
	if (!e.cnt_in || !e.cnt_out || !e.cnt_drop || !e.corrupt)
		abort();
	if (emu_tl1_feed(&e, (const char *)data, len, &out) != 0)
		abort();
	while (off < out.len) {
		n = tl1_resp_parse(out.p + off, out.len - off, &r);
		if (n <= 0)
			abort();
		tl1_resp_free(&r);
		off += (size_t)n;
	}
	tl1_buf_free(&out);
	free(e.cnt_in);
	free(e.cnt_out);
	free(e.cnt_drop);
	free(e.corrupt);
	oxc_free(&e.x);
	pthread_mutex_destroy(&e.mtx);
	return (0);
}

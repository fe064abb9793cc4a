/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocs-emu's REST face inside: the server (emu_rest.c: nng's HTTP, auth,
 * faults, delayed answers) hands each request to the CALIENT resources
 * (emu_rest_xc.c) as plain strings.
 */
#ifndef OCS_EMU_REST_INT_H
#define OCS_EMU_REST_INT_H

#include <stddef.h>
#include <stdint.h>

#include "testbed/ocs-emu/emu.h"

/* A request as the resources see it. */
struct rest_req {
	const char *method, *uri;
	const char *body; /* not NUL-terminated */
	size_t      len;
	int         form; /* application/x-www-form-urlencoded */
	int         ro;   /* a read-only account */
};

/* What a handler decided; the server sends it. */
struct answer {
	uint16_t status;
	char    *body; /* malloc'd JSON (or garbage) */
	char     cookie[80];
	uint64_t due_ms; /* 0: now */
	int      drop;   /* hang up instead */
	int      dp;     /* and not before the kernel's datapath follows */
};

/* [{"status":"0","msg":"Failed","description":<text>}] */
__attribute__((__format__(printf, 2, 3))) void
     emu_rest_fail(struct answer *, const char *fmt, ...);
void emu_rest_results(struct answer *, const struct rest_result *, size_t n,
                      int bulk);

/* The resources, with e->mtx held. */
void emu_rest_crossconnects(struct emu *, const struct rest_req *,
                            struct answer *);
void emu_rest_ports(struct emu *, const struct rest_req *, struct answer *);
void emu_rest_info(struct emu *, const struct rest_req *, struct answer *);
/* A request target in origin form: an absolute-form target
 * ("http://HOST/rest/ports/?id=summary", RFC 7230 sect. 5.3.2) without
 * its scheme and authority; an origin-form one as it is. */
const char *emu_rest_origin(const char *target);

#endif

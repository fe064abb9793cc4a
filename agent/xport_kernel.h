/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The kernel transport's insides, shared by its sending half
 * (xport_kernel.c) and its receiving half (xport_kernel_rx.c).
 */
#ifndef OCS_XPORT_KERNEL_H
#define OCS_XPORT_KERNEL_H

#include <linux/if_ether.h>
#include <net/if.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define KX_ETHERTYPE 0x88b5
#define KX_SHIM      24
#define KX_HDR       (ETH_HLEN + KX_SHIM)
#define KX_F_PROBE   0x01 /* flags: a probe, not a byte of any stream */
#define KX_BATCH     64
#define KX_PIECES    4 /* gathered pieces a segment carries at most */
#define KX_RCVBUF    (64 << 20)
#define KX_SNDBUF    (4 << 20)
#define KX_STASH     64  /* segments held while a gap may still fill */
#define KX_GAP_MS    200 /* a gap no segment fills by then is a loss */
/* A stream that stops short of what the phase needs (its last segments
 * lost: no later one shows a gap) is lost after this much quiet.  Longer
 * than a gap: the silence is no proof (a sender descheduled on a busy
 * host is as quiet), where a gap is (later bytes came). */
#define KX_QUIET_MS 1000

/* A segment that arrived ahead of its turn. */
struct kx_seg {
	uint8_t  mac[ETH_ALEN];
	uint32_t stream;
	uint64_t off;
	uint32_t len, pos; /* payload bytes, and how many went out */
	int      used;
};

struct kx {
	int     fd, ifindex;
	char    ifname[IF_NAMESIZE];
	uint8_t mac[ETH_ALEN];
	size_t  seg; /* payload bytes a segment carries */
	/* Sending: this phase's stream. */
	uint32_t stream, run32;
	uint16_t phase, node;
	uint64_t sent;
	uint8_t  hdr[KX_BATCH][KX_HDR];
	/* Receiving: the stream being delivered and how far. */
	uint8_t  from[ETH_ALEN];
	uint32_t rstream;
	uint64_t expect;
	int      have_stream;
	/* Segments that came early (reordered on the way), their bytes at
	 * stash + i * seg; progress_ms: when the stash last moved. */
	struct kx_seg st[KX_STASH];
	uint32_t      nst;
	uint8_t      *stash;
	uint64_t      progress_ms;
	uint8_t       rhdr[KX_HDR];
	/* The stash overflowed (a segment had to be dropped): from
	 * ovf_ms on, arrivals are only looked at for the missing bytes,
	 * to tell reordering deeper than the stash (they come) from a loss
	 * (they do not, within KX_GAP_MS); ovf_late counts the later
	 * segments seen meanwhile. */
	int      ovf;
	uint64_t ovf_ms;
	uint32_t ovf_late;
	int      err; /* a loss seen: every later call says it */
	char     why[320];
};

uint32_t kx_get_be32(const uint8_t *);
ssize_t  kx_recv(void *priv, void *buf, size_t len);
ssize_t  kx_probe_recv(void *priv, void *buf, size_t len);
uint32_t kx_gap(void *priv, char *what, size_t len);

#endif

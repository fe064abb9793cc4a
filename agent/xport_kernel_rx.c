/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The kernel transport's receiving half.  Segments in order go straight
 * into the caller's buffer, many a system call.  A circuit does not
 * reorder, but the hosts' stacks may: on the namespace testbed a veth
 * hands frames to the backlog of whichever CPU sends them, so a sender
 * that moves between CPUs can overtake itself.  A segment that arrives
 * ahead of its turn is therefore held (up to KX_STASH of them) until the
 * bytes before it come; if they have not come after KX_GAP_MS they are
 * lost and the error says which bytes and from whom.  A stash that
 * overflows breaks the stream either way; what comes next tells whether
 * the bytes were reordered deeper than the stash or lost, and the error
 * says which.  Either the stream comes out whole and in order, or the run ends
 * with that error: never a silent wrong result (the frames inside still
 * carry their CRC32C).
 *
 * A new stream (the next phase's, or another sender's) begins when the
 * current one has nothing held; its first bytes may come late as well.
 */
#include <errno.h>
#include <linux/if_packet.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "agent/xport_kernel.h"
#include "proto/base/mono.h"

uint32_t
kx_get_be32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	        (uint32_t)p[2] << 8 | p[3]);
}

struct seg_id {
	const uint8_t *mac;
	uint32_t       stream;
	uint64_t       off;
	size_t         len;
};

/* Ours?  Its identity and payload length; -EAGAIN if not ours (or a
 * probe, which is no stream's). */
static int
parse(const uint8_t *h, size_t got, struct seg_id *s)
{
	if (got < KX_HDR || h[14] != 'O' || h[15] != 'S' || h[16] != 1 ||
	    (h[17] & KX_F_PROBE))
		return (-EAGAIN);
	s->mac = h + ETH_ALEN;
	s->stream = kx_get_be32(h + 18);
	s->off = (uint64_t)kx_get_be32(h + 22) << 32 | kx_get_be32(h + 26);
	s->len = got - KX_HDR;
	return (0);
}

static void
fmt_mac(const uint8_t *m, char *b, size_t len)
{
	snprintf(b, len, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2],
	         m[3], m[4], m[5]);
}

static int
is_current(const struct kx *k, const uint8_t *mac, uint32_t stream)
{
	return (k->have_stream && stream == k->rstream &&
	        memcmp(k->from, mac, ETH_ALEN) == 0);
}

/* A loss: said once, and every later call returns it. */
static int
lost(struct kx *k, const char *what)
{
	struct tpacket_stats ts = {0};
	socklen_t            tl = sizeof(ts);

	/* Whether this host dropped them (a receive buffer that overflowed)
	 * or they were lost before it. */
	(void)getsockopt(k->fd, SOL_PACKET, PACKET_STATISTICS, &ts, &tl);
	snprintf(k->why, sizeof(k->why),
	         "interface %s: %s; this socket dropped %u frames", k->ifname,
	         what, ts.tp_drops);
	return (k->err = -EBADMSG);
}

/* Is a segment the next in order?  Starts a new stream when the current
 * one holds nothing back.  1 yes, 0 no (hold it), <0 a repeat. */
static int
in_order(struct kx *k, const struct seg_id *s)
{
	char mac[18], what[160];

	if (is_current(k, s->mac, s->stream)) {
		if (s->off == k->expect)
			return (1);
		if (s->off > k->expect)
			return (0);
		fmt_mac(s->mac, mac, sizeof(mac));
		snprintf(what, sizeof(what),
		         "bytes at offset %llu from %s came twice",
		         (unsigned long long)s->off, mac);
		return (lost(k, what));
	}
	if (k->nst == 0 && s->off == 0) {
		memcpy(k->from, s->mac, ETH_ALEN);
		k->rstream = s->stream;
		k->expect = 0;
		k->have_stream = 1;
		return (1);
	}
	return (0);
}

/* Does s continue the stream (no side effects)? */
static int
continues(const struct kx *k, const struct seg_id *s)
{
	uint32_t i;

	if (is_current(k, s->mac, s->stream))
		return (s->off == k->expect);
	for (i = 0; i < KX_STASH; i++)
		if (k->st[i].used &&
		    is_current(k, k->st[i].mac, k->st[i].stream))
			return (0);
	return (s->off == 0);
}

/* After an overflow: does s bring the missing bytes?  Then the stream was
 * reordered deeper than the stash: said, as an error.  0 otherwise. */
static int
ovf_see(struct kx *k, const struct seg_id *s)
{
	char mac[18], what[200];

	if (!is_current(k, s->mac, s->stream) || s->off != k->expect) {
		k->ovf_late++;
		return (0);
	}
	fmt_mac(k->from, mac, sizeof(mac));
	snprintf(what, sizeof(what),
	         "reordered beyond %u segments: the bytes at offset %llu "
	         "from %s came after %u later segments (the stash holds %u)",
	         KX_STASH - 1, (unsigned long long)k->expect, mac, k->ovf_late,
	         KX_STASH - 1);
	return (lost(k, what));
}

/* After an overflow, the headers of what comes: the missing bytes
 * (reordered), or KX_GAP_MS without them (lost).  -EAGAIN meanwhile. */
static int
ovf_watch(struct kx *k)
{
	struct seg_id s;
	ssize_t       r;
	char          mac[18], what[200];

	while ((r = recv(k->fd, k->rhdr, KX_HDR, MSG_DONTWAIT | MSG_TRUNC)) >=
	       0)
		if (parse(k->rhdr, (size_t)r, &s) == 0 && ovf_see(k, &s) < 0)
			return (k->err);
	if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
		snprintf(k->why, sizeof(k->why), "interface %s: %s", k->ifname,
		         strerror(errno));
		return (k->err = -errno);
	}
	if (mono_ms() - k->ovf_ms < KX_GAP_MS)
		return (-EAGAIN);
	fmt_mac(k->from, mac, sizeof(mac));
	snprintf(what, sizeof(what),
	         "lost bytes from %s at offset %llu (%u later segments came "
	         "without them in %u ms)",
	         mac, (unsigned long long)k->expect, k->ovf_late, KX_GAP_MS);
	return (lost(k, what));
}

/* Hold a segment's payload; -EAGAIN if the stash is full (the segment is
 * dropped and the stream is judged by ovf_watch).  The last slot is kept
 * for the segment that continues the stream, so the one that fills a gap
 * always has room. */
static int
hold(struct kx *k, const struct seg_id *s, const uint8_t *payload)
{
	uint32_t i;

	if (k->nst >= KX_STASH - 1 && !continues(k, s)) {
		k->ovf = 1;
		k->ovf_ms = mono_ms();
		k->ovf_late = KX_STASH;
		return (-EAGAIN);
	}
	for (i = 0; k->st[i].used; i++)
		;
	memcpy(k->st[i].mac, s->mac, ETH_ALEN);
	k->st[i].stream = s->stream;
	k->st[i].off = s->off;
	k->st[i].len = (uint32_t)s->len;
	k->st[i].pos = 0;
	k->st[i].used = 1;
	if (payload != k->stash + i * k->seg)
		memcpy(k->stash + i * k->seg, payload, s->len);
	if (k->nst++ == 0)
		k->progress_ms = mono_ms();
	return (0);
}

/* The held segment that continues the stream, starting a new stream if
 * the current one holds nothing; KX_STASH if none. */
static uint32_t
next_held(struct kx *k)
{
	uint32_t i, cur = 0;

	for (i = 0; i < KX_STASH; i++) {
		struct kx_seg *g = &k->st[i];

		if (!g->used || !is_current(k, g->mac, g->stream))
			continue;
		if (g->off + g->pos == k->expect)
			return (i);
		cur++;
	}
	for (i = 0; cur == 0 && i < KX_STASH; i++)
		if (k->st[i].used && k->st[i].off == 0) {
			memcpy(k->from, k->st[i].mac, ETH_ALEN);
			k->rstream = k->st[i].stream;
			k->expect = 0;
			k->have_stream = 1;
			return (i);
		}
	return (KX_STASH);
}

/* Deliver what the stash holds in order; bytes placed. */
static size_t
drain(struct kx *k, uint8_t *buf, size_t room)
{
	size_t   done = 0, n;
	uint32_t i;

	while (done < room && k->nst && (i = next_held(k)) < KX_STASH) {
		struct kx_seg *g = &k->st[i];

		n = g->len - g->pos < room - done ? g->len - g->pos
		                                  : room - done;
		memcpy(buf + done, k->stash + i * k->seg + g->pos, n);
		g->pos += (uint32_t)n;
		done += n;
		k->expect += n;
		k->progress_ms = mono_ms();
		if (g->pos == g->len) {
			g->used = 0;
			k->nst--;
		}
	}
	return (done);
}

/* A gap that nothing filled in time is a loss. */
static int
gap_expired(struct kx *k)
{
	char     mac[18], what[200];
	uint64_t first = UINT64_MAX;
	uint32_t i;

	if (k->nst == 0 || mono_ms() - k->progress_ms < KX_GAP_MS ||
	    next_held(k) < KX_STASH) /* no gap: waiting for room */
		return (0);
	for (i = 0; i < KX_STASH; i++)
		if (k->st[i].used && k->st[i].off < first &&
		    is_current(k, k->st[i].mac, k->st[i].stream))
			first = k->st[i].off;
	if (first == UINT64_MAX) {
		for (i = 0; !k->st[i].used; i++)
			;
		fmt_mac(k->st[i].mac, mac, sizeof(mac));
		snprintf(what, sizeof(what),
		         "lost the first bytes of a stream from %s (the "
		         "earliest that came is at offset %llu)",
		         mac, (unsigned long long)k->st[i].off);
	} else {
		fmt_mac(k->from, mac, sizeof(mac));
		snprintf(what, sizeof(what),
		         "lost %llu bytes from %s (offset %llu, the next "
		         "that came is at %llu)",
		         (unsigned long long)(first - k->expect), mac,
		         (unsigned long long)k->expect,
		         (unsigned long long)first);
	}
	return (lost(k, what));
}

/*
 * Many segments straight into buf, one system call: each payload lands
 * at its own stride and is moved down to close the gap a short one
 * leaves.  From the first that is out of turn on, the rest of the batch
 * goes through the stash, so what follows is placed in order.  Bytes
 * placed, or <0; *came says whether any segment came.
 */
static ssize_t
recv_batch(struct kx *k, uint8_t *buf, size_t room, int *came)
{
	struct mmsghdr m[KX_BATCH];
	struct iovec   iov[KX_BATCH][2];
	struct seg_id  s;
	size_t         w = 0;
	int            i, cnt = (int)(room / k->seg), got, rv, held = 0;

	if (cnt > KX_BATCH)
		cnt = KX_BATCH;
	memset(m, 0, sizeof(m[0]) * (size_t)cnt);
	for (i = 0; i < cnt; i++) {
		iov[i][0].iov_base = k->hdr[i];
		iov[i][0].iov_len = KX_HDR;
		iov[i][1].iov_base = buf + (size_t)i * k->seg;
		iov[i][1].iov_len = k->seg;
		m[i].msg_hdr.msg_iov = iov[i];
		m[i].msg_hdr.msg_iovlen = 2;
	}
	*came = 0;
	if ((got = recvmmsg(k->fd, m, (unsigned)cnt, MSG_DONTWAIT, NULL)) <
	    0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			return (0);
		snprintf(k->why, sizeof(k->why), "interface %s: %s", k->ifname,
		         strerror(errno));
		return (k->err = -errno);
	}
	*came = got > 0;
	for (i = 0; i < got; i++) {
		if (parse(k->hdr[i], m[i].msg_len, &s) != 0)
			continue;
		if (!held && (rv = in_order(k, &s)) != 0) {
			if (rv < 0)
				return (w ? (ssize_t)w : rv);
			if (buf + w != iov[i][1].iov_base)
				memmove(buf + w, iov[i][1].iov_base, s.len);
			w += s.len;
			k->expect += s.len;
			continue;
		}
		if (k->ovf) { /* the rest is only looked at */
			if (ovf_see(k, &s) < 0)
				return (w ? (ssize_t)w : k->err);
			continue;
		}
		if ((rv = hold(k, &s, iov[i][1].iov_base)) == -EAGAIN)
			continue;
		held = 1;
	}
	if (k->ovf)
		return ((ssize_t)w);
	w += drain(k, buf + w, room - w);
	return ((ssize_t)w);
}

/* One segment into a free stash slot (the slow way, while a gap is
 * open or the caller has less room than a segment).  1 if one came, 0
 * if none, <0. */
static int
recv_held(struct kx *k)
{
	struct iovec  iov[2];
	struct msghdr mh = {.msg_iov = iov, .msg_iovlen = 2};
	struct seg_id s;
	uint32_t      i;
	ssize_t       r;

	/* Full only with the segment that continues the stream, which the
	 * next drain delivers. */
	if (k->nst == KX_STASH)
		return (0);
	for (i = 0; k->st[i].used; i++)
		;
	iov[0].iov_base = k->rhdr;
	iov[0].iov_len = KX_HDR;
	iov[1].iov_base = k->stash + i * k->seg;
	iov[1].iov_len = k->seg;
	if ((r = recvmsg(k->fd, &mh, MSG_DONTWAIT)) < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			return (0);
		snprintf(k->why, sizeof(k->why), "interface %s: %s", k->ifname,
		         strerror(errno));
		return (k->err = -errno);
	}
	if (parse(k->rhdr, (size_t)r, &s) != 0)
		return (1);
	if (is_current(k, s.mac, s.stream) && s.off < k->expect)
		return (in_order(k, &s));         /* a repeat: the error */
	(void)hold(k, &s, k->stash + i * k->seg); /* full: ovf_watch */
	return (1);
}

/* A stream that stops short (its last segments lost: nothing comes after
 * them to open a gap) is named by the executor, which knows how many
 * bytes the phase needs, after KX_QUIET_MS of quiet. */
uint32_t
kx_gap(void *priv, char *what, size_t len)
{
	struct kx           *k = priv;
	struct tpacket_stats ts = {0};
	socklen_t            tl = sizeof(ts);
	char                 mac[18];

	/* Segments held behind a gap, or an overflow being judged: the
	 * transport names that itself. */
	if (k->nst || k->ovf)
		return (0);
	/* Reading the statistics resets them: only for the error. */
	if (what == NULL || len == 0)
		return (KX_QUIET_MS);
	(void)getsockopt(k->fd, SOL_PACKET, PACKET_STATISTICS, &ts, &tl);
	if (k->have_stream) {
		fmt_mac(k->from, mac, sizeof(mac));
		snprintf(
		    what, len,
		    "interface %s: nothing came for %u ms after byte %llu "
		    "of the stream from %s; this socket dropped %u "
		    "frames",
		    k->ifname, KX_QUIET_MS, (unsigned long long)k->expect, mac,
		    ts.tp_drops);
	} else
		snprintf(what, len,
		         "interface %s: nothing came for %u ms; this socket "
		         "dropped %u frames",
		         k->ifname, KX_QUIET_MS, ts.tp_drops);
	return (KX_QUIET_MS);
}

ssize_t
kx_recv(void *priv, void *buf, size_t len)
{
	struct kx *k = priv;
	size_t     done = 0;
	ssize_t    r;
	int        came;

	if (k->err)
		return (k->err);
	if (k->ovf) /* before the stash's own gap: it cannot fill now */
		return (ovf_watch(k));
	if (gap_expired(k))
		return (k->err);
	while (done < len && !k->ovf) {
		done += drain(k, (uint8_t *)buf + done, len - done);
		if (done == len)
			break;
		if (k->nst == 0 && len - done >= k->seg) {
			if ((r = recv_batch(k, (uint8_t *)buf + done,
			                    len - done, &came)) < 0)
				return (done ? (ssize_t)done : r);
			if (!came)
				break;
			done += (size_t)r;
			continue;
		}
		if ((r = recv_held(k)) <= 0) {
			if (r < 0 && done == 0)
				return (r);
			break;
		}
	}
	if (done == 0 && k->ovf)
		return (ovf_watch(k));
	return (done ? (ssize_t)done : -EAGAIN);
}

/* Idle: the next probe segment's payload; every other segment that came
 * is dropped (no run reads them). */
ssize_t
kx_probe_recv(void *priv, void *buf, size_t len)
{
	struct kx    *k = priv;
	uint8_t       h[KX_HDR];
	struct iovec  v[2] = {{h, KX_HDR}, {buf, len}};
	struct msghdr m = {.msg_iov = v, .msg_iovlen = 2};
	ssize_t       r;

	for (;;) {
		m.msg_flags = 0;
		if ((r = recvmsg(k->fd, &m, MSG_DONTWAIT)) < 0)
			return (errno == EAGAIN || errno == EWOULDBLOCK ||
			                errno == EINTR
			            ? -EAGAIN
			            : -errno);
		if ((size_t)r > KX_HDR && h[14] == 'O' && h[15] == 'S' &&
		    h[16] == 1 && (h[17] & KX_F_PROBE) &&
		    !(m.msg_flags & MSG_TRUNC))
			return (r - (ssize_t)KX_HDR);
	}
}

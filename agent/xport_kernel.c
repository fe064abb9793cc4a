/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The kernel transport: a transceiver is a network interface (a NIC port
 * whose fibre goes into the switch, or a veth of the namespace testbed),
 * and the byte stream of xport.h travels in raw Ethernet frames of the
 * project's own EtherType, one AF_PACKET socket per interface.
 *
 * Why raw Ethernet and not TCP: a circuit's peer changes with every
 * configuration and is not known to the interface (relayed frames come
 * from whoever the switch connects); a circuit may be one-way (skewed
 * All-to-All), so there is no return path for ACKs or a handshake; and
 * nothing here may depend on IP routing, ARP or a neighbour table.  A
 * point-to-point circuit neither reorders nor duplicates, so the stream
 * needs no retransmission to be right, only the certainty that a loss
 * is seen: every segment carries a stream id and the stream offset of its
 * first byte, a stream starts at 0 with each phase (xport_epoch), and a
 * gap, a repeat or a stream that starts late is an error naming the
 * interface, the sender's address and the bytes lost.  The frames inside
 * still carry their CRC32C, so a corrupted byte is caught as with TCP.
 *
 *	dst   ff:ff:ff:ff:ff:ff (the circuit has one receiver, whoever it is)
 *	src   the interface's address
 *	type  0x88b5 (IEEE 802 local experimental)
 *	0  magic "OS", version 1, flags (0, or KX_F_PROBE)
 *	4  stream   u32 big endian: the sender's phase stream
 *	8  offset   u64 big endian: of the first payload byte in the stream
 *	16 run      u32 big endian: low 32 bits of the run id
 *	20 phase    u16 big endian
 *	22 src      u16 big endian: the sending node
 *	24 payload  up to MTU - 24 bytes
 *
 * A probe (ocsctl check, agent/frame.h) is one segment of its own with
 * the flag KX_F_PROBE, stream, offset, run, phase and source 0: no
 * stream's byte, so the receiving half never delivers it as data.
 *
 * Run, phase and source are there for a capture on the switch's ports
 * (ocs-emu --capture), which sees segments, not the frames inside.
 *
 * Flow control is the kernel's: the socket's send buffer holds what the
 * interface's queue has not sent (a shaped fibre's tbf pushes back
 * there), and a large receive buffer takes a phase's bursts.
 */
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "agent/xport.h"
#include "proto/base/log.h"
#include "proto/base/mono.h"

#include "agent/xport_kernel.h"

static void
put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/*
 * SO_RCVBUFFORCE needs CAP_NET_ADMIN; without it SO_RCVBUF is capped at
 * net.core.rmem_max (Debian: 208 KiB), and a phase's burst overruns the
 * buffer: a lost-bytes error that says nothing of why.  Say it at once.
 */
static void
rcv_check(int fd, const char *ifname, int asked)
{
	int       got = 0;
	socklen_t len = sizeof(got);

	/* The kernel reports twice what it was set to (its overhead). */
	if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &got, &len) != 0 ||
	    got / 2 >= asked)
		return;
	log_warnx("interface %s: receive buffer %d KiB of %d KiB asked: "
	          "give ocs-agent CAP_NET_ADMIN (SO_RCVBUFFORCE) or raise "
	          "net.core.rmem_max to %d, or large phases lose bytes",
	          ifname, got / 2 / 1024, asked / 1024, asked);
}

/*
 * Up?  A carrier is not asked for: on real optics an unpatched switch
 * port carries no light, so a NIC without a carrier is dark, not
 * unplugged, and gets one when a circuit lights it (the agent watches
 * carriers and tells ocsd, which waits for them before a phase).
 */
static int
iface_check(int fd, const char *name, char *err, size_t errlen)
{
	struct ifreq r;

	memset(&r, 0, sizeof(r));
	snprintf(r.ifr_name, sizeof(r.ifr_name), "%s", name);
	if (ioctl(fd, SIOCGIFFLAGS, &r) != 0) {
		snprintf(err, errlen, "interface %s: %s", name,
		         strerror(errno));
		return (-ENODEV);
	}
	if (!(r.ifr_flags & IFF_UP)) {
		snprintf(err, errlen, "interface %s is down", name);
		return (-ENETDOWN);
	}
	return (0);
}

static int
iface_info(struct kx *k, char *err, size_t errlen)
{
	struct ifreq r;
	int          rv;

	if ((rv = iface_check(k->fd, k->ifname, err, errlen)) != 0)
		return (rv);
	memset(&r, 0, sizeof(r));
	snprintf(r.ifr_name, sizeof(r.ifr_name), "%s", k->ifname);
	if (ioctl(k->fd, SIOCGIFMTU, &r) != 0 || r.ifr_mtu < 576) {
		snprintf(err, errlen, "interface %s: MTU %d (576 or more)",
		         k->ifname, r.ifr_mtu);
		return (-EINVAL);
	}
	k->seg = (size_t)r.ifr_mtu - KX_SHIM;
	memset(&r, 0, sizeof(r));
	snprintf(r.ifr_name, sizeof(r.ifr_name), "%s", k->ifname);
	if (ioctl(k->fd, SIOCGIFHWADDR, &r) != 0) {
		snprintf(err, errlen, "interface %s: no hardware address",
		         k->ifname);
		return (-EINVAL);
	}
	memcpy(k->mac, r.ifr_hwaddr.sa_data, ETH_ALEN);
	return (0);
}

static int
kx_open(void *priv, const char *ifname, uint32_t ingress, uint32_t egress,
        int timeout_ms, char *err, size_t errlen)
{
	struct kx         *k = priv;
	struct sockaddr_ll sl;
	int                one = 1, rcv = KX_RCVBUF, snd = KX_SNDBUF, rv;

	(void)ingress;
	(void)egress;
	(void)timeout_ms;
	k->fd = -1;
	if (strlen(ifname) >= IF_NAMESIZE || ifname[0] == '\0') {
		snprintf(err, errlen, "interface \"%s\": not a name", ifname);
		return (-EINVAL);
	}
	snprintf(k->ifname, sizeof(k->ifname), "%s", ifname);
	if ((k->ifindex = (int)if_nametoindex(ifname)) == 0) {
		snprintf(err, errlen, "interface %s: no such interface",
		         ifname);
		return (-ENODEV);
	}
	if ((k->fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC,
	                    htons(KX_ETHERTYPE))) < 0) {
		rv = -errno;
		snprintf(err, errlen, "interface %s: raw socket: %s%s", ifname,
		         strerror(errno),
		         rv == -EPERM ? " (needs CAP_NET_RAW)" : "");
		return (rv);
	}
	if ((rv = iface_info(k, err, errlen)) != 0)
		return (rv);
	memset(&sl, 0, sizeof(sl));
	sl.sll_family = AF_PACKET;
	sl.sll_protocol = htons(KX_ETHERTYPE);
	sl.sll_ifindex = k->ifindex;
	/* Not our own frames back; buffers for a phase's bursts (forced
	 * past the sysctl limits when we may). */
	setsockopt(k->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one,
	           sizeof(one));
	if (setsockopt(k->fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcv, sizeof(rcv)))
		setsockopt(k->fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
	rcv_check(k->fd, ifname, rcv);
	if (setsockopt(k->fd, SOL_SOCKET, SO_SNDBUFFORCE, &snd, sizeof(snd)))
		setsockopt(k->fd, SOL_SOCKET, SO_SNDBUF, &snd, sizeof(snd));
	if (bind(k->fd, (struct sockaddr *)&sl, sizeof(sl)) != 0) {
		rv = -errno;
		snprintf(err, errlen, "interface %s: bind: %s", ifname,
		         strerror(errno));
		return (rv);
	}
	if ((k->stash = malloc(KX_STASH * k->seg)) == NULL)
		return (-ENOMEM);
	if (getrandom(&k->stream, sizeof(k->stream), 0) != sizeof(k->stream))
		k->stream = (uint32_t)mono_ns();
	return (0);
}

static int
kx_fd(void *priv)
{
	return (((struct kx *)priv)->fd);
}

static void
kx_epoch(void *priv, uint32_t run32, uint16_t phase, uint16_t node)
{
	struct kx *k = priv;

	k->stream++;
	k->sent = 0;
	k->run32 = run32;
	k->phase = phase;
	k->node = node;
}

/* A segment's Ethernet header, magic, version and flags. */
static void
fill_eth(const struct kx *k, uint8_t *h, uint8_t flags)
{
	memset(h, 0xff, ETH_ALEN);
	memcpy(h + ETH_ALEN, k->mac, ETH_ALEN);
	h[12] = KX_ETHERTYPE >> 8;
	h[13] = KX_ETHERTYPE & 0xff;
	h[14] = 'O';
	h[15] = 'S';
	h[16] = 1;
	h[17] = flags;
}

static void
fill_hdr(struct kx *k, uint8_t *h, uint64_t off)
{
	fill_eth(k, h, 0);
	put_be32(h + 18, k->stream);
	put_be32(h + 22, (uint32_t)(off >> 32));
	put_be32(h + 26, (uint32_t)off);
	put_be32(h + 30, k->run32);
	h[34] = (uint8_t)(k->phase >> 8);
	h[35] = (uint8_t)k->phase;
	h[36] = (uint8_t)(k->node >> 8);
	h[37] = (uint8_t)k->node;
}

/*
 * Cut the nv pieces at v into segments (each its header and up to seg
 * bytes, from up to KX_PIECES pieces) and send a batch of them: bytes
 * moved, -EAGAIN, or -errno.  Gathering lets a frame go from its header
 * and its block's slot without being copied together first.
 */
static ssize_t
kx_sendv(void *priv, const struct iovec *v, int nv)
{
	struct kx     *k = priv;
	struct mmsghdr m[KX_BATCH];
	struct iovec   iov[KX_BATCH][1 + KX_PIECES];
	size_t         len[KX_BATCH], off = 0, vo = 0, t;
	int            vi = 0, i, p, cnt, sent;

	memset(m, 0, sizeof(m));
	for (cnt = 0; cnt < KX_BATCH; cnt++) {
		for (; vi < nv && vo == v[vi].iov_len; vi++)
			vo = 0;
		if (vi == nv)
			break;
		fill_hdr(k, k->hdr[cnt], k->sent + off);
		iov[cnt][0] = (struct iovec){k->hdr[cnt], KX_HDR};
		for (len[cnt] = 0, p = 1;
		     p <= KX_PIECES && len[cnt] < k->seg && vi < nv; p++) {
			t = v[vi].iov_len - vo;
			t = t < k->seg - len[cnt] ? t : k->seg - len[cnt];
			iov[cnt][p] =
			    (struct iovec){(uint8_t *)v[vi].iov_base + vo, t};
			len[cnt] += t;
			if ((vo += t) == v[vi].iov_len) {
				vi++;
				vo = 0;
			}
		}
		m[cnt].msg_hdr.msg_iov = iov[cnt];
		m[cnt].msg_hdr.msg_iovlen = (size_t)p;
		off += len[cnt];
	}
	if (cnt == 0)
		return (0);
	sent = sendmmsg(k->fd, m, (unsigned)cnt, MSG_DONTWAIT);
	if (sent <= 0) {
		/* A full queue (ENOBUFS from a qdisc) waits like a full
		 * buffer. */
		if (sent == 0 || errno == EAGAIN || errno == EWOULDBLOCK ||
		    errno == EINTR || errno == ENOBUFS)
			return (-EAGAIN);
		snprintf(k->why, sizeof(k->why), "interface %s: %s", k->ifname,
		         strerror(errno));
		return (-errno);
	}
	for (off = 0, i = 0; i < sent; i++)
		off += len[i];
	k->sent += off;
	return ((ssize_t)off);
}

static ssize_t
kx_send(void *priv, const void *buf, size_t len)
{
	struct iovec v = {(void *)(uintptr_t)buf, len};

	return (kx_sendv(priv, &v, 1));
}

/* One probe, one segment of its own (never a stream's bytes). */
static int
kx_probe_send(void *priv, const void *buf, size_t len)
{
	struct kx    *k = priv;
	uint8_t       h[KX_HDR];
	struct iovec  v[2] = {{h, KX_HDR}, {(void *)(uintptr_t)buf, len}};
	struct msghdr m = {.msg_iov = v, .msg_iovlen = 2};

	if (len > k->seg)
		return (-EMSGSIZE);
	memset(h, 0, sizeof(h));
	fill_eth(k, h, KX_F_PROBE);
	if (sendmsg(k->fd, &m, MSG_DONTWAIT) < 0)
		return (errno == EAGAIN || errno == EWOULDBLOCK ||
		                errno == EINTR || errno == ENOBUFS
		            ? -EAGAIN
		            : -errno);
	return (0);
}

static const char *
kx_why(void *priv)
{
	struct kx *k = priv;

	return (k->why[0] ? k->why : NULL);
}

static void
kx_close(void *priv)
{
	struct kx *k = priv;

	if (k->fd >= 0)
		close(k->fd);
	k->fd = -1;
	free(k->stash);
	k->stash = NULL;
}

const struct xport_ops xport_kernel_ops = {
    .name = "kernel",
    .priv_size = sizeof(struct kx),
    .open = kx_open,
    .fd = kx_fd,
    .send = kx_send,
    .sendv = kx_sendv,
    .recv = kx_recv,
    .epoch = kx_epoch,
    .why = kx_why,
    .gap = kx_gap,
    .probe_send = kx_probe_send,
    .probe_recv = kx_probe_recv,
    .close = kx_close,
};

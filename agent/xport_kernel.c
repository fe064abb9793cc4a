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
 *	0  magic "OS", version 1, flags 0
 *	4  stream   u32 big endian: the sender's phase stream
 *	8  offset   u64 big endian: of the first payload byte in the stream
 *	16 run      u32 big endian: low 32 bits of the run id
 *	20 phase    u16 big endian
 *	22 src      u16 big endian: the sending node
 *	24 payload  up to MTU - 24 bytes
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
#include "proto/base/mono.h"

#define KX_ETHERTYPE 0x88b5
#define KX_SHIM      24
#define KX_HDR       (ETH_HLEN + KX_SHIM)
#define KX_BATCH     64
#define KX_RCVBUF    (64 << 20)
#define KX_SNDBUF    (4 << 20)

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
	/* Receiving: the stream being read, and a segment's remainder. */
	uint8_t  from[ETH_ALEN];
	uint32_t rstream;
	uint64_t expect;
	int      have_stream;
	uint8_t *rbuf;
	size_t   rhead, rtail;
	char     why[200];
};

static void
put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t
get_be32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	        (uint32_t)p[2] << 8 | p[3]);
}

/* Up and with a carrier (a veth whose peer is up, a NIC with light)? */
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
	if (!(r.ifr_flags & IFF_UP) || !(r.ifr_flags & IFF_RUNNING)) {
		snprintf(err, errlen, "interface %s is %s", name,
		         !(r.ifr_flags & IFF_UP) ? "down"
		                                 : "up but has no carrier "
		                                   "(unplugged?)");
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
	if (setsockopt(k->fd, SOL_SOCKET, SO_SNDBUFFORCE, &snd, sizeof(snd)))
		setsockopt(k->fd, SOL_SOCKET, SO_SNDBUF, &snd, sizeof(snd));
	if (bind(k->fd, (struct sockaddr *)&sl, sizeof(sl)) != 0) {
		rv = -errno;
		snprintf(err, errlen, "interface %s: bind: %s", ifname,
		         strerror(errno));
		return (rv);
	}
	if ((k->rbuf = malloc(k->seg + KX_HDR)) == NULL)
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

static void
fill_hdr(struct kx *k, uint8_t *h, uint64_t off)
{
	memset(h, 0xff, ETH_ALEN);
	memcpy(h + ETH_ALEN, k->mac, ETH_ALEN);
	h[12] = KX_ETHERTYPE >> 8;
	h[13] = KX_ETHERTYPE & 0xff;
	h[14] = 'O';
	h[15] = 'S';
	h[16] = 1;
	h[17] = 0;
	put_be32(h + 18, k->stream);
	put_be32(h + 22, (uint32_t)(off >> 32));
	put_be32(h + 26, (uint32_t)off);
	put_be32(h + 30, k->run32);
	h[34] = (uint8_t)(k->phase >> 8);
	h[35] = (uint8_t)k->phase;
	h[36] = (uint8_t)(k->node >> 8);
	h[37] = (uint8_t)k->node;
}

static ssize_t
kx_send(void *priv, const void *buf, size_t len)
{
	struct kx     *k = priv;
	struct mmsghdr m[KX_BATCH];
	struct iovec   iov[KX_BATCH][2];
	size_t         off = 0, n;
	int            i, cnt, sent;

	memset(m, 0, sizeof(m));
	for (cnt = 0; cnt < KX_BATCH && off < len; cnt++) {
		n = len - off < k->seg ? len - off : k->seg;
		fill_hdr(k, k->hdr[cnt], k->sent + off);
		iov[cnt][0].iov_base = k->hdr[cnt];
		iov[cnt][0].iov_len = KX_HDR;
		iov[cnt][1].iov_base = (uint8_t *)(uintptr_t)buf + off;
		iov[cnt][1].iov_len = n;
		m[cnt].msg_hdr.msg_iov = iov[cnt];
		m[cnt].msg_hdr.msg_iovlen = 2;
		off += n;
	}
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
		off += iov[i][1].iov_len;
	k->sent += off;
	return ((ssize_t)off);
}

/* Check one received segment's shim; its payload length, or <0. */
static ssize_t
check_seg(struct kx *k, const uint8_t *h, size_t got)
{
	uint32_t stream;
	uint64_t off;
	char     mac[18];

	if (got < KX_HDR || h[14] != 'O' || h[15] != 'S' || h[16] != 1)
		return (-EAGAIN); /* not ours: skipped */
	stream = get_be32(h + 18);
	off = (uint64_t)get_be32(h + 22) << 32 | get_be32(h + 26);
	snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x", h[6], h[7],
	         h[8], h[9], h[10], h[11]);
	if (!k->have_stream || stream != k->rstream ||
	    memcmp(k->from, h + ETH_ALEN, ETH_ALEN) != 0) {
		if (off != 0) {
			snprintf(k->why, sizeof(k->why),
			         "interface %s: lost the first %llu bytes of "
			         "a stream from %s",
			         k->ifname, (unsigned long long)off, mac);
			return (-EBADMSG);
		}
		memcpy(k->from, h + ETH_ALEN, ETH_ALEN);
		k->rstream = stream;
		k->expect = 0;
		k->have_stream = 1;
	}
	if (off != k->expect) {
		snprintf(k->why, sizeof(k->why),
		         "interface %s: %s %llu bytes from %s (offset %llu, "
		         "expected %llu)",
		         k->ifname, off > k->expect ? "lost" : "repeated",
		         (unsigned long long)(off > k->expect
		                                  ? off - k->expect
		                                  : k->expect - off),
		         mac, (unsigned long long)off,
		         (unsigned long long)k->expect);
		return (-EBADMSG);
	}
	k->expect += got - KX_HDR;
	return ((ssize_t)(got - KX_HDR));
}

static ssize_t
kx_recv(void *priv, void *buf, size_t len)
{
	struct kx *k = priv;
	size_t     done = 0, n;
	ssize_t    r, p;

	while (done < len) {
		if (k->rhead < k->rtail) {
			n = k->rtail - k->rhead;
			n = n < len - done ? n : len - done;
			memcpy((uint8_t *)buf + done, k->rbuf + k->rhead, n);
			k->rhead += n;
			done += n;
			continue;
		}
		r = recv(k->fd, k->rbuf, k->seg + KX_HDR, MSG_DONTWAIT);
		if (r < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK ||
			    errno == EINTR)
				break;
			snprintf(k->why, sizeof(k->why), "interface %s: %s",
			         k->ifname, strerror(errno));
			return (done ? (ssize_t)done : -errno);
		}
		if ((p = check_seg(k, k->rbuf, (size_t)r)) == -EAGAIN)
			continue;
		if (p < 0)
			return (done ? (ssize_t)done : p);
		k->rhead = KX_HDR;
		k->rtail = KX_HDR + (size_t)p;
	}
	return (done ? (ssize_t)done : -EAGAIN);
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
	free(k->rbuf);
	k->rbuf = NULL;
}

const struct xport_ops xport_kernel_ops = {
    .name = "kernel",
    .priv_size = sizeof(struct kx),
    .open = kx_open,
    .fd = kx_fd,
    .send = kx_send,
    .recv = kx_recv,
    .epoch = kx_epoch,
    .why = kx_why,
    .close = kx_close,
};

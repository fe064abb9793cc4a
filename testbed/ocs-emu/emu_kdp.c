/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocs-emu's kernel datapath (--datapath netns:PREFIX): the switch's
 * cross-connects programmed into the kernel of the namespace testbed that
 * testbed/netns.sh builds.  Duplex port k is the veth "p<k>" in PREFIX-sw
 * (ingress k, egress N+k); a patch ingress i -> egress N+j is a u32
 * match-all filter on p<i>'s ingress hook whose mirred action redirects
 * every frame out of p<j>.  Below it (a later priority) every port has a
 * second one for good, redirecting to "dark", where nothing listens: a
 * port that is unpatched, switching, shut or failed has a patch filter
 * that passes everything on (mirred "continue"), so what it gets falls
 * through to the dark one, whose statistics count what no patch carried.
 * Each change replaces the patch filter's action in one netlink request,
 * so there is no moment at which a port
 * forwards where the model does not say; a reconfiguration's requests go
 * in one datagram, acknowledged once (emu_nlb.c).
 *
 * One thread keeps the kernel equal to the model: woken by every change
 * of patches (oxc's changed hook) and at the next settling time, it moves
 * changed ports to dark at once and to their new egress once the mirrors
 * have settled, and only then marks them carried, so no power reading
 * (hence no light check of ocsd's) shows a path the kernel does not
 * forward yet.  Netlink sockets are opened in the testbed's namespaces
 * before any thread starts (setns applies to the calling thread only).
 *
 * The model's generation is marked applied (emu->dp_gen, and dp_wake
 * written) once the kernel's filters forward and darken exactly as the
 * model says, so a change is answered (TL1 COMPLD) only then: a new
 * circuit carries, and a removed one carries nothing, once the switch has
 * said so.
 *
 * Links follow the light, as on real optics: a host transceiver has a
 * carrier only while light reaches its receiver, so the switch side of
 * its veth (p<k>) is up only while egress N+k is lit through the kernel,
 * and, after light returns, only once the port's retrain time (--link-up)
 * has passed.  A port whose light goes (or comes from another sender) is
 * taken down after the pass that darkens the path, and comes up only once
 * it has been down, so its host always sees the carrier drop and return
 * (ocsd waits for that).  Links are set after the answer, as a NIC's
 * carrier follows a real switch's mirrors, not the switch's reply: a link
 * taken down costs the kernel an RCU grace period under the RTNL lock
 * (0.1-15 ms each on a loaded 2-core machine; 81 of them 11-107 ms), so
 * an answer that waited for them took 50-64 ms for 81 ports where the
 * filters alone take 2-5 ms.  Link work is done one request at a time
 * and gives way to a change of patches, whose filters go first.
 *
 * One emulator a testbed: an abstract UNIX socket bound in PREFIX-sw
 * (released by the kernel when its holder dies, even by SIGKILL) marks
 * the testbed taken, and a second ocs-emu is refused with the holder's
 * pid.
 *
 * --capture: libpcap on every port and on the sink (emu_cap.c), the proof
 * that no frame met an unlit circuit.
 *
 * Fibre shaping (--rate, --fibre-delay): a tbf (and netem) qdisc on every
 * host transceiver's veth in PREFIX-hNN, the transmitter's line rate.  It
 * sits at the sender because that is where a queue pushes back on the
 * socket (a redirected frame over a full queue at the switch would be
 * lost without a word).  It goes when the emulator stops; one a killed
 * emulator left is replaced, or removed when this one shapes nothing.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <linux/gen_stats.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <linux/tc_act/tc_mirred.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <netlink/netlink.h>
#include <netlink/route/act/mirred.h>
#include <netlink/route/action.h>
#include <netlink/route/classifier.h>
#include <netlink/route/cls/u32.h>
#include <netlink/route/link.h>
#include <netlink/route/qdisc.h>
#include <netlink/route/qdisc/netem.h>
#include <netlink/route/qdisc/tbf.h>
#include <netlink/route/tc.h>

#include "proto/base/log.h"
#include "proto/base/mono.h"
#include "testbed/ocs-emu/emu.h"
#include "testbed/ocs-emu/emu_cap.h"
#include "testbed/ocs-emu/emu_kdp.h"
#include "testbed/ocs-emu/emu_nlb.h"

#define KDP_PRIO      1 /* the patch: to the egress port, when lit */
#define KDP_PRIO_DARK 2 /* always there: what no patch takes, to "dark" */
/* u32 keeps a hash table per priority, numbered from 800 as they are
 * made: the patch filter's is made first. */
#define KDP_HANDLE      0x80000800u /* 800::800 */
#define KDP_HANDLE_DARK 0x80100800u /* 801::800 */
/* Links set between two looks for a change of patches: a link taken
 * down costs the kernel an RCU grace period (0.1-15 ms on a loaded
 * 2-core machine), and 8 of them held a following change back by up to
 * 15 ms; one at a time, an up costs one round trip more (~40 us). */
#define KDP_LINK_BATCH 1
#define KDP_CNT_BATCH  2 /* ports whose counters are read between looks */
#define KDP_INGRESS    0xffff0000u /* ffff: (TC_HANDLE shifts an int) */
#define KDP_TICK_NS    10000000u   /* shutters and faults: seen within this */
#define KDP_STATS_NS   100000000u  /* counters refreshed this often */
#define KDP_HOST_TRX   64          /* t0..t63 a host, at most */
/* The testbed's lock: an abstract UNIX socket in PREFIX-sw. */
#define KDP_LOCK_NAME "ocs-emu/datapath"

struct kport {
	int      ifindex; /* p<k>, 0 if the testbed has no such port */
	int      to; /* where its patch filter redirects: 0 none, -1 unknown */
	int      up; /* its link as set: 1 up, 0 down, -1 unknown */
	int      fwd; /* the kernel forwards what the model says (planning) */
	int      lwant;  /* the link it should have now */
	int      bounce; /* its light went: down before it comes up again */
	uint64_t since;  /* light at its receiver since (mono ns), 0: dark */
	uint32_t src;    /* the ingress whose light that is */
};

/* A host namespace's transceivers, shaped or cleared at open and
 * cleared at close. */
struct khost {
	struct nl_sock *sk;
	int             ix[KDP_HOST_TRX];
	int             n;
};

struct emu_kdp {
	struct emu     *e;
	struct nl_sock *sk; /* in PREFIX-sw */
	int             sink;
	int             pass; /* darkpeer: where a dark port's copy goes */
	uint32_t        n;
	struct kport   *p; /* [n + 1] */
	int            *want;
	uint16_t       *out_at;    /* [n + 1]: the patch programmed */
	uint64_t       *settle_at; /* [n + 1]: and its settling time */
	struct nl_msg **msgs;      /* [n]: one batch of changes */
	uint32_t       *chg;       /* [n]: the ports they change */
	int            *errs;      /* [n]: and how each went */
	pthread_cond_t  cond;
	pthread_t       thr;
	int             started, stop;
	uint64_t        stats_at;
	char            prefix[64];
	struct emu_cap *cap; /* --capture, or NULL */
	int             lockfd;
	struct khost   *hosts;
	int             nhosts, shaped;
	int             ok; /* this pass's filter requests all succeeded */
	int             link_ok; /* and its link requests */
	uint32_t        cnt_at;  /* the next port whose counters to read */
	uint32_t        nlseq;   /* numbering sk's batches (emu_nlb.h) */
};

/* ---- netlink in a namespace --------------------------------------------- */

/* Enter namespace ns in this thread; *self is where to come back to. */
static int
ns_enter(const char *ns, int *self, char *err, size_t len)
{
	char path[300];
	int  fd, rv;

	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		snprintf(err, len, "namespace %s: %s (netns.sh up builds it)",
		         ns, strerror(errno));
		return (-ENOENT);
	}
	if ((*self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC)) < 0 ||
	    setns(fd, CLONE_NEWNET) != 0) {
		rv = -errno;
		snprintf(err, len, "entering namespace %s: %s", ns,
		         strerror(errno));
		close(fd);
		if (*self >= 0)
			close(*self);
		return (rv);
	}
	close(fd);
	return (0);
}

static void
ns_leave(int self)
{
	/* Back home, or nothing else in this thread is where it thinks. */
	if (setns(self, CLONE_NEWNET) != 0) {
		log_warnx("returning from a namespace: %s", strerror(errno));
		abort();
	}
	close(self);
}

/* A netlink socket that lives in namespace ns. */
static int
sock_in_ns(const char *ns, struct nl_sock **out, char *err, size_t len)
{
	struct nl_sock *sk;
	int             self, rv;

	if ((rv = ns_enter(ns, &self, err, len)) != 0)
		return (rv);
	rv = -ENOMEM;
	if ((sk = nl_socket_alloc()) != NULL &&
	    ((rv = nl_connect(sk, NETLINK_ROUTE)) != 0 ||
	     (rv = nl_socket_set_buffer_size(sk, 1 << 20, 1 << 20)) != 0)) {
		snprintf(err, len, "netlink in %s: %s", ns, nl_geterror(rv));
		nl_socket_free(sk);
		sk = NULL;
		rv = -EIO;
	}
	ns_leave(self);
	*out = sk;
	return (sk ? 0 : rv);
}

/* The capture's packet sockets, opened in the switch's namespace. */
static int
open_capture(struct emu_kdp *k, const char *ns, char *err, size_t len)
{
	int     *have, self, rv;
	uint32_t j;

	if ((have = calloc(k->n + 1, sizeof(*have))) == NULL)
		return (-ENOMEM);
	for (j = 1; j <= k->n; j++)
		have[j] = k->p[j].ifindex != 0;
	if ((rv = ns_enter(ns, &self, err, len)) == 0) {
		rv = emu_cap_open(&k->cap, k->n, have, err, len);
		ns_leave(self);
	}
	free(have);
	return (rv);
}

static int
ifindex_of(struct nl_sock *sk, const char *name)
{
	struct rtnl_link *l;
	int               ix;

	if (rtnl_link_get_kernel(sk, 0, name, &l) != 0)
		return (0);
	ix = rtnl_link_get_ifindex(l);
	rtnl_link_put(l);
	return (ix);
}

/* ---- the filters ---------------------------------------------------------- */

static int
ingress_qdisc(struct nl_sock *sk, int ifindex, int add)
{
	struct rtnl_qdisc *q = rtnl_qdisc_alloc();
	int                rv;

	if (q == NULL)
		return (-NLE_NOMEM);
	rtnl_tc_set_ifindex(TC_CAST(q), ifindex);
	rtnl_tc_set_parent(TC_CAST(q), TC_H_INGRESS);
	rtnl_tc_set_handle(TC_CAST(q), KDP_INGRESS);
	rtnl_tc_set_kind(TC_CAST(q), "ingress");
	rv = add ? rtnl_qdisc_add(sk, q, NLM_F_CREATE | NLM_F_EXCL)
	         : rtnl_qdisc_delete(sk, q);
	rtnl_qdisc_put(q);
	return (rv);
}

/*
 * The request to add or replace port ifindex's filter of priority prio:
 * every frame out of device `to`.  With pass set (the patch filter of a
 * dark port) the frame is only mirrored there (to darkpeer, whose copies
 * die at dark's receive side, unseen by the capture, which watches what
 * dark sends) and goes on to the next priority, the dark filter, whose
 * count thus never restarts (a replace
 * changes a u32 filter's actions, never its selector, and its actions'
 * counts start again).  Into *msg (the caller sends and frees it).
 */
static int
filter_req(int ifindex, uint16_t prio, int to, int pass, struct nl_msg **msg)
{
	struct rtnl_cls *c = rtnl_cls_alloc();
	struct rtnl_act *a = rtnl_act_alloc();
	int              rv = -NLE_NOMEM;

	if (c == NULL || a == NULL)
		goto out;
	rtnl_tc_set_ifindex(TC_CAST(c), ifindex);
	rtnl_tc_set_parent(TC_CAST(c), KDP_INGRESS);
	rtnl_tc_set_handle(TC_CAST(c), prio == KDP_PRIO_DARK ? KDP_HANDLE_DARK
	                                                     : KDP_HANDLE);
	if ((rv = rtnl_tc_set_kind(TC_CAST(c), "u32")) != 0)
		goto out;
	rtnl_cls_set_prio(c, prio);
	rtnl_cls_set_protocol(c, ETH_P_ALL);
	/* Match everything, and stop there (a u32 key that is not terminal
	 * only leads on to other tables). */
	if ((rv = rtnl_u32_add_key_uint32(c, 0, 0, 0, 0)) != 0 ||
	    (rv = rtnl_u32_set_cls_terminal(c)) != 0 ||
	    (rv = rtnl_tc_set_kind(TC_CAST(a), "mirred")) != 0)
		goto out;
	rtnl_mirred_set_action(a, pass ? TCA_EGRESS_MIRROR : TCA_EGRESS_REDIR);
	rtnl_mirred_set_policy(a, pass ? TC_ACT_UNSPEC : TC_ACT_STOLEN);
	rtnl_mirred_set_ifindex(a, (uint32_t)to);
	if ((rv = rtnl_u32_add_action(c, a)) != 0)
		goto out;
	rv = rtnl_cls_build_add_request(c, NLM_F_CREATE | NLM_F_REPLACE, msg);
out:
	if (a)
		rtnl_act_put(a);
	if (c)
		rtnl_cls_put(c);
	return (rv);
}

/* One filter now (setup). */
static int
filter_set(struct nl_sock *sk, uint32_t *seq, int ifindex, uint16_t prio,
           int to, int pass)
{
	struct nl_msg *m;
	int            rv;

	if ((rv = filter_req(ifindex, prio, to, pass, &m)) != 0)
		return (rv);
	return (emu_nlb_send(sk, seq, &m, 1, NULL));
}

/* The bytes in one dumped filter's actions.  libnl's classifier objects
 * do not keep their actions' statistics, so the dump is read here: each
 * action's TCA_ACT_STATS holds a TCA_STATS_BASIC. */
static int
filter_msg(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[TCA_MAX + 1], *ut[TCA_U32_MAX + 1];
	struct nlattr *acts[TCA_ACT_MAX_PRIO + 1], *at[TCA_ACT_MAX + 1];
	struct nlattr *st[TCA_STATS_MAX + 1];
	struct gnet_stats_basic gb;
	uint64_t               *bytes = arg;
	int                     i;

	const struct tcmsg *t = nlmsg_data(nlmsg_hdr(msg));

	/* The dark filter only: its priority is tcm_info's upper half. */
	if ((t->tcm_info >> 16) != KDP_PRIO_DARK ||
	    nlmsg_parse(nlmsg_hdr(msg), sizeof(struct tcmsg), tb, TCA_MAX,
	                NULL) != 0 ||
	    !tb[TCA_OPTIONS] ||
	    nla_parse_nested(ut, TCA_U32_MAX, tb[TCA_OPTIONS], NULL) != 0 ||
	    !ut[TCA_U32_ACT] ||
	    nla_parse_nested(acts, TCA_ACT_MAX_PRIO, ut[TCA_U32_ACT], NULL) !=
	        0)
		return (NL_OK);
	for (i = 1; i <= TCA_ACT_MAX_PRIO; i++) {
		if (!acts[i] ||
		    nla_parse_nested(at, TCA_ACT_MAX, acts[i], NULL) != 0 ||
		    !at[TCA_ACT_STATS] ||
		    nla_parse_nested(st, TCA_STATS_MAX, at[TCA_ACT_STATS],
		                     NULL) != 0 ||
		    !st[TCA_STATS_BASIC] ||
		    nla_len(st[TCA_STATS_BASIC]) < (int)sizeof(gb))
			continue;
		memcpy(&gb, nla_data(st[TCA_STATS_BASIC]), sizeof(gb));
		/* At the ingress hook a frame's length starts after its
		 * Ethernet header: count whole frames, as the links do. */
		*bytes += gb.bytes + (uint64_t)gb.packets * ETH_HLEN;
	}
	return (NL_OK);
}

/* Bytes port ifindex's filter action has counted (0 if unknown). */
static uint64_t
filter_bytes(struct nl_sock *sk, int ifindex)
{
	struct tcmsg t = {.tcm_family = AF_UNSPEC,
	                  .tcm_ifindex = ifindex,
	                  .tcm_parent = KDP_INGRESS};
	uint64_t     b = 0;

	if (nl_send_simple(sk, RTM_GETTFILTER, NLM_F_DUMP, &t, sizeof(t)) < 0)
		return (0);
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, filter_msg, &b);
	(void)nl_recvmsgs_default(sk);
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_DEFAULT, NULL, NULL);
	return (b);
}

/* ---- the thread ------------------------------------------------------------ */

/* What each port should do now, under mtx; the next time to look. */
static uint64_t
plan_ports(struct emu_kdp *k, uint64_t now)
{
	const struct oxc *x = &k->e->x;
	uint64_t          next = now + KDP_TICK_NS;
	uint32_t          in, out;

	for (in = 1; in <= k->n; in++) {
		out = x->out_of[in];
		k->out_at[in] = (uint16_t)out;
		k->settle_at[in] = x->settle[in];
		k->want[in] = k->sink;
		if (!k->p[in].ifindex || out == 0)
			continue;
		if (oxc_passes(x, in, now) && k->p[out - k->n].ifindex)
			k->want[in] = k->p[out - k->n].ifindex;
		else if (x->settle[in] > now && x->settle[in] < next)
			next = x->settle[in];
	}
	return (next);
}

/*
 * Make the kernel do what plan_ports said, outside the lock: each changed
 * port's patch filter replaced, pointing at its egress or passing all on
 * to the dark filter; one batch, which the kernel takes in order.
 */
static void
apply(struct emu_kdp *k)
{
	struct nl_msg **m = k->msgs;
	uint32_t        in, n = 0;
	int             rv;

	for (in = 1; in <= k->n; in++) {
		struct kport *p = &k->p[in];
		int           dark = k->want[in] == k->sink;

		if (!p->ifindex || p->to == (dark ? 0 : k->want[in]))
			continue;
		if (filter_req(p->ifindex, KDP_PRIO,
		               dark ? k->pass : k->want[in], dark, &m[n]) == 0)
			k->chg[n++] = in;
		else
			k->ok = 0;
	}
	if (n == 0)
		return;
	if ((rv = emu_nlb_send(k->sk, &k->nlseq, m, n, k->errs)) != 0) {
		log_warnx("datapath: %u port changes: %s", n, nl_geterror(rv));
		k->ok = 0;
	}
	for (in = 0; in < n; in++) {
		uint32_t j = k->chg[in];

		/* One that failed is done again in the next pass. */
		k->p[j].to = k->errs[in] != 0        ? -1
		             : k->want[j] == k->sink ? 0
		                                     : k->want[j];
	}
	log_debug("datapath: %u ports changed in one batch", n);
}

/* Under mtx: does the kernel forward what the model has now, port by
 * port (into fwd)? */
static void
plan_fwd(struct emu_kdp *k)
{
	const struct oxc *x = &k->e->x;
	uint32_t          in;

	for (in = 1; in <= k->n; in++) {
		uint32_t out = x->out_of[in];

		/* A path with no veth at one end has nothing for the
		 * kernel to carry: the model alone says. */
		if (!k->p[in].ifindex || (out && !k->p[out - k->n].ifindex))
			k->p[in].fwd = 1;
		else
			k->p[in].fwd = k->want[in] != k->sink &&
			               k->p[in].to == k->want[in] &&
			               out == k->out_at[in] &&
			               x->settle[in] == k->settle_at[in];
	}
}

/* Under mtx: carried where the kernel forwards what the model has now
 * (the power monitors, and so ocsd's light check, see light only
 * there). */
static void
mark_carried(struct emu_kdp *k)
{
	uint32_t in;

	plan_fwd(k);
	for (in = 1; in <= k->n; in++)
		k->e->x.carried[in] = (uint8_t)k->p[in].fwd;
}

/*
 * Under mtx, after plan_fwd: the link each port should have now (light at
 * its receiver through the kernel, for its retrain time), and the next
 * time one comes up (or next).
 */
static uint64_t
plan_links(struct emu_kdp *k, uint64_t now, uint64_t next)
{
	const struct emu *e = k->e;
	const struct oxc *x = &e->x;
	uint32_t          j, in;
	uint64_t          t;

	for (j = 1; j <= k->n; j++) {
		struct kport *p = &k->p[j];
		int           lit;

		if (!p->ifindex)
			continue;
		in = x->in_of[k->n + j];
		lit = in != 0 && oxc_passes(x, in, now) && k->p[in].fwd;
		if (lit && p->since != 0 && p->src != in) {
			/* Light from another sender: the receiver loses
			 * lock and trains again, however short the switch's
			 * dark time was (a pass down, then up). */
			lit = 0;
			next = now;
		}
		if (!lit) {
			p->since = 0;
			/* Down it goes before it may come up again, even if
			 * light returns before the link was set (a later
			 * pass): the host must see the carrier drop. */
			if (p->up != 0)
				p->bounce = 1;
		} else if (p->since == 0) {
			p->since = now;
			p->src = in;
		}
		t = p->since + (e->link_ns ? e->link_ns[j] : 0);
		p->lwant = lit && now >= t && !p->bounce;
		if (lit && p->bounce)
			next = now; /* up once it has been down */
		else if (lit && now < t && t < next)
			next = t;
	}
	return (next);
}

/* A request setting port ifindex's link up or down (its veth peer, the
 * host's transceiver, gets or loses its carrier with it). */
static int
link_req(int ifindex, int up, struct nl_msg **out)
{
	struct ifinfomsg ifi = {.ifi_family = AF_UNSPEC,
	                        .ifi_index = ifindex,
	                        .ifi_flags = up ? IFF_UP : 0,
	                        .ifi_change = IFF_UP};
	struct nl_msg   *m = nlmsg_alloc_simple(RTM_SETLINK, 0);

	if (m == NULL)
		return (-NLE_NOMEM);
	if (nlmsg_append(m, &ifi, sizeof(ifi), NLMSG_ALIGNTO) < 0) {
		nlmsg_free(m);
		return (-NLE_NOMEM);
	}
	*out = m;
	return (0);
}

/* Has the model moved on from generation gen (or is it time to stop)? */
static int
moved(struct emu_kdp *k, uint64_t gen)
{
	int rv;

	pthread_mutex_lock(&k->e->mtx);
	rv = k->e->x.gen != gen || k->stop;
	pthread_mutex_unlock(&k->e->mtx);
	return (rv);
}

/*
 * Outside the lock: set the links plan_links asked for, KDP_LINK_BATCH
 * requests a datagram, giving way to a change of patches between two
 * (a change is answered once its filters are in, and links follow, as a
 * NIC's carrier follows light on real optics): 1 if one came (the links
 * left are set in a later pass), else 0.
 */
static int
apply_links(struct emu_kdp *k, uint64_t gen)
{
	uint32_t j = 1, i, n;
	int      rv;

	while (j <= k->n) {
		for (n = 0; j <= k->n && n < KDP_LINK_BATCH; j++) {
			struct kport *p = &k->p[j];

			if (!p->ifindex || p->up == p->lwant)
				continue;
			if (link_req(p->ifindex, p->lwant, &k->msgs[n]) == 0)
				k->chg[n++] = j;
			else
				k->link_ok = 0;
		}
		if (n == 0)
			break;
		if ((rv = emu_nlb_send(k->sk, &k->nlseq, k->msgs, n,
		                       k->errs)) != 0) {
			log_warnx("datapath: %u link changes: %s", n,
			          nl_geterror(rv));
			k->link_ok = 0;
		}
		for (i = 0; i < n; i++) {
			struct kport *p = &k->p[k->chg[i]];

			/* One that failed is set again in the next pass. */
			p->up = k->errs[i] != 0 ? -1 : p->lwant;
			if (p->up == 0)
				p->bounce = 0;
		}
		if (moved(k, gen))
			return (1);
	}
	return (0);
}

/* The switch side's byte counts: what the hosts sent in and were sent. */
static void
link_counters(struct emu_kdp *k)
{
	struct emu       *e = k->e;
	struct nl_cache  *links;
	struct rtnl_link *l;
	uint32_t          j;

	if (rtnl_link_alloc_cache(k->sk, AF_UNSPEC, &links) != 0)
		return;
	for (j = 1; j <= k->n; j++) {
		if (!k->p[j].ifindex ||
		    (l = rtnl_link_get(links, k->p[j].ifindex)) == NULL)
			continue;
		/* Switch side: what it receives, the host sent in. */
		__atomic_store_n(&e->cnt_in[j],
		                 rtnl_link_get_stat(l, RTNL_LINK_RX_BYTES),
		                 __ATOMIC_RELAXED);
		__atomic_store_n(&e->cnt_out[k->n + j],
		                 rtnl_link_get_stat(l, RTNL_LINK_TX_BYTES),
		                 __ATOMIC_RELAXED);
		rtnl_link_put(l);
	}
	nl_cache_free(links);
}

/*
 * The counters, every KDP_STATS_NS: the links' in one dump, then each
 * port's dark count (a dump a port, 0.1-0.3 ms each), KDP_CNT_BATCH
 * between two looks for a change of patches, which goes first: 1 if one
 * came (the round goes on in a later pass from where it stopped).
 */
static int
refresh_counters(struct emu_kdp *k, uint64_t gen)
{
	uint32_t n;

	if (k->cnt_at == 0) {
		if (mono_ns() < k->stats_at)
			return (0);
		link_counters(k);
		k->cnt_at = 1;
	}
	while (k->cnt_at <= k->n) {
		for (n = 0; k->cnt_at <= k->n && n < KDP_CNT_BATCH;
		     k->cnt_at++) {
			int ix = k->p[k->cnt_at].ifindex;

			if (!ix)
				continue;
			__atomic_store_n(&k->e->cnt_drop[k->cnt_at],
			                 filter_bytes(k->sk, ix),
			                 __ATOMIC_RELAXED);
			n++;
		}
		if (k->cnt_at <= k->n && moved(k, gen))
			return (1);
	}
	k->cnt_at = 0;
	k->stats_at = mono_ns() + KDP_STATS_NS;
	return (0);
}

static void
changed(void *arg)
{
	pthread_cond_signal(&((struct emu_kdp *)arg)->cond);
}

/*
 * The kernel follows the model in two steps: the filters (each changed
 * port dark at once, pointed at its egress once settled), after which
 * the paths the kernel forwards are marked carried and the model's
 * generation applied (a change is answered: new paths carry, removed
 * ones are dark); then the links (down where the light went, up where it
 * has been back for the retrain time), as a NIC's carrier follows the
 * light after the switch has moved.  Link and counter work gives way to
 * a change of patches, which goes first.
 */
static void *
kdp_main(void *arg)
{
	struct emu_kdp *k = arg;
	struct emu     *e = k->e;
	struct timespec ts;
	uint64_t        gen, next;
	int             busy;

	pthread_mutex_lock(&e->mtx);
	while (!k->stop) {
		gen = e->x.gen;
		k->ok = 1;
		next = plan_ports(k, mono_ns());
		pthread_mutex_unlock(&e->mtx);
		apply(k);
		pthread_mutex_lock(&e->mtx);
		mark_carried(k);
		if (k->ok && e->x.gen == gen && e->dp_gen != gen) {
			uint64_t one = 1;

			e->dp_gen = gen;
			(void)write(e->dp_wake, &one, sizeof(one));
		}
		next = plan_links(k, mono_ns(), next);
		pthread_mutex_unlock(&e->mtx);
		k->link_ok = 1;
		busy = apply_links(k, gen) || refresh_counters(k, gen);
		pthread_mutex_lock(&e->mtx);
		if (busy || e->x.gen != gen || k->stop)
			continue;
		if ((!k->ok || !k->link_ok) &&
		    next > mono_ns() + KDP_TICK_NS / 10)
			next = mono_ns() + KDP_TICK_NS / 10; /* try again */
		if (k->stats_at < next)
			next = k->stats_at;
		ts.tv_sec = (time_t)(next / 1000000000u);
		ts.tv_nsec = (long)(next % 1000000000u);
		pthread_cond_timedwait(&k->cond, &e->mtx, &ts);
	}
	pthread_mutex_unlock(&e->mtx);
	return (NULL);
}

/* ---- shaping ---------------------------------------------------------------- */

static int
shape_dev(struct nl_sock *sk, int ifindex, uint64_t rate_bps,
          uint64_t delay_ns)
{
	struct rtnl_qdisc *q = rtnl_qdisc_alloc(), *d = NULL;
	int                rv = -NLE_NOMEM, bytes = (int)(rate_bps / 8);

	if (q == NULL)
		return (rv);
	rtnl_tc_set_ifindex(TC_CAST(q), ifindex);
	rtnl_tc_set_parent(TC_CAST(q), TC_H_ROOT);
	rtnl_tc_set_handle(TC_CAST(q), TC_HANDLE(1, 0));
	if ((rv = rtnl_tc_set_kind(TC_CAST(q), "tbf")) != 0)
		goto out;
	/* A burst of 1 ms of line rate (at least two jumbo frames) and a
	 * queue the sender's socket buffer never fills: the socket waits,
	 * the queue never drops. */
	rtnl_qdisc_tbf_set_rate(
	    q, bytes, bytes / 1000 > 20000 ? bytes / 1000 : 20000, 0);
	rtnl_qdisc_tbf_set_limit(q, 64 << 20);
	if ((rv = rtnl_qdisc_add(sk, q, NLM_F_CREATE | NLM_F_REPLACE)) != 0 ||
	    delay_ns == 0)
		goto out;
	rv = -NLE_NOMEM;
	if ((d = rtnl_qdisc_alloc()) == NULL)
		goto out;
	rtnl_tc_set_ifindex(TC_CAST(d), ifindex);
	rtnl_tc_set_parent(TC_CAST(d), TC_HANDLE(1, 1));
	rtnl_tc_set_handle(TC_CAST(d), TC_HANDLE(10, 0));
	if ((rv = rtnl_tc_set_kind(TC_CAST(d), "netem")) != 0)
		goto out;
	rtnl_netem_set_delay(d, (int)(delay_ns / 1000));
	rtnl_netem_set_limit(d, 1 << 20);
	rv = rtnl_qdisc_add(sk, d, NLM_F_CREATE | NLM_F_REPLACE);
out:
	if (d)
		rtnl_qdisc_put(d);
	rtnl_qdisc_put(q);
	return (rv);
}

/* A host transceiver's root qdisc goes: the default again. */
static void
unshape_dev(struct nl_sock *sk, int ifindex)
{
	struct rtnl_qdisc *q = rtnl_qdisc_alloc();

	if (q == NULL)
		return;
	rtnl_tc_set_ifindex(TC_CAST(q), ifindex);
	rtnl_tc_set_parent(TC_CAST(q), TC_H_ROOT);
	/* None there (the default) is not an error here. */
	(void)rtnl_qdisc_delete(sk, q);
	rtnl_qdisc_put(q);
}

/* One host namespace: its t<j>, shaped (rate) or cleared of what a
 * killed emulator left; the socket kept to clear them at close. */
static int
host_open(struct emu_kdp *k, const char *ns, uint64_t rate_bps,
          uint64_t delay_ns, char *err, size_t len)
{
	struct khost *h = &k->hosts[k->nhosts];
	char          name[16];
	int           rv, ix;

	memset(h, 0, sizeof(*h));
	if ((rv = sock_in_ns(ns, &h->sk, err, len)) != 0)
		return (rv);
	k->nhosts++;
	for (; h->n < KDP_HOST_TRX; h->n++) {
		snprintf(name, sizeof(name), "t%d", h->n);
		if ((ix = ifindex_of(h->sk, name)) == 0)
			break;
		h->ix[h->n] = ix;
		if (rate_bps == 0) {
			unshape_dev(h->sk, ix);
			continue;
		}
		if ((rv = shape_dev(h->sk, ix, rate_bps, delay_ns)) != 0) {
			snprintf(err, len, "%s %s: %s%s", ns, name,
			         nl_geterror(rv),
			         delay_ns ? " (a fibre delay needs sch_netem "
			                    "in the kernel)"
			                  : "");
			return (-EIO);
		}
	}
	return (0);
}

/* Every PREFIX-hNN: their transceivers shaped to the line rate, or
 * unshaped. */
static int
hosts_open(struct emu_kdp *k, uint64_t rate_bps, uint64_t delay_ns, char *err,
           size_t len)
{
	DIR           *d;
	struct dirent *de;
	char           pre[80];
	size_t         pl;
	int            rv = 0, cap = 0;

	snprintf(pre, sizeof(pre), "%s-h", k->prefix);
	pl = strlen(pre);
	if ((d = opendir("/run/netns")) == NULL) {
		snprintf(err, len, "/run/netns: %s", strerror(errno));
		return (-ENOENT);
	}
	while (rv == 0 && (de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, pre, pl) != 0)
			continue;
		if (k->nhosts == cap) {
			struct khost *nh;

			cap = cap ? 2 * cap : 16;
			if ((nh = realloc(k->hosts,
			                  (size_t)cap * sizeof(*nh))) ==
			    NULL) {
				rv = -ENOMEM;
				break;
			}
			k->hosts = nh;
		}
		rv = host_open(k, de->d_name, rate_bps, delay_ns, err, len);
	}
	closedir(d);
	if (rv == 0 && k->nhosts == 0) {
		snprintf(err, len, "no host namespaces %s*", pre);
		rv = -ENOENT;
	}
	k->shaped = rate_bps != 0;
	return (rv);
}

/* At close: the shaping goes with the emulator (a testbed without one
 * is unshaped veths again). */
static void
hosts_close(struct emu_kdp *k)
{
	int i, j;

	for (i = 0; i < k->nhosts; i++) {
		for (j = 0; k->shaped && j < k->hosts[i].n; j++)
			unshape_dev(k->hosts[i].sk, k->hosts[i].ix[j]);
		nl_socket_free(k->hosts[i].sk);
	}
	free(k->hosts);
	k->hosts = NULL;
	k->nhosts = 0;
}

/* ---- one emulator a testbed ----------------------------------------------- */

/* Hold the testbed: bind the lock's name in PREFIX-sw (entered by the
 * caller).  0, or -EBUSY naming the holder. */
static int
lock_take(struct emu_kdp *k, char *err, size_t len)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct ucred       cr;
	socklen_t          cl = sizeof(cr), sl;
	int                fd, rv;

	/* Abstract: a leading NUL, no file, gone with its holder. */
	memcpy(sa.sun_path + 1, KDP_LOCK_NAME, strlen(KDP_LOCK_NAME));
	sl = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
	                 strlen(KDP_LOCK_NAME));
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return (-errno);
	if (bind(fd, (struct sockaddr *)&sa, sl) == 0 && listen(fd, 4) == 0) {
		k->lockfd = fd;
		return (0);
	}
	rv = -errno;
	close(fd);
	if (rv != -EADDRINUSE) {
		snprintf(err, len, "%s-sw: taking the testbed: %s", k->prefix,
		         strerror(-rv));
		return (rv);
	}
	/* Who holds it: the listener's credentials, as it listened. */
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) >= 0 &&
	    connect(fd, (struct sockaddr *)&sa, sl) == 0 &&
	    getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &cl) == 0)
		snprintf(err, len,
		         "testbed %s is carried by another ocs-emu (pid %d); "
		         "one emulator a testbed",
		         k->prefix, (int)cr.pid);
	else
		snprintf(err, len,
		         "testbed %s is carried by another ocs-emu; one "
		         "emulator a testbed",
		         k->prefix);
	if (fd >= 0)
		close(fd);
	return (-EBUSY);
}

static int
lock_testbed(struct emu_kdp *k, const char *ns, char *err, size_t len)
{
	int self, rv;

	if ((rv = ns_enter(ns, &self, err, len)) != 0)
		return (rv);
	rv = lock_take(k, err, len);
	ns_leave(self);
	return (rv);
}

/* ---- open, start, stop ------------------------------------------------------- */

static int
find_ports(struct emu_kdp *k, char *err, size_t len)
{
	char     name[16];
	uint32_t j, found = 0;
	int      rv;

	if ((k->sink = ifindex_of(k->sk, "dark")) == 0 ||
	    (k->pass = ifindex_of(k->sk, "darkpeer")) == 0) {
		snprintf(err, len, "%s-sw has no \"dark\" veth pair",
		         k->prefix);
		return (-ENOENT);
	}
	for (j = 1; j <= k->n; j++) {
		snprintf(name, sizeof(name), "p%u", j);
		if ((k->p[j].ifindex = ifindex_of(k->sk, name)) == 0)
			continue;
		found++;
		/* Whatever a previous emulator left goes with its qdisc:
		 * the switch powers up dark. */
		(void)ingress_qdisc(k->sk, k->p[j].ifindex, 0);
		/* The patch filter first (passing all on): it takes hash
		 * table 800, the dark one 801. */
		if ((rv = ingress_qdisc(k->sk, k->p[j].ifindex, 1)) != 0 ||
		    (rv = filter_set(k->sk, &k->nlseq, k->p[j].ifindex,
		                     KDP_PRIO, k->pass, 1)) != 0 ||
		    (rv = filter_set(k->sk, &k->nlseq, k->p[j].ifindex,
		                     KDP_PRIO_DARK, k->sink, 0)) != 0) {
			snprintf(err, len, "%s-sw %s: %s", k->prefix, name,
			         nl_geterror(rv));
			return (-EIO);
		}
		k->p[j].to = 0; /* no patch filter: dark */
		k->p[j].up = -1;
	}
	if (found == 0) {
		snprintf(err, len, "%s-sw has none of the ports p1..p%u",
		         k->prefix, k->n);
		return (-ENOENT);
	}
	log_info("datapath: %u of %u ports in %s-sw", found, k->n, k->prefix);
	return (0);
}

/* No light yet: every port's link down, so no host transceiver has a
 * carrier.  After the capture is open (libpcap opens only ports that
 * are up, and goes on capturing across a port's downs and ups). */
static int
ports_dark(struct emu_kdp *k, char *err, size_t len)
{
	uint32_t j;
	int      rv;

	for (j = 1; j <= k->n; j++) {
		if (!k->p[j].ifindex)
			continue;
		if ((rv = link_req(k->p[j].ifindex, 0, &k->msgs[0])) != 0 ||
		    (rv = emu_nlb_send(k->sk, &k->nlseq, k->msgs, 1, NULL)) !=
		        0) {
			snprintf(err, len, "%s-sw p%u: link down: %s",
			         k->prefix, j, nl_geterror(rv));
			return (-EIO);
		}
		k->p[j].up = 0;
	}
	return (0);
}

int
emu_kdp_open(struct emu *e, const struct emu_kdp_conf *c, struct emu_kdp **out,
             char *err, size_t len)
{
	struct emu_kdp    *k;
	pthread_condattr_t ca;
	char               ns[80];
	int                rv;

	*out = NULL;
	if ((k = calloc(1, sizeof(*k))) == NULL)
		return (-ENOMEM);
	k->e = e;
	k->n = e->x.n;
	k->lockfd = -1;
	snprintf(k->prefix, sizeof(k->prefix), "%s", c->prefix);
	k->p = calloc(k->n + 1, sizeof(*k->p));
	k->want = calloc(k->n + 1, sizeof(*k->want));
	k->out_at = calloc(k->n + 1, sizeof(*k->out_at));
	k->settle_at = calloc(k->n + 1, sizeof(*k->settle_at));
	k->msgs = calloc(k->n + 1, sizeof(*k->msgs));
	k->chg = calloc(k->n + 1, sizeof(*k->chg));
	k->errs = calloc(k->n + 1, sizeof(*k->errs));
	e->x.carried = calloc(k->n + 1, 1);
	if (!k->p || !k->want || !k->out_at || !k->settle_at || !k->msgs ||
	    !k->chg || !k->errs || !e->x.carried) {
		emu_kdp_close(k);
		return (-ENOMEM);
	}
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&k->cond, &ca);
	pthread_condattr_destroy(&ca);
	snprintf(ns, sizeof(ns), "%s-sw", c->prefix);
	if ((rv = lock_testbed(k, ns, err, len)) != 0 ||
	    (rv = sock_in_ns(ns, &k->sk, err, len)) != 0 ||
	    (rv = find_ports(k, err, len)) != 0 ||
	    (rv = hosts_open(k, c->rate_bps, c->delay_ns, err, len)) != 0 ||
	    (c->capture && (rv = open_capture(k, ns, err, len)) != 0) ||
	    (rv = ports_dark(k, err, len)) != 0) {
		emu_kdp_close(k);
		return (rv);
	}
	if ((e->dp_wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0) {
		rv = -errno;
		snprintf(err, len, "eventfd: %s", strerror(errno));
		emu_kdp_close(k);
		return (rv);
	}
	e->dp_track = 1;
	e->dp_gen = e->x.gen - 1; /* nothing applied until the thread runs */
	*out = k;
	return (0);
}

int
emu_kdp_capture(struct emu_kdp *k, uint32_t run, char *out, size_t len)
{
	return (k->cap ? emu_cap_query(k->cap, run, out, len) : -ENOTSUP);
}

int
emu_kdp_start(struct emu_kdp *k)
{
	pthread_mutex_lock(&k->e->mtx);
	k->e->x.changed = changed;
	k->e->x.changed_arg = k;
	pthread_mutex_unlock(&k->e->mtx);
	if (pthread_create(&k->thr, NULL, kdp_main, k) != 0)
		return (-EAGAIN);
	k->started = 1;
	return (k->cap ? emu_cap_start(k->cap) : 0);
}

void
emu_kdp_close(struct emu_kdp *k)
{
	uint32_t j;

	if (k == NULL)
		return;
	if (k->started) {
		pthread_mutex_lock(&k->e->mtx);
		k->stop = 1;
		k->e->x.changed = NULL;
		pthread_cond_signal(&k->cond);
		pthread_mutex_unlock(&k->e->mtx);
		pthread_join(k->thr, NULL);
	}
	emu_cap_close(k->cap);
	/* Powered off: every port dark (its filter gone with the qdisc)
	 * and every host without light. */
	for (j = 1; k->sk && j <= k->n; j++)
		if (k->p[j].ifindex) {
			(void)ingress_qdisc(k->sk, k->p[j].ifindex, 0);
			if (k->p[j].up != 0 &&
			    link_req(k->p[j].ifindex, 0, &k->msgs[0]) == 0)
				(void)emu_nlb_send(k->sk, &k->nlseq, k->msgs,
				                   1, NULL);
		}
	if (k->sk)
		nl_socket_free(k->sk);
	hosts_close(k);
	if (k->lockfd >= 0)
		close(k->lockfd);
	if (k->e->dp_track) { /* set once the wake was made */
		close(k->e->dp_wake);
		k->e->dp_track = 0;
	}
	pthread_cond_destroy(&k->cond);
	free(k->e->x.carried);
	k->e->x.carried = NULL;
	free(k->p);
	free(k->want);
	free(k->out_at);
	free(k->settle_at);
	free(k->msgs);
	free(k->chg);
	free(k->errs);
	free(k);
}

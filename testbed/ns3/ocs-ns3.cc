/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocs-ns3: one All-to-All schedule (the collectives library's IR, as
 * ocs-sweep writes it: testbed/sweep/sweep_ns3.c) played packet by packet
 * on ns-3 (the simulator the ReTri paper's evaluation used), to check our
 * closed-form model and our own link simulator against a packet-level
 * engine that is not ours.
 *
 * Every circuit of a configuration is an ns-3 point-to-point link (the
 * model's rate, its alpha_h as the propagation delay) that is used only
 * while its configuration is lit: a phase sends on the links of the
 * configuration it runs on, and before a phase that reconfigures every
 * node waits until everything sent so far has arrived (the barrier ocsd
 * holds there), then the switch's delta.  Phases on the same circuits
 * are not separated by a barrier, as on the agents: a node starts its
 * next phase once what that phase forwards has reached it.  Each phase
 * costs a node alpha_s before it sends.  Relays forward as the agents
 * do: a frame at a time when it has come whole (store-and-forward of
 * the model's frame), or each packet as it comes when the frame is 0
 * (cut-through, the papers' model).  No IP: raw packets on the devices,
 * as the agents send raw frames.
 *
 * Input on stdin (every number decimal; lines in this order):
 *	ocs-ns3 1
 *	nodes N ports P
 *	model BPS ALPHA_S ALPHA_H FRAME        rate in bit/s, seconds, bytes
 *	phase K R DELTA_S                     K = 0, 1, ...; R 1 if the
 *	                                      switch is reconfigured before
 *	                                      it (a barrier, then DELTA_S)
 *	circuit NODE PORT PEER                only right after a phase line:
 *	                                      the phase's new configuration
 *	xfer BYTES HOPS NODE PORT [NODE PORT ...]  the path's transmitters
 *	end
 * Output on stdout: "total_s T" and one "phase K DONE_S" a phase (when
 * its last byte arrived).  Exit 0, or 1 with one line on stderr naming
 * the input line that is wrong.
 */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"

using namespace ns3;

namespace
{

/* Large packets keep the event count down (64 MiB is 2 048 of them);
 * cut-through relays forward packets, so they are smaller there. */
const uint32_t PKT_SF = 32768;
const uint32_t PKT_CT = 8192;
const uint32_t MAX_NODES = 1024, MAX_PORTS = 16;

struct Hop {
	uint32_t node, port;
};

struct Xfer {
	uint64_t              bytes;
	std::vector<Hop>      path;
	uint32_t              phase;
	std::vector<uint64_t> got;  /* per hop: bytes arrived there */
	std::vector<uint64_t> sent; /* per hop: bytes forwarded from there */
};

struct Phase {
	bool   reconf = false;
	double delta = 0;
	bool   begun = false; /* its barrier passed (reconfigured phases) */
	int    cfg = -1;      /* configuration it runs on */
	std::vector<uint32_t> xf;
	uint64_t              left = 0; /* transfers not yet delivered */
	double                done = 0;
};

struct Meta {
	uint32_t xf, hop; /* the packet rides hop `hop` of transfer xf */
	uint32_t bytes;
};

struct Sim {
	uint32_t           n = 0, ports = 0;
	double             bps = 0, alpha_s = 0, alpha_h = 0, frame = 0;
	uint32_t           pkt = PKT_SF;
	std::vector<Xfer>  xf;
	std::vector<Phase> ph;
	std::vector<std::map<std::pair<uint32_t, uint32_t>, uint32_t>> cfg;
	/* per configuration: (node, port) -> the transmitting device */
	std::vector<std::map<std::pair<uint32_t, uint32_t>, Ptr<NetDevice>>>
	                                   dev;
	NodeContainer                      nodes;
	std::unordered_map<uint64_t, Meta> meta; /* by packet uid */
	std::vector<uint32_t>              at;   /* a node's phase */
	std::vector<int> began; /* the phase a node has started, -1: none */
	std::vector<std::vector<uint64_t>>
	         wait; /* [node][phase] arrivals due */
	double   last = 0;
	uint64_t undelivered = 0;
};

Sim S;

int
fail(unsigned line, const std::string &why)
{
	std::fprintf(stderr, "ocs-ns3: input line %u: %s\n", line,
	             why.c_str());
	return (1);
}

/* The input (see the top of the file) into S; 0 or 1. */
int
parse(std::istream &in)
{
	std::string l, w;
	unsigned    line = 0;
	int         version = 0;
	bool fresh = false; /* this phase has its configuration already */

	while (std::getline(in, l)) {
		std::istringstream s(l);

		line++;
		if (!(s >> w))
			continue;
		if (w == "ocs-ns3") {
			if (!(s >> version) || version != 1)
				return (fail(line, "expected ocs-ns3 1"));
		} else if (w == "nodes") {
			if (!(s >> S.n >> w >> S.ports) || w != "ports" ||
			    S.n < 2 || S.n > MAX_NODES || S.ports < 1 ||
			    S.ports > MAX_PORTS)
				return (
				    fail(line, "nodes 2..1024 ports 1..16"));
		} else if (w == "model") {
			if (!(s >> S.bps >> S.alpha_s >> S.alpha_h >>
			      S.frame) ||
			    !(S.bps >= 1e3 && S.bps <= 1e15) ||
			    !(S.alpha_s >= 0 && S.alpha_s < 1) ||
			    !(S.alpha_h >= 0 && S.alpha_h < 1) ||
			    !(S.frame >= 0 && S.frame <= (1 << 30)))
				return (fail(line, "model BPS ALPHA_S ALPHA_H "
				                   "FRAME out of range"));
		} else if (w == "phase") {
			Phase    p;
			uint32_t k, r;

			if (!(s >> k >> r >> p.delta) || k != S.ph.size() ||
			    r > 1 || (k == 0 && r) ||
			    !(p.delta >= 0 && p.delta < 100) ||
			    S.ph.size() >= 4096)
				return (
				    fail(line, "phase K R DELTA_S, in order"));
			p.reconf = r == 1;
			p.cfg = S.ph.empty() ? -1 : S.ph.back().cfg;
			S.ph.push_back(p);
			fresh = false;
		} else if (w == "circuit") {
			uint32_t a, b, c;

			if (S.ph.empty() || !(s >> a >> b >> c) || a >= S.n ||
			    b >= S.ports || c >= S.n || a == c)
				return (fail(line, "circuit NODE PORT PEER"));
			if (!fresh) {
				S.cfg.emplace_back();
				S.ph.back().cfg = (int)S.cfg.size() - 1;
				fresh = true;
			}
			if (!S.cfg.back()
			         .emplace(std::make_pair(a, b), c)
			         .second)
				return (fail(line, "a transmitter twice"));
		} else if (w == "xfer") {
			Xfer     x;
			uint32_t h;

			if (S.ph.empty() || S.ph.back().cfg < 0 ||
			    !(s >> x.bytes >> h) || h < 1 || h > S.n ||
			    x.bytes > (1ull << 50))
				return (fail(line, "xfer BYTES HOPS ..."));
			for (uint32_t i = 0; i < h; i++) {
				Hop hp;

				if (!(s >> hp.node >> hp.port) ||
				    hp.node >= S.n || hp.port >= S.ports ||
				    !S.cfg[S.ph.back().cfg].count(
				        {hp.node, hp.port}))
					return (fail(line, "a hop on no "
					                   "circuit"));
				if (i > 0 &&
				    S.cfg[S.ph.back().cfg].at(
				        {x.path.back().node,
				         x.path.back().port}) != hp.node)
					return (fail(line, "a path that does "
					                   "not follow its "
					                   "circuits"));
				x.path.push_back(hp);
			}
			x.phase = (uint32_t)S.ph.size() - 1;
			if (x.bytes == 0)
				continue;
			x.got.assign(h + 1, 0);
			x.sent.assign(h + 1, 0);
			S.ph.back().xf.push_back((uint32_t)S.xf.size());
			S.xf.push_back(x);
		} else if (w == "end")
			break;
		else
			return (fail(line, "unknown line \"" + w + "\""));
	}
	if (version != 1 || S.n == 0 || S.bps == 0 || S.ph.empty())
		return (fail(line, "incomplete: ocs-ns3 1, nodes, model, "
		                   "phases"));
	return (0);
}

uint32_t
dst_of(const Xfer &x)
{
	const Hop &h = x.path.back();

	return (S.cfg[S.ph[x.phase].cfg].at({h.node, h.port}));
}

/* Queue up to `bytes` of hop h of transfer i on its device. */
void
transmit(uint32_t i, uint32_t h, uint64_t bytes)
{
	Xfer          &x = S.xf[i];
	Ptr<NetDevice> d =
	    S.dev[S.ph[x.phase].cfg].at({x.path[h].node, x.path[h].port});

	while (bytes > 0) {
		uint32_t    b = bytes < S.pkt ? (uint32_t)bytes : S.pkt;
		Ptr<Packet> p = Create<Packet>(b);

		S.meta[p->GetUid()] = Meta{i, h, b};
		d->Send(p, d->GetBroadcast(), 0x0800);
		bytes -= b;
		x.sent[h] += b;
	}
}

void start_phase(uint32_t node, uint32_t k);

/* A node that has started phase k goes on to k + 1 on the same circuits
 * once what it receives in k came (k + 1 may forward it): one phase at a
 * time, each alpha_s after the last. */
void
maybe_advance(uint32_t node)
{
	uint32_t k = S.at[node];

	if (S.began[node] != (int)k || k + 1 >= S.ph.size() ||
	    S.ph[k + 1].reconf || S.wait[node][k] != 0)
		return;
	S.at[node] = k + 1;
	Simulator::Schedule(Seconds(S.alpha_s), &start_phase, node, k + 1);
}

/* The barrier before the first reconfigured phase not begun: when every
 * phase before it has arrived whole, the switch takes its delta and
 * every node starts it. */
void
check_barrier()
{
	uint32_t j = 0, k;

	while (j < S.ph.size() && S.ph[j].left == 0)
		j++;
	for (k = 1; k < S.ph.size(); k++)
		if (S.ph[k].reconf && !S.ph[k].begun)
			break;
	if (k >= S.ph.size() || j < k)
		return;
	S.ph[k].begun = true;
	for (uint32_t v = 0; v < S.n; v++) {
		S.at[v] = k;
		Simulator::Schedule(Seconds(S.ph[k].delta + S.alpha_s),
		                    &start_phase, v, k);
	}
}

void
delivered(uint32_t i)
{
	Xfer    &x = S.xf[i];
	Phase   &p = S.ph[x.phase];
	uint32_t d = dst_of(x);

	S.last = Simulator::Now().GetSeconds();
	S.undelivered--;
	if (--p.left == 0)
		p.done = S.last;
	S.wait[d][x.phase]--;
	maybe_advance(d);
	/* Nothing of any earlier phase may be in flight when the switch
	 * moves. */
	check_barrier();
}

bool
receive(Ptr<NetDevice>, Ptr<const Packet> p, uint16_t, const Address &)
{
	auto it = S.meta.find(p->GetUid());

	if (it == S.meta.end())
		return (true);
	Meta m = it->second;
	S.meta.erase(it);
	Xfer    &x = S.xf[m.xf];
	uint32_t h = m.hop + 1;

	x.got[h] += m.bytes;
	if (h == x.path.size()) {
		if (x.got[h] == x.bytes)
			delivered(m.xf);
		return (true);
	}
	/* A relay: forward whole frames, or what came (cut-through). */
	uint64_t ready = x.got[h] - x.sent[h];

	if (S.frame > 0 && x.got[h] < x.bytes) {
		uint64_t f = (uint64_t)S.frame;

		ready = (x.got[h] / f) * f;
		ready = ready > x.sent[h] ? ready - x.sent[h] : 0;
	}
	if (ready > 0)
		transmit(m.xf, h, ready);
	return (true);
}

void
start_phase(uint32_t node, uint32_t k)
{
	S.began[node] = (int)k;
	for (uint32_t i : S.ph[k].xf)
		if (S.xf[i].path[0].node == node)
			transmit(i, 0, S.xf[i].bytes);
	maybe_advance(node);
}

/* A point-to-point link for every circuit of every configuration. */
void
build()
{
	PointToPointHelper p2p;
	std::ostringstream rate;

	rate << (uint64_t)std::llround(S.bps) << "bps";
	p2p.SetDeviceAttribute("DataRate", StringValue(rate.str()));
	p2p.SetDeviceAttribute("Mtu", UintegerValue(S.pkt + 64));
	p2p.SetChannelAttribute("Delay", TimeValue(Seconds(S.alpha_h)));
	/* Everything a node sends waits in its transmitter's queue, never
	 * dropped: the agents' sockets push back, they do not lose. */
	p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize",
	             StringValue("100000000p"));
	S.nodes.Create(S.n);
	S.dev.resize(S.cfg.size());
	for (size_t c = 0; c < S.cfg.size(); c++)
		for (auto &e : S.cfg[c]) {
			NetDeviceContainer d = p2p.Install(
			    S.nodes.Get(e.first.first), S.nodes.Get(e.second));

			d.Get(1)->SetReceiveCallback(MakeCallback(&receive));
			d.Get(0)->SetReceiveCallback(MakeCallback(&receive));
			S.dev[c][e.first] = d.Get(0);
		}
}

} // namespace

int
main(int argc, char **argv)
{
	if (argc > 1) {
		std::fprintf(stderr, "usage: ocs-ns3 < SCHEDULE (see "
		                     "testbed/ns3/ocs-ns3.cc)\n");
		return (argc == 2 && std::string(argv[1]) == "--help" ? 0 : 2);
	}
	if (parse(std::cin) != 0)
		return (1);
	S.pkt = S.frame > 0 && S.frame < PKT_SF ? (uint32_t)S.frame
	        : S.frame > 0                   ? PKT_SF
	                                        : PKT_CT;
	build();
	S.at.assign(S.n, 0);
	S.began.assign(S.n, -1);
	S.wait.assign(S.n, std::vector<uint64_t>(S.ph.size(), 0));
	for (auto &p : S.ph) {
		p.left = p.xf.size();
		S.undelivered += p.xf.size();
	}
	for (auto &x : S.xf)
		S.wait[dst_of(x)][x.phase]++;
	for (uint32_t v = 0; v < S.n; v++)
		Simulator::Schedule(Seconds(S.alpha_s), &start_phase, v, 0u);
	Simulator::Schedule(Seconds(0), &check_barrier); /* empty phases */
	Simulator::Run();
	Simulator::Destroy();
	if (S.undelivered != 0) {
		std::fprintf(stderr,
		             "ocs-ns3: %llu transfers never arrived (a "
		             "schedule that waits for itself)\n",
		             (unsigned long long)S.undelivered);
		return (1);
	}
	std::printf("total_s %.9g\n", S.last);
	for (size_t k = 0; k < S.ph.size(); k++)
		std::printf("phase %zu %.9g\n", k, S.ph[k].done);
	return (0);
}

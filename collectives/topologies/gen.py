#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Regenerate the shipped topology files (the .json next to this script).

usage: gen.py [PATH/TO/teccl_topologies_links.json]

DGX1, DGX2 (2 chassis) and AMD (1 chassis) are converted link for link
from ../shared/data/teccl_topologies_links.json (TE-CCL's topology
classes evaluated at commit c128bf2).  NDv2 with K chassis is TE-CCL's
construction: K DGX1-style NVLink hybrid cube meshes (50/25 GB/s,
0.7 us) and one switch; in chassis c, GPU 8c+1 sends to the switch and
the switch sends to GPU 8c+2 (12.5 GB/s, 1.3 us).  It reproduces the
reference 1- and 4-chassis link lists exactly; for 2 chassis the
reference treats GPU 0 as the switch (a TE-CCL quirk), we build the
general construction instead.  The WAN files are illustrative (SCALE-CCL
has no public topology data): 4 GPUs per datacenter, fully connected at
25 GB/s, each with a 12.5 GB/s link to its datacenter's border router,
and 12.5 GB/s WAN links between routers whose latency comes from the
fibre distance.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = "https://github.com/microsoft/TE-CCL (teccl/topologies, c128bf2)"


def write(name, topo):
    path = os.path.join(HERE, name + ".json")
    with open(path, "w") as f:
        json.dump(topo, f, indent=1)
        f.write("\n")
    print(path, len(topo["nodes"]), "nodes", len(topo["links"]), "links")


def convert(ref, key, name, groups_of):
    t = ref["topologies"][key]
    sw = set(t["switches"])
    nodes = []
    for i in range(t["nodes"]):
        n = {"name": ("s%d" % i) if i in sw else ("g%d" % i),
             "kind": "switch" if i in sw else "gpu"}
        g = groups_of(i)
        if g is not None:
            n["group"] = g
        nodes.append(n)
    links = []
    for s, d, gbps, alpha in t["links"]:
        l = {"src": nodes[s]["name"], "dst": nodes[d]["name"],
             "bandwidth": "%gGBps" % gbps}
        if alpha:
            l["latency"] = "%gns" % round(alpha * 1e9, 3)
        links.append(l)
    return {"name": name, "source": SRC + ", " + key, "nodes": nodes,
            "links": links}


MESH = [(0, 1, 50), (0, 2, 25), (0, 3, 25), (0, 4, 50), (1, 2, 25),
        (1, 3, 50), (1, 5, 25), (2, 3, 50), (2, 6, 50), (3, 7, 25),
        (4, 5, 50), (4, 6, 25), (4, 7, 25), (5, 6, 25), (5, 7, 50),
        (6, 7, 50)]


def ndv2(k):
    nodes = [{"name": "s0", "kind": "switch"}]
    links = []
    for c in range(k):
        for j in range(8):
            nodes.append({"name": "g%d" % (8 * c + j + 1), "kind": "gpu",
                          "group": "chassis%d" % c})
        for a, b, bw in MESH:
            links.append({"src": "g%d" % (8 * c + a + 1),
                          "dst": "g%d" % (8 * c + b + 1),
                          "bandwidth": "%dGBps" % bw, "latency": "700ns",
                          "both": True})
        links.append({"src": "g%d" % (8 * c + 1), "dst": "s0",
                      "bandwidth": "12.5GBps", "latency": "1300ns"})
        links.append({"src": "s0", "dst": "g%d" % (8 * c + 2),
                      "bandwidth": "12.5GBps", "latency": "1300ns"})
    return {"name": "ndv2:%d" % k,
            "source": SRC + ", NDv2 construction, %d chassis" % k,
            "nodes": nodes, "links": links}


def wan(dcs, dist, paper=False):
    """paper: SCALE-CCL's stated defaults inside a datacentre, 50 GB/s
    and 0.7 us on every GPU-GPU and GPU-router link; otherwise the
    illustrative 25 GB/s, 2 us (GPU-GPU) and 12.5 GB/s, 5 us (router)."""
    gg = ("50GBps", "700ns") if paper else ("25GBps", "2us")
    gr = ("50GBps", "700ns") if paper else ("12.5GBps", "5us")
    nodes, links = [], []
    for d in dcs:
        nodes.append({"name": "br-" + d, "kind": "router", "group": d})
        for j in range(4):
            nodes.append({"name": "%s-g%d" % (d, j), "kind": "gpu",
                          "group": d})
        for j in range(4):
            g = "%s-g%d" % (d, j)
            links.append({"src": g, "dst": "br-" + d,
                          "bandwidth": gr[0], "latency": gr[1],
                          "both": True})
            for i in range(j + 1, 4):
                links.append({"src": g, "dst": "%s-g%d" % (d, i),
                              "bandwidth": gg[0], "latency": gg[1],
                              "both": True})
    for (a, b), km in dist.items():
        links.append({"src": "br-" + a, "dst": "br-" + b,
                      "bandwidth": "12.5GBps", "latency": "10us",
                      "distance_km": km, "both": True})
    if paper:
        src = ("SCALE-CCL's stated defaults inside each datacentre (50 "
               "GB/s, 0.7 us, GPU-GPU and GPU-router), 12.5 GB/s WAN "
               "links with fibre latency; 4 GPUs a datacentre (see gen.py)")
    else:
        src = ("illustrative, after SCALE-CCL's setting: 25 GB/s 2 us "
               "GPU-GPU, 12.5 GB/s 5 us GPU-router, 12.5 GB/s WAN links "
               "with fibre latency (see gen.py)")
    return {"name": "wan%d%s" % (len(dcs), "p" if paper else ""),
            "source": src, "nodes": nodes, "links": links}


def main():
    refp = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        HERE, "..", "..", "..", "shared", "data",
        "teccl_topologies_links.json")
    ref = json.load(open(refp))
    write("dgx1", convert(ref, "DGX1_1chassis", "dgx1", lambda i: None))
    write("dgx2", convert(ref, "DGX2_2chassis", "dgx2",
                          lambda i: "chassis%d" % (i // 17)))
    write("amd", convert(ref, "AMD_1chassis", "amd", lambda i: None))
    # The construction must give the reference lists back.
    for k, key in ((1, "NDv2_1chassis"), (4, "NDv2_4chassis")):
        t = ndv2(k)
        idx = {n["name"]: i for i, n in enumerate(t["nodes"])}
        mine = set()
        for l in t["links"]:
            for s, d in ((l["src"], l["dst"]),) + (
                    ((l["dst"], l["src"]),) if l.get("both") else ()):
                mine.add((idx[s], idx[d]))
        theirs = set((s, d) for s, d, _, _ in ref["topologies"][key]["links"])
        assert mine == theirs, (k, mine ^ theirs)
    for k in (1, 2, 4, 8, 10):
        write("ndv2-%d" % k, ndv2(k))
    write("wan2", wan(["east", "west"], {("east", "west"): 1500}))
    d3 = {("east", "west"): 1500, ("west", "north"): 2200,
          ("north", "east"): 900}
    d4 = dict(d3)
    d4.update({("south", "east"): 1100, ("south", "west"): 1300,
               ("south", "north"): 2000})
    write("wan3", wan(["east", "west", "north"], d3))
    write("wan2p", wan(["east", "west"], {("east", "west"): 1500}, True))
    write("wan3p", wan(["east", "west", "north"], d3, True))
    write("wan4p", wan(["east", "west", "north", "south"], d4, True))


if __name__ == "__main__":
    main()

"""How GPUs are wired: the bandwidth ladder per GPU and per direction, and the time of an
all-reduce or all-to-all across a two-level fat-tree with oversubscribed uplinks.

A companion to the lesson "How GPUs are wired". Vendors print scale-up bandwidth with both
directions summed (NVLink 4: 900 GB/s) and network ports per direction (400 Gb/s); the table
below keeps every link per direction. PCIe is derived from its signalling rate: lanes x GT/s x
128/130 / 8 bytes per second each way.

The all-reduce is hierarchical: a ring reduce-scatter inside each node over the scale-up link
(g-1 steps of S/g), a ring all-reduce of each GPU's shard across the N nodes through its own NIC
(2(N-1) steps of S/(gN)), a ring all-gather inside the node (g-1 steps of S/g). Leaves have P host
ports and P/o uplinks; traffic leaving a leaf slows by s = max(1, demand / uplink capacity):
all-reduce rings leave a leaf once each, one ring per rail leaf or g rings per leaf without
rails, s = max(1, rings x o / P); an all-to-all sends a share c = (N - n_leaf)/(N - 1) of its
traffic beyond the leaf, s = max(1, c x o). Bisection = N g B_nic / (2 o).

For comparison, NCCL's flat rings: g rings over all p = N g GPUs, each carrying S/g and leaving
every node through a different NIC, 2(p-1) steps; a step lasts as long as the NIC's chunk
S/(g p) or the g-1 chunks on the scale-up link, whichever is slower; latency as NCCL's tuning
model counts it, the 2(N-1) steps that cross nodes at the network's, the rest at the scale-up
link's. One ring through a single NIC per node is the same with one ring of S.

Run:  python3 interconnects.py                         the lesson's worked example (64 nodes of 8 H100)
      python3 interconnects.py --nodes 256 --oversubscription 4 --no-rails
      python3 interconnects.py --op alltoall --bytes 2e8
      python3 interconnects.py --json                  the same numbers as JSON
"""
import argparse
import json
import math
import sys
from course_data import table  # the tables of content/data; the download has them written in

# Per GPU, one direction, bytes/s, and whether the vendor quotes both directions summed; how many
# links that sums, and whether one peer can use them all (switched) or one torus link.
LINKS = table("interconnect: nvlink3, nvlink4, nvlink5, tpu-v5p-ici, pcie4-x16, pcie5-x16, ib-hdr, ib-ndr, ib-xdr, roce-400g | name, kind, bandwidth_Bps, quoted_as, link_count, topology")


def peer_bandwidth(link):
    """One transfer to one peer, one direction: all of a switched link, one link of a torus."""
    return link["bandwidth_Bps"] / link["link_count"] if link["topology"] == "torus" else link["bandwidth_Bps"]


def fat_tree(nodes, g, nic, up, o, rails, ports, size, op, a_up=2e-6, a_nic=5e-6):
    """The hierarchical collective on the fat-tree: times, slowdown, bisection, bottleneck."""
    per_leaf = ports if rails else ports // g
    groups = -(-nodes // per_leaf)
    s, cross = 1.0, 0.0
    if groups > 1:
        if op == "allreduce":
            cross = groups / nodes
            s = max(1.0, (1 if rails else g) * o / ports)
        else:
            cross = (nodes - min(nodes, per_leaf)) / (nodes - 1)
            s = max(1.0, cross * o)
    bw = nic / s
    if op == "allreduce":
        intra = 2 * (g - 1) * (a_up + size / g / up)
        inter = 2 * (nodes - 1) * (a_nic + size / (g * nodes) / bw)
    else:  # rail-aligned all-to-all: to local peers over NVLink, then across the rail
        intra = (g - 1) * (a_up + size / g / up)
        inter = (nodes - 1) * (a_nic + size / nodes / bw)
    p = nodes * g
    slow_a, slow_b = (a_up, up) if nodes == 1 else (max(a_up, a_nic), min(up, bw))
    single = None
    if op == "allreduce":
        if nodes > 1:
            ring = flat_rings(nodes, g, size, g, a_up, up, a_nic, bw)
            one_nic = nic / (max(1.0, o / ports) if groups > 1 else 1.0)  # one ring leaves a leaf alone
            single = flat_rings(nodes, g, size, 1, a_up, up, a_nic, one_nic)
        else:
            ring = single = 2 * (p - 1) * (slow_a + size / p / slow_b) if p > 1 else 0.0
        steps = math.ceil(math.log2(p)) if p > 1 else 0
        tree = 2 * steps * (slow_a + size / slow_b)
    else:
        ring = (p - 1) * (slow_a + size / p / slow_b) if p > 1 else 0.0
        tree = None
    total = intra + inter
    bottleneck = "nvlink" if nodes == 1 or intra >= inter else ("spine" if s > 1 else "nic")
    factor = (2 if op == "allreduce" else 1) * (p - 1) / p
    return {"time_s": total, "intra_time_s": intra, "inter_time_s": inter, "spine_slowdown": s,
            "cross_spine_fraction": cross, "inter_bandwidth_Bps": bw, "bisection_Bps": p * nic / (2 * o),
            "bottleneck": bottleneck, "busbw_Bps": size / total * factor if total > 0 else 0.0,
            "overlapped_time_s": max(intra, inter), "flat_ring_time_s": ring, "single_ring_time_s": single,
            "tree_time_s": tree}


def flat_rings(nodes, g, size, rings, a_up, up, a_nic, nic):
    """All-reduce over all nodes x g GPUs with `rings` flat rings, each leaving a node by its own NIC."""
    p = nodes * g
    steps, net_steps = 2 * (p - 1), 2 * (nodes - 1)
    chunk = size / (rings * p)
    step = max(chunk / nic, min(rings, g - 1) * chunk / up)
    return (steps - net_steps) * a_up + net_steps * a_nic + steps * step


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage block
        sys.exit(f"{self.prog}: {message} (see --help)")


def main(argv=None):
    p = Parser(prog="interconnects.py", description="Link bandwidths per direction and collectives on a fat-tree.")
    p.add_argument("--nodes", type=int, default=64, help="nodes N, 1 to 4,096 (default 64)")
    p.add_argument("--gpus-per-node", type=int, default=8, help="GPUs per node g, 1 to 72 (default 8)")
    p.add_argument("--nic", default="ib-ndr", choices=[k for k in LINKS if k.startswith(("ib", "roce"))], help="NIC per GPU (default ib-ndr)")
    p.add_argument("--scaleup", default="nvlink4", choices=[k for k in LINKS if not k.startswith(("ib", "roce"))], help="link inside the node (default nvlink4)")
    p.add_argument("--oversubscription", type=float, default=1, help="leaf host ports per uplink, 1 to 64 (default 1)")
    p.add_argument("--no-rails", action="store_true", help="a node's NICs on one leaf instead of one leaf per rail")
    p.add_argument("--leaf-ports", type=int, default=32, help="host ports per leaf switch (default 32)")
    p.add_argument("--bytes", type=float, default=1e9, help="buffer S in bytes (default 1e9)")
    p.add_argument("--op", default="allreduce", choices=["allreduce", "alltoall"], help="collective (default allreduce)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    a = p.parse_args(argv)
    if not 1 <= a.nodes <= 4096:
        p.error("--nodes must be from 1 to 4,096")
    if not 1 <= a.gpus_per_node <= 72:
        p.error("--gpus-per-node must be from 1 to 72")
    if not (math.isfinite(a.oversubscription) and 1 <= a.oversubscription <= 64):
        p.error("--oversubscription must be from 1 to 64")
    if not (math.isfinite(a.bytes) and 0 <= a.bytes <= 1e14):
        p.error("--bytes must be from 0 to 1e14")
    if a.leaf_ports < 1 or (a.no_rails and a.leaf_ports < a.gpus_per_node):
        p.error("--leaf-ports must be at least 1, and at least --gpus-per-node without rails")

    links = {k: {"name": v["name"], "bandwidth_Bps": v["bandwidth_Bps"], "bidirectional_Bps": 2 * v["bandwidth_Bps"],
                 "peer_bandwidth_Bps": peer_bandwidth(v)}
             for k, v in LINKS.items()}
    nic, up = LINKS[a.nic]["bandwidth_Bps"], LINKS[a.scaleup]["bandwidth_Bps"]
    r = fat_tree(a.nodes, a.gpus_per_node, nic, up, a.oversubscription, not a.no_rails, a.leaf_ports, a.bytes, a.op)
    out = {"links": links, "fat_tree": r}
    if a.json:
        print(json.dumps(out, indent=1))
        return
    print("Per GPU, one direction (the vendor's figure):")
    for v in LINKS.values():
        b = v["bandwidth_Bps"]
        if v["quoted_as"] == "bidirectional":
            quoted = f"{2 * b / 1e9:,.0f} GB/s both directions"
        else:  # NICs are quoted in bits per second
            quoted = f"{b / 1e9:.1f} GB/s per direction" if v["kind"] == "pcie" else f"{8 * b / 1e9:,.0f} Gb/s per direction"
        if peer_bandwidth(v) != b:
            quoted += f"; one neighbour {peer_bandwidth(v) / 1e9:,.0f} GB/s over one of {v['link_count']:.0f} links"
        print(f"  {v['name']:<26} {b / 1e9:8.1f} GB/s   ({quoted})")
    g = a.gpus_per_node
    wiring = "no rails" if a.no_rails else "rail-optimized"
    # The engine names the scale-up phase "nvlink" whatever the link; say which one it is.
    neck = r["bottleneck"] if r["bottleneck"] != "nvlink" or a.scaleup.startswith("nvlink") else f"scale-up link, {a.scaleup}"
    print(f"\n{a.op} of {a.bytes / 1e9:g} GB on {a.nodes} nodes x {g} GPUs, {LINKS[a.scaleup]['name']} inside, "
          f"{LINKS[a.nic]['name']} per GPU, {wiring}, {a.oversubscription:g}:1")
    print(f"  inside nodes {r['intra_time_s'] * 1e3:.2f} ms, across nodes {r['inter_time_s'] * 1e3:.2f} ms, "
          f"total {r['time_s'] * 1e3:.2f} ms (bottleneck: {neck})")
    print(f"  spine slowdown {r['spine_slowdown']:.2f}, NIC at {r['inter_bandwidth_Bps'] / 1e9:.1f} GB/s, "
          f"bisection {r['bisection_Bps'] / 1e12:.1f} TB/s, bus bandwidth {r['busbw_Bps'] / 1e9:.0f} GB/s")
    if a.op == "allreduce":
        print(f"  pipelined phases at best {r['overlapped_time_s'] * 1e3:.2f} ms; NCCL's flat rings over all "
              f"{a.nodes * g} GPUs {r['flat_ring_time_s'] * 1e3:.2f} ms")
        print(f"  one ring through one NIC per node {r['single_ring_time_s'] * 1e3:.1f} ms, "
              f"binomial tree {r['tree_time_s'] * 1e3:.1f} ms")
    else:
        print(f"  pairwise exchange over all {a.nodes * g} GPUs {r['flat_ring_time_s'] * 1e3:.1f} ms")


if __name__ == "__main__":
    main()

// Exercises of the collectives lesson: ring all-reduce time from α, B, p and S; bytes each
// rank sends in a ring all-reduce; the message size where recursive doubling and the ring
// cost the same; bus bandwidth from a measured time; hierarchical all-reduce across nodes;
// the cross-node part of an all-to-all.
// Numbers are shown rounded and answers are computed from the numbers shown; `params` are
// inputs of the `collective`, `collective-sweep` and `hierarchical-allreduce` calculators.
#include <cmath>
#include <string>
#include <vector>

#include "generators.hpp"
#include "mlsys/foundations/units.hpp"

namespace mlsys::exercises {

namespace {

const std::string kMicro = "\xC2\xB5s";  // µs

// A link of the interconnect table with the ranks a ring can have on it: NVLink rows join the
// 4 or 8 GPUs of one node, network rows one GPU per node across 4 to 128 nodes. α is the row's
// typical message latency or twice it.
struct RingLink {
  const InterconnectLink* link;
  int ranks;
  double alpha_us;
};

RingLink draw_ring_link(Rng& rng, const std::vector<int>& network_ranks) {
  const InterconnectLink& l =
      find_interconnect_link(rng.pick(std::vector<std::string>{"nvlink3", "nvlink4", "nvlink5", "ib-hdr", "ib-ndr", "ib-xdr"}));
  const bool scale_up = l.kind == "scale-up";
  const int p = scale_up ? rng.pick(std::vector<int>{4, 8}) : rng.pick(network_ranks);
  const double alpha_us = l.latency_s * 1e6 * rng.pick(std::vector<double>{1, 2});
  return {&l, p, alpha_us};
}

std::string link_words(const InterconnectLink& l) {
  return l.kind == "scale-up" ? l.name + " through NVSwitch, " + format_number(l.bandwidth_Bps / 1e9, 4) + " GB/s per direction"
                              : l.name + ", one port per GPU, " + format_number(l.bandwidth_Bps / 1e9, 4) + " GB/s per direction";
}

int log2_int(int p) {
  int l = 0;
  while ((1 << l) < p) ++l;
  return l;
}

Exercise ring_time(Rng& rng) {
  const RingLink rl = draw_ring_link(rng, {4, 8, 16, 32, 64, 128});
  const int p = rl.ranks;
  const double mb = rng.pick(std::vector<double>{16, 64, 100, 256, 500, 1000, 2000});
  const double alpha_us = rl.alpha_us;
  const double gbps = rl.link->bandwidth_Bps / 1e9;
  const double S = mb * 1e6, a = alpha_us * 1e-6, B = gbps * 1e9;
  const double chunk_us = S / p / B * 1e6;
  Exercise e;
  e.title = "Time a ring all-reduce";
  e.params = {{"op", "allreduce"}, {"algorithm", "ring"}, {"ranks", p}, {"bytes", S}, {"latency_s", a},
              {"bandwidth_Bps", B}};
  e.prompt = format_int(p) + " GPUs all-reduce " + article(format_number(mb, 4)) + format_number(mb, 4) + " MB gradient buffer with the ring algorithm "
             "over " + link_words(*rl.link) + ". Each message costs α = " + format_number(alpha_us, 3) + " " + kMicro +
             " plus its size over B = " + format_number(gbps, 4) + " GB/s. How long does the all-reduce take, in ms?";
  e.unit = "ms";
  e.answer = 2.0 * (p - 1) * (a + S / (p * B)) * 1e3;
  e.hint = "The ring splits the buffer into p chunks and takes 2(p − 1) steps (p − 1 to reduce-scatter, p − 1 to "
           "all-gather); each step sends one chunk of S/p bytes.";
  e.solution = "Chunk = " + format_number(mb, 4) + " MB / " + format_int(p) + " = " + format_number(mb / p, 4) +
               " MB, which takes " + format_number(chunk_us, 4) + " " + kMicro + " at " + format_number(gbps, 4) +
               " GB/s. Each step costs " + format_number(alpha_us, 3) + " + " + format_number(chunk_us, 4) + " = " +
               format_number(alpha_us + chunk_us, 4) + " " + kMicro + "; 2(p − 1) = " + format_int(2 * (p - 1)) +
               " steps give " + format_number(e.answer, 4) + " ms.";
  require_link_row(e, B, "", "link");
  require(e, rl.link->kind != "scale-up" || p <= 8, "NVLink rings stay inside one 8-GPU node");
  reject_mistake(e, (p - 1) * (a + S / (p * B)) * 1e3, "counted the reduce-scatter's p − 1 steps only");
  reject_mistake(e, 2.0 * (p - 1) * (a + S / B) * 1e3, "sent the whole buffer in every step, not S/p");
  return e;
}

Exercise ring_bytes(Rng& rng) {
  const double billions = rng.pick(std::vector<double>{1.3, 7, 8, 13, 34, 70});
  // From 4 GPUs: at 2 the ring's 2(p − 1)/p is 1 and the answer is the buffer itself.
  const int p = rng.pick(std::vector<int>{4, 8, 16, 64, 256, 1024});
  const double S = billions * 1e9 * 2;  // bf16 gradients
  Exercise e;
  e.title = "Bytes each GPU sends";
  e.params = {{"op", "allreduce"}, {"algorithm", "ring"}, {"ranks", p}, {"bytes", S}};
  e.prompt = "Data-parallel training of " + article(format_number(billions, 3)) + format_number(billions, 3) + "-billion-parameter model all-reduces its "
             "bf16 gradients (2 bytes each) across " + format_int(p) + " GPUs with the ring algorithm. How many GB "
             "does each GPU send per all-reduce?";
  e.unit = "GB";
  e.answer = 2.0 * (p - 1) / p * S / 1e9;
  e.hint = "S = parameters × 2 bytes. In the ring, every rank sends one chunk of S/p in each of the 2(p − 1) steps.";
  e.solution = "S = " + format_number(billions, 3) + "e9 × 2 B = " + format_number(S / 1e9, 4) + " GB. Each GPU sends "
               "2(p − 1)/p × S, close to 2S however many GPUs join: 2 × " + format_int(p - 1) + "/" + format_int(p) +
               " × " + format_number(S / 1e9, 4) + " GB = " + format_number(e.answer, 4) + " GB.";
  require_whole(e, p, "GPUs");
  require(e, p > 2, "more than two GPUs, where 2(p − 1)/p differs from 1");
  reject_mistake(e, S / 1e9, "counted one pass over the buffer: reduce-scatter and all-gather each send (p − 1)/p of it");
  reject_mistake(e, 2.0 * (p - 1) * S / 1e9, "sent the whole buffer in every step, not S/p");
  return e;
}

Exercise crossover(Rng& rng) {
  const RingLink rl = draw_ring_link(rng, {8, 16, 32, 64, 128});
  const int p = rl.link->kind == "scale-up" ? 8 : rl.ranks;  // log2 p must exceed the ring's 2(p − 1)/p
  const double alpha_us = rl.alpha_us;
  const double gbps = rl.link->bandwidth_Bps / 1e9;
  const int L = log2_int(p);
  const double a = alpha_us * 1e-6, B = gbps * 1e9;
  const double ring_bw = 2.0 * (p - 1) / p;
  const double s = (2.0 * (p - 1) - L) * a * B / (L - ring_bw);
  Exercise e;
  e.title = "Where the ring starts to win";
  e.params = {{"op", "allreduce"}, {"ranks", p}, {"latency_s", a}, {"bandwidth_Bps", B}};
  e.prompt = "On " + format_int(p) + " ranks joined by " + link_words(*rl.link) + ", with α = " +
             format_number(alpha_us, 3) + " " + kMicro + " and B = " + format_number(gbps, 4) + " GB/s, recursive doubling all-reduces in log2 p steps that each exchange the "
             "whole buffer, while the ring takes 2(p − 1) steps of S/p. Above what buffer size S is the ring faster? "
             "Answer in MB.";
  e.unit = "MB";
  e.answer = s / 1e6;
  e.hint = "Write both times as (latency terms)·α + (bandwidth terms)·S/B: recursive doubling log2 p · (α + S/B), the "
           "ring 2(p − 1)·α + 2(p − 1)/p · S/B. Set them equal and solve for S.";
  e.solution = "log2 p = " + format_int(L) + ". Equal times: " + format_int(L) + "α + " + format_int(L) + "S/B = " +
               format_int(2 * (p - 1)) + "α + " + format_number(ring_bw, 4) + "S/B, so S* = (" +
               format_int(2 * (p - 1)) + " − " + format_int(L) + ")·α·B / (" + format_int(L) + " − " +
               format_number(ring_bw, 4) + ") = " + format_number(e.answer, 4) +
               " MB. Below it recursive doubling's fewer steps win; above it the ring's smaller volume wins.";
  require_link_row(e, B, "", "link");
  require(e, (p & (p - 1)) == 0 && p >= 8, "a power of two ranks, at least 8, as recursive doubling needs");
  require(e, rl.link->kind != "scale-up" || p <= 8, "NVLink ranks stay inside one 8-GPU node");
  return e;
}

// What a ring all-reduce's bus bandwidth can reach on GPUs of the table: inside one node the
// GPU's NVLink per direction; across nodes of 8, eight NICs per node carry each node's share,
// so about 8 × one NIC (the NCCL maintainers measure 192 GB/s on DGX A100 nodes with eight
// 200 Gb/s ports, NVIDIA/nccl issue 812). nccl-tests reports 80 to 95% of the link rate.
Exercise busbw(Rng& rng) {
  const std::string gpu = rng.pick(std::vector<std::string>{"a100-sxm-80gb", "h100-sxm", "h200-sxm", "b200"});
  const Accelerator& hw = *find_accelerator(gpu);
  const int p = rng.pick(std::vector<int>{8, 16, 32, 64});
  const InterconnectLink& nic = draw_nic(rng, gpu);
  const double limit = p == 8 ? hw.scaleup_per_direction_Bps("scaleup_bandwidth_Bps") / 1e9 : 8 * nic.bandwidth_Bps / 1e9;
  const double gb = rng.pick(std::vector<double>{0.5, 1, 2, 4, 8});
  const double true_bw = limit * rng.pick(std::vector<double>{0.8, 0.85, 0.9});  // GB/s
  const double t_ms = round_sig(2.0 * (p - 1) / p * gb / true_bw * 1e3 * (1 + 0.05 * rng.uniform()), 3);
  const double S = gb * 1e9, factor = 2.0 * (p - 1) / p;
  const double algbw = S / (t_ms * 1e-3) / 1e9;
  Exercise e;
  e.title = "Bus bandwidth from a measurement";
  e.unit = "GB/s";
  e.answer = algbw * factor;
  // A ring at zero latency over links of the answer's bandwidth takes exactly the measured time.
  e.params = {{"op", "allreduce"}, {"algorithm", "ring"}, {"ranks", p}, {"bytes", S}, {"latency_s", 0.0},
              {"bandwidth_Bps", e.answer * 1e9}};
  const std::string system = p == 8 ? "the 8 " + hw.name.substr(0, hw.name.find(" (")) + " GPUs of one node (NVLink)"
                                    : format_int(p) + " " + hw.name.substr(0, hw.name.find(" (")) + " GPUs in nodes of 8, each GPU with its own " +
                                          nic.name + " port";
  e.prompt = "nccl-tests' all_reduce_perf on " + system + " reports " + format_number(t_ms, 3) +
             " ms for " + article(format_number(gb, 3)) + format_number(gb, 3) + " GB buffer. What bus bandwidth (busbw) does it print, in GB/s?";
  e.hint = "Algorithm bandwidth is S / time. For all-reduce, nccl-tests multiplies it by 2(p − 1)/p to get bus "
           "bandwidth, the rate each link must sustain.";
  e.solution = "algbw = " + format_number(gb, 3) + " GB / " + format_number(t_ms, 3) + " ms = " +
               format_number(algbw, 4) + " GB/s; busbw = algbw × 2(p − 1)/p = " + format_number(algbw, 4) + " × " +
               format_number(factor, 4) + " = " + format_number(e.answer, 4) +
               " GB/s, to compare with the link's bandwidth per direction.";
  if (p == 8)
    require_scaleup_of(e, gpu, limit * 1e9, "NVLink");
  else
    require_nic_of(e, gpu, limit * 1e9 / 8, "network port");
  require(e, e.answer <= 0.96 * limit, "the bus bandwidth stays below the " + format_number(limit, 4) + " GB/s the links carry");
  reject_mistake(e, algbw, "reported the algorithm bandwidth S / time, not the bus bandwidth");
  return e;
}

Exercise hierarchical(Rng& rng) {
  const int nodes = rng.pick(std::vector<int>{2, 4, 8, 16, 32});
  const int g = 8;
  const double gb = rng.pick(std::vector<double>{1, 2, 4, 10});
  const std::string gpu = rng.pick(std::vector<std::string>{"a100-sxm-80gb", "h100-sxm", "h200-sxm", "b200"});
  const Accelerator& hw = *find_accelerator(gpu);
  const InterconnectLink& nic = draw_nic(rng, gpu);
  const double bi = hw.scaleup_per_direction_Bps("bandwidth_Bps") / 1e9;  // GB/s per direction
  const double be = nic.bandwidth_Bps / 1e9;
  const double S = gb * 1e9;
  const int p = nodes * g;
  const double intra_ms = 2.0 * (g - 1) / g * S / (bi * 1e9) * 1e3;
  const double inter_ms = 2.0 * (nodes - 1) / p * S / (be * 1e9) * 1e3;
  Exercise e;
  e.title = "Hierarchical all-reduce across nodes";
  e.params = {{"nodes", nodes},       {"gpus_per_node", g},         {"bytes", S},
              {"bandwidth_Bps", bi * 1e9}, {"latency_s", 0.0}, {"inter_bandwidth_Bps", be * 1e9},
              {"inter_latency_s", 0.0}};
  e.prompt = format_int(nodes) + " nodes of 8 " + hw.name.substr(0, hw.name.find(" (")) + " GPUs all-reduce " +
             format_number(gb, 3) + " GB hierarchically: a ring reduce-scatter inside each node over NVLink at " +
             format_number(bi, 3) + " GB/s per direction, a ring all-reduce of each GPU's 1/8 shard across the nodes "
             "over its own " + nic.name + " port (" + format_number(be, 3) + " GB/s per direction), then a ring all-gather "
             "inside the node. Ignoring latency, how long does it take, in ms?";
  e.unit = "ms";
  e.answer = intra_ms + inter_ms;
  e.hint = "Inside the node: 2(g − 1)/g · S at the NVLink rate. Across nodes: each GPU all-reduces S/g over N nodes, "
           "sending 2(N − 1)/N · S/g at the NIC rate.";
  e.solution = "Intra-node: 2 × 7/8 × " + format_number(gb, 3) + " GB / " + format_number(bi, 3) + " GB/s = " +
               format_number(intra_ms, 4) + " ms. Inter-node: 2 × " + format_int(nodes - 1) + "/" + format_int(nodes) +
               " × " + format_number(gb / g, 4) + " GB / " + format_number(be, 3) + " GB/s = " +
               format_number(inter_ms, 4) + " ms. Total " + format_number(e.answer, 4) + " ms.";
  require_scaleup_of(e, gpu, bi * 1e9, "NVLink");
  require_nic_of(e, gpu, be * 1e9, "network port");
  reject_mistake(e, intra_ms + g * inter_ms, "sent the whole buffer across the nodes, not the GPU's 1/8 shard");
  return e;
}

// All-to-all across nodes: each GPU's cross-node bytes are (N − 1)/N of its buffer whatever
// the GPUs per node (nothing is summed); dividing by g as for the all-reduce is g× too fast. An
// all-reduce of the same buffer sends 2(N − 1)/N · S/g across, g/2 times less.
Exercise alltoall_nodes(Rng& rng) {
  const int nodes = rng.pick(std::vector<int>{2, 4, 8, 16, 32});
  const int g = 8;
  const double gb = rng.pick(std::vector<double>{0.25, 0.5, 1, 2, 4});
  const std::string gpu = rng.pick(std::vector<std::string>{"a100-sxm-80gb", "h100-sxm", "h200-sxm", "b200"});
  const InterconnectLink& nic = draw_nic(rng, gpu);
  const double be = nic.bandwidth_Bps / 1e9;
  const double S = gb * 1e9;
  Exercise e;
  e.title = "All-to-all across nodes";
  e.params = {{"op", "alltoall"}, {"nodes", nodes}, {"gpus_per_node", g}, {"bytes", S}, {"latency_s", 0.0},
              {"inter_bandwidth_Bps", be * 1e9}, {"inter_latency_s", 0.0}};
  e.prompt = "A mixture-of-experts layer runs on " + format_int(nodes) + " nodes of 8 " +
             find_accelerator(gpu)->name.substr(0, find_accelerator(gpu)->name.find(" (")) + " GPUs. In its all-to-all each "
             "GPU sends a " + format_number(gb, 3) + " GB buffer, cut into equal blocks for all " +
             format_int(nodes * g) + " GPUs (its own block included). Each GPU has its own " + nic.name + " adapter (" +
             format_number(be, 3) + " GB/s per direction), and blocks are routed over NVLink to the GPU on the destination's rail before "
             "they cross. Ignoring latency, how long does the part across nodes take, in ms?";
  e.unit = "ms";
  e.answer = (nodes - 1.0) / nodes * S / (be * 1e9) * 1e3;
  e.hint = "Count the blocks each GPU's adapter must send: everything its node owes the other nodes on its rail. "
           "Nothing is summed, so no step inside the node makes a GPU's share smaller.";
  e.solution = "Each GPU owes the other nodes " + format_int(nodes - 1) + "/" + format_int(nodes) +
               " of its buffer, and after routing its adapter carries exactly that much, with 1 GPU per node or " +
               format_int(g) + " (an all-reduce of the same buffer would send 2(N − 1)/N × S/" + format_int(g) + ", " +
               format_int(g / 2) + " times less): " +
               format_int(nodes - 1) + "/" + format_int(nodes) + " × " + format_number(gb, 3) + " GB / " +
               format_number(be, 3) + " GB/s = " + format_number(e.answer, 4) + " ms.";
  require_nic_of(e, gpu, be * 1e9, "network adapter");
  require_whole(e, nodes, "nodes");
  reject_mistake(e, e.answer / g, "divided by the 8 GPUs of a node as for an all-reduce: nothing is summed");
  reject_mistake(e, 2.0 * e.answer / g, "priced an all-reduce's 2(N − 1)/N × S/g: an all-to-all has nothing to sum");
  return e;
}

}  // namespace

void add_collectives_exercises(std::vector<Generator>& out) {
  out.push_back({"collectives-ring-allreduce-time", ring_time});
  out.push_back({"collectives-ring-bytes", ring_bytes});
  out.push_back({"collectives-crossover", crossover});
  out.push_back({"collectives-bus-bandwidth", busbw});
  out.push_back({"collectives-hierarchical", hierarchical});
  out.push_back({"collectives-alltoall-nodes", alltoall_nodes});
}

}  // namespace mlsys::exercises

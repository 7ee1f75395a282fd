// Collectives executed on simulated ranks (see comm/executor.hpp).
#include "mlsys/comm/executor.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "mlsys/foundations/input_error.hpp"
#include "mlsys/foundations/deterministic.hpp"

namespace mlsys {

namespace {

using Mask = std::uint64_t;
using Set = std::vector<int>;  // chunk ids

Mask bit(int r) { return Mask{1} << r; }

// A ring inside `members`, member i owning chunk set `sets[i]` at the end of a reduce-scatter
// (or at the start of an all-gather).
struct Group {
  std::vector<int> members;
  std::vector<Set> sets;
};

class Sim {
 public:
  Sim(ExecutedCollective& out, int chunk_count) : out_(out), p_(out.ranks), m_(out.elements / chunk_count) {
    out_.chunks = chunk_count;
    buf_.assign(p_, std::vector<double>(out.elements, 0.0));
    mask_.assign(p_, std::vector<Mask>(chunk_count, 0));
    out_.bytes_sent.assign(p_, 0.0);
  }

  std::vector<std::vector<double>>& buf() { return buf_; }
  std::vector<std::vector<Mask>>& mask() { return mask_; }
  void snapshot_initial() { out_.initial_holds = mask_; }

  // Queues a message; its payload is read now, before any message of the step is applied.
  void send(int src, int dst, const Set& src_chunks, const Set& dst_chunks, bool reduce, bool inter = false,
            const std::vector<double>* from = nullptr) {
    Pending q;
    q.msg.src = src;
    q.msg.dst = dst;
    q.msg.chunks = dst_chunks;
    q.msg.reduce = reduce;
    q.msg.inter_node = inter;
    q.msg.bytes = static_cast<double>(src_chunks.size()) * m_ * sizeof(double);
    const std::vector<double>& source = from ? *from : buf_[src];
    for (int c : src_chunks) {
      q.data.insert(q.data.end(), source.begin() + static_cast<long>(c) * m_, source.begin() + static_cast<long>(c + 1) * m_);
      q.masks.push_back(from ? bit(src) : mask_[src][c]);
    }
    pending_.push_back(std::move(q));
  }
  void send(int src, int dst, const Set& chunks, bool reduce, bool inter = false) {
    send(src, dst, chunks, chunks, reduce, inter);
  }

  void end_step() {
    if (pending_.empty()) return;
    std::vector<int> sends(p_, 0);
    CommStep step;
    for (auto& q : pending_) {
      if (++sends[q.msg.src] > 1) throw std::logic_error("a rank sent two messages in one step");
      const auto& chunks = q.msg.chunks;
      for (std::size_t i = 0; i < chunks.size(); ++i) {
        const int c = chunks[i];
        double* dst = buf_[q.msg.dst].data() + static_cast<long>(c) * m_;
        const double* src = q.data.data() + static_cast<long>(i) * m_;
        for (int e = 0; e < m_; ++e) dst[e] = q.msg.reduce ? dst[e] + src[e] : src[e];
        mask_[q.msg.dst][c] = q.msg.reduce ? (mask_[q.msg.dst][c] | q.masks[i]) : q.masks[i];
      }
      out_.bytes_sent[q.msg.src] += q.msg.bytes;
      step.messages.push_back(std::move(q.msg));
    }
    pending_.clear();
    step.holds = mask_;
    out_.steps.push_back(std::move(step));
  }

  // Ring reduce-scatter in every group at once: q−1 steps; member i ends with set i reduced
  // over the group. At step s member i sends set (i − s − 1) mod q to member i+1.
  void ring_reduce_scatter(const std::vector<Group>& groups, bool inter) {
    ring_phase(groups, inter, true);
  }
  // Ring all-gather: member i starts with set i; at step s it sends set (i − s) mod q.
  void ring_all_gather(const std::vector<Group>& groups, bool inter) { ring_phase(groups, inter, false); }

 private:
  struct Pending {
    CommMessage msg;
    std::vector<double> data;
    std::vector<Mask> masks;
  };

  void ring_phase(const std::vector<Group>& groups, bool inter, bool reduce) {
    std::size_t q = 0;
    for (const auto& g : groups) q = std::max(q, g.members.size());
    for (std::size_t s = 0; s + 1 < q; ++s) {
      for (const auto& g : groups) {
        const long k = static_cast<long>(g.members.size());
        for (long i = 0; i < k; ++i) {
          const long set = (((i - static_cast<long>(s) - (reduce ? 1 : 0)) % k) + k) % k;
          send(g.members[i], g.members[(i + 1) % k], g.sets[set], reduce, inter);
        }
      }
      end_step();
    }
  }

  ExecutedCollective& out_;
  int p_, m_;
  std::vector<std::vector<double>> buf_;
  std::vector<std::vector<Mask>> mask_;
  std::vector<Pending> pending_;
};

Set all_chunks(int c) {
  Set s(c);
  for (int i = 0; i < c; ++i) s[i] = i;
  return s;
}

Group flat_ring(int p) {
  Group g;
  for (int r = 0; r < p; ++r) {
    g.members.push_back(r);
    g.sets.push_back({r});
  }
  return g;
}

int log2_ceil(int p) {
  int l = 0;
  while ((1 << l) < p) ++l;
  return l;
}

void tree_reduce(Sim& sim, int p, const Set& all) {
  const int L = log2_ceil(p);
  for (int k = 0; k < L; ++k) {
    const int d = 1 << k;
    for (int r = d; r < p; r += 2 * d) sim.send(r, r - d, all, true);
    sim.end_step();
  }
}

void tree_broadcast(Sim& sim, int p, const Set& all) {
  const int L = log2_ceil(p);
  for (int k = 0; k < L; ++k) {
    const int d = 1 << k;
    for (int r = 0; r < d && r + d < p; ++r) sim.send(r, r + d, all, false);
    sim.end_step();
  }
}

// Recursive halving: owned range halves each step; rank r ends with chunk r reduced.
void halving_reduce_scatter(Sim& sim, int p) {
  std::vector<Set> owned(p, all_chunks(p));
  for (int d = p / 2; d >= 1; d /= 2) {
    std::vector<Set> keep(p);
    for (int r = 0; r < p; ++r) {
      Set give;
      for (int c : owned[r]) ((c & d) == (r & d) ? keep[r] : give).push_back(c);
      sim.send(r, r ^ d, give, true);
    }
    sim.end_step();
    owned = keep;
  }
}

// Recursive doubling all-gather: before the step of distance d rank r owns the d chunks
// c with c / d == r / d, and sends them to r xor d.
void doubling_all_gather(Sim& sim, int p) {
  for (int d = 1; d < p; d *= 2) {
    for (int r = 0; r < p; ++r) {
      Set own;
      for (int c = 0; c < p; ++c)
        if (c / d == r / d) own.push_back(c);
      sim.send(r, r ^ d, own, false);
    }
    sim.end_step();
  }
}

// Groups of the hierarchical algorithm: per node the g local ranks with set l = chunks
// {m·g + l}; per local index l the N ranks n·g + l with set n = chunk {n·g + l}.
std::vector<Group> intra_groups(int p, int g) {
  std::vector<Group> out;
  const int nodes = p / g;
  for (int node = 0; node < nodes; ++node) {
    Group grp;
    for (int l = 0; l < g; ++l) {
      grp.members.push_back(node * g + l);
      Set s;
      for (int m = 0; m < nodes; ++m) s.push_back(m * g + l);
      grp.sets.push_back(s);
    }
    out.push_back(grp);
  }
  return out;
}

std::vector<Group> inter_groups(int p, int g) {
  std::vector<Group> out;
  const int nodes = p / g;
  for (int l = 0; l < g; ++l) {
    Group grp;
    for (int n = 0; n < nodes; ++n) {
      grp.members.push_back(n * g + l);
      grp.sets.push_back({n * g + l});
    }
    out.push_back(grp);
  }
  return out;
}

}  // namespace

double ExecutedCollective::time_s(Link intra, Link inter) const {
  double t = 0;
  for (const auto& s : steps) {
    double biggest = 0;
    bool crosses = false;
    for (const auto& m : s.messages) {
      biggest = std::max(biggest, m.bytes);
      crosses = crosses || m.inter_node;
    }
    const Link& l = crosses ? inter : intra;
    t += l.latency_s + biggest / l.bandwidth_Bps;
  }
  return t;
}

ExecutedCollective execute_collective(Collective op, CollectiveAlgorithm algorithm, int ranks, int elements,
                                      std::uint64_t seed, int gpus_per_node, int chain_chunks) {
  if (ranks < 1 || ranks > kMaxExecRanks)
    throw InputError("ranks", "The simulation runs 1 to " + std::to_string(kMaxExecRanks) + " ranks.");
  std::string why;
  if (algorithm == CollectiveAlgorithm::Hierarchical) {
    if (gpus_per_node < 1 || gpus_per_node > ranks)
      throw InputError("gpus_per_node", "gpus_per_node must be between 1 and ranks for the hierarchical algorithm.");
    if (ranks % gpus_per_node != 0)
      throw InputError("gpus_per_node", "ranks must be a multiple of gpus_per_node (whole nodes).");
  }
  if (!collective_supported(op, algorithm, ranks, gpus_per_node, &why)) throw InputError("algorithm", why);
  // Its first phase parks blocks bound for other nodes on a relay GPU, which the receive
  // buffer (one slot per source) cannot show: priced by hierarchical_cost only.
  if (algorithm == CollectiveAlgorithm::Hierarchical && op == Collective::AllToAll)
    throw InputError("algorithm", "The simulation runs the hierarchical algorithm for all-reduce, all-gather and "
                                  "reduce-scatter; its two-phase all-to-all is priced by the cost model only.");
  const bool chain = algorithm == CollectiveAlgorithm::Ring && (op == Collective::Broadcast || op == Collective::Reduce);
  if (chain_chunks < 0 || chain_chunks > 256) throw InputError("chunks", "The pipeline takes 1 to 256 chunks.");
  const int C = chain && chain_chunks > 0 ? chain_chunks : ranks;
  if (elements < 1 || elements > kMaxExecElements)
    throw InputError("elements", "The simulation holds 1 to " + std::to_string(kMaxExecElements) + " elements per rank.");
  if (elements % C != 0)
    throw InputError("elements", "elements must be a multiple of the chunk count (" + std::to_string(C) +
                                     ") so that every chunk has the same size.");

  ExecutedCollective out;
  out.op = op;
  out.algorithm = algorithm;
  out.ranks = ranks;
  out.elements = elements;
  out.bytes = static_cast<double>(elements) * sizeof(double);
  const int p = ranks, n = elements;
  const int m = n / C;

  // Inputs: small integers, so every sum is exact in any order.
  SeededStream rng(mix_seed(seed, 1));
  out.inputs.assign(p, std::vector<double>(n));
  for (auto& v : out.inputs)
    for (auto& x : v) x = rng.integer(-8, 8);

  Sim sim(out, C);
  auto& buf = sim.buf();
  auto& mask = sim.mask();
  const Set all = all_chunks(C);
  switch (op) {
    case Collective::AllReduce:
    case Collective::Reduce:
    case Collective::ReduceScatter:
      for (int r = 0; r < p; ++r) {
        buf[r] = out.inputs[r];
        std::fill(mask[r].begin(), mask[r].end(), bit(r));
      }
      break;
    case Collective::AllGather:
      for (int r = 0; r < p; ++r) {
        std::copy(out.inputs[r].begin() + static_cast<long>(r) * m, out.inputs[r].begin() + static_cast<long>(r + 1) * m,
                  buf[r].begin() + static_cast<long>(r) * m);
        mask[r][r] = bit(r);
      }
      break;
    case Collective::Broadcast:
      buf[0] = out.inputs[0];
      std::fill(mask[0].begin(), mask[0].end(), bit(0));
      break;
    case Collective::AllToAll:  // the buffer is the receive buffer; a rank's own block is a local copy
      for (int r = 0; r < p; ++r) {
        std::copy(out.inputs[r].begin() + static_cast<long>(r) * m, out.inputs[r].begin() + static_cast<long>(r + 1) * m,
                  buf[r].begin() + static_cast<long>(r) * m);
        mask[r][r] = bit(r);
      }
      break;
  }
  sim.snapshot_initial();

  const int g = gpus_per_node;
  switch (algorithm) {
    case CollectiveAlgorithm::Ring:
      switch (op) {
        case Collective::AllReduce:
          sim.ring_reduce_scatter({flat_ring(p)}, false);
          sim.ring_all_gather({flat_ring(p)}, false);
          break;
        case Collective::ReduceScatter: sim.ring_reduce_scatter({flat_ring(p)}, false); break;
        case Collective::AllGather: sim.ring_all_gather({flat_ring(p)}, false); break;
        case Collective::AllToAll:  // pairwise exchange in ring order
          for (int s = 1; s < p; ++s) {
            for (int r = 0; r < p; ++r) sim.send(r, (r + s) % p, {(r + s) % p}, {r}, false, false, &out.inputs[r]);
            sim.end_step();
          }
          break;
        case Collective::Broadcast:  // chain 0 → 1 → … → p−1, chunk c leaves rank r at step c + r
          for (int t = 0; t + 2 < p + C; ++t) {
            for (int r = 0; r + 1 < p; ++r)
              if (t - r >= 0 && t - r < C) sim.send(r, r + 1, {t - r}, false);
            sim.end_step();
          }
          break;
        case Collective::Reduce:  // chain p−1 → … → 0, chunk c leaves rank r at step c + (p−1−r)
          for (int t = 0; t + 2 < p + C; ++t) {
            for (int r = p - 1; r >= 1; --r) {
              const int c = t - (p - 1 - r);
              if (c >= 0 && c < C) sim.send(r, r - 1, {c}, true);
            }
            sim.end_step();
          }
          break;
      }
      break;
    case CollectiveAlgorithm::Tree:
      if (op == Collective::Reduce || op == Collective::AllReduce) tree_reduce(sim, p, all);
      if (op == Collective::Broadcast || op == Collective::AllReduce) tree_broadcast(sim, p, all);
      break;
    case CollectiveAlgorithm::RecursiveDoubling:
      if (op == Collective::AllReduce) {
        for (int d = 1; d < p; d *= 2) {
          for (int r = 0; r < p; ++r) sim.send(r, r ^ d, all, true);
          sim.end_step();
        }
      } else if (op == Collective::ReduceScatter) {
        halving_reduce_scatter(sim, p);
      } else {
        doubling_all_gather(sim, p);
      }
      break;
    case CollectiveAlgorithm::HalvingDoubling:
      halving_reduce_scatter(sim, p);
      doubling_all_gather(sim, p);
      break;
    case CollectiveAlgorithm::Hierarchical:
      if (op == Collective::AllReduce) {
        sim.ring_reduce_scatter(intra_groups(p, g), false);
        sim.ring_reduce_scatter(inter_groups(p, g), true);
        sim.ring_all_gather(inter_groups(p, g), true);
        sim.ring_all_gather(intra_groups(p, g), false);
      } else if (op == Collective::AllGather) {
        sim.ring_all_gather(inter_groups(p, g), true);
        sim.ring_all_gather(intra_groups(p, g), false);
      } else {
        sim.ring_reduce_scatter(intra_groups(p, g), false);
        sim.ring_reduce_scatter(inter_groups(p, g), true);
      }
      break;
  }

  out.outputs = buf;
  out.max_bytes_sent = *std::max_element(out.bytes_sent.begin(), out.bytes_sent.end());

  // The direct computation, compared on the elements each rank must hold at the end.
  std::vector<double> sum(n, 0.0);
  for (const auto& v : out.inputs)
    for (int e = 0; e < n; ++e) sum[e] += v[e];
  double err = 0;
  bool masks_ok = true;
  const Mask full = p == 64 ? ~Mask{0} : (bit(p) - 1);
  for (int r = 0; r < p; ++r) {
    for (int e = 0; e < n; ++e) {
      const int c = e / m;
      double want = 0;
      bool needed = true;
      Mask want_mask = 0;
      switch (op) {
        case Collective::AllReduce: want = sum[e]; want_mask = full; break;
        case Collective::Reduce: needed = r == 0; want = sum[e]; want_mask = full; break;
        case Collective::ReduceScatter: needed = c == r; want = sum[e]; want_mask = full; break;
        case Collective::AllGather: want = out.inputs[c][e]; want_mask = bit(c); break;
        case Collective::Broadcast: want = out.inputs[0][e]; want_mask = bit(0); break;
        case Collective::AllToAll:  // slot c of rank r holds rank c's block for r
          want = out.inputs[c][static_cast<long>(r) * m + (e - static_cast<long>(c) * m)];
          want_mask = bit(c);
          break;
      }
      if (!needed) continue;
      err = std::max(err, std::fabs(buf[r][e] - want));
      if (mask[r][c] != want_mask) masks_ok = false;
    }
  }
  out.max_abs_error = err;
  out.equals_direct = err == 0 && masks_ok;
  return out;
}

}  // namespace mlsys

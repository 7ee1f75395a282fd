// Synthetic trace of one data-parallel training step (see step_profile.hpp for the model and
// its sources): the kernel sequence of a transformer (layers, output head and loss), timed by the roofline and
// the launch model, with a ring all-reduce of gradient buckets on a second stream.
#include "mlsys/profiling/step_profile.hpp"

#include <algorithm>
#include <cmath>

#include "mlsys/gpu/roofline.hpp"
#include "mlsys/kernels/fusion.hpp"

namespace mlsys {

namespace {

struct Op {
  std::string name, kind, phase;
  int layer = -1;
  double flops = 0, bytes = 0;
  int comm_after = -1;  // index of the bucket whose gradients are complete after this kernel
};

// An elementwise chain as kernels: one fused kernel, or `ops` kernels sharing the unfused traffic.
void push_chain(std::vector<Op>& out, const std::string& name, const std::string& phase, int layer, double n, int ops,
                int binary_ops, double flops_per_element, double element_bytes, bool fused,
                const std::string& kind = "elementwise") {
  const ElementwiseChain c = elementwise_chain(n, ops, binary_ops, flops_per_element, element_bytes);
  if (fused || ops == 1) {
    out.push_back({name + (fused && ops > 1 ? " (fused)" : ""), kind, phase, layer, c.flops,
                   fused ? c.fused_bytes : c.unfused_bytes});
    return;
  }
  for (int i = 0; i < ops; ++i)
    out.push_back({name + " [" + std::to_string(i + 1) + "/" + std::to_string(ops) + "]", kind, phase, layer,
                   c.flops / ops, c.unfused_bytes / ops});
}

struct Matmul {
  std::string name;
  double m, n, k;  // [m,k]·[k,n]
};

}  // namespace

StepProfile step_profile(const ModelConfig& c, const StepSetup& st) {
  StepProfile p;
  const double s = st.element_bytes;
  const double T = st.micro_batch * c.seq;  // tokens per GPU per step
  const double h = c.hidden, q = c.heads * c.head_dim, kv = c.kv_heads * c.head_dim, f = c.ffn_hidden;
  const int L = static_cast<int>(c.layers);
  const ModelCounts counts = model_counts(c);
  p.tokens = T;
  // Every parameter is all-reduced and updated; the model FLOPs count N as the mfu calculator
  // and the lesson do: the layers, the final norm and the output head (params_flops).
  p.params = counts.params;
  p.model_flops = counts.flops_per_token_training * T;
  p.ideal_time_s = p.model_flops / st.peak_flops;

  const std::vector<Matmul> mm = {{"QKV projection", T, q + 2 * kv, h},
                                  {"Output projection", T, h, q},
                                  {"MLP up", T, c.gated_mlp ? 2 * f : f, h},
                                  {"MLP down", T, h, f}};
  const Matmul head = {"Output head (logits)", T, c.vocab, h};
  const auto matmul_op = [&](const Matmul& x, const std::string& suffix, const std::string& phase, int layer) {
    const std::string tag = layer >= 0 ? std::string("L") + std::to_string(layer) + " " : "";
    return Op{tag + x.name + suffix, "matmul", phase, layer, 2 * x.m * x.n * x.k, (x.m * x.k + x.k * x.n + x.m * x.n) * s};
  };
  // Attention core (FlashAttention-style, one kernel): QKᵀ and PV, 4·T·seq·q FLOPs forward
  // (PaLM counts the full square, no causal halving); the backward pass twice that.
  const double attn_flops = 4 * T * c.seq * q, attn_bytes = (T * (q + 2 * kv) + T * q) * s;

  // ---- the compute stream's kernels in program order -------------------------------------
  std::vector<Op> ops;
  const bool fz = st.fusion;
  for (int l = 0; l < L; ++l) {
    const std::string tag = std::string("L") + std::to_string(l) + " ";
    push_chain(ops, tag + "LayerNorm 1", "forward", l, T * h, 4, 0, 2, s, fz);
    ops.push_back(matmul_op(mm[0], "", "forward", l));
    ops.push_back({tag + "Attention", "attention", "forward", l, attn_flops, attn_bytes});
    ops.push_back(matmul_op(mm[1], "", "forward", l));
    push_chain(ops, tag + "Dropout + residual 1", "forward", l, T * h, 2, 1, 1, s, fz);
    push_chain(ops, tag + "LayerNorm 2", "forward", l, T * h, 4, 0, 2, s, fz);
    ops.push_back(matmul_op(mm[2], "", "forward", l));
    push_chain(ops, tag + (c.gated_mlp ? "SwiGLU" : "Bias + GELU"), "forward", l, T * f, 3, c.gated_mlp ? 1 : 0, 4,
               s, fz);
    ops.push_back(matmul_op(mm[3], "", "forward", l));
    push_chain(ops, tag + "Dropout + residual 2", "forward", l, T * h, 2, 1, 1, s, fz);
  }
  // The output head and the loss (not tied to a layer): final norm, logits over the vocabulary,
  // softmax cross-entropy over T·vocab logits (max, exponentiated sum, log-probability of the
  // target), and their backward passes before the last layer's.
  push_chain(ops, "Final norm", "forward", -1, T * h, 4, 0, 2, s, fz);
  ops.push_back(matmul_op(head, "", "forward", -1));
  push_chain(ops, "Cross-entropy", "forward", -1, T * c.vocab, 3, 0, 3, s, fz);
  push_chain(ops, "Cross-entropy backward", "backward", -1, T * c.vocab, 2, 1, 2, s, fz);
  ops.push_back(matmul_op(head, " dgrad", "backward", -1));
  ops.push_back(matmul_op(head, " wgrad", "backward", -1));
  push_chain(ops, "Final norm backward", "backward", -1, T * h, 4, 4, 2, s, fz);
  // Backward, last layer first; each elementwise op reads its saved input and the incoming gradient.
  const int buckets = std::max(1, std::min(static_cast<int>(st.buckets), L));
  const int layers_per_bucket = (L + buckets - 1) / buckets;
  for (int l = L - 1; l >= 0; --l) {
    const std::string tag = std::string("L") + std::to_string(l) + " ";
    push_chain(ops, tag + "Dropout + residual 2 backward", "backward", l, T * h, 2, 2, 1, s, fz);
    ops.push_back(matmul_op(mm[3], " dgrad", "backward", l));
    ops.push_back(matmul_op(mm[3], " wgrad", "backward", l));
    push_chain(ops, tag + (c.gated_mlp ? "SwiGLU backward" : "GELU backward"), "backward", l, T * f, 3, 3, 4, s, fz);
    ops.push_back(matmul_op(mm[2], " dgrad", "backward", l));
    ops.push_back(matmul_op(mm[2], " wgrad", "backward", l));
    push_chain(ops, tag + "LayerNorm 2 backward", "backward", l, T * h, 4, 4, 2, s, fz);
    push_chain(ops, tag + "Dropout + residual 1 backward", "backward", l, T * h, 2, 2, 1, s, fz);
    ops.push_back(matmul_op(mm[1], " dgrad", "backward", l));
    ops.push_back(matmul_op(mm[1], " wgrad", "backward", l));
    ops.push_back({tag + "Attention backward", "attention", "backward", l, 2 * attn_flops, 2 * attn_bytes});
    ops.push_back(matmul_op(mm[0], " dgrad", "backward", l));
    ops.push_back(matmul_op(mm[0], " wgrad", "backward", l));
    push_chain(ops, tag + "LayerNorm 1 backward", "backward", l, T * h, 4, 4, 2, s, fz);
    // The embedding's gradient: a scatter-add of the T incoming gradient rows into the table.
    if (l == 0) push_chain(ops, "Embedding backward (scatter-add)", "backward", -1, T * h, 1, 1, 1, s, fz);
    // Gradients of layers [l, L) complete: bucket j holds layers counted from the top.
    const int from_top = L - 1 - l;
    if ((from_top + 1) % layers_per_bucket == 0 || l == 0) ops.back().comm_after = from_top / layers_per_bucket;
  }
  const int bucket_count = (L + layers_per_bucket - 1) / layers_per_bucket;
  // The final norm and an untied head are complete before the top layer's gradients (bucket 1);
  // a tied head shares its matrix with the embedding, whose gradient is complete only after the
  // embedding backward at the very end (last bucket), as is an untied input embedding's.
  const double vh = c.vocab * h;
  const double first_extra = h + (c.tied_embeddings ? 0 : vh), last_extra = vh;
  // Adam over fp32 master weights and states: reads weight, gradient, momentum, variance, writes
  // three of them; unfused it is a loop of kernels per layer, fused one multi-tensor kernel.
  if (fz) {
    push_chain(ops, "Adam step", "optimizer", -1, p.params, 6, 3, 3, 4, true, "optimizer");
  } else {
    for (int l = 0; l < L; ++l)
      push_chain(ops, std::string("L") + std::to_string(l) + " Adam step", "optimizer", l, counts.params_per_layer, 6, 3, 3, 4, false,
                 "optimizer");
    push_chain(ops, "Embedding, head and final norm Adam step", "optimizer", -1, p.params - L * counts.params_per_layer, 6,
               3, 3, 4, false, "optimizer");
  }

  // Bucket sizes in bytes (bf16 gradients).
  std::vector<double> bucket_bytes(static_cast<std::size_t>(bucket_count), 0);
  for (int l = 0; l < L; ++l)
    bucket_bytes[static_cast<std::size_t>((L - 1 - l) / layers_per_bucket)] += counts.params_per_layer * 2;
  bucket_bytes.front() += first_extra * 2;
  bucket_bytes.back() += last_extra * 2;
  const double ranks = st.dp;
  const auto allreduce_s = [&](double bytes) {
    if (ranks <= 1) return 0.0;
    return 2 * (ranks - 1) / ranks * bytes / st.comm_bandwidth_Bps + 2 * (ranks - 1) * st.comm_latency_s;
  };

  // ---- schedule ---------------------------------------------------------------------------
  double cpu = 0;            // time the CPU finishes the current launch
  double compute_free = 0;   // end of the last compute kernel
  double comm_free = 0;      // end of the last all-reduce
  double all_comm_end = 0;
  std::vector<TraceKernel> compute, comm;
  const bool graph = st.cuda_graphs;
  const bool has_comm = ranks > 1;
  if (graph) cpu = st.launch_s;  // one graph launch for the whole step

  const auto launch = [&]() {  // CPU time at which the next launch is issued
    if (graph) return cpu;
    cpu += st.launch_s;
    return cpu;
  };
  const auto run_comm = [&](int b, double issue, double ready) {
    const double start = std::max({issue, ready, comm_free});
    const double end = start + allreduce_s(bucket_bytes[static_cast<std::size_t>(b)]);
    comm.push_back({"comm", std::string("All-reduce bucket ") + std::to_string(b + 1) + " of " + std::to_string(bucket_count) +
                                 " (" + std::to_string(static_cast<long long>(std::llround(bucket_bytes[static_cast<std::size_t>(b)] / 1e6))) + " MB)",
                    "allreduce", start, end, 0, bucket_bytes[static_cast<std::size_t>(b)], -1, "comm"});
    comm_free = end;
    all_comm_end = std::max(all_comm_end, end);
  };

  bool comm_issued = false;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const Op& o = ops[i];
    // Without overlap, every bucket is reduced after the backward pass, before the optimizer.
    if (o.phase == "optimizer" && has_comm && !comm_issued) {
      comm_issued = true;
      if (!st.overlap) {
        for (int b = 0; b < bucket_count; ++b) run_comm(b, launch(), compute_free);
      }
    }
    const double issued = launch();
    // Consecutive kernels on a stream are at least graph_node_s apart on the GPU, launched
    // eagerly or from a graph; eagerly, a kernel also waits for the CPU to launch it.
    const double gpu_ready = i > 0 ? compute_free + st.graph_node_s : 0.0;
    double start = std::max(issued, gpu_ready);
    double comm_wait = 0;
    if (o.phase == "optimizer" && has_comm && all_comm_end > start) {
      comm_wait = all_comm_end - start;
      start = all_comm_end;
    }
    const RooflineResult r = roofline(o.flops, std::max(o.bytes, 1.0), st.peak_flops, st.bandwidth_Bps);
    const bool is_mm = o.kind == "matmul" || o.kind == "attention";
    const double dur = is_mm ? std::max(r.compute_time_s / st.matmul_efficiency, r.memory_time_s) : r.time_s;
    const double idle = start - compute_free;
    p.exposed_comm_s += comm_wait;
    p.launch_gap_s += idle - comm_wait;
    if (idle - comm_wait > 1.5 * st.graph_node_s + 1e-9) p.gap_count += 1;
    compute.push_back({"compute", o.name, o.kind, start, start + dur, o.flops, o.bytes, o.layer, o.phase});
    (is_mm ? p.matmul_time_s : p.memory_time_s) += dur;
    compute_free = start + dur;
    if (o.comm_after >= 0 && has_comm) {
      if (st.overlap) run_comm(o.comm_after, graph ? compute_free : launch(), compute_free);
    }
  }
  // CPU activity: eager launches form one busy interval from the first to the last launch
  // (the CPU never waits for the GPU inside the step); a graph is one launch.
  const double cpu_end = graph ? st.launch_s : cpu;
  p.cpu_busy_s = cpu_end;

  p.step_time_s = std::max(compute_free, all_comm_end);
  p.compute_kernels = static_cast<double>(compute.size());
  p.comm_kernels = static_cast<double>(comm.size());
  p.compute_busy_s = p.matmul_time_s + p.memory_time_s;
  for (const auto& k : comm) p.comm_busy_s += k.end_s - k.start_s;
  p.mfu = p.model_flops / p.step_time_s / st.peak_flops;

  p.kernels.reserve(compute.size() + comm.size() + 1);
  p.kernels.push_back({"cpu", graph ? "Launch CUDA graph (whole step)" : "Dispatch and launch kernels (eager)", "launch",
                       0.0, cpu_end, 0, 0, -1, "cpu"});
  p.kernels.insert(p.kernels.end(), compute.begin(), compute.end());
  p.kernels.insert(p.kernels.end(), comm.begin(), comm.end());
  std::stable_sort(p.kernels.begin(), p.kernels.end(),
                   [](const TraceKernel& a, const TraceKernel& b) { return a.start_s < b.start_s; });

  // Waterfall: step = ideal + (matmul time − ideal) + memory-bound time + launch gaps + exposed
  // communication, each turned into FLOP/s as peak × share of the step.
  const double per = st.peak_flops / p.step_time_s;
  Waterfall& w = p.waterfall;
  w.peak_flops = st.peak_flops;
  w.matmul_inefficiency = (p.matmul_time_s - p.ideal_time_s) * per;
  w.memory_bound = p.memory_time_s * per;
  w.launch_gaps = p.launch_gap_s * per;
  w.exposed_comm = p.exposed_comm_s * per;
  w.achieved_flops = p.model_flops / p.step_time_s;
  return p;
}

CommTail comm_tail(double backward_s, int buckets, double allreduce_s, bool overlap) {
  CommTail t;
  double end = 0;
  for (int i = 1; i <= buckets; ++i) {
    const double ready = overlap ? backward_s * i / buckets : backward_s;
    end = std::max(ready, end) + allreduce_s;
  }
  t.comm_end_s = end;
  t.exposed_s = std::max(0.0, end - backward_s);
  t.hidden_s = buckets * allreduce_s - t.exposed_s;
  return t;
}

WaterfallSteps waterfall_steps(const StepProfile& p) {
  const Waterfall& w = p.waterfall;
  const double peak = w.peak_flops;
  WaterfallSteps r{peak, w.achieved_flops, p.mfu, p.step_time_s, p.ideal_time_s, {}};
  double level = peak;
  const auto add = [&](const char* id, const char* label, double loss) {
    r.steps.push_back({id, label, level, level - loss, loss, loss / peak});
    level -= loss;
  };
  add("launch_gaps", "Launch gaps (compute stream waits for the CPU)", w.launch_gaps);
  add("exposed_comm", "Exposed communication (waits for the all-reduce)", w.exposed_comm);
  add("memory_bound", "Memory-bound kernels (elementwise ops, optimizer)", w.memory_bound);
  add("matmul_inefficiency", "Matmuls and attention below peak", w.matmul_inefficiency);
  return r;
}

StepTrace step_trace(const StepProfile& p, std::size_t max_kernels) {
  StepTrace r;
  for (std::size_t i = 0; i < p.kernels.size() && i < max_kernels; ++i) r.kernels.push_back(p.kernels[i]);
  const double st = p.step_time_s;
  r.kernels_total = static_cast<double>(p.kernels.size());
  r.kernels_listed = static_cast<double>(r.kernels.size());
  r.step_time_s = st;
  r.ideal_time_s = p.ideal_time_s;
  r.model_flops = p.model_flops;
  r.tokens = p.tokens;
  r.tokens_per_s = p.tokens / st;
  r.params = p.params;
  r.compute_kernels = p.compute_kernels;
  r.comm_kernels = p.comm_kernels;
  r.busy_fraction = {p.cpu_busy_s / st, p.compute_busy_s / st, p.comm_busy_s / st};
  r.matmul_time_s = p.matmul_time_s;
  r.memory_bound_time_s = p.memory_time_s;
  r.launch_gap_s = p.launch_gap_s;
  r.exposed_comm_s = p.exposed_comm_s;
  r.comm_time_s = p.comm_busy_s;
  r.gaps = p.gap_count;
  r.mfu = p.mfu;
  r.waterfall = waterfall_steps(p);
  return r;
}

}  // namespace mlsys

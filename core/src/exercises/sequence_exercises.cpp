// Exercises of the sequence-context-expert lesson: activation memory with sequence
// parallelism, the smallest ring-attention block that hides the KV transfer, Ulysses'
// all-to-all bytes, dropped tokens of a simulated router, and the all-to-all bytes of expert
// parallelism. Hardware numbers are shown rounded and answers use the numbers shown; `params`
// are the inputs of the calculator that gives the same answer.
#include <cmath>

#include "generators.hpp"
#include "mlsys/foundations/units.hpp"
#include "mlsys/hardware/accelerator.hpp"
#include "mlsys/parallel/moe_router.hpp"
#include "mlsys/transformer/published_models.hpp"

namespace mlsys::exercises {

namespace {

Exercise sp_activation(Rng& rng) {
  struct Model {
    int hidden, heads, layers;
  };
  // Widths with the depths of the models of the table that have them (content/data/models.json:
  // Llama 2 7B, OPT-13B, Llama 2 70B, GPT-3 175B).
  static const std::vector<Model> models = {{4096, 32, 32}, {5120, 40, 40}, {8192, 64, 80}, {12288, 96, 96}};
  Model m{};
  int s = 0, b = 0, t = 0;
  double bytes = 0;
  do {  // under 1F1B the first stage holds all L layers' worth: that must fit an H100
    m = rng.pick(models);
    s = rng.pick(std::vector<int>{1024, 2048, 4096, 8192, 16384});
    b = rng.pick(std::vector<int>{1, 2, 4, 8});
    t = rng.pick(std::vector<int>{2, 4, 8});
    bytes = 1.0 * s * b * m.hidden * 34.0 / t;
  } while (m.layers * bytes > hbm_of("h100-sxm"));
  Exercise e;
  e.title = "Activation memory with sequence parallelism";
  e.params = {{"seq", s}, {"micro_batch", b}, {"hidden", m.hidden}, {"heads", m.heads}, {"tp", t},
              {"recompute", "selective"}};
  e.prompt = "A transformer layer with hidden size h = " + format_int(m.hidden) + ", " + format_int(m.heads) +
             " heads and a GeLU MLP of width 4h (Korthikanti et al.'s layer) is trained on micro-batches of b = " + counted(b, "sequence") + " of s = " + format_int(s) +
             " tokens, with tensor parallelism t = " + format_int(t) +
             ", Megatron sequence parallelism and selective recomputation (the attention scores are recomputed). How "
             "many bytes of activations does one GPU store for this layer? Answer in MB (10⁶ bytes).";
  e.unit = "MB";
  e.answer = bytes / 1e6;
  e.hint = "Korthikanti et al.: a layer stores s·b·h·(34 + 5·a·s/h) bytes without parallelism. Selective recomputation "
           "removes the 5·a·s/h term; tensor plus sequence parallelism divides everything that is left by t.";
  e.solution = "Without sequence parallelism 10·s·b·h bytes would stay whole on every GPU (the two layer norms' "
               "inputs, the inputs of the QKV and first MLP matmuls and the two dropout masks); with it, all 34·s·b·h "
               "bytes are split. s·b·h·34/t = " + format_int(s) + " × " +
               format_int(b) + " × " + format_int(m.hidden) + " × 34 / " + format_int(t) + " = " +
               format_number(bytes, 4) + " bytes = " + format_number(e.answer, 4) + " MB.";
  require_fits(e, m.layers * bytes, hbm_of("h100-sxm"), "the " + format_int(m.layers) + " layers' worth a first pipeline stage holds, on an H100");
  require(e, m.heads % t == 0, "the heads divide over the tensor-parallel GPUs");
  reject_mistake(e, 1.0 * s * b * m.hidden * (10 + 24.0 / t) / 1e6, "kept the 10·s·b·h that only sequence parallelism splits whole");
  reject_mistake(e, bytes * t / 1e6, "did not divide by t");
  return e;
}

Exercise ring_min_block(Rng& rng) {
  static const std::vector<std::string> ids = {"a100-sxm-80gb", "h100-sxm", "h200-sxm", "b200"};
  const Accelerator* hw = find_accelerator(rng.pick(ids));
  const double peak_tflops = round_sig(*hw->peak_for("bf16") / 1e12, 4);
  const double link_gbps = round_sig(hw->json()["scaleup_bandwidth_Bps"].get<double>() / 2 / 1e9, 4);
  const int heads = rng.pick(std::vector<int>{32, 64});
  const int group = rng.pick(std::vector<int>{2, 4, 8});  // grouped-query attention, as Llama 2 70B and Llama 3
  const int kv_heads = heads / group;
  // The share of peak the attention kernel reaches: the lesson's pitfall "the overlap condition
  // assumes attention runs at peak; a real kernel reaches maybe half of it".
  const double share = rng.pick(std::vector<double>{0.4, 0.5, 0.6, 0.7, 0.8});
  const double achieved = share * peak_tflops;
  const double exact = achieved * 1e12 / (link_gbps * 1e9) * kv_heads / heads;
  const double answer = std::ceil(exact - 1e-9);  // a whole block of tokens
  Exercise e;
  e.title = "Smallest ring-attention block that hides communication";
  e.params = {{"peak_flops", achieved * 1e12}, {"link_bandwidth_Bps", link_gbps * 1e9}, {"latency_s", 0},
              {"heads", heads}, {"kv_heads", kv_heads}, {"head_dim", 128}, {"dtype", "bf16"}};
  e.prompt = "Ring attention runs on " + hw->name + " GPUs: dense bf16 peak " + format_number(peak_tflops, 4) +
             " TFLOP/s, and " + format_number(link_gbps, 4) +
             " GB/s per direction to the next GPU of the ring. The model has " + format_int(heads) +
             " query heads and " + format_int(kv_heads) +
             " key/value heads of dimension 128, in bf16, and the attention kernel reaches " + format_number(100 * share, 2) +
             "% of the peak. Ignoring latency, what is the smallest block of c tokens per GPU for which computing one block pair (non-causal) takes at "
             "least as long as sending the next K and V block? Answer in tokens.";
  e.unit = "";
  e.answer = answer;
  e.integer = true;
  e.hint = "Per step a GPU computes QKᵀ and PV for a c×c block: 4·c²·d·H FLOPs. It sends K and V for c tokens: "
           "2·c·d·H_kv values of 2 bytes. Set FLOPs/peak ≥ bytes/bandwidth and solve for c.";
  e.solution = "The kernel runs at F = " + format_number(100 * share, 2) + "% × " + format_number(peak_tflops, 4) + " = " +
               format_number(achieved, 4) + " TFLOP/s. 4c²dH / F ≥ 4c·d·H_kv / B gives c ≥ (F/B)·(H_kv/H) = (" +
               format_number(achieved, 4) + "e12 / " +
               format_number(link_gbps, 4) + "e9) × " + format_int(kv_heads) + "/" + format_int(heads) + " = " +
               format_number(exact, 6) + ". Grouped-query attention shrinks the KV block, and with it the block size "
               "needed to hide the transfer. Rounded up to whole tokens, c = " + format_int(answer) + ".";
  require_scaleup_of(e, hw->id, link_gbps * 1e9, "link to the next GPU (NVLink)");
  require(e, heads % kv_heads == 0, "query heads share key/value heads evenly");
  require_whole(e, answer, "tokens per block");
  reject_mistake(e, std::ceil(achieved * 1e12 / (link_gbps * 1e9) - 1e-9), "left out grouped-query attention's H_kv/H");
  reject_mistake(e, std::ceil(peak_tflops * 1e12 / (link_gbps * 1e9) * kv_heads / heads - 1e-9),
                 "assumed the kernel runs at peak: a slower kernel needs a larger block");
  return e;
}

Exercise ulysses_bytes(Rng& rng) {
  const int n = rng.pick(std::vector<int>{32768, 65536, 131072, 262144});
  const int p = rng.pick(std::vector<int>{4, 8, 16});
  const int heads = rng.pick(std::vector<int>{32, 64, 128});
  const double d = 128;
  const double buffer = 1.0 * n / p * heads * d * 2;
  const double bytes = 4 * (p - 1.0) / p * buffer;
  Exercise e;
  e.title = "Ulysses all-to-all bytes";
  e.params = {{"seq", n}, {"ranks", p}, {"heads", heads}, {"kv_heads", heads}, {"head_dim", 128}, {"dtype", "bf16"}};
  e.prompt = "DeepSpeed-Ulysses splits a sequence of N = " + format_int(n) + " tokens over P = " + format_int(p) +
             " GPUs. The attention layer has " + format_int(heads) +
             " heads of dimension 128 (no grouped-query attention), activations in bf16. In the forward pass of one "
             "layer, how many bytes does each GPU send in the all-to-alls of Q, K, V and the attention output? "
             "Answer in MB (10⁶ bytes).";
  e.unit = "MB";
  e.answer = bytes / 1e6;
  e.hint = "Each GPU holds N/P tokens × H heads × d values of every tensor. An all-to-all keeps 1/P of that buffer "
           "and sends the other (P−1)/P. There are four such tensors.";
  e.solution = "Buffer = " + format_int(n) + "/" + format_int(p) + " × " + format_int(heads) + " × 128 × 2 B = " +
               format_number(buffer, 4) + " B; each all-to-all sends " + format_int(p - 1) + "/" + format_int(p) +
               " of it; four of them: " + format_number(bytes, 4) + " B = " + format_number(e.answer, 4) + " MB.";
  require(e, heads % p == 0, "the heads divide over the GPUs, as Ulysses needs");
  require_fits(e, 4 * buffer, hbm_of("h100-sxm"), "the four buffers on an H100");
  reject_mistake(e, 4 * buffer / 1e6, "sent all of every buffer, the 1/P that stays on its GPU included");
  reject_mistake(e, buffer / 1e6, "counted one tensor's buffer");
  return e;
}

Exercise moe_dropped(Rng& rng) {
  MoeRouterConfig c;
  MoeRouterResult r;
  for (;;) {  // draw until some assignment is dropped (almost always at the first draw)
    c.tokens = rng.pick(std::vector<int>{64, 128, 256});
    c.experts = 8;
    c.top_k = rng.pick(std::vector<int>{1, 2});
    c.capacity_factor = rng.pick(std::vector<double>{1.0, 1.25, 1.5});
    c.skew = rng.pick(std::vector<double>{0.75, 1.0, 1.5});
    c.seed = rng.next() & 0xFFFFFFFFULL;
    r = route_tokens(c);
    if (r.dropped > 0) break;
  }
  std::string counts;
  for (std::size_t i = 0; i < r.routed_per_expert.size(); ++i)
    counts += (i ? ", " : "") + format_int(r.routed_per_expert[i]);
  Exercise e;
  e.title = "Tokens dropped by expert capacity";
  e.params = {{"tokens", c.tokens}, {"experts", c.experts}, {"top_k", c.top_k},
              {"capacity_factor", c.capacity_factor}, {"skew", c.skew}, {"seed", c.seed}};
  e.prompt = "A router sends each of " + format_int(c.tokens) + " tokens to its top " + format_int(c.top_k) +
             " of 8 experts. The experts received these numbers of assignments: " + counts +
             ". With a capacity factor of " + format_number(c.capacity_factor, 3) +
             " and capacity C = floor(capacity factor × tokens × k / experts), how many assignments are dropped?";
  e.unit = "";
  e.answer = r.dropped;
  e.integer = true;
  e.hint = "Compute C first. An expert keeps at most C of its assignments; every assignment beyond C is dropped.";
  std::string over;
  for (double n : r.routed_per_expert)
    if (n > r.capacity) over += (over.empty() ? "" : " + ") + format_int(n - r.capacity);
  e.solution = "C = floor(" + format_number(c.capacity_factor, 3) + " × " + format_int(c.tokens) + " × " +
               format_int(c.top_k) + " / 8) = " + format_int(r.capacity) +
               ". Dropped = the excess over C of each overloaded expert, " + format_number(100 * r.drop_fraction, 3) +
               "% of the assignments: " + over + " = " + format_int(r.dropped) + ".";
  double routed = 0;
  for (double n : r.routed_per_expert) routed += n;
  require(e, routed == 1.0 * c.tokens * c.top_k, "the experts received tokens × k assignments");
  require_whole(e, r.capacity, "expert capacity");
  require(e, r.dropped > 0 && r.dropped < routed, "some but not all assignments are dropped");
  return e;
}

Exercise ep_bytes(Rng& rng) {
  const int tokens = rng.pick(std::vector<int>{4096, 8192, 16384});
  const int hidden = rng.pick(std::vector<int>{4096, 5120, 7168});
  const int k = rng.pick(std::vector<int>{1, 2, 8});
  const int ep = rng.pick(std::vector<int>{4, 8, 16, 64});
  const double buffer = 1.0 * tokens * k * hidden * 2;
  const double bytes = 2 * buffer * (ep - 1.0) / ep;
  // The experts' width does not change the bytes, but the calculator's model needs one: Mixtral
  // 8x7B's ratio of expert width to hidden size (content/data/models.json: 14,336 / 4,096).
  const ModelConfig& mixtral = find_published_model("mixtral-8x7b")->config;
  const int ffn = static_cast<int>(hidden * mixtral.ffn_hidden / mixtral.hidden);  // 3.5·h: whole for these h
  Exercise e;
  e.title = "All-to-all bytes of expert parallelism";
  e.params = {{"tokens", tokens}, {"hidden", hidden}, {"ffn_hidden", ffn}, {"top_k", k}, {"ep", ep}, {"dtype", "bf16"}};
  e.prompt = "A mixture-of-experts layer receives " + format_int(tokens) + " tokens on each GPU, hidden size " +
             format_int(hidden) + " in bf16 (experts of width " + format_int(ffn) + "), and routes every token to its top " + format_int(k) +
             " experts. The experts are spread evenly over an expert-parallel group of " + format_int(ep) +
             " GPUs and tokens spread evenly over them. In one forward pass of this layer (dispatch and combine), "
             "how many bytes leave each GPU? Answer in MB (10⁶ bytes).";
  e.unit = "MB";
  e.answer = bytes / 1e6;
  e.hint = "Each (token, expert) pair sends the token's hidden vector, h × 2 bytes, to the expert's GPU; (EP−1)/EP of "
           "them land on another GPU. The results come back the same way.";
  e.solution = "Dispatch buffer = " + format_int(tokens) + " × " + format_int(k) + " × " + format_int(hidden) +
               " × 2 B = " + format_number(buffer, 4) + " B; leaving the GPU: " + format_int(ep - 1) + "/" +
               format_int(ep) + " of it, twice (dispatch and combine) = " + format_number(bytes, 4) + " B = " +
               format_number(e.answer, 4) + " MB.";
  require_fits(e, 2 * buffer, hbm_of("h100-sxm"), "dispatch and combine buffers on an H100");
  require_whole(e, ep, "GPUs of the expert-parallel group");
  reject_mistake(e, bytes / 2 / 1e6, "counted the dispatch only, not the combine");
  reject_mistake(e, 2 * buffer / 1e6, "sent every token, those whose expert is on the same GPU included");
  return e;
}

}  // namespace

void add_sequence_exercises(std::vector<Generator>& out) {
  out.push_back({"seq-sp-activation", sp_activation});
  out.push_back({"seq-ring-min-block", ring_min_block});
  out.push_back({"seq-ulysses-bytes", ulysses_bytes});
  out.push_back({"moe-dropped-tokens", moe_dropped});
  out.push_back({"moe-all-to-all-bytes", ep_bytes});
}

}  // namespace mlsys::exercises

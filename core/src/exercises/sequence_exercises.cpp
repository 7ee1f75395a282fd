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
  bool sp = false, selective = false;
  double scores = 0, units = 0, bytes = 0;
  do {  // under 1F1B the first stage holds all L layers' worth: that must fit an H100
    m = rng.pick(models);
    s = rng.pick(std::vector<int>{1024, 2048, 4096, 8192, 16384});
    b = rng.pick(std::vector<int>{1, 2, 4, 8});
    t = rng.pick(std::vector<int>{2, 4, 8});
    sp = rng.integer(0, 1) == 1;
    selective = rng.integer(0, 1) == 1;
    scores = selective ? 0 : 5.0 * m.heads * s / m.hidden;  // the a·s×s scores, per s·b·h
    units = sp ? (34 + scores) / t : 10 + (24 + scores) / t;
    bytes = 1.0 * s * b * m.hidden * units;
  } while (m.layers * bytes > hbm_of("h100-sxm"));
  const double sbh = 1.0 * s * b * m.hidden;
  Exercise e;
  e.title = "Activation memory with tensor and sequence parallelism";
  e.params = {{"seq", s}, {"micro_batch", b}, {"hidden", m.hidden}, {"heads", m.heads}, {"tp", t},
              {"recompute", selective ? "selective" : "none"}};
  e.prompt = "A transformer layer with hidden size h = " + format_int(m.hidden) + ", a = " + format_int(m.heads) +
             " heads and a GeLU MLP of width 4h (Korthikanti et al.'s layer) is trained on micro-batches of b = " +
             counted(b, "sequence") + " of s = " + format_int(s) + " tokens, with tensor parallelism t = " + format_int(t) +
             (sp ? ", Megatron sequence parallelism" : " and no sequence parallelism") +
             (selective ? (sp ? " and" : ", with") + std::string(" selective recomputation (the attention scores are recomputed)")
                        : (sp ? " and" : ", with") + std::string(" no recomputation (the attention scores are stored)")) +
             ". How many bytes of activations does one GPU store for this layer? Answer in MB (10⁶ bytes).";
  e.unit = "MB";
  e.answer = bytes / 1e6;
  e.hint = "Korthikanti et al.: a layer stores s·b·h·(34 + 5·a·s/h) bytes without parallelism, 5·a·s/h of it the "
           "attention scores, which selective recomputation removes. Tensor parallelism divides all of it by t except "
           "10·s·b·h; sequence parallelism divides those 10 by t as well.";
  const std::string scores_text =
      selective ? "" : " + 5 × " + format_int(m.heads) + " × " + format_int(s) + " / " + format_int(m.hidden);
  e.solution = std::string(sp ? "With sequence parallelism all of it is split: " : "Without sequence parallelism 10·s·b·h bytes stay whole on every GPU "
                                "(the two layer norms' inputs, the inputs of the QKV and first MLP matmuls and the two "
                                "dropout masks); the rest is split: ") +
               "s·b·h × (" + (sp ? (selective ? "34 / " : "(34" + scores_text + ") / ") + format_int(t)
                                   : (selective ? "10 + 24 / " : "10 + (24" + scores_text + ") / ") + format_int(t)) +
               ") = " + format_int(sbh) + " × " + format_number(units, 4) + " = " + format_number(bytes, 4) +
               " bytes = " + format_number(e.answer, 4) + " MB." +
               (selective ? " Selective recomputation leaves out the scores term." : "");
  require_fits(e, m.layers * bytes, hbm_of("h100-sxm"), "the " + format_int(m.layers) + " layers' worth a first pipeline stage holds, on an H100");
  require(e, m.heads % t == 0, "the heads divide over the tensor-parallel GPUs");
  if (sp) {
    reject_mistake(e, sbh * (10 + (24 + scores) / t) / 1e6, "kept the 10·s·b·h that sequence parallelism splits whole");
    reject_mistake(e, bytes * t / 1e6, "did not divide by t");
  } else {
    reject_mistake(e, sbh * (34 + scores) / t / 1e6, "divided the 10·s·b·h by t, which only sequence parallelism does");
    reject_mistake(e, sbh * (34 + scores) / 1e6, "did not divide by t");
  }
  if (!selective) reject_mistake_where_distinct(e, sbh * (sp ? 34.0 / t : 10 + 24.0 / t) / 1e6, "left out the stored attention scores");
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
  // The share of peak the attention kernel reaches: a slower kernel takes longer per block pair,
  // so a smaller block already hides the transfer (the lesson's pitfall).
  const double share = rng.pick(std::vector<double>{0.4, 0.5, 0.6, 0.7, 0.8});
  const double achieved = share * peak_tflops;
  const double exact = achieved * 1e12 / (link_gbps * 1e9) * kv_heads / heads;
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
             "least as long as sending the next K and V block? Answer in tokens (to the nearest token).";
  e.unit = "";
  e.answer = exact;  // a threshold: the bound itself or the whole block above it, within 1%
  e.hint = "Per step a GPU computes QKᵀ and PV for a c×c block: 4·c²·d·H FLOPs. It sends K and V for c tokens: "
           "2·c·d·H_kv values of 2 bytes. Set FLOPs/achieved FLOP/s ≥ bytes/bandwidth and solve for c.";
  e.solution = "The kernel runs at F = " + format_number(100 * share, 2) + "% × " + format_number(peak_tflops, 4) + " = " +
               format_number(achieved, 4) + " TFLOP/s. 4c²dH / F ≥ 4c·d·H_kv / B gives c ≥ (F/B)·(H_kv/H) = (" +
               format_number(achieved, 4) + "e12 / " +
               format_number(link_gbps, 4) + "e9) × " + format_int(kv_heads) + "/" + format_int(heads) + " = " +
               format_number(exact, 6) + " tokens, so a block of " + format_int(std::ceil(exact - 1e-9)) +
               " tokens hides the transfer. Grouped-query attention shrinks the KV block, and with it the block size "
               "needed; a kernel below peak takes longer per block pair, which also lowers it.";
  require_scaleup_of(e, hw->id, link_gbps * 1e9, "link to the next GPU (NVLink)");
  require(e, heads % kv_heads == 0, "query heads share key/value heads evenly");
  require_whole(e, std::ceil(exact - 1e-9), "tokens per block");
  reject_mistake(e, achieved * 1e12 / (link_gbps * 1e9), "left out grouped-query attention's H_kv/H");
  reject_mistake(e, peak_tflops * 1e12 / (link_gbps * 1e9) * kv_heads / heads,
                 "assumed the kernel runs at peak: a slower kernel needs a smaller block");
  reject_mistake(e, peak_tflops / share * 1e12 / (link_gbps * 1e9) * kv_heads / heads,
                 "divided by the share of peak: a slower kernel needs a smaller block, not a larger one");
  return e;
}

Exercise ulysses_bytes(Rng& rng) {
  int n = 0, p = 0, heads = 0, kv_heads = 0;
  do {  // K/V heads that divide over the GPUs, as Ulysses needs without repeating them
    n = rng.pick(std::vector<int>{32768, 65536, 131072, 262144});
    p = rng.pick(std::vector<int>{4, 8, 16});
    heads = rng.pick(std::vector<int>{32, 64, 128});
    kv_heads = heads / rng.pick(std::vector<int>{1, 1, 4, 8});  // multi-head or grouped-query attention
  } while (kv_heads % p != 0);
  const double d = 128;
  const double q_buffer = 1.0 * n / p * heads * d * 2;     // Q, and the attention output
  const double kv_buffer = 1.0 * n / p * kv_heads * d * 2;  // K, and V
  const double bytes = (p - 1.0) / p * (2 * q_buffer + 2 * kv_buffer);
  const bool gqa = kv_heads < heads;
  Exercise e;
  e.title = "Ulysses all-to-all bytes";
  e.params = {{"seq", n}, {"ranks", p}, {"heads", heads}, {"kv_heads", kv_heads}, {"head_dim", 128}, {"dtype", "bf16"}};
  e.prompt = "DeepSpeed-Ulysses splits a sequence of N = " + format_int(n) + " tokens over P = " + format_int(p) +
             " GPUs. The attention layer has " + format_int(heads) + " query heads and " + format_int(kv_heads) +
             " key/value heads of dimension 128" + (gqa ? " (grouped-query attention)" : " (multi-head attention)") +
             ", activations in bf16. In the forward pass of one layer, how many bytes does each GPU send in the "
             "all-to-alls of Q, K, V and the attention output? Answer in MB (10⁶ bytes).";
  e.unit = "MB";
  e.answer = bytes / 1e6;
  e.hint = "Each GPU holds N/P tokens of every tensor: Q and the output with H heads, K and V with H_kv heads, d "
           "values per head. An all-to-all keeps 1/P of its buffer and sends the other (P−1)/P.";
  e.solution = "Q and the output: " + format_int(n) + "/" + format_int(p) + " × " + format_int(heads) +
               " × 128 × 2 B = " + format_number(q_buffer, 4) + " B each; K and V: " + format_int(n) + "/" +
               format_int(p) + " × " + format_int(kv_heads) + " × 128 × 2 B = " + format_number(kv_buffer, 4) +
               " B each. Each all-to-all sends " + format_int(p - 1) + "/" + format_int(p) + " of its buffer: " +
               format_int(p - 1) + "/" + format_int(p) + " × (2 × " + format_number(q_buffer, 4) + " + 2 × " +
               format_number(kv_buffer, 4) + ") = " + format_number(bytes, 4) + " B = " + format_number(e.answer, 4) + " MB.";
  require(e, heads % p == 0 && kv_heads % p == 0, "the query and key/value heads divide over the GPUs, as Ulysses needs");
  require(e, heads % kv_heads == 0, "query heads share key/value heads evenly");
  require_fits(e, 2 * q_buffer + 2 * kv_buffer, hbm_of("h100-sxm"), "the four buffers on an H100");
  reject_mistake(e, (2 * q_buffer + 2 * kv_buffer) / 1e6, "sent all of every buffer, the 1/P that stays on its GPU included");
  reject_mistake(e, q_buffer / 1e6, "counted one tensor's buffer");
  if (gqa) reject_mistake(e, 4 * (p - 1.0) / p * q_buffer / 1e6, "gave K and V as many heads as Q");
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
  e.prompt = "A router sends each of " + format_int(c.tokens) + " tokens to " +
             (c.top_k == 1 ? std::string("its top expert among 8") : "its top " + format_int(c.top_k) + " of 8 experts") + ". The experts received these numbers of assignments: " + counts +
             ". With a capacity factor of " + format_number(c.capacity_factor, 3) +
             " and capacity C = floor(capacity factor × tokens × k / experts), how many assignments are dropped?";
  e.unit = "";
  e.answer = r.dropped;
  e.integer = true;
  e.hint = "Compute C first. An expert keeps at most C of its assignments; every assignment beyond C is dropped.";
  std::string over;
  for (double n : r.routed_per_expert)
    if (n > r.capacity) over += (over.empty() ? "" : " + ") + format_int(n - r.capacity);
  const bool one = over.find('+') == std::string::npos;  // a single overloaded expert: no sum to show
  double busiest = 0;
  for (double n : r.routed_per_expert) busiest = std::fmax(busiest, n);
  e.solution = "C = floor(" + format_number(c.capacity_factor, 3) + " × " + format_int(c.tokens) + " × " +
               format_int(c.top_k) + " / 8) = " + format_int(r.capacity) + ". " +
               format_number(100 * r.drop_fraction, 3) + "% of the assignments are dropped: " +
               (one ? "only one expert is over C, and " + format_int(busiest) + " − " + format_int(r.capacity) + " = " +
                          format_int(r.dropped) + " of its assignments do not fit."
                    : "the excess over C of each overloaded expert, " + over + " = " + format_int(r.dropped) + ".");
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
             format_int(hidden) + " in bf16 (experts of width " + format_int(ffn) + "), and routes every token to " +
             (k == 1 ? std::string("its top expert") : "its top " + format_int(k) + " experts") + ". The experts are spread evenly over an expert-parallel group of " + format_int(ep) +
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

Exercise causal_imbalance(Rng& rng) {
  const int p = rng.pick(std::vector<int>{2, 4, 8, 16});
  const int tile = rng.pick(std::vector<int>{64, 128, 256});
  const int n = rng.pick(std::vector<int>{1, 2, 3, 4, 6, 8});  // tiles along one GPU's block
  const int c = n * tile, s = c * p;
  const double diagonal = n * (n + 1) / 2.0;  // the block against itself: the tiles on and below the diagonal
  const double busiest = (p - 1.0) * n * n + diagonal;
  const double mean = (p - 1.0) * n * n / 2 + diagonal;
  Exercise e;
  e.title = "Causal load imbalance of a contiguous ring";
  e.params = {{"seq", s}, {"ranks", p}, {"tile", tile}, {"partition", "contiguous"}, {"causal", true}};
  e.prompt = "Ring attention runs a causal forward pass over s = " + format_int(s) + " tokens on p = " + format_int(p) +
             " GPUs with contiguous blocks: GPU i holds the i-th run of s/p tokens. The attention kernel works on tiles of " +
             format_int(tile) + " × " + format_int(tile) +
             " query and key tokens and skips the tiles that the causal mask hides entirely. How many times the mean "
             "number of tiles per GPU does the busiest GPU compute? Answer as a ratio, such as 1.5.";
  e.unit = "";
  e.answer = busiest / mean;
  e.hint = "A block holds n = (s/p)/tile tiles along each side. GPU i's queries see i earlier blocks fully (n² tiles "
           "each) and their own block's tiles on and below the diagonal, n(n+1)/2. Average over the p GPUs.";
  e.solution = "n = " + format_int(c) + "/" + format_int(tile) + " = " + counted(n, "tile") + " per block side (for many "
               "tiles per block the ratio tends to 2 − 1/p = " + format_number(2 - 1.0 / p, 4) + "; zig-zag chunks make it "
               "exactly 1). GPU " +
               format_int(p - 1) + " computes " + format_int(p - 1) + " × " + format_int(n * n) + " + " +
               format_int(diagonal) + " = " + format_int(busiest) + " tiles; the mean over GPUs is " + format_int(p - 1) +
               " × " + format_int(n * n) + "/2 + " + format_int(diagonal) + " = " + format_number(mean, 4) +
               ". Ratio: " + format_int(busiest) + " / " + format_number(mean, 4) + " = " + format_number(e.answer, 4) + ".";
  require(e, s % p == 0 && c % tile == 0, "the blocks hold whole tiles");
  require_whole(e, n, "tiles along a block");
  reject_mistake(e, 1, "took the zig-zag layout's balance for the contiguous one");
  reject_mistake_where_distinct(e, 2 - 1.0 / p, "used the many-tile limit 2 − 1/p for blocks of few tiles");
  reject_mistake_where_distinct(e, 2.0 * p / (p + 1), "counted the diagonal block's tiles as all computed");
  return e;
}

Exercise ring_backward_bytes(Rng& rng) {
  const int n = rng.pick(std::vector<int>{32768, 65536, 131072, 262144});
  const int p = rng.pick(std::vector<int>{4, 8, 16, 32});
  const int kv_heads = rng.pick(std::vector<int>{1, 2, 4, 8});  // per GPU, after tensor parallelism
  const double c = 1.0 * n / p;
  const double block = 2 * c * 128 * kv_heads * 2;  // K and V of one block, bf16
  const double bytes = (2 * p - 1.0) * block;
  Exercise e;
  e.title = "Bytes of ring attention's backward pass";
  e.params = {{"seq", n}, {"ranks", p}, {"heads", 4 * kv_heads}, {"kv_heads", kv_heads}, {"head_dim", 128}, {"dtype", "bf16"}};
  e.prompt = "Ring attention splits a sequence of " + format_int(n) + " tokens over p = " + format_int(p) +
             " GPUs. Each GPU's attention has " + counted(kv_heads, "key/value head") +
             " of dimension 128, in bf16. In the backward pass the K/V blocks travel around the ring again, together with "
             "a dK/dV accumulator of the same size that each GPU adds its share to, and one last hop brings each finished "
             "gradient back to its owner. How many bytes does each GPU send in one layer's backward pass? Answer in MB (10⁶ bytes).";
  e.unit = "MB";
  e.answer = bytes / 1e6;
  e.hint = "One K/V block is 2·(s/p)·d·H_kv values of 2 bytes. In the backward pass a GPU forwards p − 1 K/V blocks and "
           "p gradient blocks.";
  e.solution = "Block = 2 × " + format_number(c, 6) + " × 128 × " + format_int(kv_heads) + " × 2 B = " +
               format_int(block) + " B. K/V: " + format_int(p - 1) + " blocks; dK/dV: " + format_int(p) +
               " blocks (p − 1 steps and the last hop home). (2p − 1) × block = " + format_int(2 * p - 1) + " × " +
               format_int(block) + " = " + format_number(bytes, 4) + " B, about twice the forward pass's " + format_int(p - 1) +
               " blocks: " + format_number(e.answer, 4) + " MB.";
  require_whole(e, c, "tokens per block");
  require_fits(e, 3 * block, hbm_of("h100-sxm"), "the K/V block, the one arriving and the gradient accumulator on an H100");
  reject_mistake(e, (p - 1) * block / 1e6, "counted the forward pass's K/V blocks only");
  reject_mistake(e, 2 * (p - 1) * block / 1e6, "left out the gradients' last hop home");
  reject_mistake(e, 2 * p * block / 1e6, "sent the K/V blocks a p-th time");
  return e;
}

Exercise moe_balance_loss(Rng& rng) {
  MoeRouterConfig c;
  c.tokens = rng.pick(std::vector<int>{32, 64, 128});
  c.experts = 4;
  c.top_k = rng.pick(std::vector<int>{1, 2});
  c.capacity_factor = 2;
  c.skew = rng.pick(std::vector<double>{0.5, 1.0, 1.5});
  c.seed = rng.next() & 0xFFFFFFFFULL;
  const MoeRouterResult r = route_tokens(c);
  const double alpha = 0.01;  // Switch Transformer's coefficient
  std::vector<double> shown(r.mean_prob_per_expert.size());
  std::string counts, probs;
  double sum = 0;
  for (std::size_t i = 0; i < shown.size(); ++i) {
    shown[i] = round_sig(r.mean_prob_per_expert[i], 3);
    if (i) counts += ", ", probs += ", ";
    counts += format_int(r.routed_per_expert[i]);
    probs += format_number(shown[i], 3);
    sum += r.routed_per_expert[i] / r.assignments * shown[i];
  }
  const double score = c.experts * sum;
  Exercise e;
  e.title = "Switch load-balancing loss of a batch";
  e.params = {{"tokens", c.tokens}, {"experts", c.experts}, {"top_k", c.top_k}, {"capacity_factor", c.capacity_factor},
              {"skew", c.skew}, {"seed", c.seed}};
  e.prompt = "A router with E = 4 experts sends each of " + format_int(c.tokens) + " tokens to " +
             (c.top_k == 1 ? std::string("its top expert") : "its top 2 experts") +
             ". The experts received these numbers of assignments: " + counts +
             ". Averaged over the batch, the router's softmax gave them these probabilities: " + probs +
             ". What is the Switch Transformer load-balancing loss α·E·Σ f_i·P_i with α = 0.01?";
  e.unit = "";
  e.answer = alpha * score;
  e.hint = "f_i is the fraction of the assignments that went to expert i (its count over tokens × k); P_i is its mean "
           "probability. Sum f_i·P_i, multiply by E and α.";
  std::string terms;
  for (std::size_t i = 0; i < shown.size(); ++i) {
    if (i) terms += " + ";
    terms += format_number(r.routed_per_expert[i] / r.assignments, 4) + " × " + format_number(shown[i], 3);
  }
  e.solution = "f_i = counts / " + format_int(r.assignments) + ". Σ f_i·P_i = " + terms + " = " + format_number(sum, 4) +
               "; × E = " + format_number(score, 4) + " (1 for a uniform router); × α = " + format_number(e.answer, 4) + ".";
  require(e, r.assignments == 1.0 * c.tokens * c.top_k, "the experts received tokens × k assignments");
  require_between(e, score, 0.5, 4, "E·Σ f_i·P_i");
  reject_mistake_where_distinct(e, alpha, "assumed a uniform router, where E·Σ f_i·P_i = 1");
  reject_mistake(e, alpha * sum, "left out the factor E");
  reject_mistake(e, score, "left out α");
  return e;
}

}  // namespace

void add_sequence_exercises(std::vector<Generator>& out) {
  out.push_back({"seq-sp-activation", sp_activation});
  out.push_back({"seq-ring-min-block", ring_min_block});
  out.push_back({"seq-ulysses-bytes", ulysses_bytes});
  out.push_back({"moe-dropped-tokens", moe_dropped});
  out.push_back({"moe-all-to-all-bytes", ep_bytes});
  out.push_back({"seq-causal-imbalance", causal_imbalance});
  out.push_back({"seq-ring-backward-bytes", ring_backward_bytes});
  out.push_back({"moe-balance-loss", moe_balance_loss});
}

}  // namespace mlsys::exercises

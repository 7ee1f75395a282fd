// Exercises of the training-memory lesson: model-state bytes per GPU under ZeRO, activation
// bytes of one layer (Korthikanti et al. 2022), the largest micro-batch that fits, training
// FLOPs per token (PaLM's 6N + 12·L·H·Q·T) and the recompute cost of full checkpointing.
// Numbers are shown rounded and the answers are computed from the numbers shown.
#include <algorithm>
#include <cmath>

#include "generators.hpp"
#include "mlsys/foundations/units.hpp"
#include "mlsys/hardware/accelerator.hpp"
#include "mlsys/memory/training_memory.hpp"
#include "mlsys/transformer/model_config.hpp"

namespace mlsys::exercises {

namespace {

struct Shape {
  int layers, hidden, heads;
};
// Shapes of published models (GPT-3 family, Llama 2 family widths).
const std::vector<Shape>& shapes() {
  static const std::vector<Shape> s = {{24, 2048, 16}, {32, 4096, 32}, {40, 5120, 40}, {48, 6144, 48},
                                       {80, 8192, 64}, {96, 12288, 96}, {24, 1024, 16}, {32, 2560, 32}};
  return s;
}

// The model of a shape: multi-head attention and an ungated 4·h MLP, as the GPT-3 family.
ModelConfig config_of(const Shape& sh, int seq) {
  ModelConfig c;
  c.layers = sh.layers;
  c.hidden = sh.hidden;
  c.heads = c.kv_heads = sh.heads;
  c.head_dim = 1.0 * sh.hidden / sh.heads;
  c.ffn_hidden = 4.0 * sh.hidden;
  c.seq = seq;
  return c;
}

// The largest HBM of the hardware table, bytes: no GPU holds more.
double largest_hbm() {
  double m = 0;
  for (const auto& a : accelerators()) m = std::max(m, a.hbm_bytes);
  return m;
}

// Mixed-precision Adam bytes per GPU of `p` parameters under ZeRO `stage` over `dp` GPUs.
double zero_bytes(double p, int stage, int dp) {
  return 2 * p / (stage >= 3 ? dp : 1) + 2 * p / (stage >= 2 ? dp : 1) + 12 * p / (stage >= 1 ? dp : 1);
}

Exercise model_states(Rng& rng) {
  double billions = 0, p = 0;
  int stage = 0, dp = 0;
  do {  // states that fit the lesson's GPU, an H100; a stage that shards (stage 0 is the plain 16 bytes)
    billions = rng.pick(std::vector<double>{1.3, 2.7, 3, 6.7, 7.5, 8, 13, 30, 34, 65, 70, 175, 405});
    stage = rng.integer(1, 3);
    dp = rng.pick(std::vector<int>{4, 8, 16, 32, 64, 128, 256});
    p = billions * 1e9;
  } while (zero_bytes(p, stage, dp) > hbm_of("h100-sxm"));
  const double w = 2 * p / (stage >= 3 ? dp : 1), g = 2 * p / (stage >= 2 ? dp : 1), o = 12 * p / (stage >= 1 ? dp : 1);
  Exercise e;
  e.title = "Model states per GPU under ZeRO";
  e.params = {{"params", p}, {"zero_stage", stage}, {"dp", dp}};
  e.prompt = "A model of " + format_number(billions, 3) + " billion parameters trains with mixed-precision Adam (bf16 "
             "weights and gradients, fp32 master weights, momentum and variance) on " + format_int(dp) +
             " data-parallel GPUs with ZeRO stage " + std::to_string(stage) +
             ". How many gigabytes (1 GB = 10⁹ bytes) of model states does each GPU hold? Ignore activations.";
  e.unit = "GB";
  e.answer = (w + g + o) / 1e9;
  e.hint = "Start from 2 + 2 + 12 bytes per parameter. Stage 1 divides the 12 bytes of optimizer states by the number "
           "of GPUs, stage 2 also the 2 bytes of gradients, stage 3 also the 2 bytes of weights.";
  e.solution = "Weights " + format_number(w / 1e9, 4) + " GB + gradients " + format_number(g / 1e9, 4) +
               " GB + optimizer states " + format_number(o / 1e9, 4) + " GB (" +
               "sharded over " + format_int(dp) + " GPUs" +
               ") = " + format_number(e.answer, 4) + " GB per GPU.";
  require_fits(e, w + g + o, hbm_of("h100-sxm"), "model states on one H100");
  require_between(e, stage, 1, 3, "ZeRO stage that shards");
  reject_mistake(e, 16 * p / 1e9, "kept all 16 bytes per parameter on every GPU (ZeRO stage 0)");
  reject_mistake(e, (w + g) / 1e9, "forgot the optimizer's 12 bytes per parameter");
  const int other = stage == 3 ? 2 : stage + 1;
  reject_mistake(e, zero_bytes(p, other, dp) / 1e9, "sharded the states of ZeRO stage " + std::to_string(other) + " instead");
  return e;
}

Exercise layer_activations(Rng& rng) {
  // Half the draws are GPT-style (non-gated GeLU MLP of width 4h, Korthikanti's 34), half
  // Llama-style (SwiGLU of Llama 2's widths), whose MLP stores 6·s·b·f instead of 16·s·b·h.
  struct Gated {
    int hidden, heads, ffn, layers;
  };
  static const std::vector<Gated> llama = {{4096, 32, 11008, 32}, {5120, 40, 13824, 40}, {8192, 64, 28672, 80}};
  bool gated = false;
  Shape gpt{};
  Gated ll{};
  int hidden = 0, heads = 0, ffn = 0, layers = 0, s = 0, b = 0;
  double sbh = 0, quad = 0, m = 0, bracket = 0;
  // Redrawn until the whole model's layers, stored like this one, fit the largest HBM of the
  // table: a setting a run could be in.
  for (;;) {
    gated = rng.integer(0, 1) == 1;
    gpt = rng.pick(shapes());
    ll = rng.pick(llama);
    hidden = gated ? ll.hidden : gpt.hidden;
    heads = gated ? ll.heads : gpt.heads;
    ffn = gated ? ll.ffn : 4 * gpt.hidden;
    layers = gated ? ll.layers : gpt.layers;
    s = rng.pick(std::vector<int>{512, 1024, 1536, 2048, 3072, 4096, 6144, 8192});
    b = rng.pick(std::vector<int>{1, 2, 3, 4, 6, 8});
    sbh = 1.0 * s * b * hidden;
    quad = 5.0 * heads * s / hidden;
    m = (gated ? 6.0 : 4.0) * ffn / hidden;  // the MLP's inner tensors per s·b·h
    bracket = 18 + m + quad;
    if (layers * sbh * bracket <= largest_hbm()) break;
  }
  Exercise e;
  e.title = "Activations stored by one layer";
  e.params = {{"seq", s}, {"micro_batch", b}, {"hidden", hidden}, {"heads", heads}, {"layers", 1},
              {"ffn_hidden", ffn}, {"gated_mlp", gated}};
  e.prompt = std::string(gated ? "A Llama-style" : "A GPT-style") + " transformer layer of width h = " +
             format_int(hidden) + " with a = " + format_int(heads) + " heads and " +
             (gated ? "a gated SwiGLU MLP of width f = " + format_int(ffn)
                    : "a non-gated GeLU MLP of width f = 4h = " + format_int(ffn)) +
             " processes a micro-batch of b = " + counted(b, "sequence") + " of s = " + format_int(s) +
             " tokens, with 16-bit activations, 1-byte dropout masks, no parallelism and no recomputation. Counting "
             "tensor by tensor as Korthikanti et al. do, with the MLP's inner tensors for its shape, how many megabytes "
             "(10⁶ bytes) of activations does this one layer store for the backward pass?";
  e.unit = "MB";
  e.answer = sbh * bracket / 1e6;
  e.hint = "The layer stores s·b·h·(18 + m + 5·a·s/h) bytes, with m = 4f/h for a non-gated MLP and 6f/h for a gated "
           "one. Compute s·b·h first, then the bracket: 18 for attention, norms and the MLP's input and mask, m for the "
           "tensors inside the MLP (" + std::string(gated ? "gate, up and their product: 6f/h" : "GeLU's input and output: 4f/h = 16") +
           "), plus 5·a·s/h for the attention scores: the softmax output, its dropout mask and the dropped-out scores "
           "that multiply V, which grow with s².";
  e.solution = "s·b·h = " + format_int(sbh) + "; m = " + format_number(m, 4) + "; 5·a·s/h = " + format_number(quad, 4) +
               ", so the attention term is " + format_number(100 * quad / bracket, 3) + "% of the total; bytes = " +
               format_int(sbh) + " × " + format_number(bracket, 5) + " = " + format_number(e.answer, 4) + " MB.";
  require_fits(e, layers * sbh * bracket, largest_hbm(), "all " + format_int(layers) + " layers' activations on the largest GPU of the table");
  reject_mistake(e, sbh * (18 + m) / 1e6, "left out the attention scores' 5·a·s/h, the term that grows with s²");
  return e;
}

// The largest micro-batch by the lesson's own count: the `training-memory` calculator's total
// (model states under ZeRO-3 over 8 GPUs, every layer's activations, the embedding's dropout
// mask and the output layer's logits and loss) against the whole HBM, as its "Does it fit?"
// figure compares them. The activations grow linearly with the micro-batch, so one sequence's
// share is given and the reader divides.
Exercise max_micro_batch(Rng& rng) {
  static const std::vector<std::string> ids = {"a100-sxm-80gb", "h100-sxm", "h200-sxm", "b200", "mi300x"};
  const int dp = 8;
  const Accelerator* hw = nullptr;
  ModelConfig c;
  TrainingSetup st;
  TrainingMemory one{};
  double hbm_gb = 0, states_gb = 0, per_seq_gb = 0, answer = 0;
  const auto fits = [&](double b) {
    TrainingSetup t = st;
    t.micro_batch = b;
    return training_memory(c, 0, t).total_bytes <= hw->hbm_bytes;
  };
  // Redrawn until at least one sequence fits, the answer from the numbers shown is the
  // calculator's, and the warned-against slips (GiB read as GB, states left unsharded) give
  // other answers.
  for (;;) {
    hw = find_accelerator(rng.pick(ids));
    const Shape sh = rng.pick(std::vector<Shape>{{24, 2048, 16}, {32, 2560, 32}, {32, 4096, 32}, {24, 1024, 16}, {40, 5120, 40}});
    c = config_of(sh, rng.pick(std::vector<int>{1024, 1536, 2048, 3072, 4096, 8192}));
    c.vocab = 32000;
    c.tied_embeddings = true;
    st = TrainingSetup{};
    st.zero_stage = 3;
    st.dp = dp;
    st.flash_attention = rng.integer(0, 1) == 1;
    one = training_memory(c, 0, st);
    hbm_gb = round_sig(hw->hbm_bytes / 1e9, 4);
    states_gb = round_sig(one.states.total_bytes / 1e9, 4);
    per_seq_gb = round_sig(one.activations_bytes / 1e9, 4);
    answer = std::floor((hbm_gb - states_gb) / per_seq_gb);
    if (answer < 1 || !fits(answer) || fits(answer + 1)) continue;
    const double nominal_gb = std::round(hw->hbm_bytes / 1073741824.0);  // the "80 GB" of a name: GiB
    const double unsharded = std::floor((hbm_gb - 16 * one.params / 1e9) / per_seq_gb);
    if (std::floor((nominal_gb - states_gb) / per_seq_gb) != answer && unsharded != answer) break;
  }
  const double params_b = one.params / 1e9;
  Exercise e;
  e.title = "The largest micro-batch that fits";
  e.params = {{"layers", c.layers}, {"hidden", c.hidden}, {"heads", c.heads}, {"ffn_hidden", c.ffn_hidden},
              {"vocab", c.vocab}, {"tied_embeddings", true}, {"seq", c.seq}, {"zero_stage", 3}, {"dp", dp},
              {"flash_attention", st.flash_attention}, {"hardware", hw->id}};
  e.prompt = "A model of " + format_number(params_b, 4) + " billion parameters (" + format_int(c.layers) + " layers, h = " +
             format_int(c.hidden) + ", a = " + format_int(c.heads) + ", a tied 32,000-token embedding) trains with "
             "mixed-precision Adam and ZeRO stage 3 over " + format_int(dp) + " GPUs, so its 16 bytes per parameter are "
             "split 8 ways. Each sequence of " + format_int(c.seq) + " tokens stores " + format_number(per_seq_gb, 4) +
             " GB of activations: every layer's" + (st.flash_attention ? " (FlashAttention, no s² term)" : "") +
             ", the embedding's dropout mask and the output layer's fp32 logits and loss. On one " +
             hw->name.substr(0, hw->name.find(" (")) + " with " +
             format_number(hbm_gb, 4) + " GB (decimal) of HBM, what is the largest micro-batch, in sequences, whose "
             "model states and activations fit in the whole HBM?";
  e.unit = "";
  e.answer = answer;
  e.integer = true;
  e.hint = "Subtract the model states (16 bytes × parameters ÷ " + format_int(dp) +
           ") from the HBM capacity, then divide what is left by the activations of one sequence and round down.";
  e.solution = "Model states = 16 × " + format_number(params_b, 4) + "e9 ÷ " + format_int(dp) + " = " +
               format_number(states_gb, 4) + " GB; left for activations " + format_number(hbm_gb - states_gb, 4) +
               " GB; ÷ " + format_number(per_seq_gb, 4) + " GB per sequence = " +
               format_number((hbm_gb - states_gb) / per_seq_gb, 4) + ", rounded down; the training-memory "
               "calculator agrees that one sequence more would not fit: b = " + format_int(e.answer) + ".";
  require(e, fits(answer) && !fits(answer + 1),
          "the answer is the training-memory calculator's largest micro-batch on the " + hw->id);
  {
    TrainingSetup two = st;
    two.micro_batch = 2;
    const TrainingMemory m2 = training_memory(c, 0, two);
    require(e, std::fabs(m2.activations_bytes - 2 * one.activations_bytes) <= 1e-9 * m2.activations_bytes,
            "activations grow linearly with the micro-batch, so one sequence's share divides the room");
  }
  require_fits(e, one.total_bytes, hw->hbm_bytes, "one sequence with the model states");
  const double nominal_gb = std::round(hw->hbm_bytes / 1073741824.0);
  reject_mistake(e, std::floor((nominal_gb - states_gb) / per_seq_gb),
                 "took the HBM as " + format_number(nominal_gb, 4) + " GB: that figure is GiB");
  reject_mistake(e, std::floor((hbm_gb - 16 * params_b) / per_seq_gb), "kept all 16 bytes per parameter on every GPU");
  return e;
}

Exercise training_flops(Rng& rng) {
  Shape sh{};
  int s = 0;
  double h = 0, vocab = 0, n = 0, attn = 0;
  for (;;) {  // redrawn until leaving attention out (6N alone) is a different answer
    sh = rng.pick(shapes());
    s = rng.pick(std::vector<int>{1024, 2048, 4096, 8192});
    h = sh.hidden;
    vocab = rng.pick(std::vector<double>{32000, 50257});
    // N as PaLM counts it: every parameter in a token's matmuls, the (tied) output head included.
    n = sh.layers * (12 * h * h + 2 * h) + h + vocab * h;
    attn = 12.0 * sh.layers * sh.heads * (h / sh.heads) * s;
    if (tells_apart(6 * n + attn, 6 * n, 0.01)) break;
  }
  Exercise e;
  e.title = "Training FLOPs per token";
  e.params = {{"layers", sh.layers}, {"hidden", sh.hidden}, {"heads", sh.heads}, {"seq", s}, {"vocab", vocab}};
  e.prompt = "A transformer has L = " + format_int(sh.layers) + " layers of width h = " + format_int(sh.hidden) + " (" +
             format_int(sh.heads) + " heads, MLP width 4h), a " + format_int(vocab) +
             "-token vocabulary whose embedding is also the output head, and trains on sequences of " + format_int(s) +
             " tokens. The parameters in its matmuls number N = " + format_int(n) +
             " (12h² matrices plus two norm gains per layer, a final norm and the vocabulary × h head). Using PaLM's "
             "accounting, how many GFLOP does one training token cost (forward and backward)?";
  e.unit = "GFLOP";
  e.answer = (6 * n + attn) / 1e9;
  e.hint = "PaLM counts 6N (2N forward, 4N backward for the matmuls with weights) plus 12·L·H·Q·T for attention, where "
           "H·Q = h and T is the sequence length.";
  e.solution = "6N = " + format_number(6 * n / 1e9, 5) + " GFLOP; 12·L·h·T = 12 × " + format_int(sh.layers) + " × " +
               format_int(sh.hidden) + " × " + format_int(s) + " = " + format_number(attn / 1e9, 5) + " GFLOP; total " +
               format_number(e.answer, 5) + " GFLOP per token.";
  ModelConfig c = config_of(sh, s);
  c.vocab = vocab;
  const ModelCounts counts = model_counts(c);
  require(e, std::fabs(counts.params_flops - n) <= 1e-9 * n, "N is the transformer calculator's params_flops");
  require(e, std::fabs(counts.flops_per_token_training / 1e9 - e.answer) <= 1e-9 * e.answer,
          "the answer is the transformer calculator's flops_per_token_training");
  reject_mistake(e, 6 * n / 1e9, "left out attention over the context (6N alone)");
  reject_mistake(e, (6 * n + attn) / 3e9, "counted only the forward pass");
  return e;
}

Exercise recompute_flops(Rng& rng) {
  Shape sh{};
  int s = 0, b = 0;
  ModelConfig c;
  CheckpointResult ck{};
  do {  // redrawn until the checkpoints and one re-made layer fit an H100
    sh = rng.pick(shapes());
    s = rng.pick(std::vector<int>{1024, 2048, 4096});
    b = rng.pick(std::vector<int>{1, 2, 4});
    c = config_of(sh, s);
    ck = checkpointing(c, b, 1, false, false, "full", 1);
  } while (ck.peak_bytes > hbm_of("h100-sxm"));
  const double h = sh.hidden;
  const double p_layer = 12 * h * h + 2 * h;
  const double extra = sh.layers * (2.0 * b * s * p_layer + 4.0 * b * s * s * h);
  Exercise e;
  e.title = "The price of full checkpointing";
  e.params = {{"layers", sh.layers}, {"hidden", sh.hidden}, {"heads", sh.heads}, {"seq", s}, {"micro_batch", b},
              {"strategy", "full"}};
  e.prompt = "A model of " + format_int(sh.layers) + " layers, each with " + format_int(p_layer) +
             " parameters and width h = " + format_int(sh.hidden) + ", trains on a micro-batch of " + counted(b, "sequence") +
             " of " + format_int(s) + " tokens with full activation checkpointing (only each "
             "layer's input is kept). How many TFLOP of extra work does the recomputation add per micro-batch? Count a "
             "layer's forward pass as 2 FLOPs per parameter per token plus 4·s·h per token for attention.";
  e.unit = "TFLOP";
  e.answer = extra / 1e12;
  e.hint = "Full checkpointing re-runs every layer's forward pass once during the backward pass, so the extra work is "
           "one forward pass of all layers over all b·s tokens.";
  e.solution = "Per token and layer: 2 × " + format_int(p_layer) + " + 4 × " + format_int(s) + " × " +
               format_int(sh.hidden) + " = " + format_number(2 * p_layer + 4.0 * s * h, 5) + " FLOP; × " +
               format_int(1.0 * b * s) + " tokens × " + format_int(sh.layers) + " layers = " +
               format_number(e.answer, 4) + " TFLOP, a third of the layers' training FLOPs.";
  require(e, std::fabs(ck.recompute_flops - extra) <= 1e-9 * extra,
          "the answer is the activation-checkpointing calculator's recompute_flops");
  require_fits(e, ck.peak_bytes, hbm_of("h100-sxm"), "the checkpoints and one re-made layer on an H100");
  reject_mistake(e, 3 * extra / 1e12, "counted a whole training step (forward and backward) again");
  reject_mistake(e, 2 * sh.layers * b * s * p_layer / 1e12, "left out attention's 4·s·h per token");
  return e;
}

}  // namespace

void add_memory_exercises(std::vector<Generator>& out) {
  out.push_back({"memory-model-states", model_states});
  out.push_back({"memory-layer-activations", layer_activations});
  out.push_back({"memory-max-micro-batch", max_micro_batch});
  out.push_back({"memory-training-flops", training_flops});
  out.push_back({"memory-recompute-flops", recompute_flops});
}

}  // namespace mlsys::exercises

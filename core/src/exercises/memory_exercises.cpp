// Exercises of the training-memory lesson: model-state bytes per GPU under ZeRO, activation
// bytes of one layer (Korthikanti et al. 2022), the largest micro-batch that fits, training
// FLOPs per token (PaLM's 6N + 12·L·H·Q·T) and the recompute cost of full checkpointing.
// Numbers are shown rounded and the answers are computed from the numbers shown.
#include <cmath>

#include "generators.hpp"
#include "mlsys/foundations/units.hpp"
#include "mlsys/hardware/accelerator.hpp"

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


Exercise model_states(Rng& rng) {
  const double billions = rng.pick(std::vector<double>{1.3, 2.7, 6.7, 7.5, 13, 30, 70, 175});
  const int stage = rng.integer(0, 3);
  const int dp = rng.pick(std::vector<int>{8, 16, 32, 64, 128, 256});
  const double p = billions * 1e9;
  const double w = 2 * p / (stage >= 3 ? dp : 1), g = 2 * p / (stage >= 2 ? dp : 1), o = 12 * p / (stage >= 1 ? dp : 1);
  Exercise e;
  e.title = "Model states per GPU under ZeRO";
  e.params = {{"params", p}, {"zero_stage", stage}, {"dp", dp}};
  e.prompt = "A model of " + format_number(billions, 3) + " billion parameters trains with mixed-precision Adam (bf16 "
             "weights and gradients, fp32 master weights, momentum and variance) on " + format_int(dp) +
             " data-parallel GPUs with ZeRO stage " + std::to_string(stage) +
             ". How many gigabytes (1 GB = 10^9 bytes) of model states does each GPU hold? Ignore activations.";
  e.unit = "GB";
  e.answer = (w + g + o) / 1e9;
  e.hint = "Start from 2 + 2 + 12 bytes per parameter. Stage 1 divides the 12 bytes of optimizer states by the number "
           "of GPUs, stage 2 also the 2 bytes of gradients, stage 3 also the 2 bytes of weights.";
  e.solution = "Weights " + format_number(w / 1e9, 4) + " GB + gradients " + format_number(g / 1e9, 4) +
               " GB + optimizer states " + format_number(o / 1e9, 4) + " GB (" +
               (stage == 0 ? "no sharding: 16 bytes per parameter" : "sharded over " + format_int(dp) + " GPUs") +
               ") = " + format_number(e.answer, 4) + " GB per GPU.";
  return e;
}

Exercise layer_activations(Rng& rng) {
  // Half the draws are GPT-style (non-gated GeLU MLP of width 4h, Korthikanti's 34), half
  // Llama-style (SwiGLU of Llama 2's widths), whose MLP stores 6·s·b·f instead of 16·s·b·h.
  struct Gated {
    int hidden, heads, ffn;
  };
  static const std::vector<Gated> llama = {{4096, 32, 11008}, {5120, 40, 13824}, {8192, 64, 28672}};
  const bool gated = rng.integer(0, 1) == 1;
  const Shape gpt = rng.pick(shapes());
  const Gated ll = rng.pick(llama);
  const int hidden = gated ? ll.hidden : gpt.hidden, heads = gated ? ll.heads : gpt.heads;
  const int ffn = gated ? ll.ffn : 4 * gpt.hidden;
  const int s = rng.pick(std::vector<int>{512, 1024, 2048, 4096, 8192});
  const int b = rng.pick(std::vector<int>{1, 2, 4, 8});
  const double sbh = 1.0 * s * b * hidden;
  const double quad = 5.0 * heads * s / hidden;
  const double m = (gated ? 6.0 : 4.0) * ffn / hidden;  // the MLP's inner tensors per s·b·h
  const double bracket = 18 + m + quad;
  Exercise e;
  e.title = "Activations stored by one layer";
  e.params = {{"seq", s}, {"micro_batch", b}, {"hidden", hidden}, {"heads", heads}, {"layers", 1},
              {"ffn_hidden", ffn}, {"gated_mlp", gated}};
  e.prompt = std::string(gated ? "A Llama-style" : "A GPT-style") + " transformer layer of width h = " +
             format_int(hidden) + " with a = " + format_int(heads) + " heads and " +
             (gated ? "a gated SwiGLU MLP of width f = " + format_int(ffn)
                    : "a non-gated GeLU MLP of width f = 4h = " + format_int(ffn)) +
             " processes a micro-batch of b = " + counted(b, "sequence") + " of s = " + format_int(s) +
             " tokens, with 16-bit activations, 1-byte dropout masks, no parallelism and no recomputation. Using "
             "Korthikanti et al.'s count with the MLP's terms for its shape, s·b·h·(18 + m + 5·a·s/h) bytes where m = "
             "4f/h for a non-gated MLP and 6f/h for a gated one, how many megabytes (10^6 bytes) of activations does "
             "this one layer store for the backward pass?";
  e.unit = "MB";
  e.answer = sbh * bracket / 1e6;
  e.hint = "Compute s·b·h first, then the bracket: 18 for attention, norms and the MLP's input and mask, m for the "
           "tensors inside the MLP (" + std::string(gated ? "gate, up and their product: 6f/h" : "GeLU's input and output: 4f/h = 16") +
           "), plus 5·a·s/h for the attention scores: the softmax output, its dropout mask and the dropped-out scores "
           "that multiply V, which grow with s².";
  e.solution = "s·b·h = " + format_int(sbh) + "; m = " + format_number(m, 4) + "; 5·a·s/h = " + format_number(quad, 4) +
               ", so the attention term is " + format_number(100 * quad / bracket, 3) + "% of the total; bytes = " +
               format_int(sbh) + " × " + format_number(bracket, 5) + " = " + format_number(e.answer, 4) + " MB.";
  return e;
}

Exercise max_micro_batch(Rng& rng) {
  static const std::vector<std::string> ids = {"a100-sxm-80gb", "h100-sxm", "h200-sxm", "b200", "mi300x"};
  const Accelerator* hw = find_accelerator(rng.pick(ids));
  const double hbm_gb = round_sig(hw->hbm_bytes / 1e9, 3);
  Shape sh{};
  int s = 0;
  bool flash = false;
  double h = 0, params_b = 0, states_gb = 0, per_seq_shown = 0;
  const int dp = 8;
  // Redraw until at least one sequence fits (the loop is deterministic for a seed).
  do {
    sh = rng.pick(std::vector<Shape>{{24, 2048, 16}, {32, 2560, 32}, {32, 4096, 32}, {24, 1024, 16}, {40, 5120, 40}});
    s = rng.pick(std::vector<int>{1024, 2048, 4096});
    flash = rng.integer(0, 1) == 1;
    // Parameters of the config (12h² per layer + norms, tied 32000-token embedding), ZeRO-3 over 8 GPUs.
    h = sh.hidden;
    params_b = round_sig((sh.layers * (12 * h * h + 2 * h) + h + 32000 * h) / 1e9, 3);
    states_gb = 16 * params_b / dp;
    per_seq_shown = round_sig(sh.layers * s * h * (34 + (flash ? 0 : 5.0 * sh.heads * s / h)) / 1e9, 3);
  } while (hbm_gb - states_gb < per_seq_shown);
  Exercise e;
  e.title = "The largest micro-batch that fits";
  e.params = {{"layers", sh.layers}, {"hidden", sh.hidden}, {"heads", sh.heads}, {"seq", s}, {"zero_stage", 3},
              {"dp", dp}, {"flash_attention", flash}, {"hardware", hw->id}};
  e.prompt = "A model of " + format_number(params_b, 3) + " billion parameters (" + format_int(sh.layers) +
             " layers, h = " + format_int(sh.hidden) + ", a = " + format_int(sh.heads) + ") trains with mixed-precision Adam and ZeRO stage 3 "
             "over " + format_int(dp) + " GPUs, so its 16 bytes per parameter are split 8 ways. Each sequence of " +
             format_int(s) + " tokens stores " + format_number(per_seq_shown, 3) + " GB of activations over all layers" +
             (flash ? " (FlashAttention, no s² term)" : "") + ". On one " + hw->name + " with " + format_number(hbm_gb, 3) +
             " GB of HBM, what is the largest micro-batch (in sequences) that fits? Ignore everything else.";
  e.unit = "";
  const double states_shown = states_gb;
  e.answer = std::floor((hbm_gb - states_shown) / per_seq_shown);
  e.integer = true;
  e.hint = "Subtract the model states (16 bytes × parameters ÷ " + format_int(dp) +
           ") from the HBM capacity, then divide what is left by the activations of one sequence and round down.";
  e.solution = "Model states = 16 × " + format_number(params_b, 3) + "e9 ÷ " + format_int(dp) + " = " +
               format_number(states_gb, 4) + " GB; left for activations " + format_number(hbm_gb - states_shown, 4) +
               " GB; ÷ " + format_number(per_seq_shown, 3) + " GB per sequence = " +
               format_number((hbm_gb - states_shown) / per_seq_shown, 4) + ", so b = " + format_int(e.answer) + ".";
  return e;
}

Exercise training_flops(Rng& rng) {
  const Shape sh = rng.pick(shapes());
  const int s = rng.pick(std::vector<int>{1024, 2048, 4096, 8192});
  const double h = sh.hidden;
  const double vocab = rng.pick(std::vector<double>{32000, 50257});
  // N as PaLM counts it: every parameter in a token's matmuls, the (tied) output head included.
  const double n = sh.layers * (12 * h * h + 2 * h) + h + vocab * h;
  const double attn = 12.0 * sh.layers * sh.heads * (h / sh.heads) * s;
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
  return e;
}

Exercise recompute_flops(Rng& rng) {
  const Shape sh = rng.pick(shapes());
  const int s = rng.pick(std::vector<int>{1024, 2048, 4096});
  const int b = rng.pick(std::vector<int>{1, 2, 4});
  const double h = sh.hidden;
  const double p_layer = 12 * h * h + 2 * h;
  const double extra = sh.layers * (2.0 * b * s * p_layer + 4.0 * b * s * s * h);
  Exercise e;
  e.title = "The price of full checkpointing";
  e.params = {{"layers", sh.layers}, {"hidden", sh.hidden}, {"heads", sh.heads}, {"seq", s}, {"micro_batch", b},
              {"strategy", "full"}};
  e.prompt = "A model of " + format_int(sh.layers) + " layers, each with " + format_int(p_layer) +
             " parameters and width h = " + format_int(sh.hidden) + ", trains on a micro-batch of " + counted(b, "sequence") +
             " of " + format_int(s) + " tokens on one GPU with full activation checkpointing (only each "
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

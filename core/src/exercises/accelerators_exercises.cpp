// Exercises of the comparing-accelerators lesson (`accelerator-compare`): a ridge point from a
// datasheet, the roofline time of a workload on a chip, decode tokens per joule, the price at
// which a second chip breaks even per token, and the fewest chips that hold a training step.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "generators.hpp"
#include "mlsys/hardware/accelerator.hpp"
#include "mlsys/hardware/accelerator_compare.hpp"
#include "mlsys/hardware/datasheet.hpp"
#include "mlsys/transformer/published_models.hpp"

namespace mlsys::exercises {

namespace {

const std::vector<std::string> kChips = {"a100-sxm-80gb", "h100-sxm", "h200-sxm", "b200",
                                         "mi300x",        "tpu-v4",   "tpu-v5e",  "tpu-v5p"};
const std::vector<std::string> kModels = {"llama-2-7b", "llama-3-8b", "mistral-7b", "gemma-7b",
                                          "llama-2-13b", "opt-13b",   "llama-2-70b", "llama-3-70b"};

const Accelerator& chip(const std::string& id) { return *find_accelerator(id); }
const PublishedModel& model(const std::string& id) { return *find_published_model(id); }

std::string tflops(double flops) { return format_number(flops / 1e12, 4) + " TFLOP/s"; }
std::string tbps(double bps) { return format_number(bps / 1e12, 4) + " TB/s"; }
std::string gb(double bytes) { return format_number(bytes / 1e9, 4) + " GB"; }

AcceleratorRow row_of(const WorkloadCost& cost, const std::string& id, double chips = 1,
                      const std::map<std::string, double>& prices = {}) {
  return compare_accelerators(cost, {id}, prices, chips).rows.at(0);
}

Exercise ridge_point(Rng& rng) {
  for (;;) {
    const std::string id = rng.pick(kChips);
    const std::string dtype = rng.pick(std::vector<std::string>{"bf16", "fp8-e4m3", "int8"});
    const Accelerator& a = chip(id);
    const auto peak = a.peak_for(dtype);
    if (!peak) continue;
    Exercise e;
    e.title = "The ridge point of a datasheet";
    e.params = {{"workload", "decode-step"}, {"ids", id}, {"dtype", dtype}};
    const std::string what = dtype == "int8" ? " tera-operations per second (int8)" : " TFLOP/s (" + dtype + ")";
    e.prompt = "The " + a.name + " datasheet gives a dense peak of " + format_number(*peak / 1e12, 4) + what +
               " and a memory bandwidth of " + tbps(a.hbm_bandwidth_Bps) + ". Where is its ridge point: how many " +
               "operations must a kernel do per byte it moves for the compute roof, not the memory roof, to set "
               "its time? Answer in FLOP/B" + (dtype == "int8" ? std::string(", counting each integer operation as one.") : ".");
    e.unit = "FLOP/B";
    e.answer = *peak / a.hbm_bandwidth_Bps;
    e.rel_tolerance = 0.01;
    e.hint = "Ridge = peak / bandwidth, in operations per second over bytes per second; use the same power of ten "
             "on both (tera).";
    e.solution = format_number(*peak / 1e12, 4) + "e12 / " + format_number(a.hbm_bandwidth_Bps / 1e12, 4) +
                 "e12 = " + format_number(e.answer, 4) + " FLOP/B.";
    require(e, find_accelerator(id) != nullptr && a.peak_for(dtype).has_value(), "the chip has a dense " + dtype + " rate in the table");
    reject_mistake(e, 2 * e.answer, "used the peak \"with sparsity\", twice the dense one");
    return e;
  }
}

std::string workload_words(const std::string& w, const PublishedModel& m, int batch, int seq) {
  if (w == "training-step")
    return "One training step of " + m.name + " on " + counted(batch, "sequence") + " of " + format_int(seq) +
           " tokens (forward, backward and the Adam update)";
  if (w == "prefill") return "The prefill of " + counted(batch, "prompt") + " of " + format_int(seq) + " tokens on " + m.name;
  return "One decode step of " + m.name + " for " + counted(batch, "sequence") + " with " + format_int(seq) +
         " tokens cached each";
}

Exercise step_roofline(Rng& rng) {
  for (;;) {
    const std::string w = rng.pick(std::vector<std::string>{"training-step", "prefill", "decode-step"});
    const PublishedModel& m = model(rng.pick(kModels));
    const int batch = rng.pick(std::vector<int>{1, 2, 4, 8, 16, 32});
    const int seq = rng.pick(std::vector<int>{512, 1024, 2048, 4096});
    const std::string id = rng.pick(kChips);
    const WorkloadCost cost = workload_cost(w, m.config, batch, seq, "bf16");
    const AcceleratorRow r = row_of(cost, id);
    if (!r.fits) continue;  // never a setting the chip cannot hold
    // The other roof must be a different time, so that keeping the smaller one is a mistake.
    if (!tells_apart(r.time_s, std::min(r.compute_time_s, r.memory_time_s), 0.01)) continue;
    Exercise e;
    e.title = "A workload on the roofline";
    e.params = {{"workload", w}, {"model", m.id}, {"batch", batch}, {"seq", seq}, {"dtype", "bf16"}, {"ids", id}};
    e.prompt = workload_words(w, m, batch, seq) + " performs " + prose(cost.flops, 4) + " FLOP and moves " +
               prose(cost.bytes, 4) + " bytes to and from HBM. On one " + r.name + ", with a dense bf16 peak of " +
               tflops(r.peak_flops) + " and HBM at " + tbps(r.bandwidth_Bps) + ", how long does it take by the "
               "roofline, in milliseconds?";
    e.unit = "ms";
    e.answer = 1e3 * r.time_s;
    e.rel_tolerance = 0.01;
    e.hint = "Time = max(FLOPs / peak, bytes / bandwidth): work out both and keep the larger.";
    e.solution = "Compute: " + prose(cost.flops, 4) + " / " + format_number(r.peak_flops / 1e12, 4) + "e12 = " +
                 format_number(1e3 * r.compute_time_s, 4) + " ms. Memory: " + prose(cost.bytes, 4) + " / " +
                 format_number(r.bandwidth_Bps / 1e12, 4) + "e12 = " + format_number(1e3 * r.memory_time_s, 4) +
                 " ms. The step is " + r.bound + "-bound: " + format_number(e.answer, 4) + " ms.";
    require_fits(e, cost.memory_bytes, r.hbm_bytes, "the step's resident memory on the chip");
    require_between(e, e.answer, 1e-3, 6e5, "the step's time in ms");
    reject_mistake(e, 1e3 * std::min(r.compute_time_s, r.memory_time_s), "kept the smaller of the two times");
    return e;
  }
}

Exercise decode_tokens_per_joule(Rng& rng) {
  for (;;) {
    const PublishedModel& m = model(rng.pick(kModels));
    const int batch = rng.pick(std::vector<int>{1, 4, 8, 16, 32, 64});
    const int seq = rng.pick(std::vector<int>{1024, 2048, 4096, 8192});
    const std::string id = rng.pick(std::vector<std::string>{"a100-sxm-80gb", "h100-sxm", "h200-sxm", "b200", "mi300x", "tpu-v4"});
    const WorkloadCost cost = workload_cost("decode-step", m.config, batch, seq, "bf16");
    const AcceleratorRow r = row_of(cost, id);
    if (!r.fits || r.bound != "memory" || !r.tokens_per_joule) continue;
    Exercise e;
    e.title = "Decode tokens per joule";
    e.params = {{"workload", "decode-step"}, {"model", m.id}, {"batch", batch}, {"seq", seq}, {"dtype", "bf16"}, {"ids", id}};
    e.prompt = "A server decodes " + m.name + " in bf16 on one " + r.name + ", with HBM at " + tbps(r.bandwidth_Bps) +
               " and a power figure of " + format_int(*r.power_w) + " W. Each decode step produces one token " +
               (batch == 1 ? std::string("for its single sequence") : "for each of " + counted(batch, "sequence")) + " and reads " + gb(cost.bytes) + " from HBM (the weights and the "
               "KV cache); the step is memory-bound. Taking the chip at that power for the whole step, how many "
               "tokens does it produce per joule?";
    e.unit = "";
    e.answer = *r.tokens_per_joule;
    e.rel_tolerance = 0.01;
    e.hint = "Step time = bytes / bandwidth; tokens per second = batch / step time; per joule, divide by the watts.";
    e.solution = "Step: " + gb(cost.bytes) + " / " + tbps(r.bandwidth_Bps) + " = " + format_number(1e3 * r.time_s, 4) +
                 " ms, so " + format_number(r.tokens_per_s, 4) + " tokens/s; / " + format_int(*r.power_w) + " W (the full power figure, which a memory-bound step does not "
                 "draw, so this is a lower bound) = " + format_number(e.answer, 4) + " tokens per joule.";
    require_fits(e, cost.memory_bytes, r.hbm_bytes, "weights and KV cache on the chip");
    require(e, r.memory_time_s > r.compute_time_s, "the decode step is memory-bound, as the prompt says");
    reject_mistake(e, batch / (r.compute_time_s * *r.power_w), "timed the step by its FLOPs, not by its bytes");
    return e;
  }
}

Exercise break_even_price(Rng& rng) {
  for (;;) {
    const bool training = rng.integer(0, 1) == 1;
    const std::string a = rng.pick(kChips), b = rng.pick(kChips);
    if (a == b) continue;
    const double price = rng.pick(std::vector<double>{1.2, 1.5, 2, 2.5, 3, 3.5, 4, 5, 6});
    const PublishedModel& m = model(training ? "llama-3-8b" : "llama-2-7b");
    const WorkloadCost cost = training ? workload_cost("training-step", m.config, 8, 4096, "bf16")
                                       : workload_cost("decode-step", m.config, 8, 2048, "bf16");
    const auto cmp = compare_accelerators(cost, {a, b}, {{a, price}}, training ? 16 : 1);
    if (cmp.rows.size() != 2 || !cmp.rows[0].fits || !cmp.rows[1].fits) continue;
    const AcceleratorRow& ra = cmp.rows[0];
    const AcceleratorRow& rb = cmp.rows[1];
    if (ra.bound != rb.bound) continue;
    // Scaling by the ceiling that does not bind must give another price.
    const bool compute_bound = ra.bound == "compute";
    const double wrong = price * (compute_bound ? rb.bandwidth_Bps / ra.bandwidth_Bps : rb.peak_flops / ra.peak_flops);
    const double right = rb.tokens_per_s * 3600 / (cmp.chips * *ra.tokens_per_dollar);
    if (!tells_apart(right, wrong, 0.01)) continue;
    Exercise e;
    e.title = "The price at which another chip breaks even";
    e.params = {{"workload", cost.workload}, {"model", m.id}, {"batch", 8}, {"seq", training ? 4096 : 2048},
                {"dtype", "bf16"}, {"ids", nlohmann::json::array({a, b})}, {"chips", training ? 16 : 1}, {"price_per_hour", {{a, price}}}};
    const std::string job = training ? "Training " + m.name + " on 16 chips (a step of 8 × 4,096 tokens, about " +
                                           format_number(cost.intensity, 3) + " FLOP per byte of HBM traffic)"
                                     : "Decoding " + m.name + " at batch 8 (about " + format_number(cost.intensity, 3) +
                                           " FLOP per byte of HBM traffic)";
    e.prompt = job + " costs $" + format_number(price, 3) + " per chip-hour on the " + ra.name + ", with a dense bf16 peak of " +
               tflops(ra.peak_flops) + " and HBM at " + tbps(ra.bandwidth_Bps) + ". The " + rb.name + " has " +
               tflops(rb.peak_flops) + " and " + tbps(rb.bandwidth_Bps) + ". Timing both by the roofline, at what "
               "price per chip-hour, in dollars, would the " + rb.name + " give exactly as many tokens per dollar?";
    e.unit = "$";
    e.answer = rb.tokens_per_s * 3600 / (cmp.chips * *ra.tokens_per_dollar);
    e.rel_tolerance = 0.01;
    e.hint = "Both chips sit on the same side of their ridge points: compare the ceiling that binds (peak for a "
             "compute-bound step, bandwidth for a memory-bound one). Break-even price = price × (speed of the "
             "second chip / speed of the first).";
    const bool compute = ra.bound == "compute";
    e.solution = "The intensity (" + format_number(cost.intensity, 3) + " FLOP/B) is " +
                 (compute ? "above" : "below") + " both ridge points (" + format_number(ra.ridge_intensity, 4) +
                 " and " + format_number(rb.ridge_intensity, 4) + " FLOP/B), so both are " + ra.bound +
                 "-bound and speed scales with " + (compute ? "the peak" : "the bandwidth") + ": $" +
                 format_number(price, 3) + " × " +
                 (compute ? format_number(rb.peak_flops / 1e12, 4) + " / " + format_number(ra.peak_flops / 1e12, 4)
                          : format_number(rb.bandwidth_Bps / 1e12, 4) + " / " + format_number(ra.bandwidth_Bps / 1e12, 4)) +
                 " = $" + format_number(e.answer, 4) + " per chip-hour.";
    require_fits(e, cost.memory_bytes / cmp.chips, std::min(ra.hbm_bytes, rb.hbm_bytes), "the step's memory per chip on both chips");
    require(e, ra.bound == rb.bound, "both chips are bound by the same roof");
    reject_mistake(e, wrong, std::string("scaled by ") + (compute ? "the bandwidth" : "the peak") + ", the roof that does not bind");
    return e;
  }
}

Exercise fewest_chips(Rng& rng) {
  for (;;) {
    const PublishedModel& m = model(rng.pick(kModels));
    const int batch = rng.pick(std::vector<int>{1, 2, 4, 8});
    const int seq = rng.pick(std::vector<int>{1024, 2048, 4096});
    const std::string id = rng.pick(kChips);
    const WorkloadCost cost = workload_cost("training-step", m.config, batch, seq, "bf16");
    const Accelerator& a = chip(id);
    const double chips = std::ceil(cost.memory_bytes / a.hbm_bytes);
    if (chips < 2 || chips > 64) continue;
    // Leaving the activations out must need fewer chips, so that it is a different answer.
    if (std::ceil(model_counts(m.config).params * 16 / a.hbm_bytes) == chips) continue;
    const double states = model_counts(m.config).params * 16;
    const double activations = cost.memory_bytes - states;
    Exercise e;
    e.title = "The fewest chips that hold a training step";
    e.params = {{"workload", "training-step"}, {"model", m.id}, {"batch", batch}, {"seq", seq}, {"dtype", "bf16"},
                {"ids", id}, {"chips", chips}};
    e.prompt = "Training " + m.name + " (" + prose(model_counts(m.config).params, 4) + " parameters) with Adam in mixed "
               "precision keeps 16 bytes per parameter in memory; one step on " + counted(batch, "sequence") + " of " +
               format_int(seq) + " tokens also stores " + gb(activations) + " of activations. Split evenly over "
               "chips of the " + a.name + ", each with " + gb(a.hbm_bytes) + " of HBM, how many chips at least does the step need?";
    e.unit = "";
    e.integer = true;
    e.answer = chips;
    e.hint = "Total = 16 × parameters + activations; divide by one chip's HBM and round up.";
    e.solution = "16 × " + prose(model_counts(m.config).params, 4) + " = " + gb(states) + "; + " + gb(activations) +
                 " = " + gb(cost.memory_bytes) + "; / " + gb(a.hbm_bytes) + " = " +
                 format_number(cost.memory_bytes / a.hbm_bytes, 4) + ", rounded up: " + format_int(chips) + " chips.";
    require_whole(e, chips, "chips");
    require(e, chips * a.hbm_bytes >= cost.memory_bytes && (chips - 1) * a.hbm_bytes < cost.memory_bytes,
            "the answer is the fewest chips whose HBM holds the step");
    reject_mistake(e, std::ceil(states / a.hbm_bytes), "left out the activations");
    return e;
  }
}

}  // namespace

void add_accelerators_exercises(std::vector<Generator>& out) {
  out.push_back({"ca-ridge-point", ridge_point});
  out.push_back({"ca-step-roofline", step_roofline});
  out.push_back({"ca-decode-tokens-per-joule", decode_tokens_per_joule});
  out.push_back({"ca-break-even-price", break_even_price});
  out.push_back({"ca-fewest-chips", fewest_chips});
}

}  // namespace mlsys::exercises

// Calculators of the numerical-stability lesson: `softmax-stability` (shared/API.md: a naive and
// a max-subtracted softmax emulated in fp32, bf16 or fp16), and, beyond API.md, `loss-spikes`
// (a seeded toy training run with bad batches and gradient-norm clipping), `clip-grad-norm`
// (torch.nn.utils.clip_grad_norm_ on one gradient) and `logit-growth` (a toy softmax model whose
// logits grow under Adam, with and without PaLM's z-loss). Models in core/src/training/.
#include "mlsys/foundations/input_error.hpp"
#include "mlsys/training/logit_growth.hpp"
#include "mlsys/training/loss_spikes.hpp"
#include "mlsys/training/softmax_stability.hpp"
#include "registry.hpp"

namespace mlsys::api {

MLSYS_DESCRIBE(SoftmaxSweepPoint, MLSYS_OUT(max_logit, "", "Largest logit of the shifted pattern"),
               MLSYS_OUT_NULLABLE(naive_top, "", "Naive softmax: the top token's probability (null when an exponential overflows)"),
               MLSYS_OUT(stable_top, "", "Max-subtracted softmax: the top token's probability"),
               MLSYS_OUT(exact_top, "", "Exact softmax of the stored logits: the top token's probability"),
               MLSYS_OUT(exp_overflow, "", "Some e^x overflowed the format"),
               MLSYS_OUT(sum_overflow, "", "Every e^x was finite but their sum overflowed the format"),
               MLSYS_OUT(sum_underflow, "", "Every e^x rounded to 0, so the naive kernel divides 0 by 0"),
               MLSYS_OUT(log_z, "", "Exact ln Σ e^x of the stored logits"),
               MLSYS_OUT_NULLABLE(naive_log_sum, "", "ln of the naive kernel's stored sum (null when it is infinite or an exponential overflowed)"),
               MLSYS_OUT(stable_log_sum, "", "ln of the max-subtracted kernel's fp32 sum Σ e^(x − max): between 0 and ln(count)"));
MLSYS_DESCRIBE(SoftmaxStabilityResult, MLSYS_OUT(format, "", "fp32, bf16 or fp16"),
               MLSYS_OUT(logits, "", "The logits as stored in the format"),
               MLSYS_OUT_NULLABLE(naive, "", "exp, sum (fp32 accumulator) and divide, each result stored in the format; null when an exponential overflows or every one underflows"),
               MLSYS_OUT(stable, "", "Max subtracted, fp32 intermediates, the result stored in the format"),
               MLSYS_OUT(exact, "", "Exact softmax of the stored logits (double)"),
               MLSYS_OUT(overflow, "", "The naive softmax overflowed (an exponential or the sum)"),
               MLSYS_OUT(exp_overflow, "", "An exponential overflowed the format"),
               MLSYS_OUT(sum_overflow, "", "Every exponential was finite but the sum overflowed"),
               MLSYS_OUT(sum_underflow, "", "Every exponential rounded to 0 (logits far below 0): the naive kernel divides 0 by 0"),
               MLSYS_OUT(naive_nan_count, "", "NaN entries of the row a framework returns: one per overflowed exponential (inf/inf), the others 0"),
               MLSYS_OUT(overflow_threshold, "", "ln(max): the largest x whose e^x is finite in the format"),
               MLSYS_OUT(sum_overflow_threshold, "", "ln(max) − ln Σ e^(x_i − x_max): the largest top logit at which this pattern's sum of exponentials stays finite"),
               MLSYS_OUT_AS("max", format_max, "", "Largest finite value of the format"),
               MLSYS_OUT(max_logit, "", "Largest stored logit"),
               MLSYS_OUT(log_z, "", "ln Σ e^(x_i) of the stored logits (logsumexp, exact)"),
               MLSYS_OUT_NULLABLE(naive_sum, "", "The naive kernel's stored sum of exponentials (null when it is infinite or an exponential overflowed)"),
               MLSYS_OUT_NULLABLE(naive_max_abs_error, "", "max |naive − exact| (null when naive is null)"),
               MLSYS_OUT(stable_max_abs_error, "", "max |stable − exact|"),
               MLSYS_OUT(sweep, "", "With sweep: the pattern shifted so its largest logit is 0, 0.5, …, 100, top token's probabilities"));

MLSYS_DESCRIBE(LossSpike, MLSYS_OUT(step, "", "Step at which the loss passed twice its reference"),
               MLSYS_OUT(loss_before, "", "Reference: lowest loss of the 20 steps before"),
               MLSYS_OUT(peak_loss, "", "Highest loss of the spike"), MLSYS_OUT(peak_step, "", "Step of the peak"),
               MLSYS_OUT_NULLABLE(recovery_steps, "", "Steps until the loss was back at 1.5 × the reference (null: not within the run)"));
MLSYS_DESCRIBE(LossSpikeResult, MLSYS_OUT(loss, "", "Population loss ½(w − w*)ᵀΣ(w − w*) + ½σ², before training (entry 0) and after each step"),
               MLSYS_OUT(grad_norm, "", "‖g‖ of each step's batch gradient before clipping (entry 0: 0)"),
               MLSYS_OUT(bad_steps, "", "Steps whose batch was bad (inputs × spike_scale)"),
               MLSYS_OUT(clipped_steps, "", "Steps whose gradient was clipped"),
               MLSYS_OUT(clipped_fraction, "", "Clipped steps / steps run"),
               MLSYS_OUT(spikes, "", "Each loss spike: start, reference, peak and recovery"),
               MLSYS_OUT(spike_count, "", "Number of spikes"),
               MLSYS_OUT_NULLABLE(mean_recovery_steps, "", "Mean recovery_steps of the spikes that recovered (null: none did)"),
               MLSYS_OUT(diverged, "", "The loss became non-finite or passed 10¹² × the initial loss (the run stops)"),
               MLSYS_OUT_NULLABLE(diverged_step, "", "Step at which it diverged"),
               MLSYS_OUT(steps_run, "", "Steps executed"), MLSYS_OUT(initial_loss, "", "Loss of w = 0"),
               MLSYS_OUT(final_loss, "", "Loss after the last step run"), MLSYS_OUT(min_loss, "", "Lowest loss of the run"),
               MLSYS_OUT(loss_floor, "", "½σ²: the loss of the true weights"),
               MLSYS_OUT(bad_step_loss_factor, "", "(1 − lr·s²·λ_max)²: what one plain SGD step on a bad batch multiplies the top direction's loss by, on average"),
               MLSYS_OUT(stable_lr_limit, "", "2(1 + μ)/λ_max: largest stable learning rate on clean batches (heavy-ball, expected curvature)"),
               MLSYS_OUT(bad_batch_lr_limit, "", "2(1 + μ)/(s²·λ_max): the same limit for a bad batch's curvature"));
MLSYS_DESCRIBE(ClipGradResult, MLSYS_OUT(total_norm, "", "‖g‖₂"),
               MLSYS_OUT(clip_coef, "", "max_norm / (total_norm + 1e-6)"),
               MLSYS_OUT(clip_coef_clamped, "", "min(1, clip_coef): the factor the gradient is multiplied by"),
               MLSYS_OUT(clipped, "", "clip_coef < 1"), MLSYS_OUT(grads, "", "The gradient after clipping"),
               MLSYS_OUT(clipped_norm, "", "Its norm"));
MLSYS_DESCRIBE(LogitStep, MLSYS_OUT(step, "", "Optimizer steps taken before this batch"),
               MLSYS_OUT(max_logit, "", "Largest logit of the batch"),
               MLSYS_OUT(mean_log_z, "", "Batch mean of log Z = ln Σ e^z"),
               MLSYS_OUT(max_log_z, "", "Largest log Z of the batch"),
               MLSYS_OUT(loss, "nats", "Mean cross-entropy, without the z-loss"),
               MLSYS_OUT(z_loss, "nats", "Mean z_loss·(log Z)²"),
               MLSYS_OUT(fp16_exp_overflow, "", "e^max_logit > 65504: a naive fp16 softmax would overflow"),
               MLSYS_OUT(fp16_overflow, "", "A logit itself is past fp16's 65504"),
               MLSYS_OUT(bf16_spacing, "", "Spacing of bf16 values at max_logit"),
               MLSYS_OUT(max_abs_logit, "", "Largest |logit| of the batch"),
               MLSYS_OUT(bf16_spacing_abs, "", "Spacing of bf16 values at the largest |logit|, which bounds the log-prob error"),
               MLSYS_OUT(bf16_prob_error, "", "max |softmax(bf16(z)) − softmax(z)| over the batch"),
               MLSYS_OUT(bf16_log_prob_error, "nats", "max |log softmax(bf16(z)) − log softmax(z)| over the batch"));
MLSYS_DESCRIBE(LogitGrowthResult, MLSYS_OUT(series, "", "Step 0, then every ⌈steps/500⌉-th step and the last"),
               MLSYS_OUT(final_max_logit, "", "Largest logit at the last step"),
               MLSYS_OUT(peak_max_logit, "", "Largest logit of the run"),
               MLSYS_OUT(final_mean_log_z, "", "Mean log Z at the last step"),
               MLSYS_OUT(final_loss, "nats", "Mean cross-entropy at the last step"),
               MLSYS_OUT(fp16_exp_overflow_threshold, "", "ln 65504 = 11.09"),
               MLSYS_OUT(fp16_max, "", "65504"),
               MLSYS_OUT_NULLABLE(first_fp16_exp_overflow_step, "", "First step whose largest logit passes ln 65504 (null: never)"),
               MLSYS_OUT(final_bf16_spacing, "", "bf16 spacing at the last step's largest logit"),
               MLSYS_OUT(final_bf16_spacing_abs, "", "bf16 spacing at the last step's largest |logit|"),
               MLSYS_OUT(final_max_abs_logit, "", "Largest |logit| at the last step"),
               MLSYS_OUT(peak_bf16_prob_error, "", "Largest bf16 probability error of the run"),
               MLSYS_OUT(peak_bf16_log_prob_error, "nats", "Largest bf16 log-probability error of the run"));

void add_stability_calculators(Calculators& out) {
  out.add("softmax-stability",
          "Softmax of a few logits in fp32, bf16 or fp16, emulated with exact rounding: naive (exp, sum with an fp32 "
          "accumulator, divide, each stored in the format) and stable (max subtracted, fp32 intermediates, result "
          "stored in the format), against the exact softmax. Logits as a list, or max_logit − i·spacing for i < count.",
          {optional(number_list_field("logits", "", "The logits (stored in the format first)", json(), -1e5, 1e5, 1,
                                      static_cast<std::size_t>(kMaxSoftmaxLogits))),
           optional(number_field("max_logit", "", "Without logits: the largest logit of the pattern", json(), -1e4, 1e4)),
           integer_field("count", "", "Without logits: how many logits", 8, 1, kMaxSoftmaxLogits),
           number_field("spacing", "", "Without logits: gap between consecutive logits", 1.0, 0.0, 100.0),
           string_field("format", "Format of the kernel's tensors", "fp16", {"fp32", "bf16", "fp16"}),
           boolean_field("sweep", "Also shift the pattern so its top logit runs over 0 … 100 (at most 256 logits)", false)},
          [](const Inputs& in) {
            std::vector<double> logits;
            if (in.has("logits")) {
              if (in.given("max_logit")) throw InputError("max_logit", "Give 'logits' or 'max_logit', not both.");
              logits = in.numbers("logits");
            } else if (in.has("max_logit")) {
              logits = logit_pattern(in.num("max_logit"), static_cast<int>(in.integer("count")), in.num("spacing"));
            } else {
              throw InputError("logits", "Give 'logits', or 'max_logit' with 'count' and 'spacing'.");
            }
            return softmax_stability(logits, in.str("format"), in.boolean("sweep"));
          });

  out.add("loss-spikes",
          "A toy training run, executed: SGD with momentum on an ill-conditioned linear regression (8 dimensions), "
          "where each batch is bad with probability spike_rate (its inputs × spike_scale, so its curvature × "
          "spike_scale²). Gradient-norm clipping as torch.nn.utils.clip_grad_norm_ (max_norm 0 = off). Loss and "
          "gradient norm per step, the spikes (loss above twice its recent minimum) and their recovery.",
          {integer_field("steps", "", "Training steps", 600, 1, kMaxLossSpikeSteps),
           number_field("lr", "", "Learning rate", 0.05, 0.0, 10.0, true),
           number_field("momentum", "", "Heavy-ball momentum μ", 0.9, 0.0, 0.99),
           number_field("max_norm", "", "Gradient-norm clipping threshold (0: no clipping)", 0.0, 0.0, 1e6),
           number_field("spike_rate", "", "Probability that a batch is bad", 0.01, 0.0, 1.0),
           number_field("spike_scale", "", "Input scale of a bad batch", 20.0, 1.0, 1000.0),
           number_field("condition_number", "", "Ratio of the largest to the smallest curvature", 100.0, 1.0, 1e4),
           integer_field("batch_size", "", "Examples per batch", 16, 1, kMaxLossSpikeBatch), seed_field()},
          [](const Inputs& in) {
            LossSpikeConfig c;
            c.steps = static_cast<int>(in.integer("steps"));
            c.lr = in.num("lr");
            c.momentum = in.num("momentum");
            c.max_norm = in.num("max_norm");
            c.spike_rate = in.num("spike_rate");
            c.spike_scale = in.num("spike_scale");
            c.condition_number = in.num("condition_number");
            c.batch_size = static_cast<int>(in.integer("batch_size"));
            c.seed = static_cast<std::uint64_t>(in.integer("seed"));
            return loss_spikes(c);
          });

  out.add("clip-grad-norm",
          "torch.nn.utils.clip_grad_norm_ on one gradient: total 2-norm, coefficient max_norm / (norm + 1e-6) clamped "
          "to at most 1, the gradient multiplied by it.",
          {number_list_field("grads", "", "The gradient's values (all parameters together)", json::array({3.0, 4.0}),
                             -1e12, 1e12, 1, 4096),
           number_field("max_norm", "", "Clipping threshold", 1.0, 0.0, 1e12, true)},
          [](const Inputs& in) { return clip_grad_norm(in.numbers("grads"), in.num("max_norm")); });

  out.add("logit-growth",
          "A toy softmax classifier (8 classes, 16 features, separable data), executed with Adam: its logits grow "
          "without bound unless a z-loss z_loss·(log Z)² (PaLM: 1e-4) or weight decay holds them. Per step: the "
          "largest logit and log Z against fp16's range (e^x overflows above 11.09) and bf16's spacing there.",
          {integer_field("steps", "", "Adam steps", 2000, 1, kMaxLogitSteps),
           number_field("lr", "", "Learning rate", 0.03, 0.0, 1.0, true),
           number_field("z_loss", "", "z-loss coefficient (PaLM: 1e-4)", 0.0, 0.0, 1.0),
           number_field("weight_decay", "", "AdamW decoupled weight decay on W", 0.0, 0.0, 10.0), seed_field()},
          [](const Inputs& in) {
            LogitGrowthConfig c;
            c.steps = static_cast<int>(in.integer("steps"));
            c.lr = in.num("lr");
            c.z_loss = in.num("z_loss");
            c.weight_decay = in.num("weight_decay");
            c.seed = static_cast<std::uint64_t>(in.integer("seed"));
            return logit_growth(c);
          });
}

}  // namespace mlsys::api

// Calculators of the optimizers lesson: `optimizer-trajectory`, `lr-schedule` and
// `optimizer-state` (shared/API.md and its conventions). Models in core/src/optimizers/.
#include <algorithm>
#include <cstdint>
#include <optional>

#include "mlsys/hardware/accelerator.hpp"
#include "mlsys/optimizers/schedule.hpp"
#include "mlsys/optimizers/state.hpp"
#include "mlsys/optimizers/trajectory.hpp"
#include "registry.hpp"

namespace mlsys::api {

namespace {

struct ScheduleReport {
  std::vector<long long> steps;
  std::vector<double> lr;
  bool sampled;
  std::optional<double> lr_at;
};

struct StateBreakdown {
  double weights, grads, master, states, grad_buffer;
};

struct StateReport {
  std::string optimizer;
  double bytes_per_param;
  StateBreakdown breakdown;
  double total_bytes;
  double block_scale_bytes_per_param;
  double state_total_bytes;
  double step_bytes_per_param;
  double step_total_bytes;
  double bandwidth_Bps;
  double step_time_s;
  double hbm_bytes;
};

}  // namespace

MLSYS_DESCRIBE(TrajectoryPoint, MLSYS_OUT(step, "", "Updates done (0: the start)"), MLSYS_OUT(x, "", "x after the step"),
               MLSYS_OUT(y, "", "y after the step"), MLSYS_OUT(loss, "", "f(x, y) = ½(x² + κ·y²)"));
MLSYS_DESCRIBE(Trajectory, MLSYS_OUT(path, "", "The iterates, step 0 (the start) first; ends early when diverged"),
               MLSYS_OUT(final_loss, "", "Loss at the path's last point"),
               MLSYS_OUT(late_mean_loss, "", "Mean loss over the path's last tenth of points (at least the last one)"),
               MLSYS_OUT(diverged, "", "The loss exceeded 10⁶ × the start loss (that step ends the path) or was not finite (the path ends before it)"),
               MLSYS_OUT_NULLABLE(diverged_step, "", "The step that diverged (null when none did)"));
MLSYS_DESCRIBE(ScheduleReport, MLSYS_OUT(steps, "", "The step t of each entry of lr: every step, or 100,000 evenly spaced with the first and last"),
               MLSYS_OUT(lr, "", "Learning rate at each of `steps`"),
               MLSYS_OUT(sampled, "", "total_steps > 100,000: lr holds an even sample"),
               MLSYS_OUT_NULLABLE(lr_at, "", "Learning rate at `at_step` (null when not given)"));
MLSYS_DESCRIBE(StateBreakdown, MLSYS_OUT(weights, "B", "Working weights per parameter"),
               MLSYS_OUT(grads, "B", "Gradient per parameter (in weight_dtype)"),
               MLSYS_OUT(master, "B", "fp32 master copy per parameter (0 for fp32 weights or without master weights)"),
               MLSYS_OUT(states, "B", "Optimizer state per parameter"),
               MLSYS_OUT(grad_buffer, "B", "fp32 gradient-accumulation buffer per parameter (4 with fp32_grad_buffer, else 0)"));
MLSYS_DESCRIBE(StateReport, MLSYS_OUT(optimizer, "", "The optimizer"),
               MLSYS_OUT(bytes_per_param, "B", "weights + grads + master + states"), MLSYS_OUT(breakdown, "", "Bytes per parameter by part"),
               MLSYS_OUT(total_bytes, "B", "bytes_per_param × params"),
               MLSYS_OUT(block_scale_bytes_per_param, "B",
                         "adam-8bit: the fp32 absmax of each 2,048-value block of m and v (8/2048 B), not counted in states; 0 otherwise"),
               MLSYS_OUT(state_total_bytes, "B", "states × params"),
               MLSYS_OUT(step_bytes_per_param, "B",
                         "HBM bytes one optimizer step moves per parameter, each read or written once: reads the gradient (the "
                         "fp32 buffer if kept), the weights it updates (the fp32 master if kept) and the state; writes those "
                         "weights, the state, and the 16-bit working copy when a master is kept (block scales aside)"),
               MLSYS_OUT(step_total_bytes, "B", "step_bytes_per_param × params"),
               MLSYS_OUT(bandwidth_Bps, "B/s", "HBM bandwidth used: bandwidth_Bps, else the hardware table's"),
               MLSYS_OUT(step_time_s, "s", "step_total_bytes / bandwidth_Bps: the memory-bound floor of one optimizer step on one device"),
               MLSYS_OUT(hbm_bytes, "B", "The device's memory (hardware table)"));

void add_optimizers_calculators(Calculators& out) {
  out.add("optimizer-trajectory",
          "Iterates of an optimizer on f(x, y) = ½(x² + κ·y²) with PyTorch's update rules: sgd, momentum "
          "(v ← μv + g, x ← x − lr·v), nesterov (torch.optim.SGD nesterov=True), adam (bias-corrected) and adamw "
          "(decoupled decay x ← x − lr·wd·x). weight_decay is L2 (added to the gradient) except for adamw. rotation turns "
          "the valley (and the start) so its curvature axes are no longer x and y; noise adds seeded uniform noise of that "
          "standard deviation to each gradient coordinate; lr_schedule makes lr the peak of a schedule over the run. The path "
          "stops when the loss exceeds 10⁶ × the start loss or is not finite (diverged).",
          {string_field("optimizer", "The update rule", "sgd", {"sgd", "momentum", "nesterov", "adam", "adamw"}),
           number_field("lr", "", "Learning rate", 0.1, 0.0, 100.0, true),
           number_field("momentum", "", "μ of momentum and nesterov", 0.9, 0.0, 0.999),
           number_field("beta1", "", "Adam's β₁", 0.9, 0.0, 0.999),
           number_field("beta2", "", "Adam's β₂", 0.999, 0.0, 0.999999),
           number_field("eps", "", "Adam's ε", 1e-8, 0.0, 1.0),
           number_field("weight_decay", "", "Weight decay (L2 in the gradient; decoupled for adamw)", 0.0, 0.0, 10.0),
           number_field("condition", "", "κ ≥ 1: the curvature along y (1 along x)", 10.0, 1.0, 1e6),
           number_list_field("start", "", "The starting point [x, y]", json::array({1.0, 1.0}), -1e3, 1e3, 2, 2),
           integer_field("steps", "", "Updates (capped)", 100, 0, kMaxOptimizerSteps),
           number_field("rotation", "deg", "Turns the valley and the start together about the minimum (0: curvature axes = x and y)", 0.0, -180.0, 180.0),
           number_field("noise", "", "Standard deviation of the noise added to each gradient coordinate (uniform, mean 0)", 0.0, 0.0, 1e3),
           seed_field(1),
           string_field("lr_schedule", "The learning rate of each update: lr throughout (constant) or a schedule peaking at lr over the run's steps (lr-schedule's rules)", "constant",
                        {"constant", "step", "linear", "cosine", "warmup-cosine", "wsd"}),
           integer_field("warmup_steps", "", "lr_schedule: steps of linear warm-up from 0", 0, 0, kMaxOptimizerSteps),
           number_field("min_lr", "", "lr_schedule: floor of the decay (≤ lr)", 0.0, 0.0, 100.0),
           optional(integer_field("decay_steps", "", "lr_schedule wsd: steps of the final decay", json(), 1, kMaxOptimizerSteps)),
           optional(integer_field("step_size", "", "lr_schedule step: steps between two ×gamma decays", json(), 1, kMaxOptimizerSteps)),
           number_field("gamma", "", "lr_schedule step: factor of each decay", 0.1, 0.0, 1.0, true)},
          [](const Inputs& in) {
            OptimizerSettings s{in.str("optimizer"), in.num("lr"),    in.num("momentum"),    in.num("beta1"),
                                in.num("beta2"),     in.num("eps"),   in.num("weight_decay")};
            ProblemSettings problem;
            problem.rotation_deg = in.num("rotation");
            problem.noise = in.num("noise");
            problem.seed = static_cast<std::uint64_t>(in.integer("seed"));
            if (in.str("lr_schedule") != "constant" || in.integer("warmup_steps") > 0)
              problem.schedule = ScheduleSettings{in.str("lr_schedule"), in.num("lr"), in.num("min_lr"), in.integer("warmup_steps"),
                                                  std::max(1LL, in.integer("steps")), in.integer_if("decay_steps"),
                                                  in.integer_if("step_size"), in.num("gamma")};
            const auto start = in.numbers("start");
            return optimizer_trajectory(s, in.num("condition"), start[0], start[1], in.integer("steps"), problem);
          });

  out.add("lr-schedule",
          "Learning rate at each step t = 0 … total_steps − 1: a linear warm-up peak·t/warmup_steps (every schedule), "
          "then constant; step (peak·gamma^⌊(t − warmup)/step_size⌋, not below min_lr); linear, cosine and "
          "warmup-cosine (the same cosine, as Hugging Face's get_cosine_schedule_with_warmup with a floor min_lr) "
          "over p = (t − warmup)/(total − warmup); wsd (peak until total − decay_steps, then linear toward min_lr).",
          {string_field("schedule", "The schedule", "warmup-cosine", {"constant", "step", "linear", "cosine", "warmup-cosine", "wsd"}),
           number_field("peak_lr", "", "Peak learning rate", 3e-4, 0.0, 100.0, true),
           number_field("min_lr", "", "Floor of the decay (≤ peak_lr)", 0.0, 0.0, 100.0),
           integer_field("warmup_steps", "", "Steps of linear warm-up from 0", 0, 0, kMaxScheduleSteps),
           integer_field("total_steps", "", "Steps of training", 1000, 1, kMaxScheduleSteps),
           optional(integer_field("decay_steps", "", "wsd: steps of the final linear decay", json(), 1, kMaxScheduleSteps)),
           optional(integer_field("step_size", "", "step: steps between two decays", json(), 1, kMaxScheduleSteps)),
           number_field("gamma", "", "step: factor of each decay", 0.1, 0.0, 1.0, true),
           optional(integer_field("at_step", "", "A step t whose learning rate to report as lr_at", json(), 0, kMaxScheduleSteps))},
          [](const Inputs& in) {
            ScheduleSettings s{in.str("schedule"), in.num("peak_lr"), in.num("min_lr"),     in.integer("warmup_steps"),
                               in.integer("total_steps"), in.integer_if("decay_steps"), in.integer_if("step_size"),
                               in.num("gamma")};
            check_schedule(s);
            ScheduleSample sample = sample_schedule(s);
            ScheduleReport r{std::move(sample.steps), std::move(sample.lr), s.total_steps > kMaxScheduleSamples, std::nullopt};
            if (auto t = in.integer_if("at_step")) {
              if (*t >= s.total_steps) throw InputError("at_step", "at_step must be below total_steps.");
              r.lr_at = lr_at_step(s, *t);
            }
            return r;
          });

  out.add("optimizer-state",
          "Bytes per parameter of training: weights and gradients in weight_dtype, an fp32 master copy (16-bit "
          "weights with master_weights) and the optimizer state: sgd 0, momentum 4, adam 8 (fp32 m and v), adam-8bit 2 "
          "(8-bit m and v, Dettmers et al. 2021; block scales shown apart), adafactor 4·(r + c)/(r·c) (factored second "
          "moment of an r × c matrix, no first moment). Mixed-precision Adam is 16 B (ZeRO paper).",
          {string_field("optimizer", "The optimizer", "adam", {"sgd", "momentum", "adam", "adam-8bit", "adafactor"}),
           number_field("params", "", "Parameters", 7e9, 1.0, 1e13),
           string_field("weight_dtype", "Format of the working weights and gradients", "bf16", {"fp32", "bf16", "fp16"}),
           boolean_field("master_weights", "Keep an fp32 master copy of 16-bit weights (mixed precision)", true),
           number_field("matrix_rows", "", "adafactor: rows r of the typical weight matrix", 4096.0, 1.0, 1e6),
           number_field("matrix_cols", "", "adafactor: columns c of the typical weight matrix", 4096.0, 1.0, 1e6),
           boolean_field("fp32_grad_buffer", "Accumulate gradients in an extra fp32 buffer (4 B per parameter)", false),
           hardware_field(true),
           optional(number_field("bandwidth_Bps", "B/s", "HBM bandwidth; overrides the hardware table", json(), 0.0, 1e16, true))},
          [](const Inputs& in) {
            const auto b = optimizer_state_bytes(in.str("optimizer"), in.str("weight_dtype"), in.boolean("master_weights"),
                                                 in.num("matrix_rows"), in.num("matrix_cols"));
            const double buffer = in.boolean("fp32_grad_buffer") ? 4.0 : 0.0;
            const double per = b.weights + b.grads + b.master + b.states + buffer;
            const double moved = optimizer_step_bytes(b, buffer > 0);
            const Accelerator* gpu = find_accelerator(in.str("hardware"));
            const double bandwidth = in.has("bandwidth_Bps") ? in.num("bandwidth_Bps") : gpu->hbm_bandwidth_Bps;
            const double params = in.num("params");
            return StateReport{in.str("optimizer"), per, {b.weights, b.grads, b.master, b.states, buffer},
                               per * params, b.block_scales, b.states * params, moved, moved * params, bandwidth,
                               moved * params / bandwidth, gpu->hbm_bytes};
          });
}

}  // namespace mlsys::api

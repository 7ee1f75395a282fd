// Pipeline-parallel schedules executed as dependency graphs: GPipe (Huang et al. 2019,
// arXiv:1811.06965: all forwards, then all backwards), 1F1B (PipeDream-Flush, Narayanan et al.
// 2021, arXiv:2006.09503: p−s−1 warm-up forwards on stage s, then one forward, one backward)
// and interleaved 1F1B (Narayanan et al. 2021, arXiv:2104.04473, section 2.2.2, with the op
// order of Megatron-LM's forward_backward_pipelining_with_interleaving: v model chunks per
// stage, micro-batches in groups of p). Times in seconds.
#pragma once
#include <string>
#include <vector>

namespace mlsys {

enum class PipelineSchedule { GPipe, OneFOneB, Interleaved };

// "gpipe", "1f1b", "interleaved-1f1b"; throws InputError("schedule") for anything else.
PipelineSchedule parse_pipeline_schedule(const std::string& name);

struct PipelineOp {
  int stage;       // 0 .. p−1, the GPU
  int microbatch;  // 0 .. m−1
  int chunk;       // 0 .. v−1, the model chunk (virtual stage chunk·p + stage)
  char kind;       // 'F' or 'B'
  double start_s = 0, end_s = 0;
};

struct PipelineConfig {
  PipelineSchedule schedule = PipelineSchedule::OneFOneB;
  int stages = 4;        // p
  int microbatches = 8;  // m per step
  int chunks = 1;        // v, model chunks per stage (interleaved only; 1 otherwise)
  double forward_s = 1;   // one micro-batch through one stage (all its chunks), forward
  double backward_s = 2;  // same, backward
  double p2p_s = 0;       // one activation (or gradient) message between stages; it holds the link
};

// Largest stages·microbatches·chunks executed op by op; beyond it the closed form is used.
constexpr long long kPipelineExecutedLimit = 4096;

struct PipelineResult {
  bool executed;             // false: closed form (timeline empty)
  double step_time_s;        // last op's end
  double busy_per_stage_s;   // m·(forward_s + backward_s): the ideal step, no bubble
  double bubble_time_s;      // step_time_s − busy_per_stage_s
  double bubble_fraction;    // idle / (p · step time)
  double bubble_ratio;       // idle / ideal per stage: (p−1)/m, or (p−1)/(v·m), with p2p_s = 0
  double bubble_ratio_formula;  // (p−1)/(v·m) (Narayanan et al. 2021, arXiv:2104.04473, section 2.2)
  std::string method;           // "executed" or "closed-form"
  double peak_inflight_microbatches;  // stage 0's, the largest
  // Peak activations held per stage, in micro-batches of a whole stage (in-flight chunk
  // activations divided by v): GPipe m, 1F1B min(p−s, m).
  std::vector<double> peak_inflight_per_stage;
  std::vector<int> peak_inflight_chunks_per_stage;  // micro-batch × chunk activations held
  std::vector<PipelineOp> timeline;                 // executed ops, by stage then start time
};

// Throws InputError naming the field when the schedule cannot run the configuration (e.g.
// interleaving with m not a multiple of p, or chunks > 1 without interleaving).
void check_pipeline(const PipelineConfig& c);

// The order in which stage `stage` runs its ops (times unset).
std::vector<PipelineOp> pipeline_stage_order(const PipelineConfig& c, int stage);

// Executes the schedule: each op starts when its stage is free and its inputs exist (forward of
// virtual stage k after forward k−1's message has arrived; backward k after backward k+1's
// message and its own forward). A message occupies its sender's link for p2p_s: each stage
// sends one message at a time, so messages sent closer together than p2p_s queue
// (interleaving sends v times as many, after chunk ops 1/v as long). Falls back to the closed form when stages·microbatches·chunks > limit.
PipelineResult simulate_pipeline(const PipelineConfig& c, long long limit = kPipelineExecutedLimit);

// Closed form, exact at p2p_s = 0 and a lower bound otherwise (the executed schedule also waits
// for messages in its steady state): step = (m + (p−1)/v)·(F + B) + 2·(p·v − 1)·p2p for the interleaved schedule and
// (m + p − 1)·(F + B) + 2·(p − 1)·p2p otherwise (no messages when p = 1); in-flight GPipe m, 1F1B min(p−s, m), interleaved
// min(2(p−s−1) + (v−1)p + 1, m·v) chunks (all m·v when m = p).
PipelineResult pipeline_closed_form(const PipelineConfig& c);

}  // namespace mlsys

// Calculators of the quantization lesson: `quantize` (shared/API.md: closed form over a range,
// or measured on seeded data), `quantizer-staircase`, `quantization-mse-vs-bits`,
// `clip-search`, `smoothquant` and `quantization-speedup`. Models in core/*/quantization/.
#include <cmath>
#include <stdexcept>

#include "mlsys/hardware/accelerator.hpp"
#include "mlsys/quantization/phase_speedup.hpp"
#include "mlsys/quantization/quantizer.hpp"
#include "mlsys/quantization/smoothquant.hpp"
#include "mlsys/quantization/sweeps.hpp"
#include "registry.hpp"

namespace mlsys::api {

namespace {

using namespace mlsys::quant;

// Executed sizes: one call quantizes at most this many elements in total (a sweep counts
// every pass), which keeps a call well under 100 ms in the browser.
constexpr double kMaxElementPasses = 2e7;
constexpr double kMaxSmoothQuantMacs = 3e7;
constexpr long long kMaxSamples = 1LL << 19;

// Defaults of the measured form (quantize leaves these fields null in its schema so that the
// two call forms can be told apart; the sweep calculators use them as schema defaults).
struct DataDefaults {
  std::string distribution = "gaussian";
  std::string granularity = "tensor";
  long long group_size = 128, samples = 65536, cols = 256, seed = 1;
  bool symmetric = true;
  double clip = 1, outlier_fraction = 0.02, outlier_scale = 20;
};

json opt(bool with_defaults, json value) { return with_defaults ? value : json(); }

// A field that may be left out, with no default.

// The data and scheme fields shared by the measured calculators. clip is optional.
std::vector<Field> data_fields(bool with_defaults, const DataDefaults& d, bool with_clip, long long max_samples) {
  const std::string note = with_defaults ? "" : " (measured form; default ";
  auto desc = [&](const std::string& text, const std::string& dflt) {
    return with_defaults ? text : text + note + dflt + ")";
  };
  std::vector<Field> f = {
      string_field("granularity",
                   desc("Scale granularity: one scale per tensor, per channel (row) or per group of group_size "
                        "consecutive elements of a row",
                        "tensor"),
                   opt(with_defaults, d.granularity), {"tensor", "channel", "group"}),
      integer_field("group_size", "", desc("Elements per group (granularity group); must divide cols", "128"),
                    opt(with_defaults, d.group_size), 2, 4096),
      string_field("distribution",
                   desc("Seeded data, unit variance: uniform on [-√3, √3], gaussian N(0,1), laplace, or "
                        "gaussian-outliers (N(0,1) with a fraction of rows scaled by outlier_scale)",
                        "gaussian"),
                   opt(with_defaults, d.distribution), distribution_names()),
      integer_field("samples", "", desc("Values generated: a matrix of floor(samples/cols) rows × cols", "65536"),
                    opt(with_defaults, d.samples), 4096, max_samples),
      integer_field("cols", "", desc("Columns of the matrix (elements per channel)", "256"), opt(with_defaults, d.cols),
                    8, 4096),
      integer_field("seed", "", desc("Seed of the generated data", "1"), opt(with_defaults, d.seed), 0,
                    4294967295LL),
      boolean_field("symmetric", desc("Symmetric quantizer (zero point 0) or asymmetric (with zero point)", "true"),
                    d.symmetric),
      number_field("outlier_fraction", "",
                   desc("Fraction of rows that are outlier channels (gaussian-outliers)", "0.02"),
                   opt(with_defaults, d.outlier_fraction), 0.0, 1.0),
      number_field("outlier_scale", "", desc("Magnitude of the outlier channels relative to the others", "20"),
                   opt(with_defaults, d.outlier_scale), 1.0, 1000.0),
  };
  if (!with_defaults) f[6].default_value = json();
  if (with_clip)
    f.push_back(number_field("clip", "",
                             desc("Clipping: the range is clip × each block's max |x| (symmetric) or clip × its "
                                  "min and max (asymmetric); 1 = no clipping",
                                  "1"),
                             opt(with_defaults, d.clip), 0.0, 1.0, true));
  return f;
}

template <class T>
T value_or(const Inputs& in, const std::string& name, T fallback) {
  if (!in.has(name)) return fallback;
  return in.raw().at(name).get<T>();
}

struct DataRequest {
  Matrix matrix;
  Scheme scheme;
};

DataRequest read_data(const Inputs& in, const DataDefaults& d, int bits) {
  const std::string dist = value_or<std::string>(in, "distribution", d.distribution);
  const std::string gran = value_or<std::string>(in, "granularity", d.granularity);
  const long long samples = value_or<long long>(in, "samples", d.samples);
  const long long cols = value_or<long long>(in, "cols", d.cols);
  Scheme s;
  s.bits = bits;
  s.granularity = parse_granularity(gran);
  s.group_size = value_or<long long>(in, "group_size", d.group_size);
  s.symmetric = value_or<bool>(in, "symmetric", d.symmetric);
  s.clip = value_or<double>(in, "clip", d.clip);
  if (s.granularity == Granularity::Group && cols % s.group_size != 0)
    throw InputError("group_size", "group_size (" + std::to_string(s.group_size) +
                                       ") must divide cols (" + std::to_string(cols) + ").");
  if (s.granularity == Granularity::Group && s.group_size > cols)
    throw InputError("group_size", "group_size must not exceed cols.");
  const long long rows = std::max(1LL, samples / cols);
  DataRequest r{generate(parse_distribution(dist), rows, cols, static_cast<std::uint64_t>(value_or<long long>(in, "seed", d.seed)),
                         value_or<double>(in, "outlier_fraction", d.outlier_fraction),
                         value_or<double>(in, "outlier_scale", d.outlier_scale)),
                s};
  return r;
}

json measured_json(const Measured& m) {
  return {{"mse", m.mse},
          {"sqnr_db", m.sqnr_db},
          {"scale_overhead_bytes", m.scale_overhead_bytes},
          {"mse_predicted", m.mse_predicted},
          {"mse_rounding", m.mse_rounding},
          {"mse_clipping", m.mse_clipping},
          {"signal_power", m.signal_power},
          {"max_abs_error", m.max_abs_error},
          {"clipped_fraction", m.clipped_fraction},
          {"blocks", m.blocks},
          {"payload_bytes", m.payload_bytes},
          {"bits_per_value", m.bits_per_value}};
}

json matrix_json(const Matrix& m) {
  double amax = 0;
  for (double v : m.v) amax = std::max(amax, std::fabs(v));
  return {{"rows", m.rows},
          {"cols", m.cols},
          {"elements", m.rows * m.cols},
          {"outlier_rows", m.outlier_rows.size()},
          {"max_abs", amax}};
}

void check_passes(double elements, double passes, const std::string& field) {
  if (elements * passes > kMaxElementPasses)
    throw InputError(field, "This call would quantize " + std::to_string(static_cast<long long>(elements * passes)) +
                                " values; the limit per call is 2e7 (lower samples or the number of points).");
}

json quantize_run(const Inputs& in) {
  const int bits = static_cast<int>(in.integer("bits"));
  const bool closed = in.has("range_min") || in.has("range_max");
  if (closed) {
    for (const char* f : {"granularity", "group_size", "distribution", "clip", "samples", "cols", "seed", "symmetric",
                          "outlier_fraction", "outlier_scale"})
      if (in.has(f))
        throw InputError(f, std::string("Field '") + f +
                                "' belongs to the measured form; the closed form takes only bits, range_min and "
                                "range_max. Drop one or the other.");
    if (!in.has("range_min")) throw InputError("range_min", "The closed form needs both range_min and range_max.");
    if (!in.has("range_max")) throw InputError("range_max", "The closed form needs both range_min and range_max.");
    const double lo = in.num("range_min"), hi = in.num("range_max");
    if (!(hi > lo)) throw InputError("range_max", "range_max must be greater than range_min.");
    const ClosedForm c = closed_form(bits, lo, hi);
    return {{"form", "closed"},     {"step", c.step},   {"max_error", c.max_error}, {"mse_uniform", c.mse_uniform},
            {"scale", c.scale},     {"zero_point", c.zero_point}, {"qmin", c.qmin}, {"qmax", c.qmax},
            {"levels", c.levels}};
  }
  const DataDefaults d;
  const DataRequest r = read_data(in, d, bits);
  json out = measured_json(quantize_matrix(r.matrix, r.scheme));
  out["form"] = "measured";
  out.update(matrix_json(r.matrix));
  return out;
}

}  // namespace

void add_quantization_calculators(Calculators& out) {
  // --- quantize (API.md) -------------------------------------------------------------------
  {
    std::vector<Field> f = {
        integer_field("bits", "bit", "Bits per quantized value", 8, 2, 16),
        number_field("range_min", "", "Closed form: the lowest value of the range", json(), -1e30, 1e30),
        number_field("range_max", "", "Closed form: the highest value of the range", json(), -1e30, 1e30),
    };
    for (auto& x : data_fields(false, DataDefaults{}, true, kMaxSamples)) f.push_back(std::move(x));
    for (auto& x : f) x.required = false;  // null defaults: absent fields select the form and take its defaults
    out.push_back({"quantize",
                   "Uniform b-bit quantization. Closed form (give range_min and range_max): step Δ = (max − min)/(2^b "
                   "− 1), max_error Δ/2, mse_uniform Δ²/12. Measured form (leave them out): generate a seeded "
                   "matrix, quantize and dequantize it with one fp16 scale per tensor, row or group, and report "
                   "mse, sqnr_db and scale_overhead_bytes.",
                   f, quantize_run});
  }

  // --- quantizer-staircase ------------------------------------------------------------------
  out.push_back(
      {"quantizer-staircase",
       "The transfer curve of one b-bit quantizer over a grid of x: integer code q, dequantized value and error.",
       {integer_field("bits", "bit", "Bits per quantized value", 3, 2, 8),
        number_field("range_min", "", "Lowest value of the calibrated range", -1.0, -1e6, 1e6),
        number_field("range_max", "", "Highest value of the calibrated range", 1.0, -1e6, 1e6),
        boolean_field("symmetric", "Symmetric quantizer over [-max|range|, max|range|] with zero point 0", false),
        integer_field("points", "", "Points of the x grid", 401, 11, 2001),
        number_field("margin", "", "The grid extends this fraction of the range beyond each end", 0.25, 0.0, 1.0),
        optional(number_field("value", "", "Optional: one value to quantize (its code, dequantized value and error)",
                              json(), -1e6, 1e6))},
       [](const Inputs& in) -> json {
         const int bits = static_cast<int>(in.integer("bits"));
         const double lo = in.num("range_min"), hi = in.num("range_max");
         if (!(hi > lo)) throw InputError("range_max", "range_max must be greater than range_min.");
         const bool sym = in.boolean("symmetric");
         const double amax = std::max(std::fabs(lo), std::fabs(hi));
         const Quantizer qz = sym ? symmetric_quantizer(bits, amax) : affine_quantizer(bits, lo, hi);
         const double rlo = sym ? -amax : lo, rhi = sym ? amax : hi;
         const double span = rhi - rlo, x0 = rlo - in.num("margin") * span, x1 = rhi + in.num("margin") * span;
         const long long n = in.integer("points");
         json xs = json::array(), qs = json::array(), xh = json::array(), es = json::array();
         double max_in = 0;
         for (long long i = 0; i < n; ++i) {
           const double x = x0 + (x1 - x0) * static_cast<double>(i) / static_cast<double>(n - 1);
           const double q = quantize_code(qz, x), v = dequantize(qz, q);
           xs.push_back(x);
           qs.push_back(q);
           xh.push_back(v);
           es.push_back(v - x);
           if (x >= rlo && x <= rhi) max_in = std::max(max_in, std::fabs(v - x));
         }
         json o = {{"scale", qz.scale},
                 {"step", qz.scale},
                 {"zero_point", qz.zero_point},
                 {"qmin", qz.qmin},
                 {"qmax", qz.qmax},
                 {"max_error", qz.scale / 2},
                 {"max_abs_error_in_range", max_in},
                 {"range_lo", rlo},
                 {"range_hi", rhi},
                 {"representable_min", dequantize(qz, qz.qmin)},
                 {"representable_max", dequantize(qz, qz.qmax)},
                 {"x", xs},
                 {"q", qs},
                 {"x_hat", xh},
                 {"quantization_error", es}};
         if (in.has("value")) {
           const double q = quantize_code(qz, in.num("value"));
           o["value_code"] = q;
           o["value_dequantized"] = dequantize(qz, q);
           o["value_error"] = dequantize(qz, q) - in.num("value");
         }
         return o;
       }});

  // --- quantization-mse-vs-bits ---------------------------------------------------------------
  {
    DataDefaults d;
    d.distribution = "uniform";
    std::vector<Field> f = data_fields(true, d, true, 262144);
    f.push_back(integer_field("bits_min", "bit", "Fewest bits of the sweep", 2, 2, 16));
    f.push_back(integer_field("bits_max", "bit", "Most bits of the sweep", 16, 2, 16));
    out.push_back({"quantization-mse-vs-bits",
                   "Measured MSE and SQNR of quantize→dequantize on one seeded matrix for each bit width, beside "
                   "the rounding-noise model Δ²/12 (averaged over the blocks' steps).",
                   f, [d](const Inputs& in) -> json {
                     const int b0 = static_cast<int>(in.integer("bits_min")), b1 = static_cast<int>(in.integer("bits_max"));
                     if (b1 < b0) throw InputError("bits_max", "bits_max must be at least bits_min.");
                     check_passes(static_cast<double>(in.integer("samples")), b1 - b0 + 1, "samples");
                     const DataRequest r = read_data(in, d, b0);
                     json pts = json::array();
                     for (const auto& p : mse_vs_bits(r.matrix, r.scheme, b0, b1)) {
                       json j = measured_json(p.measured);
                       j["bits"] = p.bits;
                       j["ratio_to_model"] = p.measured.mse / p.measured.mse_predicted;
                       pts.push_back(j);
                     }
                     json o = matrix_json(r.matrix);
                     o["points"] = pts;
                     return o;
                   }});
  }

  // --- clip-search ------------------------------------------------------------------------
  {
    DataDefaults d;
    d.distribution = "gaussian-outliers";
    d.samples = 16384;
    d.outlier_fraction = 0.01;
    d.outlier_scale = 5;
    std::vector<Field> f = data_fields(true, d, false, 262144);
    f.insert(f.begin(), integer_field("bits", "bit", "Bits per quantized value", 4, 2, 16));
    f.push_back(number_field("clip_min", "", "Smallest clip fraction of the grid", 0.05, 0.0, 0.99, true));
    f.push_back(integer_field("points", "", "Clip fractions on the grid from clip_min to 1", 40, 2, 200));
    out.push_back({"clip-search",
                   "Clipping trade-off: measured MSE (rounding part and clipping part) against the clip fraction "
                   "of max |x|, and the clip with the least MSE (grid search, then golden-section refinement).",
                   f, [d](const Inputs& in) -> json {
                     const long long points = in.integer("points");
                     check_passes(static_cast<double>(in.integer("samples")), static_cast<double>(points + 42),
                                  "samples");
                     const DataRequest r = read_data(in, d, static_cast<int>(in.integer("bits")));
                     const ClipSearch cs = clip_search(r.matrix, r.scheme, in.num("clip_min"), static_cast<int>(points));
                     json pts = json::array();
                     for (const auto& p : cs.points)
                       pts.push_back({{"clip", p.clip},
                                      {"mse", p.measured.mse},
                                      {"mse_rounding", p.measured.mse_rounding},
                                      {"mse_clipping", p.measured.mse_clipping},
                                      {"sqnr_db", p.measured.sqnr_db},
                                      {"clipped_fraction", p.measured.clipped_fraction}});
                     json o = matrix_json(r.matrix);
                     o["points"] = pts;
                     o["best_clip"] = cs.best_clip;
                     o["best_mse"] = cs.best.mse;
                     o["best_sqnr_db"] = cs.best.sqnr_db;
                     o["best_clipped_fraction"] = cs.best.clipped_fraction;
                     o["mse_no_clip"] = cs.no_clip.mse;
                     o["sqnr_no_clip_db"] = cs.no_clip.sqnr_db;
                     o["mse_gain"] = cs.no_clip.mse / cs.best.mse;
                     return o;
                   }});
  }

  // --- smoothquant -------------------------------------------------------------------------
  out.push_back(
      {"smoothquant",
       "SmoothQuant on seeded X (with outlier channels) and W: smoothing s_j = max|X_j|^α / max|W_j|^(1−α), then "
       "W8A8 (per-tensor activations, per-output-channel weights); relative MSE of activations, weights and Y = "
       "XW against fp64, at alpha, for a sweep of alphas, and without smoothing.",
       {integer_field("tokens", "", "Rows of X (tokens)", 64, 8, 512),
        integer_field("channels", "", "Input channels (columns of X, rows of W)", 128, 16, 1024),
        integer_field("out_features", "", "Output channels (columns of W)", 128, 16, 1024),
        integer_field("outlier_channels", "", "Columns of X that are outlier features", 4, 0, 64),
        number_field("outlier_scale", "", "Standard deviation of the outlier columns (others: 1)", 30.0, 1.0, 1000.0),
        integer_field("bits", "bit", "Bits of activations and weights", 8, 4, 8),
        number_field("alpha", "", "Migration strength α", 0.5, 0.0, 1.0),
        integer_field("points", "", "Alphas of the sweep, evenly from 0 to 1", 11, 2, 41),
        integer_field("seed", "", "Seed of X and W", 1, 0, 4294967295LL)},
       [](const Inputs& in) -> json {
         SmoothQuantSetup st;
         st.tokens = in.integer("tokens");
         st.channels = in.integer("channels");
         st.out_features = in.integer("out_features");
         st.outlier_channels = in.integer("outlier_channels");
         st.outlier_scale = in.num("outlier_scale");
         st.bits = static_cast<int>(in.integer("bits"));
         st.seed = static_cast<std::uint64_t>(in.integer("seed"));
         if (st.outlier_channels > st.channels)
           throw InputError("outlier_channels", "outlier_channels must not exceed channels.");
         const long long n = in.integer("points");
         std::vector<double> alphas;
         for (long long i = 0; i < n; ++i) alphas.push_back(static_cast<double>(i) / static_cast<double>(n - 1));
         alphas.push_back(in.num("alpha"));
         if (smoothquant_work(st, alphas.size()) > kMaxSmoothQuantMacs)
           throw InputError("tokens", "tokens × channels × out_features × (points + 3) is over the 3e7 multiply-adds "
                                      "one call may execute; make the matrices smaller or use fewer points.");
         const SmoothQuantResult r = smoothquant(st, alphas);
         auto ej = [](const SmoothQuantErrors& e) -> json {
           return {{"activation_rel_mse", e.activation_rel_mse},
                   {"weight_rel_mse", e.weight_rel_mse},
                   {"output_rel_mse", e.output_rel_mse},
                   {"activation_channel_spread", e.activation_channel_spread},
                   {"weight_channel_spread", e.weight_channel_spread}};
         };
         json pts = json::array();
         std::size_t best = 0;
         for (std::size_t i = 0; i + 1 < r.sweep.size(); ++i) {
           json j = ej(r.sweep[i]);
           j["alpha"] = r.alphas[i];
           pts.push_back(j);
           if (r.sweep[i].output_rel_mse < r.sweep[best].output_rel_mse) best = i;
         }
         return {{"alpha", in.num("alpha")}, {"smoothed", ej(r.sweep.back())}, {"baseline", ej(r.baseline)},
                 {"points", pts},            {"best_alpha", r.alphas[best]},  {"best_output_rel_mse", r.sweep[best].output_rel_mse}};
       }});

  // --- quantization-speedup ------------------------------------------------------------------
  out.push_back(
      {"quantization-speedup",
       "Roofline time of the linear layers for one decode step (decode_batch tokens) and one prefill or training "
       "step (prefill_tokens tokens) under bf16, weight-only int8/int4 and W8A8 int8/fp8; speedup over bf16.",
       {hardware_field(true), number_field("params", "", "Parameters in the linear layers", 8e9, 1e6, 1e13),
        integer_field("decode_batch", "", "Sequences decoded together (tokens per decode step)", 1, 1, 4096),
        integer_field("prefill_tokens", "", "Tokens per prefill or training step", 4096, 1, 1048576),
        integer_field("group_size", "", "Group size of the int4 weights (one fp16 scale per group)", 128, 8, 4096),
        optional(number_field("bandwidth_Bps", "B/s", "Overrides the chip's HBM bandwidth", json(), 0.0, 1e16, true))},
       [](const Inputs& in) -> json {
         const Accelerator* hw = find_accelerator(in.str("hardware"));
         if (!hw) throw InputError("hardware", "Unknown hardware '" + in.str("hardware") + "'.");
         std::optional<double> bw;
         if (in.has("bandwidth_Bps")) bw = in.num("bandwidth_Bps");
         const double p = in.num("params"), g = static_cast<double>(in.integer("group_size"));
         const auto dec = phase_costs(*hw, p, static_cast<double>(in.integer("decode_batch")), g, bw);
         const auto pre = phase_costs(*hw, p, static_cast<double>(in.integer("prefill_tokens")), g, bw);
         json schemes = json::array();
         for (std::size_t i = 0; i < dec.size(); ++i) {
           json s = {{"scheme", dec[i].scheme},
                     {"weight_format", dec[i].weight_format},
                     {"math_dtype", dec[i].math_dtype},
                     {"bits_per_weight", dec[i].bits_per_weight},
                     {"weight_bytes", p * dec[i].bits_per_weight / 8},
                     {"available", dec[i].available}};
           if (dec[i].available) {
             s["decode_time_s"] = dec[i].time_s;
             s["decode_bound"] = dec[i].bound;
             s["decode_speedup"] = dec[i].speedup;
             s["prefill_time_s"] = pre[i].time_s;
             s["prefill_bound"] = pre[i].bound;
             s["prefill_speedup"] = pre[i].speedup;
           }
           schemes.push_back(s);
         }
         return {{"hardware", hw->id}, {"schemes", schemes}};
       }});
}

}  // namespace mlsys::api

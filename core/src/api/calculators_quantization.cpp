// Calculators of the quantization lesson: `quantize` (shared/API.md: closed form over a range,
// or measured on seeded data), `quantizer-staircase`, `quantization-mse-vs-bits`,
// `clip-search`, `smoothquant` and `quantization-speedup`. Models in core/*/quantization/.
#include <algorithm>

#include "mlsys/hardware/accelerator.hpp"
#include "mlsys/quantization/block_formats.hpp"
#include "mlsys/quantization/kv_quant.hpp"
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

double dbl_of(const Inputs& in, const char* name) { return static_cast<double>(in.integer(name)); }

json opt(bool with_defaults, json value) { return with_defaults ? value : json(); }

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
      seed_field(d.seed),
      boolean_field("symmetric", desc("Symmetric quantizer (zero point 0) or asymmetric (with zero point)", "true"),
                    d.symmetric),
      number_field("outlier_fraction", "",
                   desc("Fraction of rows that are outlier channels (gaussian-outliers)", "0.02"),
                   opt(with_defaults, d.outlier_fraction), 0.0, 1.0),
      number_field("outlier_scale", "", desc("Magnitude of the outlier channels relative to the others", "20"),
                   opt(with_defaults, d.outlier_scale), 1.0, 1000.0),
  };
  if (!with_defaults) {
    f[5].default_value = f[6].default_value = json();  // seed, symmetric
    f[5].description = desc(f[5].description, "1");
  }
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
  check_group_size(s, cols);
  return {sample_matrix(parse_distribution(dist), samples, cols,
                        static_cast<std::uint64_t>(value_or<long long>(in, "seed", d.seed)),
                        value_or<double>(in, "outlier_fraction", d.outlier_fraction),
                        value_or<double>(in, "outlier_scale", d.outlier_scale)),
          s};
}

void check_passes(double elements, double passes, const std::string& field) {
  if (elements * passes > kMaxElementPasses)
    throw InputError(field, "This call would quantize " + std::to_string(static_cast<long long>(elements * passes)) +
                                " values; the limit per call is 2e7 (lower samples or the number of points).");
}

// The closed form's optional `value` x: its code, its dequantized value and the error.
struct ClosedValue {
  double q, dequantized, reconstruction_error;  // not "error": the API reserves that key for a rejection
};

struct QuantizeOut {
  std::string form;  // closed or measured
  std::optional<ClosedForm> closed;
  std::optional<ClosedValue> value;
  std::optional<Measured> measured;
  std::optional<MatrixSummary> matrix;
};

QuantizeOut quantize_run(const Inputs& in) {
  const int bits = static_cast<int>(in.integer("bits"));
  const bool closed = in.has("range_min") || in.has("range_max");
  if (closed) {
    for (const char* f : {"granularity", "group_size", "distribution", "clip", "samples", "cols", "seed", "symmetric",
                          "outlier_fraction", "outlier_scale"})
      if (in.has(f))
        throw InputError(f, std::string("Field '") + f +
                                "' belongs to the measured form; the closed form takes only bits, range_min, "
                                "range_max and value. Drop one or the other.");
    if (!in.has("range_min")) throw InputError("range_min", "The closed form needs both range_min and range_max.");
    if (!in.has("range_max")) throw InputError("range_max", "The closed form needs both range_min and range_max.");
    const double lo = in.num("range_min"), hi = in.num("range_max");
    if (!(hi > lo)) throw InputError("range_max", "range_max must be greater than range_min.");
    const ClosedForm c = closed_form(bits, lo, hi);
    std::optional<ClosedValue> v;
    if (in.has("value")) {
      const Quantizer qz{c.scale, c.zero_point, c.qmin, c.qmax};
      const double x = in.num("value"), q = quantize_code(qz, x), x_hat = dequantize(qz, q);
      v = ClosedValue{q, x_hat, x - x_hat};
    }
    return {"closed", c, v, std::nullopt, std::nullopt};
  }
  if (in.has("value"))
    throw InputError("value", "value belongs to the closed form: give range_min and range_max with it.");
  const DataRequest r = read_data(in, DataDefaults{}, bits);
  return {"measured", std::nullopt, std::nullopt, quantize_matrix(r.matrix, r.scheme), summarize(r.matrix)};
}

struct MseVsBitsOut {
  MatrixSummary matrix;
  std::vector<BitsPoint> points;
};

struct ClipPointOut {
  double clip, mse, mse_rounding, mse_clipping, sqnr_db, clipped_fraction;
};
struct ClipSearchOut {
  MatrixSummary matrix;
  std::vector<ClipPointOut> points;
  double best_clip, best_mse, best_mse_rounding, best_mse_clipping, best_zeroed_fraction, best_sqnr_db,
      best_clipped_fraction, mse_no_clip, sqnr_no_clip_db, mse_gain;
};

ClipSearchOut clip_search_out(const MatrixSummary& matrix, const ClipSearch& cs) {
  ClipSearchOut o{matrix, {}, cs.best_clip, cs.best.mse, cs.best.mse_rounding, cs.best.mse_clipping,
                  cs.best.zeroed_fraction, cs.best.sqnr_db, cs.best.clipped_fraction, cs.no_clip.mse,
                  cs.no_clip.sqnr_db, cs.mse_gain};
  for (const auto& p : cs.points)
    o.points.push_back({p.clip, p.measured.mse, p.measured.mse_rounding, p.measured.mse_clipping, p.measured.sqnr_db,
                        p.measured.clipped_fraction});
  return o;
}

// One row of block-formats: a block-scaled float format or an integer scheme beside it.
struct FormatRow {
  std::string format, element;
  long long block;
  double bits_per_value, mse, sqnr_db, zeroed_fraction, max_abs_error;
};
struct BlockFormatsOut {
  MatrixSummary matrix;
  std::vector<FormatRow> formats;
};

FormatRow format_row(std::string name, std::string element, long long block, const Measured& m) {
  return {std::move(name), std::move(element), block, m.bits_per_value, m.mse, m.sqnr_db, m.zeroed_fraction,
          m.max_abs_error};
}

// The MX formats and NVFP4 executed on one matrix, then integer schemes of similar size on it:
// int4 with an fp16 scale per 32 values (4.5 bits, MXFP4's size), per 16 (5 bits), per row.
BlockFormatsOut block_formats_run(const Matrix& m) {
  BlockFormatsOut o{summarize(m), {}};
  for (const auto& f : block_formats()) {
    std::string el(1, 'E');  // built by appends: GCC 12 warns falsely on "E" + std::string
    el += std::to_string(f.element.exponent_bits);
    el += 'M';
    el += std::to_string(f.element.mantissa_bits);
    o.formats.push_back(format_row(f.name, el, f.block, quantize_block_format(m, f)));
  }
  auto int_row = [&](const std::string& name, int bits, Granularity g, long long block) {
    Scheme s;
    s.bits = bits;
    s.granularity = g;
    s.group_size = block;
    std::string el = "int";
    el += std::to_string(bits);
    o.formats.push_back(format_row(name, el, g == Granularity::Channel ? m.cols : block,
                                   quantize_matrix(m, s)));
  };
  int_row("int4-g32", 4, Granularity::Group, 32);
  int_row("int4-g16", 4, Granularity::Group, 16);
  int_row("int4-channel", 4, Granularity::Channel, 0);
  int_row("int8-channel", 8, Granularity::Channel, 0);
  return o;
}

}  // namespace

MLSYS_DESCRIBE(FormatRow,
               MLSYS_OUT(format, "", "mxfp8, mxfp6-e2m3, mxfp6-e3m2, mxfp4, nvfp4, or an integer scheme beside them"),
               MLSYS_OUT(element, "", "Element type: EeMm float or intb"),
               MLSYS_OUT(block, "", "Values sharing one scale"),
               MLSYS_OUT(bits_per_value, "bit", "Element bits plus the scales spread over the values"),
               MLSYS_OUT(mse, "", "Measured mean (x − x̂)²"), MLSYS_OUT(sqnr_db, "dB", "10·log10(mean x² / mse)"),
               MLSYS_OUT(zeroed_fraction, "", "Share of values x ≠ 0 that dequantize to 0"),
               MLSYS_OUT(max_abs_error, "", "Largest |x − x̂|"));
MLSYS_DESCRIBE(BlockFormatsOut, MLSYS_FLAT(matrix), MLSYS_OUT(formats, "", "One row per format"));
MLSYS_DESCRIBE(KvFormatCost, MLSYS_OUT(format, "", "bf16, fp8, int8 or int4"),
               MLSYS_OUT(bits_per_value, "bit", "Bits per cached value, scales and zero points included"),
               MLSYS_OUT(bytes_per_token, "B", "2 · layers · kv_heads · head_dim · bits / 8"),
               MLSYS_OUT(kv_bytes, "B", "batch · context · bytes_per_token"),
               MLSYS_OUT(decode_time_s, "s", "Roofline time of one decode step of the batch"),
               MLSYS_OUT(decode_bound, "", "compute or memory"),
               MLSYS_OUT(decode_speedup, "", "bf16 KV time / time"),
               MLSYS_OUT(kv_share, "", "KV bytes ÷ all bytes the step reads"),
               MLSYS_OUT(max_sequences, "", "Sequences of context tokens that fit beside the weights"),
               MLSYS_OUT(capacity_gain, "", "max_sequences ÷ bf16's (0 when bf16 fits none)"));
struct KvQuantOut {
  std::string hardware;
  double weight_bytes;
  std::vector<KvFormatCost> formats;
};
MLSYS_DESCRIBE(KvQuantOut, MLSYS_OUT(hardware, "", "Accelerator id"),
               MLSYS_OUT(weight_bytes, "B", "params · weight_bits / 8"),
               MLSYS_OUT(formats, "", "One entry per KV format, bf16 first"));

MLSYS_DESCRIBE(ClosedForm, MLSYS_OUT(step, "", "Step Δ = (range_max − range_min) / (2^b − 1), the range first widened to hold 0"),
               MLSYS_OUT(max_error, "", "Worst rounding error inside the range: Δ/2"),
               MLSYS_OUT(mse_uniform, "", "Mean-squared error of values spread uniformly: Δ²/12"),
               MLSYS_OUT(scale, "", "Scale s of x ≈ s·(q − z)"), MLSYS_OUT(zero_point, "", "Zero point z"),
               MLSYS_OUT(qmin, "", "Lowest code"), MLSYS_OUT(qmax, "", "Highest code"),
               MLSYS_OUT(levels, "", "Codes: 2^b"));
MLSYS_DESCRIBE(Measured, MLSYS_OUT(mse, "", "Mean (x − x̂)² over all elements"),
               MLSYS_OUT(sqnr_db, "dB", "10·log10(signal_power / mse)"),
               MLSYS_OUT(scale_overhead_bytes, "B", "Scales (and zero points) stored: 2 bytes each per block"),
               MLSYS_OUT(mse_predicted, "", "Rounding-noise model: mean of each block's Δ²/12"),
               MLSYS_OUT(mse_rounding, "", "Part of mse from elements inside the clipped range"),
               MLSYS_OUT(mse_clipping, "", "Part of mse from elements clipped"),
               MLSYS_OUT(signal_power, "", "Mean x²"), MLSYS_OUT(max_abs_error, "", "Largest |x − x̂|"),
               MLSYS_OUT(clipped_fraction, "", "Share of elements outside the clipped range"),
               MLSYS_OUT(zeroed_fraction, "", "Share of elements x ≠ 0 that dequantize to 0 (below Δ/2 of their block)"),
               MLSYS_OUT(mse_zeroed, "", "Part of mse from the elements rounded to 0 (their own x²)"),
               MLSYS_OUT(mse_ordinary, "", "Mean (x − x̂)² over the ordinary rows only (all but the outlier channels)"),
               MLSYS_OUT(sqnr_ordinary_db, "dB", "SQNR of the ordinary rows only"),
               MLSYS_OUT(blocks, "", "Blocks with their own scale"),
               MLSYS_OUT(payload_bytes, "B", "elements · bits / 8"),
               MLSYS_OUT(bits_per_value, "bit", "(payload + overhead) · 8 / elements"));
MLSYS_DESCRIBE(MatrixSummary, MLSYS_OUT(rows, "", "Rows of the generated matrix"),
               MLSYS_OUT(cols, "", "Columns of the generated matrix"), MLSYS_OUT(elements, "", "rows · cols"),
               MLSYS_OUT(outlier_rows, "", "Rows scaled as outlier channels"),
               MLSYS_OUT(max_abs, "", "Largest |x| of the matrix"));
MLSYS_DESCRIBE(ClosedValue, MLSYS_OUT(q, "", "Closed form with value: integer code q = clamp(round(x/s) + z, qmin, qmax), ties to even"),
               MLSYS_OUT(dequantized, "", "Closed form with value: x̂ = s·(q − z)"),
               MLSYS_OUT(reconstruction_error, "", "Closed form with value: x − x̂"));
MLSYS_DESCRIBE(QuantizeOut, MLSYS_OUT(form, "", "closed or measured: the form the inputs selected"),
               MLSYS_FLAT(closed), MLSYS_FLAT(value), MLSYS_FLAT(measured), MLSYS_FLAT(matrix));
MLSYS_DESCRIBE(Staircase, MLSYS_OUT(scale, "", "Scale s: the step Δ"), MLSYS_OUT(step, "", "Step Δ (= scale)"),
               MLSYS_OUT(zero_point, "", "Zero point z"), MLSYS_OUT(qmin, "", "Lowest code"),
               MLSYS_OUT(qmax, "", "Highest code"), MLSYS_OUT(max_error, "", "Worst rounding error in range: Δ/2"),
               MLSYS_OUT(max_abs_error_in_range, "", "Largest |x̂ − x| over the grid points inside the range"),
               MLSYS_OUT(range_lo, "", "Low end of the quantized range"),
               MLSYS_OUT(range_hi, "", "High end of the quantized range"),
               MLSYS_OUT(representable_min, "", "Dequantized qmin"), MLSYS_OUT(representable_max, "", "Dequantized qmax"),
               MLSYS_OUT(x, "", "Grid of inputs"), MLSYS_OUT(q, "", "Integer code of each x"),
               MLSYS_OUT(x_hat, "", "Dequantized value of each x"),
               MLSYS_OUT(quantization_error, "", "x̂ − x at each x"),
               MLSYS_OUT(value_code, "", "Code of `value`"), MLSYS_OUT(value_dequantized, "", "Dequantized `value`"),
               MLSYS_OUT(value_error, "", "Dequantized `value` − `value`"));
MLSYS_DESCRIBE(BitsPoint, MLSYS_FLAT(measured), MLSYS_OUT(bits, "bit", "Bits per quantized value"),
               MLSYS_OUT(ratio_to_model, "", "mse / mse_predicted"),
               MLSYS_OUT(step_rms, "", "√(12 · mse_predicted): the step Δ (RMS over blocks), in units of the ordinary values' σ = 1"));
MLSYS_DESCRIBE(MseVsBitsOut, MLSYS_FLAT(matrix), MLSYS_OUT(points, "", "One point per bit width"));
MLSYS_DESCRIBE(ClipPointOut, MLSYS_OUT(clip, "", "Clip fraction of max |x|"), MLSYS_OUT(mse, "", "Measured mse"),
               MLSYS_OUT(mse_rounding, "", "Rounding part of mse"), MLSYS_OUT(mse_clipping, "", "Clipping part of mse"),
               MLSYS_OUT(sqnr_db, "dB", "10·log10(signal_power / mse)"),
               MLSYS_OUT(clipped_fraction, "", "Share of elements clipped"));
MLSYS_DESCRIBE(ClipSearchOut, MLSYS_FLAT(matrix), MLSYS_OUT(points, "", "The grid from clip_min to 1"),
               MLSYS_OUT(best_clip, "", "Clip fraction with the least mse (grid, then golden section)"),
               MLSYS_OUT(best_mse, "", "mse at best_clip"),
               MLSYS_OUT(best_mse_rounding, "", "Rounding part of best_mse (elements inside the clipped range)"),
               MLSYS_OUT(best_mse_clipping, "", "Clipping part of best_mse (elements cut off)"),
               MLSYS_OUT(best_zeroed_fraction, "", "Share of elements x ≠ 0 rounded to 0 at best_clip"), MLSYS_OUT(best_sqnr_db, "dB", "SQNR at best_clip"),
               MLSYS_OUT(best_clipped_fraction, "", "Share of elements clipped at best_clip"),
               MLSYS_OUT(mse_no_clip, "", "mse without clipping (clip 1)"),
               MLSYS_OUT(sqnr_no_clip_db, "dB", "SQNR without clipping"),
               MLSYS_OUT(mse_gain, "", "mse_no_clip / best_mse"));
MLSYS_DESCRIBE(SmoothQuantErrors, MLSYS_OUT(activation_rel_mse, "", "‖Q(X') − X'‖² / ‖X'‖²"),
               MLSYS_OUT(weight_rel_mse, "", "‖Q(W') − W'‖² / ‖W'‖²"),
               MLSYS_OUT(output_rel_mse, "", "‖Q(X')·Q(W') − X·W‖² / ‖X·W‖²"),
               MLSYS_OUT(activation_channel_spread, "", "Largest channel max |X'_j| over their median"),
               MLSYS_OUT(weight_channel_spread, "", "The same for the rows of W'"));
MLSYS_DESCRIBE(SmoothQuantPoint, MLSYS_FLAT(errors), MLSYS_OUT(alpha, "", "Migration strength α"));
MLSYS_DESCRIBE(SmoothQuantSweep, MLSYS_OUT(alpha, "", "The chosen migration strength α"),
               MLSYS_OUT(smoothed, "", "Errors at alpha"), MLSYS_OUT(baseline, "", "Errors without smoothing"),
               MLSYS_OUT(points, "", "Errors at each alpha of the sweep"),
               MLSYS_OUT(best_alpha, "", "Sweep alpha with the least output error"),
               MLSYS_OUT(best_output_rel_mse, "", "Output error at best_alpha"));
MLSYS_DESCRIBE(SchemeSpeedup, MLSYS_OUT(scheme, "", "bf16, w8a16, w4a16, w8a8-int8 or w8a8-fp8"),
               MLSYS_OUT(weight_format, "", "What the weights are stored in"),
               MLSYS_OUT(math_dtype, "", "Tensor-core format of the matmuls"),
               MLSYS_OUT(bits_per_weight, "bit", "Storage per weight, scales included"),
               MLSYS_OUT(weight_bytes, "B", "params · bits_per_weight / 8"),
               MLSYS_OUT(available, "", "Whether the chip has a peak for math_dtype"),
               MLSYS_OUT(decode_time_s, "s", "Roofline time of one decode step"),
               MLSYS_OUT(decode_bound, "", "compute or memory"), MLSYS_OUT(decode_speedup, "", "bf16 time / time"),
               MLSYS_OUT(prefill_time_s, "s", "Roofline time of one prefill step"),
               MLSYS_OUT(prefill_bound, "", "compute or memory"), MLSYS_OUT(prefill_speedup, "", "bf16 time / time"));
MLSYS_DESCRIBE(QuantizationSpeedup, MLSYS_OUT(hardware, "", "Accelerator id"),
               MLSYS_OUT(schemes, "", "One entry per quantization scheme"));

void add_quantization_calculators(Calculators& out) {
  // --- quantize (API.md) -------------------------------------------------------------------
  std::vector<Field> qf = {
      integer_field("bits", "bit", "Bits per quantized value", 8, 2, 16),
      number_field("range_min", "", "Closed form: the lowest value of the range", json(), -1e30, 1e30),
      number_field("range_max", "", "Closed form: the highest value of the range", json(), -1e30, 1e30),
      number_field("value", "", "Closed form, optional: one real number x to quantize", json(), -1e30, 1e30),
  };
  for (auto& x : data_fields(false, DataDefaults{}, true, kMaxSamples)) qf.push_back(std::move(x));
  for (auto& x : qf) x.required = false;  // null defaults: absent fields select the form and take its defaults
  out.add("quantize",
          "Uniform b-bit quantization, rounding half to even (codes and zero points). Closed form (give range_min and "
          "range_max; a range that excludes 0 is widened to hold it): step Δ = (max − min)/(2^b "
          "− 1), max_error Δ/2, mse_uniform Δ²/12, scale s and zero point z of x ≈ s·(q − z); with value x, "
          "its code q, dequantized x̂ = s·(q − z) and reconstruction_error x − x̂. Measured form (leave them out): "
          "generate a seeded matrix, quantize and dequantize it with one fp16 scale per tensor, row or group, and report "
          "mse, sqnr_db and scale_overhead_bytes.",
          qf, quantize_run);

  out.add("quantizer-staircase",
          "The transfer curve of one b-bit quantizer over a grid of x: integer code q (round half to even), dequantized "
          "value and error. An asymmetric range that excludes 0 is widened to hold it (range_lo, range_hi).",
          {integer_field("bits", "bit", "Bits per quantized value", 3, 2, 8),
           number_field("range_min", "", "Lowest value of the calibrated range", -1.0, -1e6, 1e6),
           number_field("range_max", "", "Highest value of the calibrated range", 1.0, -1e6, 1e6),
           boolean_field("symmetric", "Symmetric quantizer over [-max|range|, max|range|] with zero point 0", false),
           integer_field("points", "", "Points of the x grid", 401, 11, 2001),
           number_field("margin", "", "The grid extends this fraction of the range beyond each end", 0.25, 0.0, 1.0),
           optional(number_field("value", "", "Optional: one value to quantize (its code, dequantized value and error)",
                                 json(), -1e6, 1e6))},
          [](const Inputs& in) {
            return quantizer_staircase(static_cast<int>(in.integer("bits")), in.num("range_min"), in.num("range_max"),
                                       in.boolean("symmetric"), in.integer("points"), in.num("margin"),
                                       in.has("value") ? std::optional(in.num("value")) : std::nullopt);
          });

  DataDefaults bits_d;
  bits_d.distribution = "uniform";
  std::vector<Field> bf = data_fields(true, bits_d, true, 262144);
  bf.push_back(integer_field("bits_min", "bit", "Fewest bits of the sweep", 2, 2, 16));
  bf.push_back(integer_field("bits_max", "bit", "Most bits of the sweep", 16, 2, 16));
  out.add("quantization-mse-vs-bits",
          "Measured MSE and SQNR of quantize→dequantize on one seeded matrix for each bit width, beside "
          "the rounding-noise model Δ²/12 (averaged over the blocks' steps).",
          bf, [bits_d](const Inputs& in) {
            const int b0 = static_cast<int>(in.integer("bits_min")), b1 = static_cast<int>(in.integer("bits_max"));
            if (b1 < b0) throw InputError("bits_max", "bits_max must be at least bits_min.");
            check_passes(static_cast<double>(in.integer("samples")), b1 - b0 + 1, "samples");
            const DataRequest r = read_data(in, bits_d, b0);
            return MseVsBitsOut{summarize(r.matrix), mse_vs_bits(r.matrix, r.scheme, b0, b1)};
          });

  DataDefaults clip_d;
  clip_d.distribution = "gaussian-outliers";
  clip_d.samples = 16384;
  clip_d.outlier_fraction = 0.01;
  clip_d.outlier_scale = 5;
  std::vector<Field> cf = data_fields(true, clip_d, false, 262144);
  cf.insert(cf.begin(), integer_field("bits", "bit", "Bits per quantized value", 4, 2, 16));
  cf.push_back(number_field("clip_min", "", "Smallest clip fraction of the grid", 0.05, 0.0, 0.99, true));
  cf.push_back(integer_field("points", "", "Clip fractions on the grid from clip_min to 1", 40, 2, 200));
  out.add("clip-search",
          "Clipping trade-off: measured MSE (rounding part and clipping part) against the clip fraction "
          "of max |x|, and the clip with the least MSE (grid search, then golden-section refinement).",
          cf, [clip_d](const Inputs& in) {
            const long long points = in.integer("points");
            check_passes(static_cast<double>(in.integer("samples")), static_cast<double>(points + 42), "samples");
            const DataRequest r = read_data(in, clip_d, static_cast<int>(in.integer("bits")));
            return clip_search_out(summarize(r.matrix),
                                   clip_search(r.matrix, r.scheme, in.num("clip_min"), static_cast<int>(points)));
          });

  out.add("smoothquant",
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
           seed_field()},
          [](const Inputs& in) {
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
            const std::vector<double> alphas = smoothquant_alphas(in.integer("points"), in.num("alpha"));
            if (smoothquant_work(st, alphas.size()) > kMaxSmoothQuantMacs)
              throw InputError("tokens", "tokens × channels × out_features × (points + 3) is over the 3e7 "
                                         "multiply-adds one call may execute; make the matrices smaller or use fewer "
                                         "points.");
            return smoothquant_sweep(st, alphas);
          });

  DataDefaults blk_d;
  blk_d.distribution = "gaussian-outliers";
  blk_d.cols = 512;
  blk_d.outlier_fraction = 0.03125;
  std::vector<Field> kf = data_fields(true, blk_d, false, 262144);
  kf.erase(kf.begin(), kf.begin() + 2);  // granularity and group_size: each format sets its own blocks
  kf.erase(std::remove_if(kf.begin(), kf.end(), [](const Field& f) { return f.name == "symmetric"; }), kf.end());
  out.add("block-formats",
          "Block-scaled float formats executed on one seeded matrix: MXFP8, MXFP6 (E2M3, E3M2) and MXFP4 (blocks of 32 "
          "along a row, one E8M0 power-of-two scale: + 8/32 bit per value; OCP MX v1.0) and NVFP4 (E2M1 in blocks of 16, "
          "one E4M3 scale each and one fp32 scale per tensor), beside int4 with fp16 scales per 32, per 16 and per row "
          "and int8 per row: bits per value, measured MSE and SQNR.",
          kf, [blk_d](const Inputs& in) {
            const long long cols = in.integer("cols");
            if (cols % 32 != 0) throw InputError("cols", "cols must be a multiple of 32, the MX block.");
            check_passes(static_cast<double>(in.integer("samples")), 9, "samples");
            return block_formats_run(read_data(in, blk_d, 4).matrix);
          });

  out.add("kv-quantization",
          "KV-cache formats (bf16; fp8 with a per-tensor scale; int8 with an fp16 scale per token and head; int4 with "
          "an fp16 scale and zero point per group) priced with the serving models: bytes per token 2 · layers · "
          "kv_heads · head_dim · bits / 8, the roofline time of one decode step of `batch` sequences of `context` "
          "tokens (weights + batch · context · KV bytes per token read; matmuls and attention at the bf16 peak), and "
          "how many such sequences fit beside the weights in memory_fraction of HBM.",
          {integer_field("layers", "", "Transformer layers", 32, 1, 1024),
           integer_field("heads", "", "Query heads (attention FLOPs)", 32, 1, 1024),
           integer_field("kv_heads", "",
                         "Key/value heads (grouped-query: fewer than the query heads); default 8 while heads keeps "
                         "its default, else heads",
                         8, 1, 1024),
           integer_field("head_dim", "", "Size of one head", 128, 8, 1024),
           number_field("params", "", "Weights multiplied and read per decode step", 8e9, 1e6, 1e13),
           number_field("weight_bits", "bit", "Bits per weight as stored (16: bf16; 4.125: int4 in groups of 128)", 16.0,
                        2.0, 32.0),
           integer_field("batch", "", "Sequences decoded together", 16, 1, 4096),
           integer_field("context", "tokens", "Tokens cached per sequence", 32768, 1, 1048576),
           integer_field("group_size", "", "Values per int4 group (one fp16 scale and zero point each)", 64, 8, 4096),
           hardware_field(true),
           number_field("memory_fraction", "", "Share of HBM for weights and KV cache", 0.9, 0.05, 1.0),
           optional(number_field("bandwidth_Bps", "B/s", "Overrides the chip's HBM bandwidth", json(), 0.0, 1e16, true))},
          [](const Inputs& in) {
            const Accelerator* hw = find_accelerator(in.str("hardware"));
            if (!hw) throw InputError("hardware", "Unknown hardware '" + in.str("hardware") + "'.");
            const auto bf16 = hw->peak_flops.find("bf16");
            if (bf16 == hw->peak_flops.end())
              throw InputError("hardware", hw->name + " publishes no bf16 peak, which the decode step runs at.");
            KvQuantSetup s;
            s.layers = dbl_of(in, "layers");
            s.heads = dbl_of(in, "heads");
            s.kv_heads = following_field(in, "kv_heads", {"heads"}).value_or(s.heads);
            if (s.kv_heads > s.heads) throw InputError("kv_heads", "kv_heads must not exceed heads.");
            s.head_dim = dbl_of(in, "head_dim");
            s.params = in.num("params");
            s.weight_bits = in.num("weight_bits");
            s.batch = dbl_of(in, "batch");
            s.context = dbl_of(in, "context");
            s.group_size = dbl_of(in, "group_size");
            s.hbm_bytes = hw->hbm_bytes;
            s.memory_fraction = in.num("memory_fraction");
            s.peak_flops = bf16->second;
            s.bandwidth_Bps = in.has("bandwidth_Bps") ? in.num("bandwidth_Bps") : hw->hbm_bandwidth_Bps;
            return KvQuantOut{hw->id, s.params * s.weight_bits / 8, kv_quantization(s)};
          });

  out.add("quantization-speedup",
          "Roofline time of the linear layers for one decode step (decode_batch tokens) and one prefill or training "
          "step (prefill_tokens tokens) under bf16, weight-only int8/int4 and W8A8 int8/fp8; speedup over bf16.",
          {hardware_field(true), number_field("params", "", "Parameters in the linear layers", 8e9, 1e6, 1e13),
           integer_field("decode_batch", "", "Sequences decoded together (tokens per decode step)", 1, 1, 4096),
           integer_field("prefill_tokens", "", "Tokens per prefill or training step", 4096, 1, 1048576),
           integer_field("group_size", "", "Group size of the int4 weights (one fp16 scale per group)", 128, 8, 4096),
           optional(number_field("bandwidth_Bps", "B/s", "Overrides the chip's HBM bandwidth", json(), 0.0, 1e16, true))},
          [](const Inputs& in) {
            const Accelerator* hw = find_accelerator(in.str("hardware"));
            if (!hw) throw InputError("hardware", "Unknown hardware '" + in.str("hardware") + "'.");
            return quantization_speedup(*hw, in.num("params"), static_cast<double>(in.integer("decode_batch")),
                                        static_cast<double>(in.integer("prefill_tokens")),
                                        static_cast<double>(in.integer("group_size")),
                                        in.has("bandwidth_Bps") ? std::optional(in.num("bandwidth_Bps")) : std::nullopt);
          });
}

}  // namespace mlsys::api

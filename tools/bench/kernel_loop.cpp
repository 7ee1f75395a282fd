// Times the executed kernels themselves, with no JSON around them, for the WASM-vs-native
// comparison: this file is compiled natively and to WASM (tools/bench/run.mjs runs both).
// Each kernel runs on the inputs its calculator builds by default (seeded), repeatedly for
// at least SECONDS. Usage: mlsys_kernel_bench [SECONDS] ->
//   [{"label", "per_call_s", "calls", "checksum"}, ...]   (checksums must agree across builds)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "mlsys/kernels/attention_naive.hpp"
#include "mlsys/kernels/flash_attention.hpp"
#include "mlsys/kernels/online_softmax.hpp"
#include "mlsys/kernels/split_kv.hpp"
#include "mlsys/kernels/tiled_matmul.hpp"

namespace {

using namespace mlsys;

struct Kernel {
  std::string label;
  std::function<double()> run;  // returns a checksum of the output
};

double sum(const std::vector<float>& v) {
  double s = 0;
  for (float x : v) s += x;
  return s;
}

Kernel matmul(int size) {
  auto a = seeded_matrix(size, size, 2), b = seeded_matrix(size, size, 3);
  return {"tiled matmul " + std::to_string(size) + "³ fp32 (32×32×32 tiles) + naive reference", [=] {
            return sum(tiled_matmul(a, b, size, size, size, 32, 32, 32).c) + sum(naive_matmul(a, b, size, size, size).c);
          }};
}

Kernel flash(int n, int d, bool causal) {
  const auto in = make_attention_inputs(n, d, 1);
  const long long sram = 196608 / 2;  // the calculator's default: 192 KiB of bf16 elements
  return {"FlashAttention forward N=" + std::to_string(n) + " d=" + std::to_string(d) + (causal ? " causal" : "") +
              " + naive reference",
          [=] { return sum(flash_attention_forward(in, sram, causal, false).o) + sum(attention_naive(in, causal).o); }};
}

Kernel softmax(int n, int block) {
  const auto scores = make_scores(n, "random", 4.0f, 1), values = make_values(n, 1);
  return {"online softmax, " + std::to_string(n) + " scores in blocks of " + std::to_string(block),
          [=] { return static_cast<double>(online_softmax(scores, values, block).output); }};
}

Kernel split_kv(int n, int d, int splits) {
  const auto in = make_attention_inputs(n, d, 1);
  const std::vector<float> q(in.q.begin(), in.q.begin() + d);
  return {"split-KV decoding, " + std::to_string(n) + " keys, d=" + std::to_string(d) + ", " + std::to_string(splits) +
              " splits + merge",
          [=] { return sum(split_kv_attention(q, in.k, in.v, n, d, splits).merged); }};
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 0.3;
  const std::vector<Kernel> kernels = {matmul(256), matmul(128), flash(128, 64, false), flash(256, 16, true),
                                       softmax(4096, 16), split_kv(8192, 128, 16)};
  std::printf("[");
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const auto& k = kernels[i];
    double checksum = k.run();  // warm-up
    long calls = 0;
    const auto start = std::chrono::steady_clock::now();
    double elapsed = 0;
    do {
      checksum = k.run();
      ++calls;
      elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    } while (elapsed < seconds);
    std::printf("%s\n{\"label\": \"%s\", \"per_call_s\": %.9g, \"calls\": %ld, \"checksum\": %.17g}", i ? "," : "",
                k.label.c_str(), elapsed / static_cast<double>(calls), calls, checksum);
  }
  std::printf("]\n");
  return 0;
}

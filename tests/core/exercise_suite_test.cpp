// One suite for every exercise generator, driven by exercise_ids(): a new generator is tested
// by being registered. Over 100 seeds each it checks what a reader relies on: the answer is
// accepted as they would type it (units, compatible prefixes, percent forms); numbers copied
// from the prompt, near misses and off-by-one counts are rejected; the worked solution ends on
// the answer; "new numbers" gives new numbers; and the answers vary from draw to draw.
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "mlsys/exercises/exercise.hpp"
#include "mlsys/foundations/input_error.hpp"
#include "mlsys/foundations/units.hpp"

namespace {

using mlsys::Exercise;
using mlsys::format_number;

constexpr std::uint32_t kSeeds = 100;

// Seeds 0..kSeeds (one more than the draws, so every seed s < kSeeds has a seed s + 1).
const std::vector<Exercise>& draws(const std::string& id) {
  static std::map<std::string, std::vector<Exercise>> cache;
  auto& v = cache[id];
  if (v.empty())
    for (std::uint32_t s = 0; s <= kSeeds; ++s) v.push_back(mlsys::make_exercise(id, s));
  return v;
}

std::string where(const Exercise& e) { return e.id + " #" + std::to_string(e.seed); }

nlohmann::json verdict(const Exercise& e, const std::string& typed) { return mlsys::check_exercise(e.id, e.seed, typed); }
bool accepted(const Exercise& e, const std::string& typed) { return verdict(e, typed)["correct"].get<bool>(); }

std::string without_commas(std::string s) {
  std::string out;
  for (char c : s)
    if (c != ',') out += c;
  return out;
}

// The answer as a reader types it: a count in full, otherwise four significant digits (what
// the solutions print), or as many more as the exercise's tolerance needs, up to eight.
std::optional<std::string> reader_text(const Exercise& e) {
  if (e.integer) return mlsys::format_int(e.answer);
  for (int sig = 4; sig <= 8; ++sig)
    if (accepted(e, format_number(e.answer, sig))) return format_number(e.answer, sig);
  return std::nullopt;
}

// Another prefix of the answer's unit a reader might answer in (ms for µs, TB for GB), and
// the factor from the answer's unit to it. Empty for units without prefixes (FLOP/B).
struct OtherUnit {
  std::string unit;
  double factor;
};

std::optional<OtherUnit> other_prefix(const std::string& unit, bool& known) {
  known = true;
  if (unit.empty() || unit == "%" || unit == "FLOP/B" || unit == "$") return std::nullopt;
  if (unit == "days") return OtherUnit{"h", 24.0};
  if (unit == "h") return OtherUnit{"min", 60.0};
  // Scales the prompt asks in: the answer in another scale, or the whole quantity.
  if (unit == "billion") return OtherUnit{"M", 1e3};
  if (unit == "million") return OtherUnit{"k", 1e3};
  if (unit == "10^21 FLOP") return OtherUnit{"FLOP", 1e21};
  if (unit == "10\u207B\u2074") return OtherUnit{"", 1e-4};
  static const std::vector<std::string> time = {"n", "\xC2\xB5", "m", ""};
  static const std::vector<std::string> other = {"", "k", "M", "G", "T", "P"};
  for (const std::string base : {"FLOP/s", "B/s", "FLOP", "B", "s"}) {
    if (unit.size() < base.size() || unit.compare(unit.size() - base.size(), base.size(), base) != 0) continue;
    std::string prefix = unit.substr(0, unit.size() - base.size());
    if (prefix == "K") prefix = "k";
    const auto& list = base == "s" ? time : other;
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (list[i] != prefix) continue;
      // One prefix up (a thousand times larger unit), or down from the largest.
      if (i + 1 < list.size()) return OtherUnit{list[i + 1] + base, 1e-3};
      return OtherUnit{list[i - 1] + base, 1e3};
    }
  }
  known = false;
  return std::nullopt;
}

TEST(ExerciseSuite, EveryDrawIsWellFormedAndRepeatable) {
  ASSERT_FALSE(mlsys::exercise_ids().empty());
  for (const auto& id : mlsys::exercise_ids()) {
    for (const Exercise& e : draws(id)) {
      EXPECT_TRUE(std::isfinite(e.answer) && e.answer > 0) << where(e) << " answer " << e.answer;
      EXPECT_TRUE(std::isfinite(e.rel_tolerance) && e.rel_tolerance >= 0 && std::isfinite(e.abs_tolerance) &&
                  e.abs_tolerance >= 0)
          << where(e);
      EXPECT_FALSE(e.title.empty() || e.prompt.empty() || e.hint.empty() || e.solution.empty()) << where(e);
      EXPECT_EQ(mlsys::exercise_json(e), mlsys::exercise_json(mlsys::make_exercise(id, e.seed))) << where(e);
    }
    EXPECT_EQ(mlsys::exercise_json(mlsys::make_exercise(id, 4294967295u)),
              mlsys::exercise_json(mlsys::make_exercise(id, 4294967295u)));
  }
}

TEST(ExerciseSuite, AnswerAcceptedAsAReaderTypesIt) {
  for (const auto& id : mlsys::exercise_ids()) {
    bool known = true;
    const auto other = other_prefix(draws(id)[0].unit, known);
    EXPECT_TRUE(known) << id << ": the suite does not know the unit '" << draws(id)[0].unit
                       << "'; teach other_prefix its prefixes";
    for (std::uint32_t s = 0; s < kSeeds; ++s) {
      const Exercise& e = draws(id)[s];
      const auto text = reader_text(e);
      if (!text) {
        ADD_FAILURE() << where(e) << ": even eight significant digits of " << e.answer << " are rejected";
        continue;
      }
      std::vector<std::string> forms = {*text, without_commas(*text)};
      if (e.unit == "%") {
        forms.push_back(*text + "%");
        forms.push_back(*text + " %");
      } else if (!e.unit.empty()) {
        forms.push_back(*text + " " + e.unit);
        if (!std::isdigit(static_cast<unsigned char>(e.unit[0]))) forms.push_back(*text + e.unit);  // not "11210^21 FLOP"
      }
      if (e.unit == "\xC2\xB5s") {
        forms.push_back(*text + " us");
        forms.push_back(*text + " \xCE\xBCs");  // Greek mu
      }
      if (other) {
        const double v = e.answer * other->factor;
        forms.push_back(format_number(v, 8) + (other->unit.empty() ? "" : " " + other->unit));
      }
      for (const auto& f : forms) EXPECT_TRUE(accepted(e, f)) << where(e) << ": '" << f << "' (answer " << e.answer << ")";
    }
  }
}

TEST(ExerciseSuite, PercentAnswersArePercentPoints) {
  for (const auto& id : mlsys::exercise_ids()) {
    for (std::uint32_t s = 0; s < kSeeds; ++s) {
      const Exercise& e = draws(id)[s];
      const bool asks_percent = e.prompt.find("percent") != std::string::npos;
      EXPECT_EQ(asks_percent, e.unit == "%") << where(e) << ": a question that asks for a percent has the unit %";
      if (e.unit != "%") continue;
      const std::string fraction = format_number(e.answer / 100, 6);
      const auto r = verdict(e, fraction);
      EXPECT_FALSE(r["correct"].get<bool>()) << where(e) << ": the fraction " << fraction << " was accepted";
      EXPECT_NE(r["message"].get<std::string>().find("percent"), std::string::npos) << where(e) << ": " << r["message"];
    }
  }
}

TEST(ExerciseSuite, PromptNumbersAndNearMissesAreRejected) {
  for (const auto& id : mlsys::exercise_ids()) {
    for (std::uint32_t s = 0; s < kSeeds; ++s) {
      const Exercise& e = draws(id)[s];
      for (const auto& p : mlsys::printed_numbers(e.prompt))
        EXPECT_FALSE(accepted(e, p.text)) << where(e) << ": '" << p.text << "' is copied from the prompt and equals the "
                                          << "answer " << e.answer << " within the tolerance";
      for (const double wrong : {e.answer * 1.1, e.answer / 10})
        EXPECT_FALSE(accepted(e, format_number(wrong, 6))) << where(e) << ": " << wrong << " vs answer " << e.answer;
    }
  }
}

TEST(ExerciseSuite, CountsAreWholeAndExact) {
  for (const auto& id : mlsys::exercise_ids()) {
    int whole = 0;
    for (std::uint32_t s = 0; s < kSeeds; ++s) {
      const Exercise& e = draws(id)[s];
      whole += e.answer == std::floor(e.answer);
      if (!e.integer) continue;
      ASSERT_EQ(e.answer, std::floor(e.answer)) << where(e) << ": a count that is not whole";
      EXPECT_TRUE(accepted(e, mlsys::format_int(e.answer))) << where(e);
      for (const double wrong : {e.answer - 1, e.answer + 1})
        EXPECT_FALSE(accepted(e, mlsys::format_int(wrong))) << where(e) << ": " << wrong << " vs " << e.answer;
      EXPECT_FALSE(accepted(e, format_number(e.answer + 0.25, 8))) << where(e) << ": a count is exact";
    }
    // A plain-number answer that is whole in every draw is a count that forgot to say so
    // (it would be checked with a relative tolerance, so 101 might pass for 100).
    if (draws(id)[0].unit.empty() && !draws(id)[0].integer) {
      EXPECT_LT(whole, static_cast<int>(kSeeds)) << id << ": every answer is whole; declare integer = true";
    }
  }
}

TEST(ExerciseSuite, SolutionEndsOnTheAnswer) {
  for (const auto& id : mlsys::exercise_ids()) {
    for (std::uint32_t s = 0; s < kSeeds; ++s) {
      const Exercise& e = draws(id)[s];
      const auto numbers = mlsys::printed_numbers(e.solution);
      ASSERT_FALSE(numbers.empty()) << where(e) << ": " << e.solution;
      EXPECT_TRUE(accepted(e, numbers.back().text))
          << where(e) << ": the solution's last number is " << numbers.back().text << ", the answer " << e.answer
          << "\n  " << e.solution;
    }
  }
}

// What a reader reads: no e-notation in the title, prompt or hint (a solution may add the
// e-notation to type), counts agree with their nouns ("1 sequence"), and "an" goes before a
// number read with a vowel sound ("an 8 GB buffer", "an 11B model").
TEST(ExerciseSuite, PromptsReadAsEnglish) {
  const std::regex e_notation(R"(\d[eE][-+]?\d)");
  const std::regex one_plural(R"((^|[^\d.,])1 (sequences|bytes|GPUs|tokens|layers|heads|nodes|steps|blocks)\b)");
  const std::regex a_vowel_number(R"(\b[Aa] (8|11|18)[\d,.]*\b)");
  for (const auto& id : mlsys::exercise_ids()) {
    for (std::uint32_t s = 0; s < kSeeds; ++s) {
      const Exercise& e = draws(id)[s];
      for (const std::string* text : {&e.title, &e.prompt, &e.hint}) {
        std::smatch m;
        EXPECT_FALSE(std::regex_search(*text, m, e_notation)) << where(e) << ": e-notation " << m.str() << " in " << *text;
        for (std::sregex_iterator it(text->begin(), text->end(), one_plural), end; it != end; ++it) {
          // "k + 1 tokens" counts k + 1 things: only a bare 1 needs the singular. The last byte of
          // the character before it: + - * / or the UTF-8 ends of −, × and ·.
          const std::string before = text->substr(0, static_cast<std::size_t>(it->position()) + it->str(1).size());
          const auto last = before.find_last_not_of(' ');
          const bool operand = last != std::string::npos && std::string("+-*/\x92\x97\xB7").find(before[last]) != std::string::npos;
          EXPECT_TRUE(operand) << where(e) << ": '" << it->str() << "' in " << *text;
        }
        if (std::regex_search(*text, m, a_vowel_number)) {
          const std::string n = m.str().substr(2);
          std::size_t digits = 0;
          for (char c : n) {  // of the integer part
            if (c == '.') break;
            digits += std::isdigit(static_cast<unsigned char>(c)) ? 1 : 0;
          }
          const bool an = n[0] == '8' || digits % 3 == 2;  // eight..., eleven, eighteen (thousand)
          EXPECT_FALSE(an) << where(e) << ": '" << m.str() << "' needs 'an' in " << *text;
        }
      }
    }
  }
}

TEST(ExerciseSuite, NewNumbersChangeThePrompt) {
  for (const auto& id : mlsys::exercise_ids()) {
    int changed = 0;
    for (std::uint32_t s = 0; s < kSeeds; ++s) changed += draws(id)[s].prompt != draws(id)[s + 1].prompt;
    EXPECT_GE(changed, 90) << id << ": seeds s and s + 1 give the same prompt for " << kSeeds - changed << " seeds";
  }
}

// The distinct prompts a generator's parameter space holds, where it is small: counted over
// seeds 1–20,000 (a parameter space drawn that often is seen whole). A generator not listed
// draws from a space of more than 5,000 prompts. Redraw-heavy or uneven draws shrink what 200
// seeds show; a generator whose space changes is counted again (mlsys exercise ID SEED over
// many seeds) and its row updated.
const std::map<std::string, int>& prompt_space() {
  static const std::map<std::string, int> space = {
      {"attention-backward-saving", 998}, {"attention-flash-passes", 222}, {"attention-split-count", 186},
      {"attention-standard-hbm", 288}, {"ca-break-even-price", 702}, {"ca-decode-tokens-per-joule", 841},
      {"ca-fewest-chips", 308}, {"ca-ridge-point", 21}, {"ca-step-roofline", 2425},
      {"collectives-alltoall-nodes", 174}, {"collectives-crossover", 36}, {"collectives-hierarchical", 140},
      {"collectives-ring-allreduce-time", 335}, {"collectives-ring-bytes", 36}, {"dp-fsdp-tokens", 544},
      {"dp-global-batch", 613}, {"dp-pipelined-allreduce", 141}, {"dp-scaling-efficiency", 340}, {"dp-zero-memory", 122},
      {"dp-zero3-communication", 76}, {"elementwise-time", 90}, {"embedding-params-share", 119},
      {"embedding-table-bytes", 294}, {"ev-min-detectable", 735}, {"ev-paired-se", 2774},
      {"ev-questions-needed", 72}, {"ev-wilson-low", 71}, {"fd-cross-document", 120},
      {"fd-pack-efficiency", 2298}, {"fd-sqrt-lr", 1676}, {"fd-workers-needed", 858},
      {"finite-difference-error", 3183}, {"fl-adapter-params", 630},
      {"fl-qlora-base", 26}, {"fl-rank-error", 3860}, {"fl-step-time", 942}, {"gd-max-stable-lr", 4366},
      {"gpu-bytes-in-flight", 24}, {"gpu-max-registers", 87}, {"gpu-occupancy", 3461},
      {"gpu-tensor-core-speedup", 160}, {"gpu-warps-to-hide-latency", 31}, {"gpu-wave-utilization", 2404},
      {"ic-bisection", 141}, {"ic-hierarchical-time", 4014}, {"ic-no-rails", 30}, {"ic-one-direction", 450},
      {"interpolation-threshold-2d", 3737}, {"kernels-coalescing-bandwidth", 776},
      {"kernels-launch-fraction", 733}, {"kernels-smem-tile", 1152}, {"kernels-tiled-traffic", 2870},
      {"masks-causal-pairs", 4057}, {"masks-gqa-kv-bytes", 3256}, {"masks-gqa-reduction", 972},
      {"masks-score-bytes", 2286}, {"matmul-crossover-batch", 70}, {"matmul-intensity", 1299},
      {"memory-layer-activations", 250}, {"memory-max-micro-batch", 172}, {"memory-model-states", 168},
      {"memory-recompute-flops", 72}, {"memory-training-flops", 62}, {"moe-all-to-all-bytes", 108},
      {"ns-spike-factor", 184}, {"ns-sum-overflow", 233}, {"numerics-format-limit", 24},
      {"numerics-loss-scale", 629}, {"numerics-recipe-bytes", 14}, {"numerics-sum-stall", 20},
      {"optimizer-state-memory", 1293}, {"pa-dpo-saving", 151}, {"pa-implicit-reward", 136},
      {"pa-ppo-memory", 194}, {"pp-bubble-fraction", 128}, {"pp-inflight-saving", 4943},
      {"pp-layout-states", 416}, {"pp-smallest-depth", 297}, {"prof-attention-share", 97},
      {"prof-chinchilla-tokens", 30}, {"prof-exposed-comm", 392}, {"prof-training-days", 2505},
      {"quant-group-memory", 128}, {"quant-int4-decode", 1405}, {"roofline-ridge", 848},
      {"seq-causal-imbalance", 72}, {"seq-ring-backward-bytes", 64},
      {"seq-ring-min-block", 118}, {"seq-sp-activation", 453}, {"seq-ulysses-bytes", 92},
      {"serve-kv-bytes-per-token", 36}, {"serve-sequences-fit", 350}, {"serve-spec-speedup", 1321},
      {"serve-spec-tokens", 316}, {"serve-tpot-bound", 1382}, {"sf-cluster-mtbf", 1092}, {"sf-sync-save", 963},
      {"sf-young-interval", 968}, {"sg-mig-busy-sms", 198}, {"sg-time-slicing-makespan", 3587},
      {"sl-allocation-gap", 150}, {"sl-break-even", 40}, {"sl-chinchilla-loss", 1877}, {"sl-optimal-params", 33}, {"sl-overtraining-total", 204},
      {"sl-tokens-per-param", 35}, {"sqrt-checkpoint-memory", 1648}, {"tb-config-params", 1120},
      {"tb-embedding-share", 1116}, {"tb-flops-at-context", 52}, {"tb-published-run-days", 435},
      {"tensor-logits-bytes", 238}, {"tensor-slice-traffic", 525}, {"tp-allreduce-bytes", 144}};
  return space;
}

// Seeds are independent: 200 seeds give at least three quarters of the distinct prompts that
// 200 uniform draws from the generator's space would (N·(1 − (1 − 1/N)^200)), and 185 where the
// space is large. Streams that were shifted copies of one another fell far below this.
TEST(ExerciseSuite, TwoHundredSeedsReachThePromptSpace) {
  for (const auto& id : mlsys::exercise_ids()) {
    std::set<std::string> prompts;
    for (std::uint32_t s = 1; s <= 200; ++s) prompts.insert(mlsys::make_exercise(id, s).prompt);
    const auto it = prompt_space().find(id);
    const double n = it == prompt_space().end() ? 0 : it->second;
    const int floor = n == 0 ? 185 : static_cast<int>(0.75 * n * (1 - std::pow(1 - 1 / n, 200)));
    EXPECT_GE(static_cast<int>(prompts.size()), floor)
        << id << ": " << prompts.size() << " distinct prompts in seeds 1–200; its space of "
        << (n == 0 ? std::string("more than 5,000") : std::to_string(static_cast<int>(n))) << " allows " << floor;
  }
}

TEST(ExerciseSuite, AnswersVaryFromDrawToDraw) {
  for (const auto& id : mlsys::exercise_ids()) {
    // Answers that agree to three significant digits are the same answer to a reader.
    std::map<std::string, int> count;
    for (std::uint32_t s = 0; s < kSeeds; ++s) ++count[format_number(draws(id)[s].answer, 3)];
    int most = 0;
    std::string most_answer;
    for (const auto& [answer, n] : count)
      if (n > most) most = n, most_answer = answer;
    const bool varied = count.size() >= 10 && most <= static_cast<int>(kSeeds) / 5;
    if (draws(id)[0].small_answer_set) {
      EXPECT_FALSE(varied) << id << " declares a small answer set but has " << count.size()
                           << " distinct answers; remove small_answer_set";
    } else {
      EXPECT_TRUE(varied) << id << ": " << count.size() << " distinct answers in " << kSeeds << " draws, " << most_answer
                          << " in " << most;
    }
  }
}

TEST(ExerciseSuite, ParserRejectsMalformedNumbersWithAMessage) {
  for (const char* bad : {"0.0,247", "1,2,3", "1..2", "1e", "--3", ",5", "1.2.3", "12,34", "1234,567", "1,2345",
                          "1e+", "-", "+-3", "0,5", "1,234.5,6"}) {
    try {
      (void)mlsys::parse_quantity(bad, "");
      ADD_FAILURE() << "'" << bad << "' was read as a number";
    } catch (const mlsys::InputError& err) {
      EXPECT_EQ(err.field, "answer");
      EXPECT_NE(std::string(err.what()).find("number"), std::string::npos) << bad << ": " << err.what();
    }
    const auto r = mlsys::check_exercise("roofline-time", 3, bad);
    EXPECT_FALSE(r["correct"].get<bool>()) << bad;
    EXPECT_TRUE(r["value"].is_null()) << bad;
  }
}

TEST(ExerciseSuite, ParserReadsNumbersAsPeopleWriteThem) {
  const std::vector<std::pair<const char*, double>> good = {
      {"1,200", 1200},     {"1,234,567.5", 1234567.5}, {"1e3", 1000}, {"-2.5", -2.5},  {"+4", 4},
      {"\xE2\x88\x92" "2.5", -2.5}, {".5", 0.5},       {"5.", 5},     {"2.5E-4", 2.5e-4}, {"999", 999}};
  for (const auto& [text, value] : good) EXPECT_DOUBLE_EQ(mlsys::parse_quantity(text, ""), value) << text;
  EXPECT_DOUBLE_EQ(mlsys::parse_quantity("59.3%", "%"), 59.3);
  EXPECT_DOUBLE_EQ(mlsys::parse_quantity("59.3 %", "%"), 59.3);
  EXPECT_DOUBLE_EQ(mlsys::parse_quantity("59.3", "%"), 59.3);
  EXPECT_THROW((void)mlsys::parse_quantity("59.3 ms", "%"), mlsys::InputError);
  EXPECT_THROW((void)mlsys::parse_quantity("59.3%", "ms"), mlsys::InputError);
  EXPECT_THROW((void)mlsys::parse_quantity("59.3%", ""), mlsys::InputError);
  // Times beyond the second are whole words: a training run answered in days or hours.
  EXPECT_DOUBLE_EQ(mlsys::parse_quantity("2.5 days", "days"), 2.5);
  EXPECT_DOUBLE_EQ(mlsys::parse_quantity("36 h", "days"), 1.5);
  EXPECT_DOUBLE_EQ(mlsys::parse_quantity("90 min", "h"), 1.5);
  EXPECT_THROW((void)mlsys::parse_quantity("2 kdays", "days"), mlsys::InputError);
  EXPECT_THROW((void)mlsys::parse_quantity("2 GB", "days"), mlsys::InputError);
}

TEST(ExerciseSuite, PrintedNumbersAreReadFromProse) {
  std::vector<std::string> texts;
  for (const auto& p : mlsys::printed_numbers("The H100 in fp8-e4m3 does 1,979 TFLOP/s (2^10 = 1,024; 1 MB = 10^6 B), "
                                       "T_c = 8 passes with ZeRO-1; 2.5e+09 B is 59.3% of it, v1.5; 2 GPUs."))
    texts.push_back(p.text);
  EXPECT_EQ(texts, (std::vector<std::string>{"1,979", "1024", "1,024", "1", "1000000", "8", "2.5e+09", "59.3", "2"}));
  // A mantissa times a power of ten: the mantissa and the product, not the 10.
  std::vector<double> values;
  for (const auto& p : mlsys::printed_numbers("a rate of 2.5 \u00D7 10\u207B\u2074, then 3\u00B710^6 steps")) values.push_back(p.value);
  EXPECT_EQ(values, (std::vector<double>{2.5, 2.5e-4, 3, 3e6}));
}

}  // namespace

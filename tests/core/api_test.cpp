// The error contract of shared/API.md for every calculator and every bad-input class:
// negative, zero, NaN, huge, wrong type, unknown field, malformed JSON, unknown hardware or
// dtype, missing required field. Each gives {"error": {field, message}}, never a crash.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "mlsys/api/calc.hpp"
#include "test_support.hpp"

using mlsys::calc;
using mlsys::calc_text;
using mlsys::json;
using mlsys::test::error_of;

namespace {

void expect_field_error(const std::string& name, const json& input, const std::string& field) {
  const json e = error_of(name, input.dump());
  EXPECT_EQ(e["field"], field) << name << " " << input.dump() << ": " << e.dump();
}

const json kRoofline = {{"hardware", "h100-sxm"}, {"dtype", "bf16"}, {"flops", 1e12}, {"bytes", 1e9}};
const json kMatmul = {{"m", 64}, {"n", 64}, {"k", 64}, {"dtype", "bf16"}, {"hardware", "a100-sxm-80gb"}};
const json kOps = {{"hidden", 1024}, {"heads", 16}, {"seq", 128}, {"batch", 2}};

json with(json base, const std::string& key, const json& value) {
  base[key] = value;
  return base;
}

}  // namespace

TEST(Api, ListAndSchemas) {
  const auto names = mlsys::calc_names();
  for (const char* required : {"hardware", "roofline", "matmul"})
    EXPECT_NE(std::find(names.begin(), names.end(), required), names.end()) << required;
  for (const auto& name : names) {
    const json s = mlsys::calc_schema(name);
    EXPECT_EQ(s["name"], name);
    for (const auto& f : s["fields"]) {
      EXPECT_TRUE(f.contains("type") && f.contains("unit") && f.contains("default")) << f.dump();
      if (f["type"] == "number" || f["type"] == "integer") {
        EXPECT_TRUE(f.contains("min") && f.contains("max")) << f.dump();
      }
    }
  }
}

TEST(Api, UnknownCalculator) { EXPECT_EQ(error_of("no-such", "{}")["field"], ""); }

// Fuzz regression: a name that is not valid UTF-8 (the CLI passes argv through) is quoted in
// the message; calc_text used to throw json type_error 316 from dump() instead of answering.
TEST(Api, UnknownCalculatorNameNotUtf8) {
  EXPECT_EQ(error_of("\xff", "{}")["field"], "");
  EXPECT_EQ(error_of("roof\xc3(line", "{}")["field"], "");
}

TEST(Api, MalformedJson) {
  for (const char* text : {"", "{", "{\"flops\": }", "nope", "{\"a\":1}}", "[1,2", "{'flops': 1}", "NaN", "{\"x\": NaN}"})
    EXPECT_EQ(error_of("roofline", text)["field"], "") << text;
}

TEST(Api, NotAnObject) {
  for (const char* text : {"[]", "3", "\"roofline\"", "null", "true"}) EXPECT_EQ(error_of("roofline", text)["field"], "");
}

TEST(Api, DeepNestingIsRejectedNotRecursed) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_EQ(error_of("roofline", deep)["field"], "");
}

TEST(Api, UnknownField) {
  expect_field_error("roofline", with(kRoofline, "flop", 1), "flop");
  expect_field_error("matmul", with(kMatmul, "batch", 1), "batch");
  expect_field_error("hardware", {{"name", "x"}}, "name");
}

TEST(Api, MissingRequired) {
  json r = kRoofline;
  r.erase("flops");
  expect_field_error("roofline", r, "flops");
  json m = kMatmul;
  m.erase("k");
  expect_field_error("matmul", m, "k");
}

TEST(Api, WrongType) {
  expect_field_error("roofline", with(kRoofline, "flops", "1e12"), "flops");
  expect_field_error("roofline", with(kRoofline, "flops", true), "flops");
  expect_field_error("roofline", with(kRoofline, "flops", json::array({1})), "flops");
  expect_field_error("roofline", with(kRoofline, "dtype", 16), "dtype");
  expect_field_error("matmul", with(kMatmul, "m", 2.5), "m");
  expect_field_error("transformer-ops", with(kOps, "phase", json::object()), "phase");
}

TEST(Api, NegativeZeroHugeNaN) {
  expect_field_error("roofline", with(kRoofline, "flops", -1), "flops");
  expect_field_error("roofline", with(kRoofline, "bytes", 0), "bytes");
  expect_field_error("roofline", with(kRoofline, "bytes", 1e300), "bytes");
  expect_field_error("roofline", with(kRoofline, "peak_flops", 0), "peak_flops");
  expect_field_error("roofline", with(kRoofline, "bandwidth_Bps", -5), "bandwidth_Bps");
  expect_field_error("matmul", with(kMatmul, "m", 0), "m");
  expect_field_error("matmul", with(kMatmul, "n", -3), "n");
  expect_field_error("matmul", with(kMatmul, "k", 1e12), "k");
  expect_field_error("transformer-ops", with(kOps, "seq", 0), "seq");
  expect_field_error("transformer-ops", with(kOps, "batch", 1e9), "batch");
  // 1e400 is out of double range: rejected (by the parser or as not finite), never inf.
  error_of("roofline", R"({"flops": 1e400, "bytes": 1})");
  // A NaN can reach calc() from C++ even though JSON cannot spell it.
  try {
    calc("roofline", with(kRoofline, "flops", std::numeric_limits<double>::quiet_NaN()));
    FAIL() << "NaN accepted";
  } catch (const mlsys::InputError& e) {
    EXPECT_EQ(e.field, "flops");
  }
}

TEST(Api, UnknownHardwareOrDtype) {
  expect_field_error("roofline", with(kRoofline, "hardware", "h900"), "hardware");
  expect_field_error("roofline", with(kRoofline, "dtype", "fp12"), "dtype");
  expect_field_error("matmul", with(kMatmul, "hardware", "<script>"), "hardware");
  expect_field_error("hardware", {{"id", "gtx-480"}}, "id");
  // A format the chip lacks: the A100 has no FP8 tensor cores.
  expect_field_error("roofline", with(with(kRoofline, "hardware", "a100-sxm-80gb"), "dtype", "fp8-e4m3"), "dtype");
}

TEST(Api, InconsistentShape) { expect_field_error("transformer-ops", with(kOps, "heads", 7), "heads"); }

TEST(Api, NullMeansDefault) {
  const json r = calc("roofline", with(kRoofline, "hardware", nullptr));
  EXPECT_DOUBLE_EQ(r["ridge_intensity"].get<double>(), calc("roofline", kRoofline)["ridge_intensity"].get<double>());
}

TEST(Api, ResultsAreFinite) {
  // The smallest and largest accepted inputs still give finite numbers.
  const json tiny = calc("roofline", {{"flops", 0}, {"bytes", 1e-300}, {"peak_flops", 1e21}, {"bandwidth_Bps", 1e16}});
  EXPECT_TRUE(std::isfinite(tiny["time_s"].get<double>()));
  const json huge = calc("matmul", {{"m", 1 << 24}, {"n", 1 << 24}, {"k", 1 << 24}, {"hardware", "h100-sxm"}});
  EXPECT_TRUE(std::isfinite(huge["time_s"].get<double>()));
}

// A list of names (accelerator-compare's ids, mig's layout): a JSON array, or one string of
// names separated by commas; items trimmed, each one of the options when the field has them.
TEST(Api, StringLists) {
  const json one = calc("accelerator-compare", json::object({{"ids", json::array({"h100-sxm", " b200 "})}}));
  const json two = calc("accelerator-compare", json::object({{"ids", "h100-sxm,b200"}}));
  ASSERT_EQ(one["rows"].size(), 2u);
  EXPECT_EQ(one["rows"][1]["id"], "b200");
  EXPECT_EQ(one, two);
  const json ids = mlsys::calc_schema("accelerator-compare")["fields"];
  const auto f = std::find_if(ids.begin(), ids.end(), [](const json& x) { return x["name"] == "ids"; });
  ASSERT_NE(f, ids.end());
  EXPECT_EQ((*f)["type"], "array");
  EXPECT_EQ((*f)["items"]["type"], "string");
  EXPECT_TRUE((*f)["items"]["options"].is_array());
  EXPECT_FALSE(f->contains("options"));
  expect_field_error("accelerator-compare", {{"ids", json::array({"h100-sxm", "z9000"})}}, "ids");
  expect_field_error("accelerator-compare", {{"ids", json::array({"h100-sxm", 3})}}, "ids");
  expect_field_error("accelerator-compare", {{"ids", json::array()}}, "ids");
  expect_field_error("accelerator-compare", {{"ids", "h100-sxm,,b200"}}, "ids");
  expect_field_error("accelerator-compare", {{"ids", 7}}, "ids");
  EXPECT_EQ(calc("mig", json::parse(R"({"hardware": "h100-sxm", "layout": ["4g.40gb", "3g.40gb"]})"))["valid"], true);
  expect_field_error("mig", {{"layout", json::array({"1g.10gb", ""})}}, "layout");
}

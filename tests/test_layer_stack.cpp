// The layer-stack model (issue 17): seed 002's per-layer parameter formulas, shapes through
// the stack, what autograd keeps per layer, errors as values, the JSON format, the vision
// presets' exact parameter counts, and the estimate against what PyTorch kept
// (tests/truth/measure_cnn.py: torchvision models and custom stacks, torch 1.13 on the CPU,
// committed as tests/data/cnn_truth_*.json): parameters, buffers, gradients and optimizer
// states exact; saved tensors within 2% per model under the torch 1.13 / CPU profile, whose
// differences from PyTorch 2.x on CUDA are named by ProfileDifferences.
#include <doctest.h>

#include <cmath>
#include <cstring>
#include <string>

#include "core/catalogue/embedded.h"
#include "core/parse/json.h"
#include "core/network/layer_stack.h"
#include "core/network/layer_stack_account.h"
#include "core/network/network_json.h"
#include "core/network/network_request.h"

namespace llmmem::test {
extern const core::EmbeddedFile kEmbeddedTestData[];
}

using namespace llmmem::core;

namespace {

NetworkSpec Parse(const std::string& text) {
  NetworkParse p = ParseNetworkJson(text);
  REQUIRE_MESSAGE(p.ok, (p.diagnostics.empty() ? std::string("?") : p.diagnostics.front().message));
  return p.spec;
}

NetworkAnalysis Analyze(const std::string& text, bool training = true) {
  NetworkSettings s;
  s.training = training;
  return AnalyzeNetwork(Parse(text), s);
}

const LayerRow* Row(const NetworkAnalysis& a, const std::string& name) {
  for (const LayerRow& r : a.rows)
    if (r.name == name) return &r;
  return nullptr;
}

std::string FirstError(const NetworkAnalysis& a) {
  for (const Diagnostic& d : a.diagnostics)
    if (d.severity == Severity::kError) return d.message;
  return "";
}

}  // namespace

TEST_CASE("Layer stack: seed 002's parameter counts per layer") {
  // Conv2d(Cin, Cout, K): Cin x Cout x K x K; BatchNorm(N): 2N; Embedding(N, W): N x W;
  // Linear(M -> N): M x N (the seed leaves biases out: bias false here).
  const NetworkAnalysis a = Analyze(R"({"input": [3, 32, 32], "layers": [
      {"type": "conv2d", "name": "conv", "out": 64, "kernel": 3, "bias": false},
      {"type": "batchnorm", "name": "bn"},
      {"type": "relu", "name": "relu"},
      {"type": "flatten", "name": "flat"},
      {"type": "linear", "name": "fc", "out": 10, "bias": false}]})");
  REQUIRE(a.ok);
  CHECK(Row(a, "conv")->params == 3 * 64 * 3 * 3);
  CHECK(Row(a, "bn")->params == 2 * 64);
  CHECK(Row(a, "relu")->params == 0);
  CHECK(Row(a, "fc")->params == 64 * 30 * 30 * 10);
  CHECK(Row(a, "conv")->out.ToString() == "64x30x30");
  const NetworkAnalysis e = Analyze(R"({"input": [16], "layers": [
      {"type": "embedding", "name": "emb", "vocab": 1000, "out": 128}]})");
  REQUIRE(e.ok);
  CHECK(Row(e, "emb")->params == 1000 * 128);
  CHECK(e.input_bytes == 16 * 8);  // int64 ids
}

TEST_CASE("Layer stack: shapes through convolution, pooling, transposed convolution") {
  const NetworkAnalysis a = Analyze(R"({"input": [3, 224, 224], "layers": [
      {"type": "conv2d", "name": "c1", "out": 64, "kernel": 7, "stride": 2, "padding": 3},
      {"type": "maxpool2d", "name": "p1", "kernel": 3, "stride": 2, "padding": 1},
      {"type": "conv2d", "name": "dw", "out": 64, "kernel": 3, "padding": 2, "dilation": 2, "groups": 64},
      {"type": "maxpool2d", "name": "p2", "kernel": 2, "stride": 2, "ceil_mode": true},
      {"type": "conv_transpose2d", "name": "up", "out": 32, "kernel": 4, "stride": 2, "padding": 1},
      {"type": "adaptive_avgpool2d", "name": "gap", "size": [2, 3]},
      {"type": "upsample", "name": "interp", "match": "input"}]})");
  REQUIRE(a.ok);
  CHECK(Row(a, "c1")->out.ToString() == "64x112x112");
  CHECK(Row(a, "p1")->out.ToString() == "64x56x56");
  CHECK(Row(a, "dw")->out.ToString() == "64x56x56");
  CHECK(Row(a, "dw")->params == 64 * 9 + 64);
  CHECK(Row(a, "p2")->out.ToString() == "64x28x28");
  CHECK(Row(a, "up")->out.ToString() == "32x56x56");
  CHECK(Row(a, "gap")->out.ToString() == "32x2x3");
  CHECK(Row(a, "interp")->out.ToString() == "32x224x224");
}

TEST_CASE("Layer stack: what each layer keeps, de-duplicated by storage") {
  // conv -> bn -> relu(inplace) -> conv: conv1 keeps the image, bn its input (conv1's output),
  // relu its output (in bn's output storage, in place), conv2 the same storage again.
  const NetworkAnalysis a = Analyze(R"({"input": [3, 8, 8], "layers": [
      {"type": "conv2d", "name": "conv1", "out": 4, "kernel": 1},
      {"type": "batchnorm", "name": "bn"},
      {"type": "relu", "name": "relu", "inplace": true},
      {"type": "conv2d", "name": "conv2", "out": 4, "kernel": 1},
      {"type": "maxpool2d", "name": "pool", "kernel": 2}]})");
  REQUIRE(a.ok);
  const double map = 4 * 8 * 8 * 4.0;  // 4 channels x 8 x 8, fp32
  CHECK(Row(a, "conv1")->saved_bytes == 3 * 8 * 8 * 4.0);
  CHECK(Row(a, "bn")->saved_bytes == map);
  CHECK(Row(a, "bn")->saved_fixed_bytes == 2 * 4 * 4.0);  // mean and inverse std per channel
  CHECK(Row(a, "relu")->saved_bytes == map);
  CHECK(Row(a, "relu")->feature_map_bytes == 0);  // in place: no new feature map
  CHECK(Row(a, "conv2")->saved_bytes == 0);       // the relu's storage again
  CHECK(Row(a, "conv2")->shared_bytes == map);
  CHECK(Row(a, "pool")->saved_bytes == map + 4 * 4 * 4 * 8.0);  // input + int64 indices
  CHECK(a.saved_bytes == 3 * 8 * 8 * 4.0 + 3 * map + 4 * 4 * 4 * 8.0);
  // Not in place: the same bytes are kept (bn's output is not needed by anyone), one
  // more feature map exists in the seed's sum.
  const NetworkAnalysis b = Analyze(R"({"input": [3, 8, 8], "layers": [
      {"type": "conv2d", "name": "conv1", "out": 4, "kernel": 1},
      {"type": "batchnorm", "name": "bn"},
      {"type": "relu", "name": "relu"},
      {"type": "conv2d", "name": "conv2", "out": 4, "kernel": 1},
      {"type": "maxpool2d", "name": "pool", "kernel": 2}]})");
  REQUIRE(b.ok);
  CHECK(b.saved_bytes == a.saved_bytes);
  CHECK(b.feature_map_bytes == a.feature_map_bytes + map);
  // An in-place SiLU must keep a clone of its input (the input is overwritten).
  const NetworkAnalysis c = Analyze(R"({"input": [3, 8, 8], "layers": [
      {"type": "conv2d", "name": "conv1", "out": 4, "kernel": 1},
      {"type": "silu", "name": "act", "inplace": true},
      {"type": "conv2d", "name": "conv2", "out": 4, "kernel": 1}]})");
  REQUIRE(c.ok);
  CHECK(Row(c, "act")->saved_bytes == map);
  CHECK(Row(c, "conv2")->saved_bytes == map);
}

TEST_CASE("Layer stack: blocks (residual add, concat, squeeze-and-excitation)") {
  const NetworkAnalysis a = Analyze(R"({"input": [8, 4, 4], "layers": [
      {"type": "conv2d", "name": "stem", "out": 8, "kernel": 1},
      {"type": "add", "name": "res", "branches": [[{"type": "conv2d", "name": "res.conv", "out": 8, "kernel": 3, "padding": 1}], []]},
      {"type": "concat", "name": "cat", "branches": [[], [{"type": "conv2d", "name": "cat.conv", "out": 4, "kernel": 1}]]},
      {"type": "mul", "name": "se", "branches": [[], [{"type": "adaptive_avgpool2d", "name": "se.pool", "size": 1},
                                                 {"type": "conv2d", "name": "se.fc", "out": 12, "kernel": 1},
                                                 {"type": "sigmoid", "name": "se.gate"}]]}]})");
  REQUIRE_MESSAGE(a.ok, FirstError(a));
  CHECK(Row(a, "res")->out.ToString() == "8x4x4");
  CHECK(Row(a, "cat")->out.ToString() == "12x4x4");
  CHECK(Row(a, "se")->out.ToString() == "12x4x4");
  // x * gate keeps both: the block input (already kept by the pooling? no: mean keeps none
  // under PyTorch 2.x) and the gate (sigmoid's output, kept by the sigmoid already)
  CHECK(Row(a, "se")->saved_bytes == 12 * 4 * 4 * 4.0);
  CHECK(Row(a, "se")->shared_bytes == 12 * 4.0);
  CHECK(a.rows.size() == 9);
}

TEST_CASE("Layer stack: a tap is a side output the caller holds (FPN levels); frozen layers keep nothing") {
  // stem (frozen) -> tap [conv -> P] -> conv: the tap's output is held, not kept for backward;
  // the frozen stem's input is not kept (no weight gradient, no gradient to pass back).
  const NetworkAnalysis a = Analyze(R"({"task": "backbone", "input": [3, 8, 8], "layers": [
      {"type": "conv2d", "name": "stem", "out": 4, "kernel": 1, "trainable": false},
      {"type": "frozen_batchnorm", "name": "stem_bn"},
      {"type": "tap", "name": "level", "branches": [[{"type": "conv2d", "name": "p", "out": 2, "kernel": 1}]]},
      {"type": "conv2d", "name": "next", "out": 4, "kernel": 1},
      {"type": "frozen_batchnorm", "name": "next_bn"}]})");
  REQUIRE_MESSAGE(a.ok, FirstError(a));
  CHECK(Row(a, "stem")->saved_bytes == 0);
  CHECK(Row(a, "stem_bn")->saved_fixed_bytes == 0);    // its input needs no gradient
  CHECK(Row(a, "p")->saved_bytes == 4 * 8 * 8 * 4.0);  // the stem's output, once
  CHECK(Row(a, "next")->shared_bytes == 4 * 8 * 8 * 4.0);
  CHECK(Row(a, "next_bn")->saved_fixed_bytes == 4 * 4.0);  // scale, one value per channel
  CHECK(a.output_held_bytes == (2 + 4) * 8 * 8 * 4.0);     // the tap's and the last output
  CHECK(a.loss_bytes == 0);                                // a backbone has no loss here
  CHECK(a.trainable_params == 4 * 2 + 2 + 4 * 4 + 4);
}

TEST_CASE("Layer stack: errors are values naming the layer") {
  NetworkAnalysis a = Analyze(R"({"input": [3, 32, 32], "layers": [
      {"type": "conv2d", "name": "c", "in": 4, "out": 8, "kernel": 3}]})");
  CHECK_FALSE(a.ok);
  CHECK(FirstError(a).find("c: expects 4 input channels; the input has 3") != std::string::npos);
  a = Analyze(R"({"input": [3, 4, 4], "layers": [{"type": "conv2d", "name": "big", "out": 8, "kernel": 7}]})");
  CHECK_FALSE(a.ok);
  CHECK(FirstError(a).find("too small") != std::string::npos);
  a = Analyze(R"({"input": [3, 4, 4], "layers": [{"type": "add", "name": "bad", "branches": [
      [{"type": "conv2d", "out": 8, "kernel": 1}], []]}]})");
  CHECK_FALSE(a.ok);
  CHECK(FirstError(a).find("same shape") != std::string::npos);
  a = Analyze(R"({"input": [3, 4, 4], "layers": [{"type": "linear", "name": "fc", "in": 5, "out": 2}]})");
  CHECK_FALSE(a.ok);
  // Sizes that would overflow are refused, not wrapped.
  a = Analyze(R"({"input": [3, 2000000000, 2000000000], "layers": [{"type": "relu"}]})");
  CHECK_FALSE(a.ok);
  CHECK(a.diagnostics.front().id == DiagId::kOutOfRange);

  NetworkParse p = ParseNetworkJson(R"({"layers": [{"type": "convolution"}]})");
  CHECK_FALSE(p.ok);
  CHECK(p.diagnostics.front().id == DiagId::kUnknownValue);
  p = ParseNetworkJson(R"({"layers": [{"type": "conv2d", "kernel": -1}]})");
  CHECK_FALSE(p.ok);
  CHECK(p.diagnostics.front().id == DiagId::kOutOfRange);
  p = ParseNetworkJson(R"({"layers": [{"type": "relu", "colour": "red"}]})");
  CHECK(p.ok);
  CHECK(p.diagnostics.front().id == DiagId::kUnknownKey);
  p = ParseNetworkJson("{\"layers\": [");
  CHECK_FALSE(p.ok);
  CHECK(p.diagnostics.front().id == DiagId::kParse);
  // Nesting beyond the bound is refused while parsing.
  std::string deep = R"({"layers": [)";
  for (int i = 0; i < 40; ++i) deep += R"({"type": "add", "branches": [[)";
  deep += R"({"type": "relu"})";
  for (int i = 0; i < 40; ++i) deep += "]]}";
  deep += "]}";
  p = ParseNetworkJson(deep);
  CHECK_FALSE(p.ok);
}

TEST_CASE("Layer stack: the JSON format round-trips") {
  for (const NetworkPreset& pr : NetworkPresets()) {
    CAPTURE(pr.key);
    REQUIRE(pr.ok);
    const std::string once = NetworkToJson(pr.spec).Dump();
    const NetworkParse back = ParseNetworkJson(once);
    REQUIRE(back.ok);
    CHECK(NetworkToJson(back.spec).Dump() == once);
  }
}

TEST_CASE("Layer stack: presets count exactly torchvision's parameters") {
  const char* required[] = {"resnet18",
                            "resnet50",
                            "resnet152",
                            "vgg16",
                            "vgg16_bn",
                            "mobilenet_v2",
                            "mobilenet_v3_large",
                            "efficientnet_b0",
                            "efficientnet_b4",
                            "densenet121",
                            "convnext_tiny",
                            "vit_b_16",
                            "swin_t",
                            "fcn_resnet50",
                            "deeplabv3_resnet50",
                            "lraspp_mobilenet_v3_large",
                            "fasterrcnn_resnet50_fpn"};
  for (const char* k : required) {
    CAPTURE(k);
    CHECK(FindNetworkPreset(k) != nullptr);
  }
  CHECK(FindNetworkPreset("ResNet-50") == FindNetworkPreset("resnet50"));
  CHECK(FindNetworkPreset("vit-b/16") == FindNetworkPreset("vit_b_16"));
  for (const NetworkPreset& p : NetworkPresets()) {
    SUBCASE(p.key.c_str()) {
      REQUIRE(p.ok);
      REQUIRE(p.spec.published_params > 0);
      NetworkSettings s;
      const NetworkAnalysis a = AnalyzeNetwork(p.spec, s);
      REQUIRE_MESSAGE(a.ok, FirstError(a));
      CHECK(a.params == p.spec.published_params);
    }
  }
  // Published figures (torchvision's model docs): ResNet-50 25,557,032; ViT-B/16 86,567,656.
  CHECK(FindNetworkPreset("resnet50")->spec.published_params == 25557032);
  CHECK(FindNetworkPreset("vit_b_16")->spec.published_params == 86567656);
}

// [SECTION] Against PyTorch
namespace {

const Json& CnnTruth() {
  static const Json doc = [] {
    for (const EmbeddedFile* f = llmmem::test::kEmbeddedTestData; f->name != nullptr; ++f) {
      if (std::strncmp(f->name, "cnn_truth_", 10) == 0) return ParseJson(f->Text()).value;
    }
    return Json();
  }();
  return doc;
}

double Num(const Json& j, const char* key) {
  const Json* v = j.Find(key);
  return v && v->IsNumber() ? v->AsNumber() : -1;
}

}  // namespace

// The spec of a measured case: its preset file, or its custom stack; the measured input.
static NetworkSpec MeasuredSpec(const Json& c) {
  NetworkSpec spec;
  if (const Json* key = c.Find("preset")) {
    const NetworkPreset* p = FindNetworkPreset(key->AsString());
    REQUIRE(p != nullptr);
    spec = p->spec;
  } else {
    NetworkParse p = NetworkFromJson(*c.Find("stack"));
    REQUIRE(p.ok);
    spec = p.spec;
  }
  spec.input.clear();
  for (const Json& d : c.Find("input")->AsArray()) spec.input.push_back(static_cast<int64_t>(d.AsNumber()));
  return spec;
}

TEST_CASE("Layer stack: against what PyTorch kept (torch 1.13, CPU, torchvision 0.14)") {
  const Json& doc = CnnTruth();
  REQUIRE(doc.IsObject());
  CHECK(doc.Find("generated_by")->AsString() == "tests/truth/measure_cnn.py");
  const Json::Array& cases = doc.Find("cases")->AsArray();
  CHECK(cases.size() >= 20);
  for (const Json& c : cases) {
    const std::string id = c.Find("id")->AsString();
    SUBCASE(id.c_str()) {
      const NetworkSpec spec = MeasuredSpec(c);
      const double b = Num(c, "batch");
      NetworkSettings s;
      s.profile = TorchProfile::kTorch113Cpu;
      s.batch = static_cast<int64_t>(b);
      const bool bf16 = c.Find("dtype")->AsString() == "bf16";
      s.dtype = bf16 ? Dtype::kBf16 : Dtype::kFp32;
      const double elem = bf16 ? 2 : 4;
      const NetworkAnalysis a = AnalyzeNetwork(spec, s);
      REQUIRE_MESSAGE(a.ok, FirstError(a));
      // Parameters, buffers and gradients to the byte.
      CHECK(a.params == static_cast<int64_t>(Num(c, "params")));
      CHECK(a.param_bytes == Num(c, "param_bytes"));
      CHECK(a.param_tensors == static_cast<int>(Num(c, "param_tensors")));
      CHECK(a.buffer_bytes == Num(c, "buffer_bytes"));
      // At batch 1 ViT's class-token gradient is a slice of torch.cat's gradient (the expand
      // sums nothing), and AccumulateGrad keeps that view: its storage holds every token.
      double grad_extra = 0;
      for (const LayerRow& r : a.rows) {
        if (b == 1 && r.kind == LayerKind::kClassToken)
          grad_extra = static_cast<double>(r.out.d[0] - 1) * r.out.d[1] * elem;
      }
      CHECK(static_cast<double>(a.trainable_params) * elem + grad_extra == Num(c, "grad_bytes"));
      if (const Json* opts = c.Find("optimizers"); opts && opts->IsObject()) {
        const OptimizerStateBytes m = NetworkOptimizerState(
            Optimizer::kSgdMomentum, static_cast<double>(a.trainable_params), a.trainable_tensors, elem);
        CHECK(m.gpu == Num(*opts->Find("momentum"), "state_bytes"));
        const OptimizerStateBytes w = NetworkOptimizerState(Optimizer::kAdamW, static_cast<double>(a.trainable_params),
                                                            a.trainable_tensors, elem);
        CHECK(w.gpu + w.host == Num(*opts->Find("adamw"), "state_bytes"));
      }
      // Saved tensors: within 2% per model (the torch 1.13 / CPU profile; the named
      // differences from PyTorch 2.x are ProfileDifferences).
      const double measured = Num(c, "saved_bytes");
      const double estimate = b * (a.saved_bytes + a.loss_bytes) + a.saved_fixed_bytes + a.loss_fixed_bytes;
      MESSAGE(id << ": estimate / measured = " << estimate / measured << " (" << estimate << " / " << measured << ")");
      CHECK(std::fabs(estimate / measured - 1) < 0.02);
    }
  }
}

namespace {
// A layer list with `blocks` residual blocks nested one inside the other.
std::string NestedBlocks(int blocks) {
  std::string layers = "[{\"type\": \"relu\"}]";
  for (int i = 0; i < blocks; ++i) layers = "[{\"type\": \"add\", \"branches\": [" + layers + ", []]}]";
  return layers;
}
bool Says(const Diagnostics& ds, const std::string& part) {
  for (const Diagnostic& d : ds)
    if (d.message.find(part) != std::string::npos) return true;
  return false;
}
}  // namespace

// Issue 28: 21 nested blocks (valid, 24 documented) were refused by the JSON parser's 64
// levels, since each block takes three. Every door takes the documented depth; one past it
// is refused by the network's own message.
TEST_CASE("Layer stack JSON: the documented 24 nested blocks are read through every door") {
  const std::string ok = "{\"input\": [3, 8, 8], \"layers\": " + NestedBlocks(kMaxNetworkDepth) + "}";
  const NetworkParse p = ParseNetworkJson(ok);
  CHECK(p.ok);
  CHECK_FALSE(Says(p.diagnostics, "nesting deeper"));
  const std::string answer = EstimateNetworkJson("{\"network\": " + ok + ", \"batch\": 2}");
  CHECK(answer.find("nesting deeper") == std::string::npos);
  CHECK(answer.find("\"ok\":true") != std::string::npos);
  const NetworkParse deeper =
      ParseNetworkJson("{\"input\": [3, 8, 8], \"layers\": " + NestedBlocks(kMaxNetworkDepth + 1) + "}");
  CHECK_FALSE(deeper.ok);
  CHECK(Says(deeper.diagnostics, "blocks nest deeper than 24"));
  // A document named by what it is: the size message says "a network description".
  const NetworkParse big = ParseNetworkJson(std::string(kJsonMaxBytes + 1, ' '));
  CHECK(Says(big.diagnostics, "a network description is"));
}

TEST_CASE("Layer stack presets: a bundle is taken only where none are embedded") {
  // The page embeds none and fetches scripts/bundle_networks.py's networks.json; every other
  // build embeds them, so a bundle changes nothing there (pointers into the list stay valid).
  const size_t n = NetworkPresets().size();
  REQUIRE(n > 0);
  const NetworkPreset* resnet = FindNetworkPreset("resnet50");
  CHECK(AddNetworkPresetBundle(R"({"files":[]})").empty());
  CHECK(NetworkPresets().size() == n);
  CHECK(FindNetworkPreset("resnet50") == resnet);
  // In the one order every build shows: family, size, then key.
  for (size_t i = 1; i < n; ++i) {
    const NetworkPreset& a = NetworkPresets()[i - 1];
    const NetworkPreset& b = NetworkPresets()[i];
    if (a.spec.family == b.spec.family && a.spec.published_params == b.spec.published_params) CHECK(a.key < b.key);
  }
}

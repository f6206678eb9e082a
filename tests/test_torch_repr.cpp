// A pasted print(model) (issue 17): PyTorch's module repr parsed into a layer stack.
// tests/data/torch_repr_samples.json holds print(model) of torchvision models
// (tests/truth/torchvision_stacks.py --reprs): each must give torchvision's exact parameter
// count and, where the repr parser rebuilds the blocks' forward, exactly the preset's
// activations. Hostile or broken text gives an error, never a crash.
#include <doctest.h>

#include <cstring>
#include <string>

#include "core/catalogue/embedded.h"
#include "core/parse/json.h"
#include "core/network/layer_stack.h"
#include "core/network/network_json.h"
#include "core/network/torch_repr.h"

namespace llmmem::test {
extern const core::EmbeddedFile kEmbeddedTestData[];
}

using namespace llmmem::core;

namespace {

const Json& Samples() {
  static const Json doc = [] {
    for (const EmbeddedFile* f = llmmem::test::kEmbeddedTestData; f->name != nullptr; ++f) {
      if (std::strcmp(f->name, "torch_repr_samples.json") == 0) return ParseJson(f->Text()).value;
    }
    return Json();
  }();
  return doc;
}

bool HasNote(const TorchReprParse& p, const std::string& part) {
  for (const Diagnostic& d : p.diagnostics)
    if (d.message.find(part) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("Torch repr: torchvision models parse to their exact parameter count and the presets' activations") {
  const Json& doc = Samples();
  REQUIRE(doc.IsObject());
  const Json::Object& samples = doc.Find("samples")->AsObject();
  CHECK(samples.size() >= 10);
  for (const auto& [key, sample] : samples) {
    SUBCASE(key.c_str()) {
      TorchReprParse p = ParseTorchRepr(sample.Find("repr")->AsString());
      REQUIRE(p.ok);
      const NetworkPreset* preset = FindNetworkPreset(key);
      if (const Json* in = sample.Find("input")) {
        for (const Json& d : in->AsArray()) p.spec.input.push_back(static_cast<int64_t>(d.AsNumber()));
      } else {
        REQUIRE(preset != nullptr);
        p.spec.input = preset->spec.input;
      }
      NetworkSettings s;
      const NetworkAnalysis a = AnalyzeNetwork(p.spec, s);
      REQUIRE(a.ok);
      CHECK(a.params == static_cast<int64_t>(sample.Find("params")->AsNumber()));
      if (preset != nullptr) {
        const NetworkAnalysis b = AnalyzeNetwork(preset->spec, s);
        CHECK(a.saved_bytes == b.saved_bytes);
        CHECK(a.inference_peak_bytes == b.inference_peak_bytes);
        CHECK(a.output == b.output);
      }
    }
  }
}

TEST_CASE("Torch repr: what the repr cannot tell is said") {
  const Json& samples = *Samples().Find("samples");
  TorchReprParse vit = ParseTorchRepr(samples.Find("vit_b_16")->Find("repr")->AsString());
  REQUIRE(vit.ok);
  CHECK(HasNote(vit, "num_heads"));
  TorchReprParse swin = ParseTorchRepr(samples.Find("swin_t")->Find("repr")->AsString());
  REQUIRE(swin.ok);
  CHECK(HasNote(swin, "window"));
  // A container whose forward is unknown: children in printed order, and a warning.
  TorchReprParse custom = ParseTorchRepr(R"(MyNet(
  (stem): Conv2d(3, 16, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))
  (block): MyResidual(
    (conv): Conv2d(16, 16, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1), bias=False)
    (bn): BatchNorm2d(16, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)
  )
  (pool): AdaptiveAvgPool2d(output_size=(1, 1))
  (fc): Linear(in_features=16, out_features=10, bias=True)
))");
  REQUIRE(custom.ok);
  CHECK_FALSE(custom.graph_exact);
  CHECK(HasNote(custom, "block (MyResidual): its forward is not in the repr"));
  custom.spec.input = {3, 8, 8};
  const NetworkAnalysis a = AnalyzeNetwork(custom.spec, NetworkSettings{});
  REQUIRE(a.ok);  // a flatten was put before fc, as torch.flatten in such forwards
  CHECK(a.params == 3 * 16 * 9 + 16 + 16 * 16 * 9 + 32 + 16 * 10 + 10);
}

TEST_CASE("Torch repr: plain Sequential, ModuleList runs (PyTorch 2.x) and text around the model") {
  TorchReprParse p = ParseTorchRepr(R"(>>> print(model)
Sequential(
  (0): Linear(in_features=8, out_features=8, bias=True)
  (1-3): 3 x Linear(in_features=8, out_features=8, bias=False)
  (4): ReLU(inplace=True)
  (5): Dropout(p=0.1, inplace=False)
  (6): Linear(in_features=8, out_features=2, bias=True)
)
>>> )");
  REQUIRE(p.ok);
  CHECK(p.graph_exact);
  p.spec.input = {8};
  const NetworkAnalysis a = AnalyzeNetwork(p.spec, NetworkSettings{});
  REQUIRE(a.ok);
  CHECK(a.params == 72 + 3 * 64 + 18);
  CHECK(a.rows.size() == 7);
  CHECK(a.rows[3].name == "3");
}

TEST_CASE("Torch repr: broken or hostile text is an error, never a crash") {
  const char* bad[] = {"",
                       "hello world",
                       "Conv2d(3, 64",
                       "Sequential(\n  (0): Conv2d(3, 64, kernel_size=(3, 3)\n",
                       "Sequential(\n  (0): Frobnicator()\n)",
                       ")))(((",
                       "Sequential(\n  (0): Linear(in_features=x)\n)"};
  for (const char* t : bad) {
    CAPTURE(t);
    const TorchReprParse p = ParseTorchRepr(t);
    if (p.ok) {
      NetworkSpec s = p.spec;
      s.input = {3, 8, 8};
      (void)AnalyzeNetwork(s, NetworkSettings{});
    } else {
      CHECK_FALSE(p.diagnostics.empty());
    }
  }
  std::string deep;
  for (int i = 0; i < 100; ++i) deep += "Sequential(\n(0): ";
  deep += "ReLU()";
  for (int i = 0; i < 100; ++i) deep += "\n)";
  CHECK_FALSE(ParseTorchRepr(deep).ok);
  std::string huge(5u << 20, 'x');
  CHECK_FALSE(ParseTorchRepr(huge).ok);
  std::string many = "Sequential(\n  (0-99999): 99999 x ReLU()\n)";
  CHECK_FALSE(ParseTorchRepr(many).ok);
}

// Found by fuzz_network: a repeated unknown module made one note per copy, each compared
// with every other (quadratic: seconds for a few hundred bytes) and pages of output.
TEST_CASE("Torch repr: notes for thousands of repeated unknown modules stay few and quick") {
  const std::string repr =
      "Net(\n"
      "  (features): Sequential(\n"
      "    (0): Conv2d(3, 8, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))\n"
      "    (1-7242): 7242 x Mystery(width=8)\n"
      "  )\n"
      ")\n";
  const TorchReprParse p = ParseTorchRepr(repr);
  REQUIRE(p.ok);
  CHECK(p.diagnostics.size() <= 45);
  bool summary = false;
  for (const Diagnostic& d : p.diagnostics) summary = summary || d.message.find("7203 more notes") == 0;
  CHECK(summary);
}

// Found by fuzz_network: repeats inside repeats multiply; the expansion stops at the cap.
TEST_CASE("Torch repr: nested repeats past 20000 modules are refused quickly") {
  const std::string repr =
      "Net(\n"
      "  (blocks): ModuleList(\n"
      "    (0-999): 1000 x Block(\n"
      "      (layers): ModuleList(\n"
      "        (0-999): 1000 x Linear(in_features=8, out_features=8, bias=True)\n"
      "      )\n"
      "    )\n"
      "  )\n"
      ")\n";
  const TorchReprParse p = ParseTorchRepr(repr);
  CHECK_FALSE(p.ok);
  bool named = false;
  for (const Diagnostic& d : p.diagnostics) named = named || d.message.find("more than 20000 modules") == 0;
  CHECK(named);
}

bool HasError(const TorchReprParse& p, const std::string& part) {
  for (const Diagnostic& d : p.diagnostics)
    if (d.severity == Severity::kError && d.message.find(part) != std::string::npos) return true;
  return false;
}

// Issue 28: "4294967297 x" went through atoi and wrapped to 1 (accepted as one module).
TEST_CASE("Torch repr: a repeat count past 32 bits is refused, not wrapped") {
  for (const char* count : {"4294967297", "18446744073709551617", "20001"}) {
    CAPTURE(count);
    const std::string repr = std::string("Sequential(\n  (0-1): ") + count +
                             " x Linear(in_features=8, out_features=8, bias=True)\n)\n";
    const TorchReprParse p = ParseTorchRepr(repr);
    CHECK_FALSE(p.ok);
    CHECK(HasError(p, "line 2: the repeat count"));
  }
  // A range key past 32 bits in a valid run names its copies from a bounded first index.
  const TorchReprParse ok = ParseTorchRepr("Sequential(\n  (4294967296-4294967297): 2 x ReLU()\n)\n");
  CHECK(ok.ok);
}

// Issue 28: in_features=8.5 read as 8, 1e3 as 1, silently.
TEST_CASE("Torch repr: a size that is not a whole number is refused, naming its line") {
  for (const char* args : {"in_features=8.5, out_features=8", "in_features=1e3, out_features=8",
                           "in_features=8, out_features=8.0"}) {
    CAPTURE(args);
    const std::string repr =
        std::string("Net(\n  (a): ReLU()\n  (fc): Linear(") + args + ", bias=True)\n)\n";
    const TorchReprParse p = ParseTorchRepr(repr);
    CHECK_FALSE(p.ok);
    CHECK(HasError(p, "line 3: Linear("));
    CHECK(HasError(p, "must be a whole number"));
  }
  // The line counts from the top of the paste, text before the model included.
  const TorchReprParse p =
      ParseTorchRepr(">>> print(model)\nSequential(\n  (0): Conv2d(3, 8, kernel_size=(3, 3), stride=(1.5, 1.5))\n)\n");
  CHECK_FALSE(p.ok);
  CHECK(HasError(p, "line 3: Conv2d(stride=(1.5, 1.5))"));
}

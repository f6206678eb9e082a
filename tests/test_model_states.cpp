// Reference cases M1-M7: model states (weights, gradients, master weights, optimizer).
#include <doctest.h>

#include "core/base/units.h"
#include "core/network/layer_stack_account.h"
#include "setups.h"

using namespace llmmem::test;

TEST_CASE("M1: 14B bf16 + fp32 master + fp32 Adam = 16 bytes/param = 224 GB") {
  const Estimate e = Explain(ParamsOnly(14e9));
  REQUIRE(e.totals.ok);
  CHECK(Bytes(e, "total.model_states.weights") == 28e9);
  CHECK(Bytes(e, "total.model_states.gradients") == 28e9);
  CHECK(Bytes(e, "total.model_states.master_weights") == 56e9);
  CHECK(Bytes(e, "total.model_states.optimizer.adam_m") == 56e9);
  CHECK(Bytes(e, "total.model_states.optimizer.adam_v") == 56e9);
  CHECK(Bytes(e, "total.model_states.master_weights") + Bytes(e, "total.model_states.optimizer") == 168e9);
  CHECK(Bytes(e, "total.model_states") == 224e9);
  CHECK(e.totals.peak_bytes / 14e9 == 16);
}

TEST_CASE("M2: 7B same scheme = 14 + 14 + 28 + 28 + 28 = 112 GB") {
  const Estimate e = Explain(ParamsOnly(7e9));
  CHECK(Bytes(e, "total.model_states.weights") == 14e9);
  CHECK(Bytes(e, "total.model_states.gradients") == 14e9);
  CHECK(Bytes(e, "total.model_states.master_weights") == 28e9);
  CHECK(Bytes(e, "total.model_states.optimizer.adam_m") == 28e9);
  CHECK(Bytes(e, "total.model_states.optimizer.adam_v") == 28e9);
  CHECK(e.totals.peak_bytes == 112e9);
}

TEST_CASE("M3: all-fp32 training: SGD 8, momentum 12, Adam 16 bytes/param") {
  Config c = ParamsOnly(1e9);
  c.dtype = Dtype::kFp32;
  c.grad_dtype = Dtype::kFp32;
  c.optimizer_dtype = Dtype::kFp32;
  c.optimizer = Optimizer::kSgd;
  CHECK(EstimateTotals(c).peak_bytes / 1e9 == 8);
  c.optimizer = Optimizer::kSgdMomentum;
  CHECK(EstimateTotals(c).peak_bytes / 1e9 == 12);
  c.optimizer = Optimizer::kAdamW;
  CHECK(EstimateTotals(c).peak_bytes / 1e9 == 16);
  // master_weights is on by default but fp32 weights need no copy: said, not silently dropped.
  const Estimate e = Explain(c);
  CHECK(e.tree.Find("total.model_states.master_weights") == nullptr);
  bool noted = false;
  for (const Diagnostic& d : e.diagnostics) noted |= d.id == DiagId::kIgnoredSetting && d.field == "master_weights";
  CHECK(noted);
}

TEST_CASE("M4: 13B fine-tune with DeepSpeed's extra fp32 gradient copy") {
  // Seed 002 counts m and v together as 26 x 2 = 52 GB: 2 bytes per state, i.e. 16-bit
  // states. With fp32 states (REFERENCE's set-up line) they would be 104 GB.
  Config c = ParamsOnly(13e9);
  CHECK(Bytes(Explain(c), "total.model_states.optimizer") == 104e9);
  c.optimizer_dtype = Dtype::kBf16;
  Estimate e = Explain(c);
  CHECK(Bytes(e, "total.model_states.weights") == 26e9);
  CHECK(Bytes(e, "total.model_states.gradients") == 26e9);
  CHECK(Bytes(e, "total.model_states.optimizer") == 52e9);  // m and v: 26 GB each
  CHECK(Bytes(e, "total.model_states.master_weights") == 52e9);
  // The document's total adds 17 GB of activations for Llama-13B at b=1, s=2048.
  CHECK(e.totals.peak_bytes + 17e9 == 173e9);

  c.optimizer_grad_copy = true;
  e = Explain(c);
  // The copy lives only during the step, which becomes the peak: 156 + 52 = 208 GB.
  CHECK(e.totals.moment_bytes[static_cast<int>(Moment::kForwardEnd)] == 156e9);
  CHECK(e.totals.moment_bytes[static_cast<int>(Moment::kOptimizerStep)] == 208e9);
  CHECK(e.totals.peak_moment == Moment::kOptimizerStep);
  CHECK(Bytes(e, "total.model_states.fp32_grad_copy") == 52e9);
}

TEST_CASE("M4b: Megatron/DeepSpeed fp32 main gradients make 18 bytes/param") {
  Config c = ParamsOnly(1e9);
  c.grad_dtype = Dtype::kFp32;
  CHECK(EstimateTotals(c).peak_bytes == 18e9);
}

TEST_CASE("M5: inference quick rule P x (Q/8) x 1.2") {
  struct Row {
    double params;
    Dtype dtype;
    double gb;
  };
  const Row rows[] = {{7e9, Dtype::kFp16, 16.8},
                      {13e9, Dtype::kFp16, 31.2},
                      {70e9, Dtype::kFp16, 168},
                      {70e9, Dtype::kInt8, 84},
                      {175e9, Dtype::kFp16, 420}};
  for (const Row& r : rows) {
    Config c = ParamsOnly(r.params);
    c.mode = Mode::kInference;
    c.dtype = r.dtype;
    CHECK(EstimateTotals(c).quick_rule_bytes == doctest::Approx(r.gb * 1e9).epsilon(1e-12));
  }
}

TEST_CASE("M6: Baichuan-7B sizes per dtype, largest layer, Adam at 4x") {
  Config c = Bare();
  c.model = Baichuan7B();
  c.mode = Mode::kInference;
  const ParamCounts p = CountParameters(c.model);
  CHECK(p.total == 7'000'559'616);
  // The preset, imported from its config.json, is the same model.
  REQUIRE(FindPreset("baichuan-7b") != nullptr);
  CHECK(CountParameters(FindPreset("baichuan-7b")->model).total == p.total);
  struct Row {
    Dtype dtype;
    double gib;
  };
  const Row rows[] = {{Dtype::kFp32, 26.08}, {Dtype::kFp16, 13.04}, {Dtype::kInt8, 6.52}, {Dtype::kInt4, 3.26}};
  // Tensors a quantised checkpoint keeps in 16 bits: embedding, LM head, 65 RMSNorm weights.
  const double kept_16bit_params = 2.0 * 64000 * 4096 + (32 * 2 + 1) * 4096.0;
  for (const Row& r : rows) {
    c.dtype = r.dtype;
    // The calculator's table: every parameter in the format.
    const double naive = NaiveModelBytes(static_cast<double>(p.total), r.dtype, c.quant);
    CHECK(naive == 7'000'559'616.0 * Info(r.dtype).bits / 8);
    CHECK(std::round(naive / kGiB * 100) / 100 == r.gib);
    // A real int8/int4 checkpoint keeps those in 16 bits: that many bytes more.
    const bool quantised = r.dtype == Dtype::kInt8 || r.dtype == Dtype::kInt4;
    const double extra = quantised ? kept_16bit_params * (2 - Info(r.dtype).bits / 8) : 0;
    CHECK(Bytes(Explain(c), "total.model_states.weights") == doctest::Approx(naive + extra));
  }
  // Largest layer: the 64000 x 4096 embedding, 1000 MiB in fp32.
  CHECK(p.largest_tensor * 4 == 1000 * kMiB);
  // "Training with Adam" at 4x the fp32 model: weights, gradients, m and v in fp32.
  Config t = Bare();
  t.model = Baichuan7B();
  t.dtype = t.grad_dtype = t.optimizer_dtype = Dtype::kFp32;
  const Estimate e = Explain(t);
  CHECK(std::round(Bytes(e, "total.model_states") / kGiB * 10) / 10 == 104.3);
  CHECK(Bytes(e, "total.model_states") == 4 * 4 * 7'000'559'616.0);
}

TEST_CASE("M7: LLaMA-6B AdamW at fp32 and int8, plus CUDA context") {
  Config c = ParamsOnly(6e9);
  c.dtype = c.grad_dtype = c.optimizer_dtype = Dtype::kFp32;
  Estimate e = Explain(c);
  CHECK(Bytes(e, "total.model_states.weights") == 24e9);
  CHECK(Bytes(e, "total.model_states.optimizer") == 48e9);

  c.dtype = c.grad_dtype = Dtype::kInt8;
  c.master_weights = false;
  c.optimizer = Optimizer::kAdam8bit;
  c.cuda_context_gb = 1.3;
  e = Explain(c);
  CHECK(Bytes(e, "total.model_states.weights") == 6e9);
  CHECK(Bytes(e, "total.model_states.gradients") == 6e9);
  // 1 byte per state plus one fp32 absmax per 2048 values: 12.0234 GB, the document's "12 GB".
  const double blocks = std::ceil(6e9 / 2048);
  CHECK(Bytes(e, "total.model_states.optimizer") == 2 * (6e9 + 4 * blocks));
  CHECK(Bytes(e, "total.model_states.optimizer") == doctest::Approx(12e9).epsilon(0.002));
  CHECK(e.totals.peak_bytes == 6e9 + 6e9 + 2 * (6e9 + 4 * blocks) + 1.3e9);
  CHECK(e.totals.peak_bytes == doctest::Approx(25.3e9).epsilon(0.001));
}

TEST_CASE("params_override: dense models run every parameter; MoE keeps the architecture's active share") {
  Config dense = DefaultConfig();
  dense.model.params_override = 7'000'000'001;
  const Estimate d = Explain(dense);
  REQUIRE(d.totals.ok);
  CHECK(d.totals.params == 7'000'000'001);
  CHECK(d.totals.active_params == d.totals.params);
  // The weights of exactly 7,000,000,001 bf16 parameters: 2 B each, whole bytes, no fraction.
  CHECK(d.tree.Find("total.model_states.weights")->bytes == 14'000'000'002.0);

  const Preset* moe = FindPreset("mixtral-8x7b");
  REQUIRE(moe != nullptr);
  Config m = DefaultConfig();
  m.model = moe->model;
  const ParamCounts arch = CountParameters(m.model);
  REQUIRE(arch.active < arch.total);
  m.model.params_override = arch.total / 2;
  const Totals t = EstimateTotals(m);
  REQUIRE(t.ok);
  CHECK(t.params == arch.total / 2);
  CHECK(static_cast<double>(t.active_params) == doctest::Approx(static_cast<double>(arch.active) / 2).epsilon(1e-9));
}

namespace {

// Every "ZeRO-k" the subtree's names and formulas mention.
void ZeroStagesNamed(const BreakdownNode& n, std::string& stages) {
  for (const std::string* text : {&n.name, &n.formula}) {
    for (size_t at = text->find("ZeRO-"); at != std::string::npos; at = text->find("ZeRO-", at + 1)) {
      stages += text->substr(at + 5, 1);
    }
  }
  for (const BreakdownNode& c : n.children) ZeroStagesNamed(c, stages);
}

}  // namespace

TEST_CASE("Sharded states are labelled with the ZeRO stage configured, not the one that introduced them") {
  for (const Mode mode : {Mode::kTraining, Mode::kLora, Mode::kRlhf}) {
    for (int64_t zero = 1; zero <= 3; ++zero) {
      Config c = DefaultConfig();
      c.mode = mode;
      c.dp = 8;
      c.zero = zero;
      c.optimizer_grad_copy = true;
      c.grad_accum = 2;
      c.grad_accum_fp32 = true;
      const Estimate e = Explain(c);
      REQUIRE(e.totals.ok);
      std::string stages;
      ZeroStagesNamed(e.tree, stages);
      CAPTURE(Id(mode));
      CAPTURE(zero);
      CHECK_FALSE(stages.empty());
      CHECK(stages.find_first_not_of(std::to_string(zero)) == std::string::npos);
    }
  }
  // Under ZeRO-3 the gradients are split by ZeRO-3.
  Config c = DefaultConfig();
  c.dp = 8;
  c.zero = 3;
  const Estimate e = Explain(c);
  CHECK(e.tree.Find("total.model_states.gradients")->formula.find("/ 8 (ZeRO-3") != std::string::npos);
}

TEST_CASE("Model-state formulas state the byte sizes their arithmetic uses") {
  const auto formula = [](const Estimate& e, const char* id) {
    const BreakdownNode* n = e.tree.Find(id);
    REQUIRE(n != nullptr);
    return n->formula;
  };
  Config c = DefaultConfig();
  c.dtype = Dtype::kFp32;
  c.grad_dtype = Dtype::kFp32;
  c.optimizer_dtype = Dtype::kFp32;
  const Estimate fp32 = Explain(c);
  REQUIRE(fp32.totals.ok);
  CHECK(formula(fp32, "total.model_states.weights.attention").rfind("4 B x ", 0) == 0);
  CHECK(formula(fp32, "total.model_states.gradients").rfind("4 B x ", 0) == 0);
  CHECK(formula(fp32, "total.model_states.optimizer.adam_m").rfind("4 B x ", 0) == 0);
  c.dtype = Dtype::kBf16;
  CHECK(formula(Explain(c), "total.model_states.weights.attention").rfind("2 B x ", 0) == 0);
  // A quantised group: the average its bytes come from (NF4 matrices, 16-bit norms).
  c.mode = Mode::kQlora;
  const Estimate q = Explain(c);
  const BreakdownNode* attention = q.tree.Find("total.model_states.weights.attention");
  REQUIRE(attention != nullptr);
  const double params = static_cast<double>(CountParameters(c.model).attention);
  CHECK(attention->formula.rfind(FormatNumber(attention->bytes / params, 4) + " B x ", 0) == 0);
}

TEST_CASE("Optimizer step: foreach Adam(W) peaks at 5x the parameter bytes in pure bf16 (Mistral-7B)") {
  Config c = Bare();
  c.model = FindPreset("mistral-7b-v0.1")->model;
  c.framework = Framework::kHfSdpa;  // torch.optim.AdamW, foreach by default
  c.dtype = c.grad_dtype = c.optimizer_dtype = Dtype::kBf16;
  c.master_weights = false;
  c.batch = 4;
  c.seq = 512;
  const Estimate e = Explain(c);
  const double P = static_cast<double>(e.params.total);
  CHECK(e.totals.peak_moment == Moment::kOptimizerStep);
  // weights + gradients + m + v + the sqrt(v) temporary, and 4 B per step tensor.
  CHECK(e.totals.moment_bytes[1] == doctest::Approx(5 * 2 * P).epsilon(1e-6));
  CHECK(Bytes(e, "total.model_states.step_temporaries") == 2 * P);
  c.optimizer_impl = OptimizerImpl::kFused;
  CHECK(Explain(c).tree.Find("total.model_states.step_temporaries") == nullptr);
  c.optimizer_impl = OptimizerImpl::kForLoop;  // one tensor at a time: sqrt(v) and its quotient of the embedding
  const Estimate loop = Explain(c);
  const BreakdownNode* temp = loop.tree.Find("total.model_states.step_temporaries");
  REQUIRE(temp != nullptr);
  CHECK(temp->moment_bytes[static_cast<int>(Moment::kOptimizerStep)] == 2 * (2.0 * 32000 * 4096));
}

TEST_CASE("Optimizer in backward keeps one gradient; paged states leave the GPU total") {
  Config c = Bare();
  c.model = Llama2_7B();
  c.framework = Framework::kHfSdpa;
  c.optimizer_impl = OptimizerImpl::kInBackward;
  const Estimate e = Explain(c);
  CHECK(Bytes(e, "total.model_states.gradients") == 2.0 * 32000 * 4096);  // the largest tensor's
  Config paged = Bare();
  paged.model = Llama2_7B();
  paged.optimizer = Optimizer::kAdam8bit;
  paged.paged_optimizer = true;
  const Estimate p = Explain(paged);
  const BreakdownNode* m = p.tree.Find("total.model_states.optimizer.adam_m");
  REQUIRE(m != nullptr);
  CHECK(m->device == Device::kCpu);
  paged.paged_optimizer = false;
  CHECK(EstimateTotals(paged).peak_bytes > p.totals.peak_bytes);
}

TEST_CASE("Three measures: allocated, reserved (+ fragmentation), nvidia-smi (+ context)") {
  Config c = DefaultConfig();
  MixedPrecision(c);  // its peak at the optimizer step, where no cached block of the loss is held
  c.fragmentation_pct = 10;
  c.cuda_context_gb = 1.3;
  c.comm_buffer_gb = 0;
  const Totals t = EstimateTotals(c);
  CHECK(t.reserved_bytes == doctest::Approx(t.allocated_bytes * 1.1).epsilon(1e-9));
  CHECK(t.peak_bytes == doctest::Approx(t.reserved_bytes + 1.3e9).epsilon(1e-9));
}

// Issue 29: the layer stacks kept their own optimizer table, and it counted bitsandbytes'
// 8-bit states without their absmax blocks; both now read the optimizer's row.
TEST_CASE("Two doors agree: the LLM accounting and the layer stacks keep the same optimizer states") {
  struct Row {
    Optimizer o;
    std::vector<const char*> leaves;
  };
  const Row rows[] = {
      {Optimizer::kSgd, {}},
      {Optimizer::kSgdMomentum, {"momentum"}},
      {Optimizer::kAdamW, {"optimizer.adam_m", "optimizer.adam_v"}},
      {Optimizer::kAdam8bit, {"optimizer.adam_m", "optimizer.adam_v"}},
      {Optimizer::kLion, {"lion_m"}},
  };
  for (const Row& r : rows) {
    CAPTURE(Id(r.o));
    REQUIRE(Info(r.o).layer_stack);
    Config c = ParamsOnly(1e9 + 123);  // not a multiple of 2048: a partial absmax block
    c.optimizer = r.o;
    c.optimizer_dtype = Dtype::kFp32;
    const Estimate e = Explain(c);
    REQUIRE(e.totals.ok);
    double llm = 0;
    for (const char* leaf : r.leaves) llm += Bytes(e, std::string("total.model_states.") + leaf);
    const OptimizerStateBytes net = NetworkOptimizerState(r.o, 1e9 + 123, 1, 4);
    CHECK(llm == net.gpu);
  }
  CHECK(NetworkOptimizerState(Optimizer::kAdam8bit, 4096, 1, 2).gpu == 2 * (4096 + 2 * 4));
}

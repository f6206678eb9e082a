// Training programs as table rows (issue 30, core/config/stacks.h): every cell is a setting the
// estimate has, versions pick their rows, what the user sets overrides the row, and the CLI,
// JSON (the JS API), links and the UI start every mode from the same defaults.
#include <doctest.h>

#include <string>
#include <vector>

#include "app/ui_defaults.h"
#include "core/config/config_json.h"
#include "core/config/fields.h"
#include "core/config/stacks.h"
#include "core/config/validate.h"
#include "core/estimate/estimate.h"
#include "core/solve/doctor.h"
#include "core/solve/fit.h"
#include "setups.h"
#if LLMMEM_TEST_CLI
#include "cli/cli_args.h"
#endif

using namespace llmmem::core;

namespace {

std::string Dump(const Config& c) { return ConfigToJson(c).Dump(); }

const Mode kModes[] = {Mode::kInference, Mode::kTraining, Mode::kLora, Mode::kQlora, Mode::kRlhf};

// The stacks' names, each once, in the table's order.
std::vector<std::string> Names() {
  std::vector<std::string> out;
  for (const StackRow& r : StackRows()) {
    if (out.empty() || out.back() != r.name) out.push_back(r.name);
  }
  return out;
}

Config FromJson(const std::string& text) {
  const ConfigParse p = ConfigFromJsonText(text, DefaultConfig());
  CHECK_MESSAGE(!HasErrors(p.diagnostics), text);
  return p.config;
}

Config FromQuery(const std::string& query) {
  const ConfigParse p = ConfigFromQuery(query, DefaultConfig());
  CHECK_MESSAGE(!HasErrors(p.diagnostics), query);
  return p.config;
}

}  // namespace

TEST_CASE("stacks: every cell names a field and a value its setter takes") {
  CHECK(Names().size() == 14);
  for (const StackRow& r : StackRows()) {
    for (const StackCell& cell : r.cells) {
      const FieldDef* f = FindField(cell.field);
      REQUIRE_MESSAGE(f != nullptr, r.name, "@", r.version, ": ", cell.field);
      Config probe;
      CHECK_MESSAGE(f->set(probe, cell.value).empty(), r.name, "@", r.version, ": ", cell.field, "=", cell.value);
      CHECK(std::string(cell.why).size() > 20);  // each cell says what the program does and where
    }
  }
}

TEST_CASE("stacks: each program's default configuration of each mode is valid") {
  for (const std::string& name : Names()) {
    for (Mode m : kModes) {
      Config c = DefaultConfig();
      Diagnostics d;
      REQUIRE(SetFollowingStack(c, "stack", name, d));
      REQUIRE(SetFollowingStack(c, "mode", Id(m), d));
      if (m == Mode::kQlora) c.dtype = Dtype::kBf16;
      const Diagnostics v = Validate(c);
      CHECK_MESSAGE(!HasErrors(v), name, " ", Id(m), ": ", v.empty() ? "" : v.front().message);
    }
  }
}

TEST_CASE("stacks: a version between rows takes the earlier row, none the latest") {
  std::string error;
  const StackRow* r = FindStack("hf-trainer@4.48.1", &error);
  REQUIRE(r != nullptr);
  CHECK(std::string(r->version) == "4.41");
  CHECK(std::string(FindStack("hf-trainer")->version) == "4.49");
  CHECK(std::string(FindStack("hf-trainer@latest")->version) == "4.49");
  CHECK(std::string(FindStack("hf-trainer@5.13.1")->version) == "4.49");
  CHECK(std::string(FindStack("torchtune@0.2.1")->version) == "0.1");
  CHECK(std::string(FindStack("torchtune@0.3")->version) == "0.3");
  CHECK(std::string(FindStack("trl@0.21.9")->version) == "0.15");
  // hf-trainer@4.48.1 keeps the loss's shifted copy (4.46-4.48), 4.49 drops it.
  CHECK(StackDefault("hf-trainer@4.48.1", Mode::kLora, "loss_shift_copy") == "1");
  CHECK(StackDefault("hf-trainer@4.49", Mode::kLora, "loss_shift_copy") == "0");
  // Carried forward: torchtune 0.3 still keeps no master weights (a 0.1 cell).
  CHECK(StackDefault("torchtune@0.3", Mode::kTraining, "master_weights") == "0");
  CHECK(StackDefault("torchtune@0.3", Mode::kTraining, "fsdp1") == "0");
  CHECK(StackDefault("torchtune@0.1", Mode::kTraining, "fsdp1") == "1");
  // Inference is no training program's business: the core's defaults.
  CHECK(StackDefault("torchtune", Mode::kInference, "master_weights") == "1");

  // Unknown names and versions: errors that list what is known.
  CHECK(FindStack("pytorch-lightning", &error) == nullptr);
  CHECK(error.find("hf-trainer, trl, axolotl") != std::string::npos);
  CHECK(FindStack("hf-trainer@3.9", &error) == nullptr);
  CHECK(error.find("older than any row") != std::string::npos);
  CHECK(error.find("hf-trainer@4.0, hf-trainer@4.36, hf-trainer@4.41, hf-trainer@4.49") != std::string::npos);
  CHECK(FindStack("hf-trainer@four", &error) == nullptr);
  CHECK(error.find("not a version") != std::string::npos);
  const ConfigParse bad = ConfigFromJsonText("{\"stack\": \"lightning\"}", DefaultConfig());
  REQUIRE(HasErrors(bad.diagnostics));
  CHECK(bad.diagnostics.front().field == "stack");
  CHECK(bad.diagnostics.front().message.find("not a training program") != std::string::npos);
}

TEST_CASE("stacks: hf-trainer's QLoRA checkpoints (peft), its LoRA and full training do not") {
  CHECK(FromJson("{\"mode\": \"qlora\"}").recompute == Recompute::kFull);
  CHECK(FromJson("{\"mode\": \"lora\"}").recompute == Recompute::kNone);
  CHECK(FromJson("{\"mode\": \"train\"}").recompute == Recompute::kNone);
  // What the user sets overrides the row, whatever its place.
  CHECK(FromJson("{\"recompute\": \"none\", \"mode\": \"qlora\"}").recompute == Recompute::kNone);
  CHECK(FromQuery("v=1&recompute=none&mode=qlora").recompute == Recompute::kNone);
  CHECK(FromQuery("v=1&mode=qlora").recompute == Recompute::kFull);
  // A link writes what differs from its program's defaults for its mode, and reads back.
  Config q = FromJson("{\"mode\": \"qlora\"}");
  CHECK(ConfigToQuery(q).find("recompute") == std::string::npos);
  q.recompute = Recompute::kNone;
  const std::string link = ConfigToQuery(q);
  CHECK(link.find("recompute=none") != std::string::npos);
  CHECK(Dump(FromQuery(link)) == Dump(q));
  Config t = FromJson("{\"stack\": \"torchtune@0.3\", \"mode\": \"lora\"}");
  CHECK_FALSE(t.master_weights);
  CHECK(t.adapter_dtype == Dtype::kBf16);
  CHECK(t.loss_kernel == LossKernel::kChunked);
  CHECK(ConfigToQuery(t).find("master_weights") == std::string::npos);
  CHECK(ConfigToQuery(t).find("stack=torchtune%400.3") != std::string::npos);
  CHECK(Dump(FromQuery(ConfigToQuery(t))) == Dump(t));
}

TEST_CASE("stacks: the breakdown's notes say which values came from the program") {
  const Config q = FromJson("{\"mode\": \"qlora\", \"model\": \"llama-3.1-8b\", \"seq\": 8192}");
  const Estimate e = Explain(q);
  std::vector<std::string> said;
  for (const Diagnostic& d : e.diagnostics) {
    if (d.id != DiagId::kFromStack) continue;
    said.push_back(d.field);
    if (d.field == "recompute") {
      CHECK(d.message.find("recompute = full: as hf-trainer@latest (row 4.49) runs it") == 0);
      CHECK(d.message.find("prepare_model_for_kbit_training") != std::string::npos);
    } else {
      CHECK(d.field == "adapter_dtype");  // peft's fp32 adapters, said with its code
      CHECK(d.message.find("_cast_adapter_dtype") != std::string::npos);
    }
  }
  CHECK(said == std::vector<std::string>{"recompute", "adapter_dtype"});
  // Full training under hf-trainer is pure bf16: said, each with the condition it holds under.
  said.clear();
  for (const Diagnostic& d : Explain(DefaultConfig()).diagnostics) {
    if (d.id != DiagId::kFromStack) continue;
    said.push_back(d.field);
    CHECK(d.message.find(" when ") != std::string::npos);
  }
  CHECK(said == std::vector<std::string>{"master_weights", "optimizer_dtype"});
  // A version's row is named with the version asked for.
  const Config old = FromJson("{\"stack\": \"hf-trainer@4.48.1\", \"mode\": \"lora\"}");
  bool shift = false;
  for (const Diagnostic& d : Explain(old).diagnostics)
    shift |= d.field == "loss_shift_copy" && d.message.find("hf-trainer@4.48.1 (row 4.41)") != std::string::npos;
  CHECK(shift);
}

TEST_CASE("stacks: changing the mode or the program keeps what the user changed") {
  Config c = DefaultConfig();
  Diagnostics d;
  REQUIRE(SetFollowingStack(c, "stack", "torchtune", d));
  CHECK_FALSE(c.master_weights);
  c.master_weights = true;  // the user's
  REQUIRE(SetFollowingStack(c, "mode", "qlora", d));
  CHECK(c.master_weights);
  CHECK(c.adapter_dtype == Dtype::kBf16);  // a PEFT cell of torchtune
  REQUIRE(SetFollowingStack(c, "stack", "hf-trainer", d));
  CHECK(c.master_weights);
  CHECK(c.adapter_dtype == Dtype::kFp32);  // peft's fp32 adapters
  CHECK(c.recompute == Recompute::kFull);   // hf-trainer's QLoRA
  REQUIRE(SetFollowingStack(c, "mode", "train", d));
  CHECK(c.recompute == Recompute::kNone);
}

// Issue 30 part 3: one set of defaults. For every program and mode, the CLI's flags, the JSON
// the JS API takes, a link and the UI's pickers assemble the same configuration.
TEST_CASE("stacks: CLI, JSON, links and the UI agree on every mode's defaults") {
  for (const std::string& name : Names()) {
    for (Mode m : kModes) {
      const std::string mode = Id(m);
      const bool default_stack = name == kDefaultStack;
      const Config json = FromJson(default_stack ? "{\"mode\": \"" + mode + "\"}"
                                                 : "{\"stack\": \"" + name + "\", \"mode\": \"" + mode + "\"}");
      const Config link = FromQuery(default_stack ? "v=1&mode=" + mode : "v=1&stack=" + name + "&mode=" + mode);
      Config ui = DefaultConfig();  // the page: its program picker, then "What for?"
      if (!default_stack) {
        const std::string before = ui.stack;
        ui.stack = name;
        FollowStack(ui, before, ui.mode);
      }
      llmmem::app::SwitchMode(ui, m);
      CHECK_MESSAGE(Dump(json) == Dump(link), name, " ", mode);
      CHECK_MESSAGE(Dump(json) == Dump(ui), name, " ", mode);
#if LLMMEM_TEST_CLI
      std::vector<std::string> args = {"--mode", mode};
      if (!default_stack) args = {"--stack", name, "--mode", mode};
      const auto cli = llmmem::cli::ParseCli(args, nullptr);
      CHECK_MESSAGE(!HasErrors(cli.diagnostics), name, " ", mode, ": ",
                    cli.diagnostics.empty() ? "" : cli.diagnostics.front().message);
      CHECK_MESSAGE(Dump(cli.options.config) == Dump(json), name, " ", mode);
      // The flags' order does not matter, and a flag overrides the program.
      const auto later = llmmem::cli::ParseCli({"--recompute", "none", "--mode", mode}, nullptr);
      CHECK(later.options.config.recompute == Recompute::kNone);
#endif
    }
  }
}

// Issue 29: one answer. A preset named without a format runs, for inference, in the one its
// checkpoint ships in (PresetDtype), on every surface: `llmmem --model gpt-oss-120b` counted
// BF16 (233.7 GB) where the page counted MXFP4.
TEST_CASE("stacks: every preset named without a dtype opens in the same format on every surface") {
  int non_bf16 = 0;
  for (const Preset& p : Presets()) {
    if (!p.ok) continue;
    for (Mode m : kModes) {
      const std::string mode = Id(m);
      const Dtype want = PresetDtype(p, m);
      non_bf16 += want != Dtype::kBf16;
      const Config json = FromJson("{\"model\": \"" + p.key + "\", \"mode\": \"" + mode + "\"}");
      const Config link = FromQuery("v=1&model=" + p.key + "&mode=" + mode);
      Config ui = DefaultConfig();
      llmmem::app::SwitchMode(ui, m);
      llmmem::app::PickPreset(ui, p);
      CHECK_MESSAGE(json.dtype == want, p.key, " ", mode);
      CHECK_MESSAGE(link.dtype == want, p.key, " ", mode);
      CHECK_MESSAGE(ui.dtype == want, p.key, " ", mode);
      CHECK_MESSAGE(ConfigToQuery(link).find("&dtype=") == std::string::npos, p.key, " ", mode);
#if LLMMEM_TEST_CLI
      // The flags' order does not matter: the mode may come after the model.
      const auto cli = llmmem::cli::ParseCli({"--model", p.key, "--mode", mode}, nullptr);
      const auto later = llmmem::cli::ParseCli({"--mode", mode, "--model", p.key}, nullptr);
      CHECK_MESSAGE(cli.options.config.dtype == want, p.key, " ", mode);
      CHECK_MESSAGE(later.options.config.dtype == want, p.key, " ", mode);
#endif
    }
  }
  CHECK(non_bf16 > 10);  // FP8, MXFP4, GPTQ/AWQ, FP16 and FP32 checkpoints among them
  // A format the user gives stays, and changing the model again follows only a default.
  CHECK(FromJson("{\"model\": \"gpt-oss-120b\", \"mode\": \"infer\", \"dtype\": \"bf16\"}").dtype == Dtype::kBf16);
  Config c = FromQuery("v=1&model=gpt-oss-120b&mode=infer");
  CHECK(c.dtype == Dtype::kMxfp4);
  Diagnostics d;
  REQUIRE(SetFollowingStack(c, "model", "deepseek-r1", d));
  CHECK(c.dtype == Dtype::kFp8);
  REQUIRE(SetFollowingStack(c, "mode", "lora", d));
  CHECK(c.dtype == Dtype::kBf16);
}

#if LLMMEM_TEST_CLI
// The issue's example: Llama 3.1 8B QLoRA at 8192 tokens on an RTX 4090 printed 102.4 GB
// without checkpointing; hf-trainer + peft checkpoints it, as prepare_model_for_kbit_training does.
TEST_CASE("stacks: the CLI's QLoRA default checkpoints, as peft does") {
  const auto with_default = llmmem::cli::ParseCli(
      {"--model", "llama-3.1-8b", "--mode", "qlora", "--gpu", "RTX-4090-24GB", "--seq", "8192"}, nullptr);
  REQUIRE(!HasErrors(with_default.diagnostics));
  CHECK(with_default.options.config.recompute == Recompute::kFull);
  const double peak = EstimateTotals(with_default.options.config).peak_bytes;
  const auto without = llmmem::cli::ParseCli({"--model", "llama-3.1-8b", "--mode", "qlora", "--gpu", "RTX-4090-24GB",
                                              "--seq", "8192", "--recompute", "none"},
                                             nullptr);
  const double none = EstimateTotals(without.options.config).peak_bytes;
  CHECK(none / 1e9 == doctest::Approx(102.4).epsilon(0.01));
  CHECK(peak / 1e9 == doctest::Approx(23.5).epsilon(0.01));
  const auto bad = llmmem::cli::ParseCli({"--stack", "hf-trainer@2.0"}, nullptr);
  REQUIRE(HasErrors(bad.diagnostics));
  CHECK(bad.diagnostics.front().message.find("--stack: hf-trainer@2.0 is older than any row") == 0);
}
#endif

// Conditional cells (issue 30): a cell that holds only under a condition on the rest of the
// configuration is the default of the configuration the user's settings end with, on every
// surface, and sets nothing when its condition is off (so validation never refuses it).
namespace {

std::string Field(const Config& c, const char* name) { return FindField(name)->get(c); }

}  // namespace

TEST_CASE("stacks: every condition reads, and no cell is shadowed by an earlier one") {
  for (const StackRow& r : StackRows()) {
    for (size_t i = 0; i < r.cells.size(); ++i) {
      const StackCell& cell = r.cells[i];
      std::string error;
      ConditionHolds(cell.when, DefaultConfig(), &error);
      CHECK_MESSAGE(error.empty(), r.name, "@", r.version, " ", cell.field, " when ", cell.when, ": ", error);
      // An unconditional cell decides its field for its modes: no later cell of them is reached.
      for (size_t j = 0; j < i; ++j) {
        const StackCell& before = r.cells[j];
        CHECK_MESSAGE(!(std::string(before.field) == cell.field && *before.when == '\0' && (before.modes & cell.modes) == cell.modes),
                      r.name, "@", r.version, ": ", cell.field, " when ", cell.when, " is never reached");
      }
    }
  }
  std::string error;
  CHECK_FALSE(ConditionHolds("shardng=fsdp", DefaultConfig(), &error));
  CHECK(error.find("not a field") != std::string::npos);
  CHECK_FALSE(ConditionHolds("sharding=zero4", DefaultConfig(), &error));
  CHECK(error.find("sharding") != std::string::npos);
  CHECK_FALSE(ConditionHolds("dtype>1", DefaultConfig(), &error));
  CHECK(ConditionHolds("tp>1 or dtype=bf16", DefaultConfig()));
  CHECK_FALSE(ConditionHolds("tp>1 and dtype=bf16", DefaultConfig()));
}

TEST_CASE("stacks: hf-trainer under FSDP runs accelerate's FSDP1, and only there") {
  // Without FSDP the cell sets nothing, and the default configuration validates.
  CHECK(Field(FromJson("{\"mode\": \"lora\"}"), "fsdp1") == "0");
  const Config fsdp = FromJson("{\"mode\": \"lora\", \"sharding\": \"fsdp\", \"zero\": 3, \"dp\": 2}");
  CHECK(fsdp.fsdp1);
  CHECK_FALSE(HasErrors(Validate(fsdp)));
  // The user's word wins over the condition, whatever the order.
  CHECK_FALSE(FromJson("{\"fsdp1\": false, \"sharding\": \"fsdp\", \"zero\": 3, \"dp\": 2}").fsdp1);
  CHECK_FALSE(FromQuery("v=1&fsdp1=0&sharding=fsdp&zero=3&dp=2").fsdp1);
  CHECK(FromQuery("v=1&sharding=fsdp&zero=3&dp=2").fsdp1);
  // A link says what differs from the defaults of its own conditions, and reads back.
  CHECK(ConfigToQuery(fsdp).find("fsdp1") == std::string::npos);
  Config off = fsdp;
  off.fsdp1 = false;
  CHECK(ConfigToQuery(off).find("fsdp1=0") != std::string::npos);
  CHECK(Dump(FromQuery(ConfigToQuery(off))) == Dump(off));
  CHECK(Dump(FromQuery(ConfigToQuery(fsdp))) == Dump(fsdp));
  // Setting the condition's field moves the fields still at their defaults, and back.
  Config c = DefaultConfig();
  Diagnostics d;
  REQUIRE(SetFollowingStack(c, "sharding", "fsdp", d));
  REQUIRE(SetFollowingStack(c, "zero", "3", d));
  CHECK(c.fsdp1);
  REQUIRE(SetFollowingStack(c, "sharding", "deepspeed", d));
  CHECK_FALSE(c.fsdp1);
}

TEST_CASE("stacks: hf-trainer trains pure bf16, and fp32 under FSDP mixed precision from 4.41") {
  // A bf16 model without DeepSpeed: no master copy, AdamW's states in bf16.
  const Config pure = FromJson("{\"mode\": \"train\"}");
  CHECK_FALSE(pure.master_weights);
  CHECK(pure.optimizer_dtype == Dtype::kBf16);
  CHECK(pure.grad_dtype == Dtype::kBf16);
  // fp32 weights: fp32 gradients and states.
  const Config fp32 = FromJson("{\"mode\": \"train\", \"dtype\": \"fp32\"}");
  CHECK(fp32.grad_dtype == Dtype::kFp32);
  CHECK(fp32.optimizer_dtype == Dtype::kFp32);
  // DeepSpeed ZeRO (no FSDP): its fp32 partitions, the core's defaults.
  const Config ds = FromJson("{\"mode\": \"train\", \"zero\": 2, \"dp\": 8}");
  CHECK(ds.master_weights);
  CHECK(ds.optimizer_dtype == Dtype::kFp32);
  // accelerate >= 0.30 upcasts FSDP's flat parameters under mixed precision.
  const char* amp = "{\"mode\": \"train\", \"sharding\": \"fsdp\", \"zero\": 3, \"dp\": 4, \"autocast\": \"bf16\"";
  const Config up = FromJson(std::string(amp) + "}");
  CHECK(up.master_weights);
  CHECK(up.grad_dtype == Dtype::kFp32);
  CHECK(up.optimizer_dtype == Dtype::kFp32);
  CHECK(up.fsdp1);
  const Config before = FromJson(std::string(amp) + ", \"stack\": \"hf-trainer@4.40\"}");
  CHECK_FALSE(before.master_weights);
  CHECK(before.optimizer_dtype == Dtype::kBf16);
  // Without mixed precision FSDP keeps the bf16 parameters as loaded.
  const Config no_amp = FromJson("{\"mode\": \"train\", \"sharding\": \"fsdp\", \"zero\": 3, \"dp\": 4}");
  CHECK_FALSE(no_amp.master_weights);
  // TRL runs on the HF Trainer of its time (StackRow::on): 0.9 on 4.41, 0.7 on 4.36.
  CHECK(FromJson(std::string(amp) + ", \"stack\": \"trl@0.10\"}").master_weights);
  CHECK_FALSE(FromJson(std::string(amp) + ", \"stack\": \"trl@0.7.11\"}").master_weights);
  CHECK(FromJson(std::string(amp) + ", \"stack\": \"trl@0.7.11\"}").fsdp1);
  // The estimate follows: pure bf16 keeps 8 bytes a parameter where mixed precision keeps 16.
  Config mixed = pure;
  mixed.master_weights = true;
  mixed.optimizer_dtype = Dtype::kFp32;
  const Totals a = EstimateTotals(pure), b = EstimateTotals(mixed);
  const double params = static_cast<double>(a.params);
  CHECK(b.category_bytes[static_cast<int>(Category::kMasterWeights)] == doctest::Approx(4 * params).epsilon(1e-9));
  CHECK(a.category_bytes[static_cast<int>(Category::kMasterWeights)] == 0);
}

TEST_CASE("stacks: peft's fp32 norms for a QLoRA model it prepares, under AMP and not under FSDP") {
  CHECK_FALSE(FromJson("{\"mode\": \"qlora\"}").norms_fp32);  // no AMP: validation would refuse it
  const Config q = FromJson("{\"mode\": \"qlora\", \"autocast\": \"bf16\"}");
  CHECK(q.norms_fp32);
  CHECK_FALSE(HasErrors(Validate(q)));
  CHECK_FALSE(FromJson("{\"mode\": \"qlora\", \"autocast\": \"bf16\", \"sharding\": \"fsdp\", \"zero\": 3, \"dp\": 2}").norms_fp32);
  CHECK_FALSE(FromJson("{\"mode\": \"qlora\", \"autocast\": \"bf16\", \"norms_fp32\": false}").norms_fp32);
  CHECK_FALSE(FromJson("{\"mode\": \"lora\", \"autocast\": \"bf16\"}").norms_fp32);
  CHECK(FromJson("{\"mode\": \"lora\"}").adapter_dtype == Dtype::kFp32);
}

TEST_CASE("stacks: transformers' GPTBigCode keeps its cache under checkpointing and a 16-bit loss") {
  // santacoder's shape: LayerNorm, learned positions, one KV head (multi_query).
  const char* santacoder =
      "\"model\": {\"arch\": \"decoder\", \"vocab\": 49280, \"hidden\": 2048, \"layers\": 24, \"heads\": 16, "
      "\"kv_heads\": 1, \"ffn\": 8192, \"mlp\": \"plain\", \"act\": \"gelu_pytorch_tanh\", \"norm\": \"layernorm\", "
      "\"learned_positions\": 2048, \"tied_embeddings\": true}";
  const Config gc = FromJson(std::string("{\"mode\": \"train\", \"seq\": 2048, \"recompute\": \"full\", ") + santacoder + "}");
  CHECK(gc.train_use_cache);
  CHECK_FALSE(gc.loss_logits_fp32);
  CHECK_FALSE(HasErrors(Validate(gc)));
  const Config plain = FromJson(std::string("{\"mode\": \"train\", \"seq\": 2048, ") + santacoder + "}");
  CHECK_FALSE(plain.train_use_cache);  // the cache is a view of what the layers keep anyway
  CHECK_FALSE(plain.loss_logits_fp32);
  // Llama (RMSNorm, rotary) is not GPTBigCode.
  const Config llama = FromJson("{\"mode\": \"train\", \"recompute\": \"full\"}");
  CHECK_FALSE(llama.train_use_cache);
  CHECK(llama.loss_logits_fp32);
}

TEST_CASE("stacks: torchtitan computes the loss under loss_parallel with TP, and only then") {
  CHECK(FromJson("{\"stack\": \"torchtitan\", \"mode\": \"train\"}").loss_kernel == LossKernel::kTorch);
  const Config tp = FromJson("{\"stack\": \"torchtitan\", \"mode\": \"train\", \"tp\": 8, \"sp\": true, \"dp\": 4, \"zero\": 3}");
  CHECK(tp.loss_kernel == LossKernel::kLossParallel);
  CHECK_FALSE(HasErrors(Validate(tp)));
}

TEST_CASE("Stacks: the fit solver, the doctor and the planner follow the program's conditional defaults") {
  // Under hf-trainer, full training in bf16 at ZeRO-0 steps the parameters as loaded (no fp32
  // master copy, bf16 AdamW states); under DeepSpeed ZeRO-3 the engine keeps fp32 masters and
  // states. A stage the solver tries is what the program would run at that stage: the same
  // configuration a link with zero=3 gives.
  const Config base = FromQuery("v=1&mode=training&dtype=bf16&zero=0&dp=8");
  REQUIRE_FALSE(base.master_weights);
  const Config linked = FromQuery("v=1&mode=training&dtype=bf16&zero=3&dp=8");
  REQUIRE(linked.master_weights);
  const std::vector<ZeroStageFit> stages = FewestGpusPerZeroStage(base, 80e9);
  REQUIRE(stages.size() == 4);
  CHECK(stages[3].config.master_weights == linked.master_weights);
  CHECK(stages[3].config.optimizer_dtype == linked.optimizer_dtype);
  CHECK(EstimateTotals(stages[3].config).peak_bytes == EstimateTotals(linked).peak_bytes);
  CHECK_FALSE(stages[0].config.master_weights);  // ZeRO-0 keeps the Trainer's own default
  // The doctor's ZeRO remedies likewise.
  for (const Remedy& r : Diagnose(base))
    if (r.id == "zero3") CHECK(r.config.master_weights);
  // A setting not at the program's default is the user's and stays: fp16 states at ZeRO-0
  // (the Trainer's default there is bf16) stay fp16 at ZeRO-3 (whose default is fp32).
  const Config mine = FromQuery("v=1&mode=training&dtype=bf16&zero=0&dp=8&optimizer_dtype=fp16");
  REQUIRE(mine.optimizer_dtype == Dtype::kFp16);
  CHECK(FewestGpusPerZeroStage(mine, 80e9)[3].config.optimizer_dtype == Dtype::kFp16);
}

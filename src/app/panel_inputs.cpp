// The inputs under the three questions (panel_questions.cpp): the workload (batch,
// sequence, accumulation, prefill chunk) always shown, and the rest in "Advanced"
// sections, folded until asked for: memory savers, parallelism, precision, optimizer,
// LoRA, RLHF, overheads, the GPU's memory, the model's dimensions and a weights file.
// Only the sections that matter for the mode are shown; one with an error opens itself.
// Every input edits the Config directly and shows its help, range and diagnostics
// (widgets.h); parallel sizes step through divisors only.
#include <algorithm>
#include <cfloat>
#include <cstdio>
#include <string>
#include <vector>

#include "app/i18n.h"
#include "app/panels.h"
#include "app/widgets.h"
#include "core/config/config_json.h"
#include "core/model/dtype.h"
#include "core/config/fields.h"
#include "core/config/gpu_count.h"
#include "core/catalogue/gpus.h"
#include "core/base/units.h"
#include "imgui.h"

namespace llmmem::app {
namespace {

bool Trainable(const core::DtypeInfo& row) { return row.trainable; }
// Formats by their labels; only the trainable ones where weights are trained.
void DtypeField(State& s, const char* field, core::Dtype* d, bool trainable_only, const char* label = nullptr) {
  FieldEnum(s, field, d, trainable_only ? Trainable : nullptr, nullptr, label);
}

// A folded section of the Advanced inputs; it opens by itself when one of its fields has
// an error, so the red input is in view. `fields` are the controls it holds in this mode:
// folded, they still count as shown (AlsoInEffect lists only settings with no control).
// `id` names it for tests (MarkItem) and keeps it open across languages.
bool Section(State& s, const char* id, const char* title, const std::vector<const char*>& fields) {
  for (const char* f : fields)
    for (const core::Diagnostic* d : DiagnosticsFor(s, f))
      if (d->severity == core::Severity::kError) ImGui::SetNextItemOpen(true);
  const bool open = ImGui::CollapsingHeader((std::string(title) + "###" + id).c_str());
  MarkItem(s, id);
  if (!open) s.shown_fields.insert(s.shown_fields.end(), fields.begin(), fields.end());
  return open;
}

void Workload(State& s, bool training) {
  core::Config& c = s.config;
  ImGui::TextDisabled("%s", Tr("Workload"));
  ImGui::Separator();
  FieldInt(s, "batch", &c.batch, training ? nullptr : Tr("Sequences at once"));
  FieldInt(s, "seq", &c.seq, training ? nullptr : Tr("Tokens per sequence"));
  if (training) FieldInt(s, "grad_accum", &c.grad_accum);
  if (!training) FieldInt(s, "prefill_chunk", &c.prefill_chunk);
}

void MemorySavers(State& s, bool training) {
  core::Config& c = s.config;
  const std::vector<const char*> fields =
      training ? std::vector<const char*>{"recompute",      "framework",           "flash_attn",
                                          "dropout",        "offload_activations", "reentrant_checkpoint",
                                          "train_use_cache",  "linear_kernels"}
               : std::vector<const char*>{"flash_attn"};
  if (!Section(s, "section_savers", Tr("Memory savers"), fields)) return;
  if (training) {
    FieldEnum(s, "recompute", &c.recompute);
    // The implementation profile decides which tensors are saved (core/framework.h).
    FieldEnum(s, "framework", &c.framework);
  }
  FieldBool(s, "flash_attn", &c.flash_attn);
  if (training) {
    ImGui::SameLine();
    FieldBool(s, "dropout", &c.dropout);
    if (c.recompute == core::Recompute::kFull) {
      FieldBool(s, "offload_activations", &c.offload_activations);
      FieldBool(s, "reentrant_checkpoint", &c.reentrant_checkpoint);
    }
    // GPTBigCode's quirk, offered where it applies; left on elsewhere, "Also in effect" lists it.
    if (c.recompute == core::Recompute::kFull && core::IsHuggingFace(c.framework))
      FieldBool(s, "train_use_cache", &c.train_use_cache);
    // Offered where it changes the count: a hybrid model's Gated DeltaNet or Mamba-2 layers.
    if (c.model.linear_layers > 0 && c.model.linear_kind != core::LinearKind::kKda)
      FieldEnum(s, "linear_kernels", &c.linear_kernels);
  }
}

void Parallelism(State& s, bool training) {
  core::Config& c = s.config;
  const std::vector<const char*> fields =
      training
          ? std::vector<const char*>{"tp",       "sp",  "dp", "zero", "sharding",          "zero_group",     "pp",
                                     "schedule", "vpp", "cp", "ep",   "offload_optimizer", "offload_params", "fsdp1"}
          : std::vector<const char*>{"tp", "sp"};
  if (!Section(s, "section_parallelism", Tr("Parallelism"), fields)) return;
  const int64_t gpus = core::TotalGpus(c);
  ImGui::TextDisabled(Tr("%lld GPUs = dp x tp x pp x cp"), static_cast<long long>(gpus));
  FieldIntDivisor(s, "tp", &c.tp, c.model.heads);
  if (c.tp > 1) FieldBool(s, "sp", &c.sp);
  if (!training) return;
  FieldInt(s, "dp", &c.dp);
  FieldInt(s, "zero", &c.zero);
  if (c.zero > 0 || c.dp > 1) FieldEnum(s, "sharding", &c.sharding);
  // Left on after the sharding changed, "Also in effect" lists it with a reset.
  if (c.sharding == core::Sharding::kFsdp && (c.zero > 0 || c.dp > 1)) FieldBool(s, "fsdp1", &c.fsdp1);
  if (c.zero > 0) FieldIntDivisor(s, "zero_group", &c.zero_group, c.dp);
  FieldIntDivisor(s, "pp", &c.pp, c.model.layers);
  if (c.pp > 1) {
    FieldEnum(s, "schedule", &c.schedule);
    if (c.schedule == core::Schedule::kInterleaved)
      FieldIntDivisor(s, "vpp", &c.vpp, c.pp > 0 && c.model.layers % c.pp == 0 ? c.model.layers / c.pp : 0);
  }
  FieldIntDivisor(s, "cp", &c.cp, c.seq);
  if (c.model.experts > 0) FieldIntDivisor(s, "ep", &c.ep, c.model.experts);
  FieldEnum(s, "offload_optimizer", &c.offload_optimizer);
  if (c.zero >= 3) FieldEnum(s, "offload_params", &c.offload_params);
}

void Rlhf(State& s) {
  core::Config& c = s.config;
  if (!Section(s, "section_rlhf", "RLHF", {"rlhf", "reward_model", "rollout_engine"})) return;
  FieldEnum(s, "rlhf", &c.rlhf);
  if (c.rlhf != core::Rlhf::kDpo) {
    FieldBool(s, "reward_model", &c.reward_model);
    FieldBool(s, "rollout_engine", &c.rollout_engine);
  }
}

void Precision(State& s, bool training) {
  core::Config& c = s.config;
  const std::vector<const char*> fields =
      training
          ? std::vector<const char*>{"dtype",          "autocast",       "norms_fp32",       "base_fp32_shards",
                                     "gptq_bits",      "group_size",     "nf4_double_quant", "grad_dtype",
                                     "master_weights", "grad_accum_fp32"}
          : std::vector<const char*>{"dtype", "gptq_bits", "group_size", "nf4_double_quant", "kv_dtype", "all_logits"};
  if (!Section(s, "section_precision", Tr("Precision"), fields)) return;
  DtypeField(s, "dtype", &c.dtype, c.mode != core::Mode::kInference,
             c.mode == core::Mode::kQlora ? Tr("Adapters") : nullptr);
  if (c.dtype == core::Dtype::kGptq || c.dtype == core::Dtype::kAwq) {
    FieldInt(s, "gptq_bits", &c.quant.gptq_bits);
    FieldInt(s, "group_size", &c.quant.group_size);
  }
  if (c.dtype == core::Dtype::kNf4 || c.mode == core::Mode::kQlora)
    FieldBool(s, "nf4_double_quant", &c.quant.nf4_double_quant);
  if (training) {
    // PyTorch AMP: the weights stay in dtype, matmuls run in the autocast format.
    static const core::Dtype kAutocast[] = {core::Dtype::kCount, core::Dtype::kBf16, core::Dtype::kFp16};
    int amp = c.autocast == core::Dtype::kBf16 ? 1 : c.autocast == core::Dtype::kFp16 ? 2 : 0;
    if (FieldCombo(s, "autocast", &amp, 3, [](int i) { return i == 0 ? Tr("off") : core::Info(kAutocast[i]).label; }))
      c.autocast = kAutocast[amp];
    if (c.mode == core::Mode::kQlora && c.autocast != core::Dtype::kCount) FieldBool(s, "norms_fp32", &c.norms_fp32);
    if (c.mode == core::Mode::kLora && c.sharding == core::Sharding::kFsdp)
      FieldBool(s, "base_fp32_shards", &c.base_fp32_shards);
    DtypeField(s, "grad_dtype", &c.grad_dtype, true);
    FieldBool(s, "master_weights", &c.master_weights);
    FieldBool(s, "grad_accum_fp32", &c.grad_accum_fp32);
  } else {
    DtypeField(s, "kv_dtype", &c.kv_dtype, false);
    FieldBool(s, "all_logits", &c.all_logits);
  }
}

void OptimizerSection(State& s) {
  core::Config& c = s.config;
  if (!Section(s, "section_optimizer", Tr("Optimizer"),
               {"optimizer", "optimizer_dtype", "optimizer_grad_copy", "grads_set_to_none", "loss_logits_fp32",
                "loss_shift_copy", "loss_kernel", "metrics_logits"}))
    return;
  FieldEnum(s, "optimizer", &c.optimizer);
  if (core::Info(c.optimizer).state_dtype) DtypeField(s, "optimizer_dtype", &c.optimizer_dtype, true);
  FieldBool(s, "optimizer_grad_copy", &c.optimizer_grad_copy);
  FieldBool(s, "grads_set_to_none", &c.grads_set_to_none);
  FieldBool(s, "loss_logits_fp32", &c.loss_logits_fp32);
  FieldBool(s, "loss_shift_copy", &c.loss_shift_copy);
  FieldEnum(s, "loss_kernel", &c.loss_kernel);
  FieldBool(s, "metrics_logits", &c.metrics_logits);
}

void Lora(State& s) {
  core::Config& c = s.config;
  if (!Section(s, "section_lora", c.mode == core::Mode::kQlora ? Tr("QLoRA adapters") : Tr("LoRA adapters"),
               {"lora_rank", "lora_targets", "lora_dropout", "bnb_saves_inputs", "quantized_head"}))
    return;
  FieldInt(s, "lora_rank", &c.lora_rank);
  RowLabel(Tr(core::FindField("lora_targets")->label));
  ImGui::NewLine();
  static const struct {
    const char* name;
    uint32_t bit;
  } kTargets[] = {{"q", core::kLoraQ},       {"k", core::kLoraK},   {"v", core::kLoraV},      {"o", core::kLoraO},
                  {"gate", core::kLoraGate}, {"up", core::kLoraUp}, {"down", core::kLoraDown}};
  for (size_t i = 0; i < sizeof kTargets / sizeof kTargets[0]; ++i) {
    bool on = (c.lora_targets & kTargets[i].bit) != 0;
    if (i > 0) ImGui::SameLine();
    if (FieldBool(s, "lora_targets", &on, kTargets[i].name))
      c.lora_targets = on ? (c.lora_targets | kTargets[i].bit) : (c.lora_targets & ~kTargets[i].bit);
  }
  FieldBool(s, "lora_dropout", &c.lora_dropout);
  if (c.mode == core::Mode::kQlora) {
    FieldBool(s, "bnb_saves_inputs", &c.bnb_saves_inputs);
    FieldBool(s, "quantized_head", &c.quantized_head);
  }
}

void Overheads(State& s) {
  core::Config& c = s.config;
  if (!Section(s, "section_overheads", Tr("Overheads"),
               {"cuda_context_gb", "cublas_workspace_mib", "fragmentation_pct", "comm_buffer_gb",
                "measured_residual_gb"}))
    return;
  FieldDouble(s, "cuda_context_gb", &c.cuda_context_gb);
  FieldDouble(s, "cublas_workspace_mib", &c.cublas_workspace_mib);
  FieldDouble(s, "fragmentation_pct", &c.fragmentation_pct);
  FieldDouble(s, "comm_buffer_gb", &c.comm_buffer_gb);
  FieldDouble(s, "measured_residual_gb", &c.measured_residual_gb);  // from a run read in Read an OOM
}

void GpuMemory(State& s) {
  core::Config& c = s.config;
  if (!Section(s, "section_gpu", Tr("GPU memory"), {"gpu", "gpu_memory_gb", "wired_limit_mb", "other_processes_gb"}))
    return;
  ImGui::PushTextWrapPos(0);
  ImGui::TextDisabled("%s", Tr("The card is chosen above; type another size for a card not in the catalogue."));
  ImGui::PopTextWrapPos();
  if (FieldDouble(s, "gpu_memory_gb", &c.gpu_memory_gb)) c.gpu = "custom";
  // Issue 31: a unified card whose OS limits the GPU (a Mac's iogpu.wired_limit_mb, Strix
  // Halo's GTT): the raised limit, which the card's memory follows.
  if (const core::Gpu* g = core::FindGpu(c.gpu); g != nullptr && g->unified && core::BudgetRaisable(g->budget)) {
    if (FieldDouble(s, "wired_limit_mb", &c.wired_limit_mb)) core::SelectGpu(c, *g);
  }
  // A shared card (seed 002's OOM): what other processes already hold; "Read an OOM" sets it.
  FieldDouble(s, "other_processes_gb", &c.other_processes_gb);
}

// Settings that change the estimate but have no control on screen (a link or a file set
// them: pp in inference, the DeepSpeed buckets, ...): shown with their value and a reset, so
// the figures never change with nothing visible explaining it. Never folded.
void AlsoInEffect(State& s) {
  const std::vector<std::string> hidden = HiddenInEffect(s);
  if (hidden.empty()) return;
  ImGui::Spacing();
  ImGui::TextDisabled("%s", Tr("Also in effect"));
  ImGui::Separator();
  ImGui::PushTextWrapPos(0);
  ImGui::TextDisabled("%s", Tr("Set by a link or a file, with no control on this screen; they change the figures."));
  ImGui::PopTextWrapPos();
  const core::Config defaults = core::DefaultConfig();
  for (const std::string& name : hidden) {
    const core::FieldDef* f = core::FindField(name);
    if (f == nullptr) continue;
    ImGui::PushID(f->name);
    ImGui::AlignTextToFramePadding();
    ImGui::Text("%s = %s", f->name, f->get(s.config).c_str());
    FieldTooltip(s, f->name, nullptr);
    ImGui::SameLine();
    if (ImGui::SmallButton(Tr("Reset"))) {
      core::Config c = s.config;
      f->set(c, f->get(defaults));
      ApplyConfig(s, c, TrF("reset %s", f->name));
    }
    ImGui::PopID();
  }
}

}  // namespace

// The catalogue row behind a card (core/gpus.h): marketed and reported memory, bandwidth,
// BF16 rate, where the figures come from and what CUDA leaves usable.
void DrawGpuInfo(const core::Gpu& g) {
  ImGui::PushTextWrapPos(ImGui::GetFontSize() * 32);
  ImGui::Text("%s", g.name.c_str());
  ImGui::TextDisabled("%s%s%s", g.key.c_str(), g.vendor.empty() ? "" : ", ", g.vendor.c_str());
  ImGui::Separator();
  ImGui::Text(Tr("Marketed memory: %s GB"), core::FormatNumber(g.memory_gb, 1).c_str());
  if (g.memory_bytes > 0) {
    ImGui::Text(Tr("Reported memory: %s GB = %s GiB (%s MiB)"),
                core::FormatNumber(g.memory_bytes / core::kGB, 2).c_str(),
                core::FormatNumber(g.memory_bytes / core::kGiB, 2).c_str(),
                core::FormatCount(static_cast<int64_t>(g.memory_bytes / core::kMiB)).c_str());
  } else {
    ImGui::Text(Tr("Reported memory: not known; the estimate uses the marketed %s GB"),
                core::FormatNumber(g.memory_gb, 1).c_str());
  }
  if (g.bandwidth_gbps > 0)
    ImGui::Text(Tr("Bandwidth: %s GB/s"), core::FormatCount(static_cast<int64_t>(g.bandwidth_gbps)).c_str());
  if (g.bf16_tflops > 0) {
    ImGui::Text(Tr("BF16 dense: %s TFLOP/s"), core::FormatNumber(g.bf16_tflops, 1).c_str());
  } else {
    ImGui::TextUnformatted(Tr("BF16 dense: no vendor figure (or no BF16 support)"));
  }
  if (!g.usable_note.empty()) {
    ImGui::Spacing();
    ImGui::TextDisabled("%s", Tr("Usable"));
    ImGui::TextUnformatted(g.usable_note.c_str());
  }
  if (!g.source.empty()) {
    ImGui::Spacing();
    ImGui::TextDisabled("%s", Tr("Source"));
    ImGui::TextUnformatted(g.source.c_str());
  } else {
    RequestGpuSources();  // the page fetches the citations the first time a card's details show
    ImGui::Spacing();
    ImGui::TextDisabled("%s", Tr("Source: loading..."));
  }
  ImGui::PopTextWrapPos();
}

void DrawInputs(State& s) {
  const bool training = s.config.mode != core::Mode::kInference;
  Workload(s, training);
  ImGui::Spacing();
  ImGui::TextDisabled("%s", Tr("Advanced"));
  MemorySavers(s, training);
  Parallelism(s, training);
  Precision(s, training);
  if (training) OptimizerSection(s);
  if (s.config.mode == core::Mode::kLora || s.config.mode == core::Mode::kQlora) Lora(s);
  if (s.config.mode == core::Mode::kRlhf) Rlhf(s);
  Overheads(s);
  GpuMemory(s);
  DrawModelInputs(s);
  DrawWeightsInput(s);
  AlsoInEffect(s);
}

}  // namespace llmmem::app

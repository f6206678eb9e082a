// The workload and hardware inputs: mode, batch/sequence/accumulation, parallelism and
// recompute, the precision scheme, the optimizer, LoRA, overheads and the GPU. Only the
// sections that matter for the mode are shown. Every input edits the Config directly and
// shows its help, range and diagnostics (widgets.h).
#include <algorithm>
#include <cfloat>
#include <cstdio>

#include "app/panels.h"
#include "app/widgets.h"
#include "core/config_json.h"
#include "core/dtype.h"
#include "core/fields.h"
#include "core/gpus.h"
#include "core/units.h"
#include "imgui.h"

namespace llmmem::app {
namespace {

// Dtype combo state for the captureless name callback.
bool g_trainable_only = false;
int g_current_dtype = -1;

const char* DtypeName(int i) {
  const core::DtypeInfo& info = core::Info(static_cast<core::Dtype>(i));
  if (g_trainable_only && !info.trainable && i != g_current_dtype) return nullptr;
  return info.label;
}

void DtypeField(State& s, const char* label, const char* field, core::Dtype* d, bool trainable_only) {
  g_trainable_only = trainable_only;
  int i = static_cast<int>(*d);
  g_current_dtype = i;
  if (FieldCombo(s, label, field, &i, static_cast<int>(core::Dtype::kCount), DtypeName, nullptr))
    *d = static_cast<core::Dtype>(i);
}

void Section(const char* title) {
  ImGui::Spacing();
  ImGui::TextDisabled("%s", title);
  ImGui::Separator();
}

void ModeField(State& s) {
  int mode = static_cast<int>(s.config.mode);
  static const char* const kModes[] = {"Inference", "Full training", "LoRA", "QLoRA", "RLHF"};
  if (FieldCombo(s, "Mode", "mode", &mode, 5, [](int i) { return kModes[i]; }, nullptr)) {
    s.config.mode = static_cast<core::Mode>(mode);
    // Training modes keep trainable weights (QLoRA's dtype is its adapters' precision; the
    // core stores QLoRA's frozen base in NF4 by itself).
    if (s.config.mode != core::Mode::kInference && !core::Info(s.config.dtype).trainable) {
      s.config.dtype = core::Dtype::kBf16;
    }
  }
}

void Workload(State& s, bool training) {
  core::Config& c = s.config;
  Section("Workload");
  FieldInt(s, training ? "Micro-batch" : "Sequences", "batch", &c.batch, 1, 8);
  FieldInt(s, "Sequence length", "seq", &c.seq, 512, 4096);
  if (training) FieldInt(s, "Grad accumulation", "grad_accum", &c.grad_accum, 1, 8);
  if (training) {
    int r = static_cast<int>(c.recompute);
    static const char* const kRecompute[] = {"none", "selective (attention)", "full (per layer)", "op-level (torchtitan)"};
    if (FieldCombo(s, "Recompute", "recompute", &r, 4, [](int i) { return kRecompute[i]; }, nullptr))
      c.recompute = static_cast<core::Recompute>(r);
    // The implementation profile decides which tensors are saved (core/framework.h).
    int fw = static_cast<int>(c.framework);
    if (FieldCombo(s, "Framework", "framework", &fw, 5,
                   [](int i) { return core::Info(static_cast<core::Framework>(i)).label; }, nullptr))
      c.framework = static_cast<core::Framework>(fw);
  }
  FieldBool(s, "FlashAttention", "flash_attn", &c.flash_attn, nullptr);
  if (training) {
    ImGui::SameLine();
    FieldBool(s, "Dropout", "dropout", &c.dropout, nullptr);
  }
}

void Parallelism(State& s, bool training) {
  core::Config& c = s.config;
  Section("Parallelism");
  FieldInt(s, "Tensor parallel", "tp", &c.tp, 1, 2);
  if (c.tp > 1) FieldBool(s, "Sequence parallel", "sp", &c.sp, nullptr);
  if (!training) return;
  FieldInt(s, "Data parallel", "dp", &c.dp, 1, 8);
  FieldInt(s, "ZeRO stage", "zero", &c.zero, 1, 1);
  if (c.zero > 0) FieldInt(s, "ZeRO group", "zero_group", &c.zero_group, 1, 8);
  FieldInt(s, "Pipeline stages", "pp", &c.pp, 1, 2);
  if (c.pp > 1) {
    int sched = static_cast<int>(c.schedule);
    static const char* const kSchedules[] = {"1F1B", "interleaved 1F1B", "GPipe"};
    if (FieldCombo(s, "Schedule", "schedule", &sched, 3, [](int i) { return kSchedules[i]; }, nullptr))
      c.schedule = static_cast<core::Schedule>(sched);
    if (c.schedule == core::Schedule::kInterleaved) FieldInt(s, "Virtual stages", "vpp", &c.vpp, 1, 2);
  }
  FieldInt(s, "Context parallel", "cp", &c.cp, 1, 2);
  if (c.model.experts > 0) FieldInt(s, "Expert parallel", "ep", &c.ep, 1, 2);
  static const char* const kOffload[] = {"none", "CPU", "NVMe"};
  int opt = static_cast<int>(c.offload_optimizer);
  if (FieldCombo(s, "Offload optimizer", "offload_optimizer", &opt, 3, [](int i) { return kOffload[i]; }, nullptr))
    c.offload_optimizer = static_cast<core::Offload>(opt);
  if (c.zero >= 3) {
    int par = static_cast<int>(c.offload_params);
    if (FieldCombo(s, "Offload params", "offload_params", &par, 3, [](int i) { return kOffload[i]; }, nullptr))
      c.offload_params = static_cast<core::Offload>(par);
  }
}

void Rlhf(State& s) {
  core::Config& c = s.config;
  Section("RLHF");
  int r = static_cast<int>(c.rlhf);
  static const char* const kAlgos[] = {"PPO", "GRPO", "DPO"};
  if (FieldCombo(s, "Algorithm", "rlhf", &r, 3, [](int i) { return kAlgos[i]; }, nullptr)) c.rlhf = static_cast<core::Rlhf>(r);
  if (c.rlhf != core::Rlhf::kDpo) {
    FieldBool(s, "Reward model", "reward_model", &c.reward_model, nullptr);
    FieldBool(s, "Rollout engine", "rollout_engine", &c.rollout_engine, nullptr);
  }
}

void Precision(State& s, bool training) {
  core::Config& c = s.config;
  Section("Precision");
  DtypeField(s, c.mode == core::Mode::kQlora ? "Adapters" : "Weights", "dtype", &c.dtype, c.mode != core::Mode::kInference);
  if (c.dtype == core::Dtype::kGptq || c.dtype == core::Dtype::kAwq) {
    FieldInt(s, "Quant bits", "gptq_bits", &c.quant.gptq_bits, 1, 1);
    FieldInt(s, "Group size", "group_size", &c.quant.group_size, 32, 128);
  }
  if (c.dtype == core::Dtype::kNf4 || c.mode == core::Mode::kQlora) FieldBool(s, "Double quantisation", "nf4_double_quant", &c.quant.nf4_double_quant, nullptr);
  if (training) {
    DtypeField(s, "Gradients", "grad_dtype", &c.grad_dtype, true);
    FieldBool(s, "fp32 master weights", "master_weights", &c.master_weights, nullptr);
    FieldBool(s, "fp32 grad accumulation buffer", "grad_accum_fp32", &c.grad_accum_fp32, nullptr);
  } else {
    DtypeField(s, "KV cache", "kv_dtype", &c.kv_dtype, false);
    FieldBool(s, "Logits for every position", "all_logits", &c.all_logits, nullptr);
  }
}

void OptimizerSection(State& s) {
  core::Config& c = s.config;
  Section("Optimizer");
  int o = static_cast<int>(c.optimizer);
  static const char* const kOpt[] = {"SGD", "SGD + momentum", "AdamW", "Adam 8-bit", "Adafactor", "Lion"};
  if (FieldCombo(s, "Optimizer", "optimizer", &o, 6, [](int i) { return kOpt[i]; }, nullptr))
    c.optimizer = static_cast<core::Optimizer>(o);
  if (c.optimizer != core::Optimizer::kSgd && c.optimizer != core::Optimizer::kAdam8bit)
    DtypeField(s, "State dtype", "optimizer_dtype", &c.optimizer_dtype, true);
  FieldBool(s, "fp32 gradient copy at the step", "optimizer_grad_copy", &c.optimizer_grad_copy, nullptr);
  FieldBool(s, "fp32 logits in the loss", "loss_logits_fp32", &c.loss_logits_fp32, nullptr);
  FieldBool(s, "Metrics keep logits", "metrics_logits", &c.metrics_logits, nullptr);
}

void Lora(State& s) {
  core::Config& c = s.config;
  Section(c.mode == core::Mode::kQlora ? "QLoRA adapters" : "LoRA adapters");
  FieldInt(s, "Rank", "lora_rank", &c.lora_rank, 8, 64);
  RowLabel("Targets");
  ImGui::NewLine();
  static const struct {
    const char* name;
    uint32_t bit;
  } kTargets[] = {{"q", core::kLoraQ},       {"k", core::kLoraK},   {"v", core::kLoraV},      {"o", core::kLoraO},
                  {"gate", core::kLoraGate}, {"up", core::kLoraUp}, {"down", core::kLoraDown}};
  for (size_t i = 0; i < sizeof kTargets / sizeof kTargets[0]; ++i) {
    bool on = (c.lora_targets & kTargets[i].bit) != 0;
    if (i > 0) ImGui::SameLine();
    if (FieldBool(s, kTargets[i].name, "lora_targets", &on, nullptr))
      c.lora_targets = on ? (c.lora_targets | kTargets[i].bit) : (c.lora_targets & ~kTargets[i].bit);
  }
  FieldBool(s, "LoRA dropout", "lora_dropout", &c.lora_dropout, nullptr);
}

void Overheads(State& s) {
  core::Config& c = s.config;
  Section("Overheads");
  FieldDouble(s, "CUDA context, GB", "cuda_context_gb", &c.cuda_context_gb, 0.1, "%.2f");
  FieldDouble(s, "Fragmentation, %", "fragmentation_pct", &c.fragmentation_pct, 1, "%.1f");
  FieldDouble(s, "Comm buffers, GB", "comm_buffer_gb", &c.comm_buffer_gb, 0.1, "%.2f");
}

// The catalogue row behind a card (core/gpus.h): marketed and reported memory, bandwidth,
// BF16 rate, where the figures come from and what CUDA leaves usable.
void GpuInfo(const core::Gpu& g) {
  ImGui::PushTextWrapPos(ImGui::GetFontSize() * 32);
  ImGui::Text("%s", g.name.c_str());
  ImGui::TextDisabled("%s%s%s", g.key.c_str(), g.vendor.empty() ? "" : ", ", g.vendor.c_str());
  ImGui::Separator();
  ImGui::Text("Marketed memory: %s GB", core::FormatNumber(g.memory_gb, 1).c_str());
  if (g.memory_bytes > 0) {
    ImGui::Text("Reported memory: %s GB = %s GiB (%s MiB)", core::FormatNumber(g.memory_bytes / core::kGB, 2).c_str(),
                core::FormatNumber(g.memory_bytes / core::kGiB, 2).c_str(),
                core::FormatCount(static_cast<int64_t>(g.memory_bytes / core::kMiB)).c_str());
  } else {
    ImGui::Text("Reported memory: not known; the estimate uses the marketed %s GB", core::FormatNumber(g.memory_gb, 1).c_str());
  }
  if (g.bandwidth_gbps > 0) ImGui::Text("Bandwidth: %s GB/s", core::FormatCount(static_cast<int64_t>(g.bandwidth_gbps)).c_str());
  if (g.bf16_tflops > 0) {
    ImGui::Text("BF16 dense: %s TFLOP/s", core::FormatNumber(g.bf16_tflops, 1).c_str());
  } else {
    ImGui::TextUnformatted("BF16 dense: no vendor figure (or no BF16 support)");
  }
  if (!g.usable_note.empty()) {
    ImGui::Spacing();
    ImGui::TextDisabled("Usable");
    ImGui::TextUnformatted(g.usable_note.c_str());
  }
  if (!g.source.empty()) {
    ImGui::Spacing();
    ImGui::TextDisabled("Source");
    ImGui::TextUnformatted(g.source.c_str());
  }
  ImGui::PopTextWrapPos();
}

void GpuSection(State& s) {
  core::Config& c = s.config;
  Section("GPU");
  RowLabel("Card");
  const core::Gpu* current = core::FindGpu(c.gpu);
  // Leave room for the "(i)" marker that shows the card's catalogue row.
  const char* kInfo = "(i)";
  ImGui::SetNextItemWidth(-(ImGui::CalcTextSize(kInfo).x + ImGui::GetStyle().ItemSpacing.x));
  if (ImGui::BeginCombo("##gpu", current ? current->key.c_str() : c.gpu.c_str(), ImGuiComboFlags_HeightLarge)) {
    for (const core::Gpu& g : core::Gpus()) {
      char label[96];
      std::snprintf(label, sizeof label, "%s  (%.0f GB)", g.key.c_str(), g.memory_gb);
      if (ImGui::Selectable(label, current == &g)) {
        c.gpu = g.key;
        c.gpu_memory_gb = g.UsableBytes() / 1e9;
        s.dirty = true;
      }
      if (ImGui::IsItemHovered()) {
        ImGui::BeginTooltip();
        GpuInfo(g);
        ImGui::EndTooltip();
      }
    }
    ImGui::EndCombo();
  }
  FieldTooltip(s, "gpu", nullptr);
  ImGui::SameLine();
  ImGui::AlignTextToFramePadding();
  ImGui::TextDisabled("%s", kInfo);
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    if (current != nullptr) {
      GpuInfo(*current);
    } else {
      ImGui::Text("Custom GPU: %s GB per GPU, as typed below; not from the catalogue.",
                  core::FormatNumber(c.gpu_memory_gb, 2).c_str());
    }
    ImGui::EndTooltip();
  }
  if (FieldDouble(s, "Memory, GB", "gpu_memory_gb", &c.gpu_memory_gb, 1, "%.2f")) c.gpu = "custom";
  // A shared card (seed 002's OOM): what other processes already hold; "Read an OOM" sets it.
  FieldDouble(s, "Used by others, GB", "other_processes_gb", &c.other_processes_gb, 0.5, "%.2f");
}

// Settings that change the estimate but have no control in this mode (a link or a file set
// them: pp in inference, the DeepSpeed buckets, ...): shown with their value and a reset, so
// the figures never change with nothing visible explaining it.
void AlsoInEffect(State& s) {
  std::vector<std::string> hidden;
  for (const std::string& f : s.in_effect) {
    if (std::find(s.shown_fields.begin(), s.shown_fields.end(), f) == s.shown_fields.end()) hidden.push_back(f);
  }
  if (hidden.empty()) return;
  Section("Also in effect");
  ImGui::PushTextWrapPos(0);
  ImGui::TextDisabled("Set by a link or a file; no control in this mode, but they change the figures.");
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
    if (ImGui::SmallButton("Reset")) {
      core::Config c = s.config;
      f->set(c, f->get(defaults));
      ApplyConfig(s, c, std::string("reset ") + f->name);
    }
    ImGui::PopID();
  }
}

}  // namespace

void DrawInputs(State& s) {
  const bool training = s.config.mode != core::Mode::kInference;
  s.shown_fields.clear();
  s.shown_fields.push_back("gpu");  // GpuSection's card picker
  Section("Setup");
  ModeField(s);
  Workload(s, training);
  Parallelism(s, training);
  if (s.config.mode == core::Mode::kRlhf) Rlhf(s);
  Precision(s, training);
  if (training) OptimizerSection(s);
  if (s.config.mode == core::Mode::kLora || s.config.mode == core::Mode::kQlora) Lora(s);
  Overheads(s);
  GpuSection(s);
  AlsoInEffect(s);
}

}  // namespace llmmem::app

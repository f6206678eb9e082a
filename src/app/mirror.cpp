// The DOM mirror of the result; see mirror.h.
#include "app/mirror.h"

#include <cstdio>

#include "app/i18n.h"
#include "core/estimate/verdict.h"
#include "core/parse/json.h"
#include "core/base/units.h"

namespace llmmem::app {

// panels.h declares it for the panels; defined here, where no ImGui is needed.
const char* ModeLabel(core::Mode m) {
  switch (m) {
    case core::Mode::kInference:
      return Tr("Inference");
    case core::Mode::kTraining:
      return Tr("Full training");
    case core::Mode::kLora:
      return Tr("LoRA fine-tuning");
    case core::Mode::kQlora:
      return Tr("QLoRA fine-tuning");
    case core::Mode::kRlhf:
      return "RLHF";
  }
  return "?";
}

std::string MeasuredLine(const State& s) {
  const core::Totals& t = s.estimate.totals;
  if (!t.ok || core::UsesServingRuntime(s.config)) return {};
  char buf[320];
  std::snprintf(buf, sizeof buf, Tr("What PyTorch and nvidia-smi would report: max_memory_allocated %s, max_memory_reserved %s, nvidia-smi %s"),
                core::FormatBytes(t.allocated_bytes, s.units).c_str(),
                core::FormatBytes(t.reserved_bytes, s.units).c_str(),
                core::FormatBytes(t.nvidia_smi_bytes, s.units).c_str());
  return buf;
}

std::string MirrorJson(const State& s) {
  core::Json j(core::Json::Object{});
  const core::Totals& t = s.estimate.totals;
  j["lang"] = LangId(CurrentLang());
  j["title"] = s.config.model.name + " · " + ModeLabel(s.config.mode) + " · " + s.config.gpu;
  core::Json rows(core::Json::Array{});
  char buf[320];
  if (!t.ok) {
    j["verdict"] = Tr("No estimate: fix the inputs marked in red.");
    std::string detail;
    for (const core::Diagnostic& d : s.estimate.diagnostics)
      if (d.severity == core::Severity::kError) detail += d.field + ": " + d.message + "\n";
    j["detail"] = detail;
  } else {
    const std::string peak = core::FormatBytes(t.peak_bytes, s.units);
    const std::string cap = core::FormatBytes(t.capacity_bytes, s.units);
    if (t.Fits()) {
      std::snprintf(buf, sizeof buf, Tr("Fits: %s of %s per GPU, %s to spare."), peak.c_str(), cap.c_str(),
                    core::FormatBytes(t.Headroom(), s.units).c_str());
    } else if (t.GpuHolds()) {
      std::snprintf(buf, sizeof buf,
                    t.Judge() == core::Verdict::kIncomplete ? Tr("Incomplete: %s of %s per GPU counted, but %s.")
                                                            : Tr("Does not fit: %s of %s per GPU, but %s."),
                    peak.c_str(), cap.c_str(), core::VerdictNote(s.config, t).c_str());
    } else {
      std::snprintf(buf, sizeof buf, Tr("Does not fit: %s of %s per GPU, over by %s."), peak.c_str(), cap.c_str(),
                    core::FormatBytes(-t.Headroom(), s.units).c_str());
    }
    j["verdict"] = std::string(buf);
    const std::string measured = MeasuredLine(s);
    const std::string allocator = s.formulas && !s.estimate.peak_detail_phrases.empty()
                                      ? " " + TrSentences(s.estimate.peak_detail_phrases)
                                      : "";  // as the verdict draws it
    j["detail"] = TrSentences(s.estimate.peak_phrases) + allocator + (measured.empty() ? "" : "\n" + measured);
    for (int c = 0; c < core::kCategoryCount; ++c) {
      if (t.category_bytes[c] <= 0) continue;
      std::snprintf(buf, sizeof buf, "%.0f%%", 100.0 * t.category_bytes[c] / t.peak_bytes);
      core::Json row(core::Json::Array{});
      row.MutableArray().push_back(Tr(core::CategoryName(static_cast<core::Category>(c))));
      row.MutableArray().push_back(core::FormatBytes(t.category_bytes[c], s.units));
      row.MutableArray().push_back(std::string(buf));
      rows.MutableArray().push_back(std::move(row));
    }
  }
  j["rows"] = std::move(rows);
  return j.Dump();
}

}  // namespace llmmem::app

// AddResultNotes (core/result_notes.h): each note re-estimates the alternative it compares
// with on the fast path, so its figures are computed, not argued.
#include "core/estimate/result_notes.h"

#include "core/base/units.h"
#include "core/config/stacks.h"

namespace llmmem::core {
namespace {

// "Buffers and workspaces +1.54 GB, Overheads +0.08 GB": the categories that grew from b to a.
std::string Growth(const Totals& a, const Totals& b) {
  std::string out;
  for (int i = 0; i < kCategoryCount; ++i) {
    const double d = a.category_bytes[i] - b.category_bytes[i];
    if (d <= 0) continue;
    if (!out.empty()) out += ", ";
    out += std::string(CategoryName(static_cast<Category>(i))) + " +" + FormatBytesBoth(d);
  }
  return out;
}

// ZeRO (and FSDP) stages above 0 shard model states over the shard group and add buffers:
// when the group is one GPU, or too small for the saving to exceed the buffers, a lower
// stage needs less. Says so, against the lowest-peak lower stage.
void ZeroCostsMore(const Config& c, const Totals& t, Diagnostics& out) {
  if (c.mode == Mode::kInference || c.zero <= 0) return;
  int best_stage = -1;
  Totals best;
  for (int z = 0; z < c.zero; ++z) {
    Config lower = c;
    lower.zero = z;
    if (z < 3) lower.offload_params = Offload::kNone;  // only ZeRO-3 offloads parameters
    const Totals lt = EstimateTotals(lower);
    if (lt.ok && lt.peak_bytes < t.peak_bytes && (best_stage < 0 || lt.peak_bytes < best.peak_bytes)) {
      best_stage = z;
      best = lt;
    }
  }
  if (best_stage < 0) return;
  const int64_t group = c.zero_group > 0 ? c.zero_group : c.dp * c.cp;
  const std::string stage = "ZeRO-" + std::to_string(c.zero);
  std::string why =
      group == 1 ? "the shard group is one GPU (dp x cp = 1), so there is nothing to shard across and nothing is saved"
                 : "sharding over " + std::to_string(group) + " GPUs saves less than the stage adds";
  const std::string grew = Growth(t, best);
  out.push_back({DiagId::kCostsMore, Severity::kWarning, "zero",
                 stage + " needs " + FormatBytesBoth(t.peak_bytes - best.peak_bytes) + " more per GPU than ZeRO-" +
                     std::to_string(best_stage) + " here: " + why + (grew.empty() ? "" : "; it adds " + grew) +
                     (c.zero == 3 ? " (the all-gather and prefetch buffers of each layer's weights)" : "") +
                     ". Use ZeRO-" + std::to_string(best_stage) + ", or more data-parallel GPUs."});
}

}  // namespace

void AddResultNotes(const Config& c, const Totals& t, Diagnostics& out) {
  ZeroCostsMore(c, t, out);
  AddStackNotes(c, out);  // which values the training program gave (stacks.h)
}

}  // namespace llmmem::core

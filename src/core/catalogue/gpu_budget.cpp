// The unified-memory budget's sentence; the rules and their sources are in gpu_budget.h.
#include "core/catalogue/gpu_budget.h"

#include <cmath>

#include "core/base/units.h"

namespace llmmem::core {

namespace {

// "96.00 GiB (103.08 GB)": binary first, as macOS and Linux state these limits.
std::string Size(double bytes) {
  return FormatBytes(bytes, UnitSystem::kBinary) + " (" + FormatBytes(bytes, UnitSystem::kDecimal) + ")";
}

// The share as its rule states it: "2/3" or "3/4" (Metal's default on macOS 14-15).
std::string ShareText(double share) {
  if (std::fabs(share - 2.0 / 3.0) < 1e-4) return "2/3";
  if (std::fabs(share - 0.75) < 1e-9) return "3/4";
  if (std::fabs(share - 0.5) < 1e-9) return "1/2";
  return FormatNumber(share * 100, 1) + "%";
}

}  // namespace

Phrase UnifiedBudgetNote(const Gpu& g, double wired_limit_mb) {
  if (!g.unified) return Phrase();
  const std::string ram = FormatBytes(g.RamBytes(), UnitSystem::kBinary);
  const std::string usable = Size(g.UsableBytes(wired_limit_mb));
  const std::string by_default = Size(g.UsableBytes(0));
  const bool raised = wired_limit_mb > 0 && BudgetRaisable(g.budget);
  const std::string limit = FormatNumber(wired_limit_mb, 0);
  switch (g.budget) {
    case UnifiedBudget::kMetal:
      if (raised)
        return Say("%s: iogpu.wired_limit_mb=%s lets the GPU wire %s of its %s (wired_limit_mb; macOS's default is "
                   "about %s, Metal's recommendedMaxWorkingSetSize)",
                   {g.name, limit, usable, ram, by_default});
      return Say("%s: macOS lets the GPU wire about %s of its %s (Metal's recommendedMaxWorkingSetSize, %s of RAM "
                 "on macOS 14-15); sudo sysctl iogpu.wired_limit_mb=N raises it, and wired_limit_mb=N gives the "
                 "estimate the same limit",
                 {g.name, usable, ram, ShareText(g.gpu_share)});
    case UnifiedBudget::kAmdGtt:
      if (raised)
        return Say("%s: with the BIOS carve-out plus GTT at %s MiB (wired_limit_mb) the GPU may use %s of its %s "
                   "(amdgpu's default is about %s)",
                   {g.name, limit, usable, ram, by_default});
      return Say("%s: Linux lets the GPU use about %s of its %s (the BIOS carve-out plus amdgpu's GTT, by default "
                 "%s of RAM); amdgpu.gttsize=N with ttm.pages_limit=N x 256 on the kernel command line raises it, "
                 "and wired_limit_mb=N plus the carve-out gives the estimate the same limit",
                 {g.name, usable, ram, ShareText(g.gpu_share)});
    case UnifiedBudget::kCuda:
      return Say("%s: CUDA reports %s, the OS's MemTotal, shared with the OS, its page cache and the desktop; "
                 "nothing raises it, and other_processes_gb counts what they hold",
                 {g.name, usable});
    case UnifiedBudget::kNone:
      break;
  }
  return Say("%s: unified memory; the estimate compares against %s of its %s", {g.name, usable, ram});
}

}  // namespace llmmem::core

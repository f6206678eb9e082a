// The GPU at the moment the text was printed, as segments that add up to its capacity:
//   PyTorch OOM   allocated | reserved-unallocated | this process outside PyTorch | other
//                 processes | not accounted for (or: outside the allocator) | free
//   nvidia-smi    each process | used but not listed | driver reserved | free
//   mem_get_info  in use | free
// Each segment is printed in the text or is one subtraction of printed figures, shown. A
// difference below zero within the printed rounding is zero; beyond it the figures contradict
// each other: the segment is zero, the bar is marked inconsistent and a note says by how much.
#include <cmath>

#include "core/oom/oom_report.h"
#include "core/base/units.h"

namespace llmmem::core {
namespace {

const char* const kKindIds[] = {"allocated",     "cached",       "non_pytorch",     "outside",
                                "other_process", "unattributed", "driver_reserved", "free"};
const char* const kKindNames[] = {"Allocated by PyTorch",
                                  "Reserved by PyTorch, unallocated",
                                  "This process outside PyTorch",
                                  "Outside PyTorch's allocator",
                                  "Other process",
                                  "Not accounted for by a process",
                                  "Reserved by the driver",
                                  "Free"};
static_assert(sizeof(kKindIds) / sizeof(kKindIds[0]) == static_cast<int>(SegmentKind::kCount), "one id per kind");

std::string S(double bytes) { return FormatTorchSize(bytes); }

class BarBuilder {
 public:
  explicit BarBuilder(OomBar& bar) : bar_(bar) {}

  void Stated(SegmentKind kind, std::string label, const Figure& f, std::string printed) {
    rounding_ += f.tolerance;
    Add(kind, std::move(label), f.bytes, "printed: " + std::move(printed), true);
  }
  // a - b (- c ...) as one segment; `terms` name each subtrahend.
  void Difference(SegmentKind kind, std::string label, const Figure& a, const std::string& a_name,
                  const std::vector<std::pair<Figure, std::string>>& terms) {
    double v = a.bytes, tol = a.tolerance;
    std::string arithmetic = S(a.bytes) + " " + a_name;
    for (const auto& t : terms) {
      v -= t.first.bytes;
      tol += t.first.tolerance;
      arithmetic += " - " + S(t.first.bytes) + " " + t.second;
    }
    arithmetic += " = " + S(std::fmax(v, 0.0));
    rounding_ += tol;
    if (v < 0) {
      if (-v <= tol + 1) {
        arithmetic += " (" + S(-v) + " below zero, within the rounding of the printed figures)";
      } else {
        bar_.consistent = false;
        bar_.notes.push_back(
            label + ": " + arithmetic.substr(0, arithmetic.rfind(" = ")) + " = -" + S(-v) +
            ", below zero by more than the printed figures' rounding (" + S(tol) +
            "). The figures contradict each other (copied from two messages, or edited?); the segment is "
            "shown as zero.");
        arithmetic += " (the figures give -" + S(-v) + ": contradictory, shown as zero)";
      }
      v = 0;
    }
    Add(kind, std::move(label), v, std::move(arithmetic), false);
  }
  void Add(SegmentKind kind, std::string label, double bytes, std::string arithmetic, bool stated) {
    BarSegment s;
    s.kind = kind;
    s.label = std::move(label);
    s.bytes = bytes > 0 ? bytes : 0;
    s.arithmetic = std::move(arithmetic);
    s.stated = stated;
    bar_.segments.push_back(std::move(s));
  }
  void Finish() {
    double sum = 0;
    for (const BarSegment& s : bar_.segments) sum += s.bytes;
    // The printed figures' rounding, every figure counted once per use, plus a MiB.
    const double tolerance = rounding_ + 1048576.0;
    bar_.rounding_bytes = tolerance;
    if (sum > bar_.capacity_bytes + tolerance && bar_.consistent) {
      bar_.consistent = false;
      bar_.notes.push_back("the printed figures add up to " + S(sum) + ", more than the " + S(bar_.capacity_bytes) +
                           " capacity");
    }
    bar_.total_bytes = sum;
    bar_.drawable = !bar_.segments.empty() && bar_.total_bytes > 0;
  }

 private:
  OomBar& bar_;
  double rounding_ = 0;
};

void TorchSegments(const Observation& o, OomBar& bar, BarBuilder& b) {
  if (!o.free.Known()) {
    bar.notes.push_back("the message gives no free memory, so the bar cannot be drawn");
    return;
  }
  Figure allocated = o.allocated, reserved = o.reserved;
  if (!allocated.Known() && !reserved.Known()) {
    bar.notes.push_back("the message gives neither what PyTorch allocated nor what it reserved");
    return;
  }
  if (!reserved.Known()) {
    reserved = allocated;
    bar.notes.push_back("the message does not print what PyTorch reserved: taken as what it allocated");
  }
  if (!allocated.Known()) {
    allocated = reserved;
    bar.notes.push_back("the message does not print what PyTorch allocated: taken as what it reserved");
  }
  std::string alloc_text =
      S(allocated.bytes) + (o.form == EvidenceForm::kTorchOom2 ? " is allocated by PyTorch" : " already allocated");
  if (o.private_pools.Known()) alloc_text += ", with " + S(o.private_pools.bytes) + " in private pools (CUDA Graphs)";
  b.Stated(SegmentKind::kAllocated, "Allocated by PyTorch", allocated, alloc_text);
  if (o.form == EvidenceForm::kTorchOom2 && o.reserved.Known() && o.allocated.Known()) {
    Figure cached;
    cached.bytes = o.reserved.bytes - o.allocated.bytes;
    b.Stated(SegmentKind::kCached, "Reserved by PyTorch, unallocated", cached,
             S(cached.bytes) + " is reserved by PyTorch but unallocated");
  } else if (o.form == EvidenceForm::kTorchOom1Cached && o.reserved.Known() && o.allocated.Known()) {
    Figure cached;
    cached.bytes = o.reserved.bytes - o.allocated.bytes;
    b.Stated(SegmentKind::kCached, "Reserved by PyTorch, unallocated", cached, S(cached.bytes) + " cached");
  } else {
    b.Difference(SegmentKind::kCached, "Reserved by PyTorch, unallocated", reserved, "reserved",
                 {{allocated, "allocated"}});
  }
  std::vector<std::pair<Figure, std::string>> used_terms = {{o.free, "free"}};
  if (o.process_total.Known()) {
    b.Difference(SegmentKind::kNonPytorch, "This process outside PyTorch (CUDA context, libraries)", o.process_total,
                 "this process (NVML)", {{reserved, "reserved by PyTorch"}});
    used_terms.push_back({o.process_total, "this process"});
  } else {
    used_terms.push_back({reserved, "reserved by PyTorch"});
  }
  for (const GpuProcess& p : o.processes) {
    if (p.self || p.self_inferred || !p.used.Known()) continue;
    b.Stated(SegmentKind::kOtherProcess, "Process " + p.pid, p.used,
             "Process " + p.pid + " has " + S(p.used.bytes) + " memory in use");
    used_terms.push_back({p.used, "process " + p.pid});
  }
  const BarSegment free_segment = [&] {
    BarSegment s;
    s.kind = SegmentKind::kFree;
    s.label = "Free";
    s.bytes = o.free.bytes;
    s.arithmetic = "printed: of which " + S(o.free.bytes) + " is free";
    s.stated = true;
    return s;
  }();
  if (o.process_total.Known()) {
    b.Difference(SegmentKind::kUnattributed, "Not accounted for by a listed process (driver, unlisted processes)",
                 o.capacity, "total", used_terms);
  } else {
    const bool listed = used_terms.size() > 2;
    b.Difference(SegmentKind::kOutside,
                 listed ? "Outside PyTorch: this process's CUDA context, unlisted processes"
                        : "Outside PyTorch's allocator: CUDA context, other processes",
                 o.capacity, "total", used_terms);
  }
  bar.segments.push_back(free_segment);
}

void SmiSegments(const Observation& o, OomBar& bar, BarBuilder& b) {
  if (!o.used.Known() || !o.free.Known()) {
    bar.notes.push_back("nvidia-smi's used or free memory is missing");
    return;
  }
  std::vector<std::pair<Figure, std::string>> listed;
  for (const GpuProcess& p : o.processes) {
    if (!p.used.Known()) continue;
    const std::string label = "Process " + p.pid + (p.name.empty() ? "" : " (" + p.name + ")");
    b.Stated(SegmentKind::kOtherProcess, label, p.used,
             "PID " + p.pid + (p.name.empty() ? "" : " " + p.name) + " " + FormatNumber(p.used.bytes / 1048576.0, 0) +
                 " MiB (" + S(p.used.bytes) + ")");
    listed.push_back({p.used, "process " + p.pid});
  }
  if (!listed.empty()) {
    b.Difference(SegmentKind::kUnattributed, "Used, not listed per process", o.used, "used", listed);
  } else {
    b.Stated(SegmentKind::kUnattributed, "Used (no process list)", o.used, S(o.used.bytes) + " used");
  }
  if (o.form == EvidenceForm::kNvidiaSmiCsv) {
    b.Difference(SegmentKind::kDriverReserved, "Reserved by the driver", o.capacity, "total",
                 {{o.used, "used"}, {o.free, "free"}});
  }
  if (o.form == EvidenceForm::kNvidiaSmiTable) {  // the table prints used / total only
    b.Difference(SegmentKind::kFree, "Free", o.capacity, "total", {{o.used, "used"}});
  } else {
    b.Stated(SegmentKind::kFree, "Free", o.free, S(o.free.bytes) + " free");
  }
}

}  // namespace

const char* SegmentKindId(SegmentKind k) {
  const int i = static_cast<int>(k);
  return i >= 0 && i < static_cast<int>(SegmentKind::kCount) ? kKindIds[i] : "free";
}
const char* SegmentKindName(SegmentKind k) {
  const int i = static_cast<int>(k);
  return i >= 0 && i < static_cast<int>(SegmentKind::kCount) ? kKindNames[i] : "Free";
}

std::string FormatTorchSize(double bytes) {
  char buf[64];
  const double a = std::fabs(bytes);
  if (!std::isfinite(bytes)) return "n/a";
  if (a <= 1024)
    std::snprintf(buf, sizeof buf, "%.0f bytes", bytes);
  else if (a <= 1048576.0)
    std::snprintf(buf, sizeof buf, "%.2f KiB", bytes / 1024.0);
  else if (a <= 1073741824.0)
    std::snprintf(buf, sizeof buf, "%.2f MiB", bytes / 1048576.0);
  else
    std::snprintf(buf, sizeof buf, "%.2f GiB", bytes / 1073741824.0);
  return buf;
}

OomBar BuildOomBar(const Observation& o) {
  OomBar bar;
  bar.request_bytes = o.request.Known() ? o.request.bytes : -1;
  if (!o.capacity.Known()) {
    if (o.form != EvidenceForm::kMemorySummary && o.form != EvidenceForm::kListGpuProcesses &&
        o.form != EvidenceForm::kNvidiaSmiAppsCsv)
      bar.notes.push_back("the text does not give the GPU's capacity, so the bar cannot be drawn");
    return bar;
  }
  bar.capacity_bytes = o.capacity.bytes;
  BarBuilder b(bar);
  switch (o.form) {
    case EvidenceForm::kTorchOom2:
    case EvidenceForm::kTorchOom1:
    case EvidenceForm::kTorchOom1Cached:
      TorchSegments(o, bar, b);
      break;
    case EvidenceForm::kNvidiaSmiTable:
    case EvidenceForm::kNvidiaSmiCsv:
      SmiSegments(o, bar, b);
      break;
    case EvidenceForm::kMemGetInfo:
      b.Difference(SegmentKind::kUnattributed, "In use (every process, this one included)", o.capacity, "total",
                   {{o.free, "free"}});
      b.Stated(SegmentKind::kFree, "Free", o.free, S(o.free.bytes) + " free");
      break;
    default:
      return bar;
  }
  if (bar.segments.empty()) return bar;
  b.Finish();
  return bar;
}

}  // namespace llmmem::core

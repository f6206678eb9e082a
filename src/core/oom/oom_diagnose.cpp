// The diagnosis of one observation, in plain words, ranked: the causes that alone explain the
// failure first (recovering them would have let the failed allocation succeed), then by size.
// The causes, for a PyTorch OOM with total T, free F, request Q, reserved R, allocated A and,
// on 2.x with NVML, this process's total P:
//   held elsewhere   T - F - P (2.x), or T - F - R less this process's own CUDA context
//   fragmentation    R - A: PyTorch's cache in pieces no Q-sized tensor fits
//   fraction limit   R + Q over set_per_process_memory_fraction's "allowed"
//   shortfall        P (or R + context) + Q over T: the run needs more than the card
// Seed 002 (Baichuan-7B on an A30): 22.20 - 0.05 - 7.48 = 14.67 GiB outside the allocator.
#include <algorithm>
#include <cmath>

#include "core/oom/oom_report.h"
#include "core/base/units.h"
#include "core/base/stable_order.h"

namespace llmmem::core {
namespace {

std::string S(double bytes) { return FormatTorchSize(bytes); }
std::string Pct(double part, double whole) { return whole > 0 ? FormatNumber(100.0 * part / whole, 0) + "%" : "?"; }
std::string Gb(double bytes) { return FormatNumber(bytes / kGB, 2); }

// A CUDA context with cuBLAS/cuDNN workspaces: 0.3-1.3 GB (seed 002 measured ~1.3 GB).
constexpr double kTypicalContextHigh = 1.3e9;

std::string AllocConfVar(const Observation& o) {
  return o.backend == "HIP" ? "PYTORCH_HIP_ALLOC_CONF" : "PYTORCH_CUDA_ALLOC_CONF";
}
std::string Gpu(const Observation& o) { return o.device >= 0 ? "GPU " + std::to_string(o.device) : "the GPU"; }

void HeldElsewhere(const Observation& o, double context_bytes, double need, std::vector<Finding>& out) {
  const double T = o.capacity.bytes, F = o.free.bytes, R = o.reserved.bytes;
  Finding f;
  f.id = "held_elsewhere";
  f.title = "Memory held elsewhere";
  std::string others;
  for (const GpuProcess& p : o.processes) {
    if (p.self || p.self_inferred || !p.used.Known()) continue;
    others += (others.empty() ? "" : ", ") + ("process " + p.pid + ": " + S(p.used.bytes));
  }
  if (o.process_total.Known()) {
    const double P = o.process_total.bytes;
    f.bytes = std::fmax(0.0, T - F - P);
    f.summary = S(f.bytes) + " of " + S(T) + " was held by something other than this process (which held " + S(P) + ")";
    f.text = "Of the " + S(T) + " " + Gpu(o) + " reports, this process held " + S(P) + " (PyTorch reserved " + S(R) +
             " of it) and " + S(F) + " was free: " + S(T) + " - " + S(F) + " - " + S(P) + " = " + S(f.bytes) + " (" +
             Pct(f.bytes, T) + ") was held by something else" + (others.empty() ? "" : " (" + others + ")") + ".";
  } else {
    const double outside = std::fmax(0.0, T - F - R);
    const double context = context_bytes >= 0 ? context_bytes : kTypicalContextHigh;
    f.bytes = std::fmax(0.0, outside - context);
    f.summary = S(outside) + " of " + S(T) + " was held outside this process's PyTorch (which held " + S(R) +
                "): another process or a second copy of the model, not this run's batch";
    f.text = "Read correctly, the message says this process's PyTorch held only " + S(R) + " of the " + S(T) + " " +
             Gpu(o) + " reports, and " + S(F) + " was free: " + S(T) + " - " + S(F) + " - " + S(R) + " = " +
             S(outside) + " (" + Pct(outside, T) + ") was held outside PyTorch's allocator" +
             (others.empty() ? "" : " (NVML lists " + others + ")") + ". This process's own CUDA context and library " +
             "workspaces account for " +
             (context_bytes >= 0 ? "about " + Gb(context_bytes) + " GB of that (the configuration's cuda_context_gb)"
                                 : std::string("typically 0.3-1.3 GB of that (seed 002: ~1.3 GB)")) +
             "; the rest, about " + S(f.bytes) +
             ", is held by something else: another process or a second copy of the model.";
  }
  if (f.bytes < std::fmax(512 * kMiB, 0.05 * T) && !(f.bytes >= need && f.bytes >= 256 * kMiB)) return;
  f.sufficient = need > 0 && f.bytes >= need;
  f.text += f.sufficient ? " Freeing it alone would have left room for the " + S(o.request.bytes) +
                               " request; lowering this run's batch size or sequence length cannot recover it."
                         : " It is not enough alone to explain the failure, but it is memory this run cannot use.";
  f.actions.push_back(
      "Check nvidia-smi for other processes on " + Gpu(o) +
      " (nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv); stop them or run on a "
      "free GPU (CUDA_VISIBLE_DEVICES).");
  f.actions.push_back(
      "If it is this program: a second copy of the model (another from_pretrained, a reference or "
      "evaluation copy, an old model not deleted: del it, gc.collect(), torch.cuda.empty_cache()), or a "
      "serving engine that reserves a share of the card up front (vLLM's gpu_memory_utilization).");
  f.actions.push_back("To plan for a shared card, set \"Used by others\" to " + Gb(f.bytes) +
                      " GB (other_processes_gb; llmmem --other-processes-gb " + Gb(f.bytes) + ").");
  out.push_back(std::move(f));
}

void Fragmentation(const Observation& o, double need, std::vector<Finding>& out) {
  const double U = o.reserved.bytes - o.allocated.bytes;
  const double Q = o.request.bytes, F = o.free.bytes;
  if (!(U >= 256 * kMiB || (U > 0 && U + F >= Q && U >= 0.05 * Q))) return;
  Finding f;
  f.id = "fragmentation";
  f.title = "Fragmentation: PyTorch's cache in pieces";
  f.bytes = U;
  f.sufficient = need > 0 && U >= need;
  f.text = "PyTorch held " + S(U) + " reserved but unallocated (" + S(o.reserved.bytes) + " reserved - " +
           S(o.allocated.bytes) +
           " allocated): free pieces of blocks that tensors still in use split, which the "
           "allocator could not return to CUDA before giving up; none of them fits a " +
           S(Q) + " tensor. " +
           (f.sufficient ? S(F) + " free + " + S(U) + " cached = " + S(F + U) +
                               ", enough for the request: with "
                               "expandable segments it would very likely have fit."
                         : S(F) + " free + " + S(U) + " cached = " + S(F + U) + " is still short of " + S(Q) +
                               ", so fragmentation is not the whole story.");
  const bool old_format = o.form != EvidenceForm::kTorchOom2;
  f.actions.push_back("Start the run with " + AllocConfVar(o) +
                      "=expandable_segments:True: the allocator grows one segment per stream instead of cutting "
                      "fixed blocks, so freed pieces can serve larger tensors (up to " +
                      S(U) + " recovered here)." +
                      (old_format ? " This message's format is from PyTorch 2.0 or older, which may lack it; there, "
                                    "max_split_size_mb (e.g. " +
                                        AllocConfVar(o) +
                                        "=max_split_size_mb:512) keeps large "
                                        "blocks from being split."
                                  : ""));
  f.actions.push_back("Varying shapes fragment the cache: pad or bucket sequence lengths to a few sizes.");
  out.push_back(std::move(f));
}

void FractionLimit(const Observation& o, std::vector<Finding>& out) {
  if (!o.allowed.Known()) return;
  const double R = o.reserved.bytes, Q = o.request.bytes;
  if (R + Q <= o.allowed.bytes - o.allowed.tolerance) return;
  Finding f;
  f.id = "fraction_limit";
  f.title = "The per-process limit (set_per_process_memory_fraction)";
  f.bytes = R + Q - o.allowed.bytes;
  f.sufficient = o.free.bytes >= Q;
  f.text = "This process was limited to " + S(o.allowed.bytes) + " (\"allowed\"): " + S(R) + " reserved + " + S(Q) +
           " requested = " + S(R + Q) + " is over it" +
           (f.sufficient ? ", although " + S(o.free.bytes) + " of the GPU was free." : ".");
  f.actions.push_back(
      "Raise torch.cuda.set_per_process_memory_fraction(...) (or the framework option that sets it), "
      "or lower the run's memory.");
  out.push_back(std::move(f));
}

void Shortfall(const Observation& o, double context_bytes, bool explained, std::vector<Finding>& out) {
  const double T = o.capacity.bytes, Q = o.request.bytes;
  const bool nvml = o.process_total.Known();
  const double own = nvml ? o.process_total.bytes : o.reserved.bytes + std::fmax(context_bytes, 0.0);
  // The cache (reserved - allocated) could have served part of the request: the run's own
  // minimum is what it held less its cache, plus the request.
  const double cache = std::fmax(0.0, o.reserved.bytes - o.allocated.bytes);
  const double deficit = own - cache + Q - T;
  if (deficit <= 0 && explained) return;
  Finding f;
  f.id = "shortfall";
  f.title = deficit > 0 ? "A real shortfall: the run needs more than the card" : "Little headroom left";
  f.bytes = std::fmax(0.0, deficit > 0 ? deficit : Q - o.free.bytes);
  f.sufficient = deficit > 0;
  const std::string own_text = nvml ? S(own) + " in all (NVML)"
                                    : S(o.reserved.bytes) + " reserved by PyTorch" +
                                          (context_bytes > 0 ? " + " + Gb(context_bytes) + " GB CUDA context" : "");
  f.text = "This process held " + own_text + " and asked for " + S(Q) + " more" +
           (cache > 0 ? " (its " + S(cache) + " cache could have served part of it)" : "") + ": at least " +
           S(own - cache + Q) +
           (deficit > 0 ? ", more than the " + S(T) + " the GPU has, by " + S(deficit) +
                              ". Even alone on the card this step would not fit: the run itself needs less memory."
                        : ", within the " + S(T) + " the GPU has, but with what else was there only " +
                              S(o.free.bytes) + " was free.");
  f.actions.push_back(
      "Lower what the run needs: the OOM doctor's remedies for the configuration, re-estimated on this "
      "card (a smaller micro-batch with gradient accumulation, activation checkpointing, an 8-bit "
      "optimizer, LoRA/QLoRA, quantised weights, ZeRO/FSDP over more GPUs).");
  out.push_back(std::move(f));
}

void ForTorchOom(const Observation& o, const OomBar& bar, double context_bytes, std::vector<Finding>& out) {
  if (o.request.Known() && o.capacity.Known() && o.request.bytes > o.capacity.bytes) {
    Finding f;
    f.id = "request_over_capacity";
    f.title = "One allocation larger than the whole GPU";
    f.bytes = o.request.bytes - o.capacity.bytes;
    f.sufficient = true;
    f.text = "The failed allocation asked for " + S(o.request.bytes) + ", more than the " + S(o.capacity.bytes) + " " +
             Gpu(o) + " has: no freeing helps; that tensor itself must shrink.";
    f.actions.push_back(
        "Find the tensor (the traceback's last line of your code): a smaller batch or sequence, or "
        "chunking (e.g. the loss over vocabulary chunks, attention without the s x s scores).");
    out.push_back(std::move(f));
  }
  if (!bar.drawable || !o.request.Known()) {
    Finding f;
    f.id = "missing_figures";
    f.title = "The message is incomplete";
    f.text = "The figures needed to read it are missing: " +
             (o.notes.empty() ? std::string("only the request is printed.") : o.notes.front() + ".");
    f.actions.push_back(
        "Paste the whole message: it continues with \"(GPU 0; ... total capacity; ...)\" or \"GPU 0 has "
        "a total capacity of ... of which ... is free ...\".");
    out.push_back(std::move(f));
    return;
  }
  const double need = o.request.bytes - o.free.bytes;
  HeldElsewhere(o, context_bytes, need, out);
  Fragmentation(o, need, out);
  FractionLimit(o, out);
  bool explained = false;
  for (const Finding& f : out) explained |= f.sufficient;
  Shortfall(o, context_bytes, explained, out);
  if (need <= 0) {
    Finding f;
    f.id = "request_under_free";
    f.title = "The request was smaller than the free memory";
    f.text = "It asked for " + S(o.request.bytes) + " with " + S(o.free.bytes) +
             " free: the limit was elsewhere "
             "(set_per_process_memory_fraction, a MIG slice), or memory was freed between the failure and the report.";
    out.push_back(std::move(f));
  }
}

void ForOther(const Observation& o, std::vector<Finding>& out) {
  std::vector<const GpuProcess*> procs;
  double listed = 0;
  for (const GpuProcess& p : o.processes) {
    if (!p.used.Known()) continue;
    procs.push_back(&p);
    listed += p.used.bytes;
  }
  if (procs.size() >= 2) {
    std::sort(procs.begin(), procs.end(),
              [](const GpuProcess* a, const GpuProcess* b) { return a->used.bytes > b->used.bytes; });
    Finding f;
    f.id = "shared_gpu";
    f.title = std::to_string(procs.size()) + " processes share " + Gpu(o);
    f.bytes = listed;
    f.text = "Listed: ";
    for (size_t i = 0; i < procs.size() && i < 8; ++i)
      f.text += (i ? ", " : "") + ("process " + procs[i]->pid + (procs[i]->name.empty() ? "" : " " + procs[i]->name) +
                                   " " + S(procs[i]->used.bytes));
    f.text +=
        ". A run that counts on the whole card will not fit beside them: one may be a second copy of the same model.";
    f.actions.push_back(
        "Stop the processes that should not be there, or set \"Used by others\" (other_processes_gb) to "
        "what the others hold.");
    out.push_back(std::move(f));
  }
  if (o.used.Known() && !procs.empty() && o.used.bytes - listed > std::fmax(1024 * kMiB, 0.05 * o.capacity.bytes)) {
    Finding f;
    f.id = "unlisted";
    f.title = "Memory in use that no listed process holds";
    f.bytes = o.used.bytes - listed;
    f.text = S(o.used.bytes) + " used - " + S(listed) + " listed = " + S(f.bytes) +
             ": inside a container nvidia-smi cannot see other containers' processes; MIG slices and the driver also "
             "hold memory.";
    out.push_back(std::move(f));
  }
  if (o.form == EvidenceForm::kMemorySummary && o.reserved.Known() && o.allocated.Known()) {
    Finding f;
    f.id = "cache";
    f.title = "PyTorch's cache";
    f.bytes = std::fmax(0.0, o.reserved.bytes - o.allocated.bytes);
    f.text =
        "Reserved " + S(o.reserved.bytes) + ", allocated " + S(o.allocated.bytes) + ": " + S(f.bytes) +
        " cached but unallocated" +
        (o.peak_allocated.Known() ? "; the peak allocated was " + S(o.peak_allocated.bytes) : "") +
        (o.non_releasable.Known() ? "; " + S(o.non_releasable.bytes) + " of the cache cannot be released (split blocks)"
                                  : "") +
        (o.oom_count > 0 ? "; " + std::to_string(o.oom_count) + " out-of-memory error(s) so far" : "") + ".";
    if (f.bytes > 0.2 * o.reserved.bytes)
      f.actions.push_back(
          "A large unallocated share is fragmentation: PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.");
    out.push_back(std::move(f));
  }
}

}  // namespace

std::vector<Finding> DiagnoseOom(const Observation& o, const OomBar& bar, double context_bytes) {
  std::vector<Finding> out;
  if (o.form == EvidenceForm::kCudaErrorOom) {
    Finding f;
    f.id = "outside_allocator";
    f.title = "Out of memory outside PyTorch's allocator";
    f.sufficient = true;
    f.text = "\"" + o.backend + " error: out of memory\" comes from a " + o.backend +
             " call that is not PyTorch's caching allocator: creating the CUDA context, cuBLAS/cuDNN workspaces, NCCL "
             "buffers or a custom kernel. The card was already (nearly) full when it ran: another process held it, or "
             "PyTorch's cache had taken the rest.";
    f.actions.push_back("Paste nvidia-smi's output here to see who held the card.");
    f.actions.push_back(
        "Call torch.cuda.empty_cache() before the step that fails, or leave headroom (a smaller batch).");
    out.push_back(std::move(f));
    return out;
  }
  if (o.IsOom())
    ForTorchOom(o, bar, context_bytes, out);
  else
    ForOther(o, out);
  StableSort(out, [](const Finding& a, const Finding& b) {
    const bool am = a.id == "missing_figures", bm = b.id == "missing_figures";
    if (am != bm) return am;
    if (a.sufficient != b.sufficient) return a.sufficient;
    return a.bytes > b.bytes;
  });
  return out;
}

}  // namespace llmmem::core

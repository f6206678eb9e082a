// ReadSnapshot (snapshot.h): the pickle read as plain data, then walked by the documented keys.
#include "core/run/snapshot.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "core/run/pickle_reader.h"

namespace llmmem::core {
namespace {

// Causes by stack frame, most specific first: the first rule any frame of an allocation matches
// decides. Frame names as the code that allocates them spells them: torch/optim/adamw.py
// _multi_tensor_adamw / _fused_adamw (torch._foreach_* temporaries) and the other optimizers;
// transformers' repeat_kv (models/*/modeling_*.py); torch/nn/functional.py cross_entropy and
// transformers/loss/loss_utils.py; torch/utils/checkpoint.py's recompute; torch/autograd
// (graph.py _engine_run_backward, __init__.py backward); at::autocast::cached_cast
// (aten/src/ATen/autocast_mode.cpp, in context="all" C++ frames); torch/nn/modules/module.py
// _apply / load_state_dict (weights moved or loaded); any forward.
struct CauseRule {
  const char* id;
  const char* label;
  const char* file;  // a part of the frame's filename ("" for any)
  const char* name;  // a part of the frame's function name ("" for any)
};
constexpr CauseRule kCauses[] = {
    {"optimizer_step", "Optimizer step (foreach / fused temporaries, states)", "torch/optim/", ""},
    {"repeat_kv", "repeat_kv's expanded K and V", "", "repeat_kv"},
    {"loss", "The loss (logits' fp32 copy, log-softmax)", "", "cross_entropy"},
    {"loss", "The loss (logits' fp32 copy, log-softmax)", "loss/loss_utils.py", ""},
    {"autocast_cache", "Autocast's cast weight cache", "", "cached_cast"},
    {"recompute", "Checkpoint recompute (backward's re-run forward)", "torch/utils/checkpoint.py", ""},
    {"backward", "Backward: gradients and their temporaries", "torch/autograd/", ""},
    {"backward", "Backward: gradients and their temporaries", "", "backward"},
    {"weights", "Weights moved or loaded", "torch/nn/modules/module.py", "_apply"},
    {"weights", "Weights moved or loaded", "", "load_state_dict"},
    {"weights", "Weights moved or loaded", "", "from_pretrained"},
    {"forward", "Forward activations", "", "forward"},
};
constexpr int kCauseCount = static_cast<int>(sizeof kCauses / sizeof kCauses[0]);
constexpr const char* kBeforeHistory = "before_history";
constexpr const char* kUnattributed = "unattributed";

// The cause of an allocation from its frames; `frame` gets the one that decided.
int CauseOf(const PickleDoc& doc, const PickleValue* frames, std::string& frame) {
  if (frames == nullptr || frames->type != PickleType::kList || frames->items.empty()) return -1;
  for (int r = 0; r < kCauseCount; ++r) {
    for (size_t fi : frames->items) {
      const PickleValue& f = doc.At(fi);
      if (f.type != PickleType::kDict) continue;
      const std::string file = doc.Str(f, "filename"), name = doc.Str(f, "name");
      if ((*kCauses[r].file == '\0' || file.find(kCauses[r].file) != std::string::npos) &&
          (*kCauses[r].name == '\0' || name.find(kCauses[r].name) != std::string::npos)) {
        // The file from the rule's part on, or its last two path components ("llama/modeling_llama.py").
        size_t from = kCauses[r].file[0] ? file.find(kCauses[r].file) : std::string::npos;
        if (from == std::string::npos) {
          from = 0;
          const size_t last = file.find_last_of('/');
          if (last != std::string::npos && last > 0) {
            const size_t before = file.find_last_of('/', last - 1);
            if (before != std::string::npos) from = before + 1;
          }
        }
        frame = file.substr(from) + ":" + name;
        return r;
      }
    }
  }
  return -2;  // frames, none of them a known cause
}

struct LiveBlock {
  double size = 0;
  int cause = -1;  // kCauses index; -1 before the history, -2 unattributed
};

// The trace of `device` replayed (snapshot.h SnapshotSummary::traced).
void ReplayTrace(const PickleDoc& doc, const PickleValue& entries, const PickleValue* segments, int64_t device,
                 SnapshotSummary& s) {
  // The live blocks at the end: the snapshot's allocated ones on this device.
  std::unordered_map<int64_t, LiveBlock> live;
  double bytes = 0;
  if (segments != nullptr)
    for (size_t si : segments->items) {
      const PickleValue& seg = doc.At(si);
      if (seg.type != PickleType::kDict || doc.Int(seg, "device", 0) != device) continue;
      const PickleValue* blocks = doc.Get(seg, "blocks");
      if (blocks == nullptr || blocks->type != PickleType::kList) continue;
      for (size_t bi : blocks->items) {
        const PickleValue& b = doc.At(bi);
        if (b.type != PickleType::kDict || doc.Str(b, "state") != "active_allocated") continue;
        const double size = static_cast<double>(std::max<int64_t>(0, doc.Int(b, "size", 0)));
        live[doc.Int(b, "address", 0)] = {size, -1};
        bytes += size;
      }
    }
  // A completed free returns the block; a trace that records none frees at the request.
  bool completes = false;
  for (size_t ti : entries.items)
    completes |= doc.At(ti).type == PickleType::kDict && doc.Str(doc.At(ti), "action") == "free_completed";
  const char* freed = completes ? "free_completed" : "free_requested";
  // Backwards from the end: the live bytes before each entry, and the blocks live at the start.
  std::vector<double> after(entries.items.size());
  for (size_t k = entries.items.size(); k-- > 0;) {
    after[k] = bytes;
    const PickleValue& t = doc.At(entries.items[k]);
    if (t.type != PickleType::kDict) continue;
    const std::string action = doc.Str(t, "action");
    const double size = static_cast<double>(std::max<int64_t>(0, doc.Int(t, "size", 0)));
    const int64_t addr = doc.Int(t, "addr", 0);
    if (action == "alloc") {
      bytes -= size;
      live.erase(addr);
    } else if (action == freed) {
      bytes += size;
      live[addr] = {size, -1};
    }
  }
  s.traced = true;
  s.trace_device = device;
  s.trace_start_bytes = bytes;
  s.trace_peak_bytes = bytes;
  for (size_t k = 0; k < after.size(); ++k)
    if (after[k] > s.trace_peak_bytes) {
      s.trace_peak_bytes = after[k];
      s.trace_peak_entry = static_cast<int64_t>(k);
    }
  // Forwards from the start: each cause's bytes, at the peak and at its own high-water.
  constexpr int n = kCauseCount;
  std::vector<double> held(n + 2, 0), high(n + 2, 0), at_peak(n + 2, 0);
  std::vector<int64_t> count(n + 2, 0), count_at_peak(n + 2, 0);
  std::vector<std::string> frames(n + 2);
  auto slot = [](int cause) { return cause >= 0 ? cause : cause == -1 ? kCauseCount : kCauseCount + 1; };
  for (const auto& [addr, b] : live) {
    held[slot(b.cause)] += b.size;
    ++count[slot(b.cause)];
  }
  auto mark_peak = [&] {
    at_peak = held;
    count_at_peak = count;
  };
  for (size_t i = 0; i < held.size(); ++i) high[i] = held[i];
  if (s.trace_peak_entry < 0) mark_peak();
  for (size_t k = 0; k < entries.items.size(); ++k) {
    const PickleValue& t = doc.At(entries.items[k]);
    if (t.type == PickleType::kDict) {
      const std::string action = doc.Str(t, "action");
      const int64_t addr = doc.Int(t, "addr", 0);
      if (action == "alloc") {
        std::string frame;
        const int cause = CauseOf(doc, doc.Get(t, "frames"), frame);
        const int c = cause == -1 ? -2 : cause;  // an allocation in the history without frames: unattributed
        const LiveBlock b{static_cast<double>(std::max<int64_t>(0, doc.Int(t, "size", 0))), c};
        live[addr] = b;
        held[slot(c)] += b.size;
        ++count[slot(c)];
        high[slot(c)] = std::max(high[slot(c)], held[slot(c)]);
        if (frames[slot(c)].empty()) frames[slot(c)] = frame;
      } else if (action == freed) {
        const auto it = live.find(addr);
        if (it != live.end()) {
          held[slot(it->second.cause)] -= it->second.size;
          --count[slot(it->second.cause)];
          live.erase(it);
        }
      }
    }
    if (static_cast<int64_t>(k) == s.trace_peak_entry) mark_peak();
  }
  // One row per cause id (two rules may share one), largest at the peak first.
  for (int i = 0; i < n + 2; ++i) {
    if (at_peak[i] <= 0 && high[i] <= 0) continue;
    const std::string id = i < n ? kCauses[i].id : i == n ? kBeforeHistory : kUnattributed;
    auto row = std::find_if(s.peak_causes.begin(), s.peak_causes.end(), [&](const SnapshotCause& c) { return c.id == id; });
    if (row == s.peak_causes.end()) {
      SnapshotCause c;
      c.id = id;
      c.label = i < n ? kCauses[i].label : i == n ? "Allocated before the recorded history" : "Not attributed (no known frame)";
      c.frame = frames[i];
      s.peak_causes.push_back(c);
      row = s.peak_causes.end() - 1;
    }
    row->bytes += at_peak[i];
    row->blocks += count_at_peak[i];
    row->high_water = std::max(row->high_water, high[i]);
  }
  std::stable_sort(s.peak_causes.begin(), s.peak_causes.end(),
                   [](const SnapshotCause& a, const SnapshotCause& b) { return a.bytes > b.bytes; });
}

}  // namespace

SnapshotSummary ReadSnapshot(const std::string& bytes) {
  SnapshotSummary s;
  if (bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f && static_cast<unsigned char>(bytes[1]) == 0x8b) {
    s.error = "a gzip file: gunzip it first (the snapshot inside is read as it is)";
    return s;
  }
  const PickleDoc doc = ReadPickle(bytes);
  if (!doc.ok) {
    s.error = "not read as a memory snapshot: " + doc.error;
    return s;
  }
  const PickleValue& root = doc.At(doc.root);
  const PickleValue* segments = doc.Get(root, "segments");
  if (segments == nullptr || segments->type != PickleType::kList) {
    s.error = "the pickle is plain data but not a memory snapshot: no \"segments\" list";
    return s;
  }
  for (size_t si : segments->items) {
    const PickleValue& seg = doc.At(si);
    if (seg.type != PickleType::kDict) continue;
    ++s.segments;
    s.reserved_bytes += static_cast<double>(std::max<int64_t>(0, doc.Int(seg, "total_size", 0)));
    s.allocated_bytes += static_cast<double>(std::max<int64_t>(0, doc.Int(seg, "allocated_size", 0)));
    s.active_bytes += static_cast<double>(std::max<int64_t>(0, doc.Int(seg, "active_size", 0)));
    const PickleValue* blocks = doc.Get(seg, "blocks");
    if (blocks == nullptr || blocks->type != PickleType::kList) continue;
    for (size_t bi : blocks->items) {
      const PickleValue& b = doc.At(bi);
      if (b.type != PickleType::kDict) continue;
      ++s.blocks;
      const double size = static_cast<double>(std::max<int64_t>(0, doc.Int(b, "size", 0)));
      const std::string state = doc.Str(b, "state");
      if (state == "active_allocated") {
        ++s.blocks_active;
        s.requested_bytes += static_cast<double>(std::max<int64_t>(0, doc.Int(b, "requested_size", 0)));
      } else if (state == "active_awaiting_free") {
        ++s.blocks_awaiting_free;
      } else if (state == "inactive") {
        ++s.blocks_inactive;
        s.inactive_bytes += size;
        s.largest_inactive_block = std::max(s.largest_inactive_block, size);
      }
    }
  }
  const PickleValue* traces = doc.Get(root, "device_traces");
  if (traces != nullptr && traces->type == PickleType::kList) {
    size_t busiest = traces->items.size();
    for (size_t d = 0; d < traces->items.size(); ++d) {
      const PickleValue& device = doc.At(traces->items[d]);
      if (device.type == PickleType::kList && !device.items.empty() &&
          (busiest == traces->items.size() || device.items.size() > doc.At(traces->items[busiest]).items.size()))
        busiest = d;
    }
    if (busiest < traces->items.size())
      ReplayTrace(doc, doc.At(traces->items[busiest]), segments, static_cast<int64_t>(busiest), s);
    for (size_t di : traces->items) {
      const PickleValue& device = doc.At(di);
      if (device.type != PickleType::kList) continue;
      for (size_t ti : device.items) {
        const PickleValue& t = doc.At(ti);
        if (t.type != PickleType::kDict) continue;
        ++s.trace_entries;
        const std::string action = doc.Str(t, "action");
        s.trace_allocs += action == "alloc";
        s.trace_ooms += action == "oom";
      }
    }
  }
  s.ok = true;
  return s;
}

}  // namespace llmmem::core

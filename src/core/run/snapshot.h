// torch.cuda.memory._snapshot() as torch.cuda.memory._dump_snapshot() pickles it: the
// allocator's segments and their blocks, and the device traces when
// _record_memory_history() was on. The structure is torch/cuda/memory.py's _snapshot
// docstring (PyTorch v2.1.0 and later: Segment, Block, Frame, TraceEntry TypedDicts); the
// bytes are read by pickle_reader.h, which runs nothing. Gzip is refused with a note (the
// core has no inflater): gunzip first.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace llmmem::core {

// What held memory at the trace's high-water mark, by the stack frames of each allocation
// (snapshot.cpp kCauses: the optimizer's foreach temporaries, repeat_kv, the loss, backward,
// checkpoint recompute, forward activations, weights moved or loaded), largest first.
struct SnapshotCause {
  std::string id;      // "optimizer_step", "before_history", "unattributed"
  std::string label;   // "Optimizer step (foreach / fused temporaries)"
  double bytes = 0;    // live at the trace's peak
  int64_t blocks = 0;
  double high_water = 0;  // the most this cause held at any moment of the trace
  std::string frame;      // one frame that named it: "torch/optim/adamw.py:_multi_tensor_adamw"
};

struct SnapshotSummary {
  bool ok = false;
  std::string error;
  int64_t segments = 0, blocks = 0;
  double reserved_bytes = 0;   // sum of the segments' total_size: memory_reserved()
  double allocated_bytes = 0;  // sum of allocated_size: memory_allocated()
  double active_bytes = 0;     // sum of active_size (allocated or awaiting free)
  double requested_bytes = 0;  // sum of requested_size of the active_allocated blocks (before rounding)
  double inactive_bytes = 0;   // blocks free for reuse: the cache
  double largest_inactive_block = 0;  // the largest free block: what one allocation could take without a new segment
  int64_t blocks_active = 0, blocks_inactive = 0, blocks_awaiting_free = 0;
  int64_t trace_entries = 0;   // all devices' device_traces together
  int64_t trace_allocs = 0, trace_ooms = 0;
  // The trace replayed (the device with the most entries), anchored at the end: the live
  // allocated bytes there are the snapshot's active blocks, and each entry read backwards undoes
  // itself (an alloc was not live before it, a completed free was), as _memory_viz.py rebuilds
  // its timeline. Allocations older than the history are "before the recorded history".
  bool traced = false;
  int64_t trace_device = 0;
  double trace_start_bytes = 0;  // live when the history begins
  double trace_peak_bytes = 0;   // the high-water mark over the recorded window (>= start and end)
  int64_t trace_peak_entry = -1; // the entry after which it is reached (0-based), -1: at the start
  std::vector<SnapshotCause> peak_causes;
};

SnapshotSummary ReadSnapshot(const std::string& bytes);

}  // namespace llmmem::core

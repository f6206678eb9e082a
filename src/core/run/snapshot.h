// torch.cuda.memory._snapshot() as torch.cuda.memory._dump_snapshot() pickles it: the
// allocator's segments and their blocks, and the device traces when
// _record_memory_history() was on. The structure is torch/cuda/memory.py's _snapshot
// docstring (PyTorch v2.1.0 and later: Segment, Block, Frame, TraceEntry TypedDicts); the
// bytes are read by pickle_reader.h, which runs nothing. Gzip is refused with a note (the
// core has no inflater): gunzip first.
#pragma once

#include <cstdint>
#include <string>

namespace llmmem::core {

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
};

SnapshotSummary ReadSnapshot(const std::string& bytes);

}  // namespace llmmem::core

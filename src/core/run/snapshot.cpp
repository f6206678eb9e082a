// ReadSnapshot (snapshot.h): the pickle read as plain data, then walked by the documented keys.
#include "core/run/snapshot.h"

#include <algorithm>

#include "core/run/pickle_reader.h"

namespace llmmem::core {

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

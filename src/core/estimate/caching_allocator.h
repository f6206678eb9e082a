// A model of PyTorch's CUDA caching allocator for a short sequence of large tensors: how much
// it keeps reserved (cudaMalloc'd segments) beyond what the tensors hold at once. The rules,
// from c10/cuda/CUDACachingAllocator.cpp (header comment, pytorch@001074d):
// - a request takes the smallest cached free block that holds it, and the rest of that block
//   is split off as a free block (large pool; max_split_size is unlimited by default);
// - a freed block merges with free neighbours of the same segment, never across segments;
// - when no cached block holds a request, a new segment of that size is cudaMalloc'd.
// With expandable_segments the one segment grows at its end instead; for the sequences here
// (each new request larger than every free hole) that maps the same bytes.
// Sizes are in any unit (bytes per logit, say): the rules are scale-free.
#pragma once

#include <cstdint>

namespace llmmem::core {

struct AllocatorStep {
  int8_t tensor;  // a small id of the caller's choosing
  double size;    // > 0: allocate the tensor; 0: free it
};

struct AllocatorPeaks {
  double allocated = 0;  // the most the tensors held at once (max_memory_allocated)
  double reserved = 0;   // the segments cudaMalloc'd by then (max_memory_reserved)
};

namespace detail {

struct CachedBlock {
  int8_t segment;
  int8_t owner;  // -1: free
  double size;
};

}  // namespace detail

// Runs the steps; kMaxBlocks bounds the blocks (allocated, free and split off) at once. The
// orders in loss_paths.h need at most about 30; a cut would show in
// tests/test_caching_allocator.cpp, whose busiest moments must equal HfLoss's widths.
inline AllocatorPeaks SimulateCachingAllocator(const AllocatorStep* steps, int count) {
  constexpr int kMaxBlocks = 64;
  detail::CachedBlock blocks[kMaxBlocks];  // in address order, segment by segment
  int n = 0;
  int8_t segments = 0;
  double allocated = 0, reserved = 0;
  AllocatorPeaks peaks;
  for (int i = 0; i < count; ++i) {
    const AllocatorStep& s = steps[i];
    if (s.size > 0) {
      int best = -1;
      for (int b = 0; b < n; ++b) {
        if (blocks[b].owner < 0 && blocks[b].size >= s.size && (best < 0 || blocks[b].size < blocks[best].size))
          best = b;
      }
      if (best < 0) {
        if (n == kMaxBlocks) break;
        blocks[n++] = {segments++, s.tensor, s.size};
        reserved += s.size;
      } else {
        const double rest = blocks[best].size - s.size;
        blocks[best].owner = s.tensor;
        blocks[best].size = s.size;
        if (rest > 0 && n < kMaxBlocks) {
          for (int b = n; b > best + 1; --b) blocks[b] = blocks[b - 1];
          blocks[best + 1] = {blocks[best].segment, -1, rest};
          ++n;
        }
      }
      allocated += s.size;
    } else {
      int b = 0;
      while (b < n && blocks[b].owner != s.tensor) ++b;
      if (b == n) continue;
      allocated -= blocks[b].size;
      blocks[b].owner = -1;
      // Merge with the free neighbours of its segment.
      if (b + 1 < n && blocks[b + 1].owner < 0 && blocks[b + 1].segment == blocks[b].segment) {
        blocks[b].size += blocks[b + 1].size;
        for (int k = b + 1; k + 1 < n; ++k) blocks[k] = blocks[k + 1];
        --n;
      }
      if (b > 0 && blocks[b - 1].owner < 0 && blocks[b - 1].segment == blocks[b].segment) {
        blocks[b - 1].size += blocks[b].size;
        for (int k = b; k + 1 < n; ++k) blocks[k] = blocks[k + 1];
        --n;
      }
    }
    if (allocated > peaks.allocated) peaks.allocated = allocated;
    if (reserved > peaks.reserved) peaks.reserved = reserved;
  }
  return peaks;
}

}  // namespace llmmem::core

// cuBLAS's workspaces. PyTorch gives every (thread, stream) pair that runs a matmul its own
// workspace from the caching allocator, so it counts in max_memory_allocated. The default
// size depends on the GPU (PyTorch aten/src/ATen/cuda/CublasHandlePool.cpp,
// parseChosenWorkspaceSize): ":4096:8" = 32 MiB on compute capability 9.0 and later,
// ":4096:2:16:8" = 8 MiB + 128 KiB before; CUBLAS_WORKSPACE_CONFIG overrides it. Training
// runs matmuls on two threads, the forward's and autograd's backward thread: measured on an
// H200, 32 MiB appear at the first matmul and 32 MiB more at the first backward
// (tests/truth/GPU.md).
#pragma once

#include "core/estimate/derived.h"
#include "core/catalogue/gpus.h"
#include "core/estimate/sinks.h"
#include "core/base/sources.h"
#include "core/base/units.h"

namespace llmmem::core {

// PyTorch's default per workspace, in MiB, for a card of this compute capability (0: not
// NVIDIA, nothing counted).
inline double DefaultCublasWorkspaceMib(double compute_capability) {
  if (compute_capability >= 9.0) return 32.0;
  return compute_capability > 0 ? 8.125 : 0.0;
}

inline double CublasWorkspaceMib(const Config& c) {
  return c.cublas_workspace_mib >= 0 ? c.cublas_workspace_mib : DefaultCublasWorkspaceMib(ComputeCapability(c.gpu));
}

template <class Sink>
void AccountLibraryWorkspaces(const Derived& d, Sink& s) {
  const Config& c = d.c;
  if (UsesServingRuntime(c)) return;  // each runtime's own accounting (account_serving.h)
  const double per_thread = CublasWorkspaceMib(c) * kMiB;
  if (!(per_thread > 0)) return;
  const double threads = d.training ? 2 : 1;
  s.Begin("workspaces", "Library workspaces");
  s.Leaf("cublas_workspaces", d.training ? "cuBLAS workspaces (forward and backward threads)" : "cuBLAS workspace",
         Category::kBuffers, Live::Both(per_thread * threads), [&] {
           return Explanation{FormatNumber(CublasWorkspaceMib(c), 3) + " MiB x " + FormatNumber(threads) +
                                  (d.training ? " threads (the forward's and autograd's)" : " thread") +
                                  (c.cublas_workspace_mib >= 0 ? "; as set"
                                                               : "; PyTorch's default for compute capability " +
                                                                     FormatNumber(ComputeCapability(c.gpu), 1)),
                              src::kCublasWorkspace};
         });
  s.End();
}

}  // namespace llmmem::core

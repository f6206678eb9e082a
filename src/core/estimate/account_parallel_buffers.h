// Communication buffers the data-parallel strategy allocates beside the model states:
// DDP's gradient buckets, DeepSpeed's reduce and all-gather buckets, ZeRO-3/FSDP's gathered
// parameters. Sources: PyTorch DDP, the DeepSpeed ZeRO config, FSDP2, in sources.h.
#pragma once

#include <cmath>

#include "core/estimate/account_weights.h"

namespace llmmem::core {

// Communication buffers the data-parallel strategy allocates beside the model states.
template <class Sink>
void AccountParallelBuffers(const Derived& d, Sink& s) {
  const Config& c = d.c;
  if (!d.training || (d.dp <= 1 && c.zero < 3)) return;
  const double gbpp = Info(c.grad_dtype).bits / 8.0;
  const double wbpp = Info(c.mode == Mode::kQlora ? Dtype::kBf16 : c.dtype).bits / 8.0;
  s.Begin("buffers", "Data-parallel buffers");
  if (c.zero == 0) {
    if (!c.ddp_bucket_view && d.dp > 1) {
      const double bytes = d.T_gpu * gbpp;
      s.Leaf("ddp_buckets", "DDP gradient buckets (a copy of the gradients)", Category::kBuffers, Live::Both(bytes),
             [&] {
               return Explanation{
                   "PyTorch DDP with gradient_as_bucket_view=False keeps flat buckets as large as the "
                   "gradients: " +
                       FormatBytesBoth(bytes),
                   src::kDdpBuckets};
             });
    }
  } else {
    const double reduce = std::fmin(c.reduce_bucket, d.T_gpu) * gbpp;
    s.Leaf("reduce_bucket", "Gradient reduce bucket", Category::kBuffers, Live::Both(reduce), [&] {
      return Explanation{"reduce_bucket_size " + FormatNumber(c.reduce_bucket, 0) + " elements x " +
                             FormatNumber(gbpp) + " B (at most the gradients)",
                         src::kDeepSpeedBuckets};
    });
    if (c.zero <= 2) {
      const double gather = std::fmin(c.allgather_bucket, d.T_gpu) * wbpp;  // only trained partitions are re-gathered
      s.Leaf("allgather_bucket", "Parameter all-gather bucket", Category::kBuffers, Live::Both(gather), [&] {
        return Explanation{"allgather_bucket_size " + FormatNumber(c.allgather_bucket, 0) + " elements x " +
                               FormatNumber(wbpp) + " B (at most the trained parameters, which are re-gathered)",
                           src::kDeepSpeedBuckets};
      });
    } else if (!c.reshard_after_forward) {
      // FSDP2 reshard_after_forward=False (torchtitan's default under pipeline parallelism,
      // torchtitan/distributed/fsdp.py get_fsdp_reshard_after_forward_policy): every layer's
      // parameters stay gathered from its forward to its backward.
      const double gathered = d.P_gpu * wbpp;
      s.Leaf("gathered_params", "Parameters kept gathered after forward", Category::kBuffers, Live::Both(gathered),
             [&] {
               return Explanation{FormatCount(static_cast<int64_t>(std::llround(d.P_gpu))) + " params on this GPU x " +
                                      FormatNumber(wbpp) + " B, unsharded (reshard_after_forward=False)",
                                  src::kZero3Gather};
             });
    } else {
      const double layer = d.layer_params_gpu * wbpp;
      const double prefetch = std::fmin(c.prefetch_bucket, d.layer_params_gpu) * wbpp;
      s.Leaf("gathered_layer", "Gathered parameters of the running layer", Category::kBuffers, Live::Both(layer), [&] {
        return Explanation{"one layer's " + FormatCount(static_cast<int64_t>(std::llround(d.layer_params_gpu))) +
                               " params on this GPU x " + FormatNumber(wbpp) + " B, all-gathered from the shards",
                           src::kZero3Gather};
      });
      s.Leaf("prefetch_bucket", "ZeRO-3 prefetch bucket", Category::kBuffers, Live::Both(prefetch), [&] {
        return Explanation{"stage3_prefetch_bucket_size " + FormatNumber(c.prefetch_bucket, 0) +
                               " elements (at most one layer) x " + FormatNumber(wbpp) + " B",
                           src::kZero3Gather};
      });
    }
  }
  s.End();
}

}  // namespace llmmem::core

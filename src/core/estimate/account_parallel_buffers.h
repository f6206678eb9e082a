// Communication buffers the data-parallel strategy allocates beside the model states:
// DDP's gradient buckets, DeepSpeed's reduce and all-gather buckets, ZeRO-3's gathered
// parameters, FSDP's gathered units and unsharded gradients. Sources: PyTorch DDP, the
// DeepSpeed ZeRO config, FSDP1 and FSDP2, in sources.h.
#pragma once

#include <cmath>

#include "core/estimate/account_weights.h"

namespace llmmem::core {

namespace detail {

// PyTorch FSDP wraps each layer and the root (embeddings, final norm, head) as units and
// moves whole units, with no fixed-size buckets. FULL_SHARD gathers the running layer and
// prefetches the next one in backward, and keeps the root gathered from its forward to its
// backward, which comes after every layer's. A unit's gradients are reduce-scattered from
// their unsharded form once it has them all: a layer's in its backward, the root's only
// when the embedding's arrives, last, so the head's wait through every layer's backward.
template <class Sink>
void AccountFsdpUnits(const Derived& d, Sink& s, double gbpp) {
  const Config& c = d.c;
  // Units are gathered in their storage format: a 4-bit base (bitsandbytes' quant_storage,
  // GPTQ's packed int32) moves as 4-bit, not as 16-bit.
  const auto& own = d.own_weights;
  const auto group = [](ParamGroup g) { return static_cast<int>(g); };
  const double root = own.params[group(ParamGroup::kEmbedding)] + own.params[group(ParamGroup::kHead)];
  const double root_bytes = own.group[group(ParamGroup::kEmbedding)] + own.group[group(ParamGroup::kHead)];
  const double layer_own = own.params[group(ParamGroup::kAttention)] + own.params[group(ParamGroup::kMlp)];
  const double layer_bpp =
      layer_own > 0 ? (own.group[group(ParamGroup::kAttention)] + own.group[group(ParamGroup::kMlp)]) / layer_own : 0.0;
  if (c.zero == 3 && !c.reshard_after_forward) {
    s.Leaf("gathered_params", "Parameters kept gathered after forward", Category::kBuffers,
           Live{own.total, 0, 0, own.total}, [&] {
             return Explanation{FormatCount(static_cast<int64_t>(std::llround(d.P_gpu))) + " params on this GPU, " +
                                    FormatBytesBoth(own.total) + ", unsharded (reshard_after_forward=False)",
                                src::kFsdpUnits};
           });
  } else if (c.zero == 3) {
    const double layer = d.layer_params_gpu * layer_bpp;
    s.Leaf("gathered_layers", "Gathered parameters: the running layer and the next", Category::kBuffers,
           Live::LayerBackwardOnly(2 * layer), [&] {
             return Explanation{"2 layers x " + FormatCount(static_cast<int64_t>(std::llround(d.layer_params_gpu))) +
                                    " params on this GPU x " + FormatNumber(layer_bpp, 3) +
                                    " B (their storage format), all-gathered whole (the next one prefetched, "
                                    "BACKWARD_PRE)",
                                src::kFsdpUnits};
           });
    if (root > 0) {
      s.Leaf("gathered_root", "Root unit (embeddings, head) gathered from forward to backward", Category::kBuffers,
             Live{root_bytes, 0, 0, root_bytes}, [&] {
               return Explanation{FormatCount(static_cast<int64_t>(std::llround(root))) + " params, " +
                                      FormatBytesBoth(root_bytes) + ": FSDP does not reshard the root after forward",
                                  src::kFsdpUnits};
             });
    }
  }
  if (c.zero < 2) return;
  const double layer_trainable = d.adapters ? d.T_gpu / std::fmax(1.0, d.stage_layers) : d.layer_params_gpu;
  s.Leaf("unsharded_layer_grads", "Unsharded gradients of the running layer", Category::kBuffers,
         Live::LayerBackwardOnly(layer_trainable * gbpp), [&] {
           return Explanation{FormatCount(static_cast<int64_t>(std::llround(layer_trainable))) + " params x " +
                                  FormatNumber(gbpp) + " B, before their reduce-scatter",
                              src::kFsdpUnits};
         });
  if (d.pp > 1) {
    // torch.distributed.pipelining turns FSDP's gradient sync off until the last micro-batch
    // (PipelineStage.backward_maybe_with_nosync): each unit keeps its unsharded gradient,
    // upcast to the reduce dtype and summed (FSDP2 FSDPParam.to_accumulated_grad_if_needed).
    // Alive from the first backward; a forward holds them too once 1F1B's steady state
    // runs forwards after backwards (more micro-batches than are in flight).
    const double summed = d.T_gpu * gbpp;
    const bool steady = c.schedule != Schedule::kGpipe && static_cast<double>(c.grad_accum) > d.in_flight;
    s.Leaf("summed_grads", "Unsharded gradients summed over the micro-batches", Category::kBuffers,
           Live{steady ? summed : 0, 0, 0, summed}, [&] {
             return Explanation{FormatCount(static_cast<int64_t>(std::llround(d.T_gpu))) + " params on this stage x " +
                                    FormatNumber(gbpp) +
                                    " B, unsharded until the last micro-batch's backward (pipeline with FSDP: no "
                                    "gradient sync before it); counted beside every micro-batch in flight, one more "
                                    "than 1F1B's later backwards hold",
                                src::kPipelineFsdp};
           });
  }
  const double head = d.counts.head > 0 ? d.counts.head : d.counts.embedding;
  if (!d.adapters && d.last_stage && head > 0) {
    // The sharded 1/shard of it is in the gradients already.
    const double waiting = head / d.t * gbpp * (1 - 1 / d.shard);
    s.Leaf("unsharded_head_grad", "The head's unsharded gradient, waiting for the root's reduce-scatter",
           Category::kBuffers, Live::LayerBackwardOnly(waiting), [&] {
             return Explanation{FormatCount(static_cast<int64_t>(std::llround(head / d.t))) + " params x " +
                                    FormatNumber(gbpp) + " B x (1 - 1/" + FormatNumber(d.shard) +
                                    ") beyond this GPU's shard",
                                src::kFsdpUnits};
           });
  }
}

}  // namespace detail

// Communication buffers the data-parallel strategy allocates beside the model states.
template <class Sink>
void AccountParallelBuffers(const Derived& d, Sink& s) {
  const Config& c = d.c;
  if (!d.training || (d.dp <= 1 && c.zero < 3)) return;
  const double gbpp = Info(c.grad_dtype).bits / 8.0;
  const double wbpp = Info(c.mode == Mode::kQlora ? Dtype::kBf16 : c.dtype).bits / 8.0;
  s.Begin("buffers", "Data-parallel buffers");
  if (c.sharding == Sharding::kFsdp) {
    detail::AccountFsdpUnits(d, s, gbpp);
  } else if (c.zero == 0) {
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

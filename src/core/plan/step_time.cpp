// The planner's step time (step_time.h): compute from the speed model, plus the layout's terms.
#include "core/plan/step_time.h"

#include <algorithm>
#include <cmath>

#include "core/config/gpu_count.h"
#include "core/model/dtype.h"

namespace llmmem::core {
namespace {

// Ring all-reduce: each GPU sends and receives 2 (n - 1) / n of the buffer (Patarasuk and
// Yuan 2009); reduce-scatter and all-gather are one half each.
double RingAllReduceBytes(double bytes, double n) { return n > 1 ? 2.0 * (n - 1) / n * bytes : 0; }

}  // namespace

StepTime PlanStepTime(const Config& c, const Totals& t, double step_flops, double peak_flops, const PlanLinks& links) {
  StepTime r;
  const double gpus = static_cast<double>(TotalGpus(c));
  const double flops = peak_flops * c.mfu;
  if (flops <= 0 || step_flops <= 0 || !t.ok) return r;
  r.ok = true;
  r.compute_s = step_flops / (gpus * flops);
  const ModelSpec& m = c.model;
  const double per_node = static_cast<double>(std::max<int64_t>(1, links.gpus_per_node));
  const double link = links.link_gbps * 1e9, net = links.network_gbps * 1e9;
  const double ga = static_cast<double>(c.grad_accum);
  // Pipeline bubble (Narayanan et al. 2021, 2.2.1: (p-1)/m; 2.2.2 interleaved: (p-1)/(v m)).
  if (c.pp > 1) {
    const double v = c.schedule == Schedule::kInterleaved ? static_cast<double>(c.vpp) : 1.0;
    r.bubble_s = r.compute_s * (c.pp - 1) / (v * ga);
  }
  const double layers_here = std::ceil(static_cast<double>(m.layers) / c.pp);
  const double act_bytes = static_cast<double>(c.batch) * (c.seq / c.cp) * m.hidden * 2.0;  // 16-bit b s h
  // Tensor parallel: 4 all-reduces per layer per micro-batch, 6 under full recompute
  // (Shoeybi et al. 2019, section 3); over the network when a TP group spans nodes.
  if (c.tp > 1) {
    const double per_layer = c.recompute == Recompute::kFull ? 6.0 : 4.0;
    const double bw = c.tp <= per_node ? link : net;
    r.tp_comm_s = per_layer * layers_here * ga * RingAllReduceBytes(act_bytes, c.tp) / bw;
  }
  // Context parallel: K and V of s / cp tokens per pass, cp - 1 passes; forward 1, backward
  // 2 (K, V and dK, dV), full recompute one forward more.
  if (c.cp > 1) {
    const double kv = 2.0 * c.batch * (c.seq / c.cp) * m.kv_heads * m.head_dim * 2.0;
    const double passes = c.recompute == Recompute::kFull ? 4.0 : 3.0;
    const double bw = c.tp * c.cp <= per_node ? link : net;
    r.cp_comm_s = passes * layers_here * ga * (c.cp - 1) * kv / bw;
  }
  // Expert parallel: dispatch + combine, forward and backward, top-k copies of each token.
  if (c.ep > 1 && m.IsMoe()) {
    const double k = static_cast<double>(std::max<int64_t>(1, m.experts_per_token));
    const double moe_layers = std::max(0.0, layers_here - static_cast<double>(m.dense_layers) / c.pp) /
                              static_cast<double>(std::max<int64_t>(1, m.moe_layer_step));
    const double bw = c.ep * c.tp <= per_node ? link : net;
    r.ep_comm_s = 4.0 * moe_layers * ga * act_bytes * k * (c.ep - 1) / c.ep / bw;
  }
  // Data parallel (ZeRO section 7.1): 2 psi (d-1)/d per step; ZeRO-3 also gathers the
  // parameters in every micro-batch's forward and backward. Ranks are ordered tp, cp, dp
  // (Megatron's default order): the group stays in a node while tp x cp x dp fits one.
  const double psi = static_cast<double>(t.params) / (c.tp * c.pp) / (m.IsMoe() ? c.ep : 1);
  if (c.dp > 1) {
    const double gbytes = BitsPerWeight(c.grad_dtype, c.quant) / 8.0;
    const double pbytes = BitsPerWeight(c.dtype, c.quant) / 8.0;
    double bytes = RingAllReduceBytes(psi * gbytes, c.dp);
    if (c.zero >= 3) bytes += 2.0 * ga * (c.dp - 1) / c.dp * psi * pbytes;
    const double bw = c.tp * c.cp * c.dp <= per_node ? link : net;
    // Overlap: the backward is 2/3 of the 6N compute; ZeRO-3's prefetch hides behind all of it.
    const double hidden = r.compute_s * (c.zero >= 3 ? 1.0 : 2.0 / 3.0);
    r.dp_comm_s = std::max(0.0, bytes / bw - hidden);
  }
  // ZeRO-Offload (Ren et al. 2021, 4.1): 2 psi bytes down (fp16 gradients) and 2 psi up
  // (fp16 parameters) over PCIe for this GPU's shard, and CPU Adam over 16 bytes per
  // parameter read and written, the node's RAM bandwidth shared by its GPUs.
  if (c.offload_optimizer != Offload::kNone) {
    const double shard = c.zero >= 1 ? psi / c.dp : psi;
    const double pcie = 4.0 * shard / (links.pcie_gbps * 1e9);
    const double ram = c.ram_bandwidth_gbps > 0 ? c.ram_bandwidth_gbps * 1e9 / per_node : 0;
    r.offload_s = pcie + (ram > 0 ? 32.0 * shard / ram : 0);
  }
  r.total_s = r.compute_s + r.bubble_s + r.tp_comm_s + r.cp_comm_s + r.ep_comm_s + r.dp_comm_s + r.offload_s;
  return r;
}

}  // namespace llmmem::core

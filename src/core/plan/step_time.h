// The training planner's step time: the speed model's compute time (speed.h EstimateSpeed:
// 6N + 12 L h s FLOPs per token, full recompute one more forward, over every GPU's peak x
// mfu) plus what a parallel layout adds on top of it, each term with its source:
//  - the pipeline bubble, (p - 1) / (v m) of the compute (Narayanan et al. 2021, "Efficient
//    Large-Scale Language Model Training on GPU Clusters", sections 2.2.1 and 2.2.2);
//  - tensor-parallel all-reduces, two in the forward and two in the backward of each layer
//    (Shoeybi et al. 2019, Megatron-LM, section 3), one forward more under full recompute;
//    sequence parallelism moves the same bytes (Korthikanti et al. 2022, section 4.2.2);
//  - data-parallel gradient reduction, 2 psi (d-1)/d per step for DDP and ZeRO-1/2, plus
//    the parameter gathers of ZeRO-3 (Rajbhandari et al. 2020, ZeRO, section 7), overlapped
//    with the backward (ZeRO-3: with forward and backward);
//  - expert-parallel all-to-alls, dispatch and combine in forward and backward (Lepikhin et
//    al. 2020, GShard, section 2.2);
//  - CPU optimizer offload: 16-bit gradients down and parameters up over PCIe, and the CPU
//    Adam reading and writing the fp32 states (Ren et al. 2021, ZeRO-Offload, section 4.1),
//    not overlapped (the one-step delayed update is off by default).
//  - context-parallel ring exchanges: each rank's K and V chunk passes cp - 1 times round
//    the ring in each layer's forward, and K, V and their gradients in the backward (Liu et
//    al. 2023, Ring Attention, section 3), counted as not hidden (an upper bound: Megatron
//    overlaps them with the attention blocks).
// Pipeline point-to-point sends are taken as hidden. The link speeds are assumptions the
// request states (PlanLinks). Standard library only.
#pragma once

#include "core/config/config.h"
#include "core/estimate/estimate.h"

namespace llmmem::core {

// What the step time assumes about the wires, every figure adjustable.
struct PlanLinks {
  // H100 SXM NVLink 4: 900 GB/s total, 450 GB/s each way (NVIDIA H100 datasheet).
  double link_gbps = 450;
  // One 400 Gb/s NIC per GPU (InfiniBand NDR / ConnectX-7) = 50 GB/s, as torchtitan's
  // benchmark hosts (benchmarks/llama3_h100_202412_torchtitan.md: "400 Gb/s per GPU").
  double network_gbps = 50;
  int64_t gpus_per_node = 8;
  double pcie_gbps = 25;  // PCIe 5.0 x16 sustains about 25 of its 64 GB/s each way in practice (an assumption)
};

struct StepTime {
  bool ok = false;
  double compute_s = 0;  // the speed model's step time on these GPUs
  double bubble_s = 0;
  double tp_comm_s = 0;
  double dp_comm_s = 0;  // exposed: what the overlap did not hide
  double ep_comm_s = 0;
  double cp_comm_s = 0;
  double offload_s = 0;
  double total_s = 0;
};

// `step_flops`: SpeedEstimate::step_flops for the configuration's recompute (it does not
// depend on the layout once the global batch is fixed); `peak_flops`: one GPU's, before mfu.
StepTime PlanStepTime(const Config& c, const Totals& t, double step_flops, double peak_flops, const PlanLinks& links);

}  // namespace llmmem::core

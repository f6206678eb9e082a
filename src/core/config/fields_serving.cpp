// The workload's rows of the field table (fields.h), part two: serving runtimes, speed,
// LoRA, overheads and the GPU, in the order JSON, links and --help list them (part one:
// fields_workload.cpp).
#include <algorithm>
#include <string>

#include "core/config/field_rows.h"
#include "core/catalogue/gpus.h"

namespace llmmem::core::field_rows {
namespace {

// "H100-SXM-80GB,RTX-4090-24GB": one catalogue card per GPU; sets pp and the first card.
std::string SetGpuSet(Config& c, const std::string& t) {
  if (t.empty()) {
    c.gpu_set.clear();
    return std::string();
  }
  std::string keys;
  int64_t n = 0;
  size_t at = 0;
  const Gpu* first = nullptr;
  while (at <= t.size()) {
    const size_t comma = std::min(t.find(',', at), t.size());
    const std::string key = t.substr(at, comma - at);
    const Gpu* g = FindGpu(key);
    if (g == nullptr) return "\"" + key + "\" is not in the GPU catalogue (llmmem --list-gpus)";
    if (first == nullptr) first = g;
    keys += (n++ ? "," : "") + g->key;
    at = comma + 1;
  }
  if (n > 64) return std::string("at most 64 GPUs in a set");
  c.gpu_set = keys;
  c.pp = n;
  SelectGpu(c, *first);
  return std::string();
}

std::string SetGpu(Config& c, const std::string& t) {
  if (t == "custom") {  // a card of gpu_memory_gb (the UI's, and its links)
    c.gpu = t;
    return std::string();
  }
  const Gpu* g = FindGpu(t);
  if (g == nullptr)
    return "\"" + t + "\" is not in the GPU catalogue (llmmem --list-gpus); set gpu_memory_gb for another card";
  SelectGpu(c, *g);
  return std::string();
}

// The memory of a unified catalogue card follows its limit, unless it was set apart (a link's
// gpu_memory_gb that is not the card's: ReconcileGpu makes that a custom card).
std::string SetWiredLimit(Config& c, const std::string& t) {
  double v = 0;
  std::string e = ParseNumber(t, v);
  if (!e.empty()) return e;
  const Gpu* g = FindGpu(c.gpu);
  const bool follows = g != nullptr && c.gpu_memory_gb == g->UsableBytes(c.wired_limit_mb) / 1e9;
  c.wired_limit_mb = v;
  if (follows) SelectGpu(c, *g);
  return e;
}

}  // namespace

void AddServingRows(std::vector<FieldDef>& out) {
  using G = FieldGroup;
  const FieldDef rows[] = {
      LLMMEM_INT("prefill_chunk", prefill_chunk, G::kWorkload, "Prefill chunk", "", 0, 16'777'216, 512, 2048,
                 "tokens per prefill forward (chunked prefill, vLLM max_num_batched_tokens); 0: all prompts at once"),
      LLMMEM_INT("max_cache_len", max_cache_len, G::kServing, "Static cache", "tokens", 0, 16'777'216, 1024, 8192,
                 "HF generate: a static KV cache of this many tokens per sequence (cache_implementation=\"static\"); "
                 "0: the dynamic cache"),
      LLMMEM_ENUM("runtime", runtime, G::kServing, "Runtime",
                  "serving runtime, how it allocates memory (hf-generate default): ", "a runtime"),
      LLMMEM_NUM("mem_fraction", mem_fraction, G::kServing, "Memory share", "", 0, 1, 0.01, "%.3f",
                 "vLLM gpu_memory_utilization / SGLang mem_fraction_static (0: the runtime's default)"),
      LLMMEM_INT("max_num_seqs", max_num_seqs, G::kServing, "Max sequences", "", 0, 1'048'576, 8, 64,
                 "vLLM max_num_seqs / SGLang cuda_graph_max_bs (0: the runtime's default)"),
      LLMMEM_BOOL("cuda_graphs", cuda_graphs, G::kServing, "CUDA graphs",
                  "vLLM/SGLang capture CUDA graphs (off: --enforce-eager)"),
      LLMMEM_INT("gpu_layers", gpu_layers, G::kServing, "GPU layers", "", -1, 16'385, 1, 8,
                 "llama.cpp -ngl: layers on the GPU, layers + 1 with the output layer (-1: all)"),
      TextRow(
          "kv_dtype_v", FieldKind::kText, false, G::kServing, "V cache",
          "V cache format (llama.cpp -ctv): auto (as kv_dtype) or a format",
          [](const Config& c) { return std::string(c.kv_dtype_v == Dtype::kCount ? "auto" : Info(c.kv_dtype_v).id); },
          [](Config& c, const std::string& t) {
            Dtype d;
            if (t == "auto")
              c.kv_dtype_v = Dtype::kCount;
            else if (ParseId(t, d))
              c.kv_dtype_v = d;
            else
              return "\"" + t + "\" is not a format; one of: auto, " + IdList<Dtype>();
            return std::string();
          }),
      LLMMEM_NUM("ram_gb", ram_gb, G::kServing, "RAM", "GB", 0, 1'000'000, 8, "%.0f",
                 "system RAM for offloaded weights and KV cache (0: not checked)"),
      TextRow(
          "gpu_set", FieldKind::kText, false, G::kServing, "GPU set",
          "llama.cpp over unlike GPUs: catalogue keys separated by commas, one per GPU (sets pp; layers split by "
          "memory)",
          [](const Config& c) { return c.gpu_set; }, SetGpuSet),
      LLMMEM_NUM("bw_efficiency", bw_efficiency, G::kSpeed, "Bandwidth efficiency", "", 0.01, 1, 0.05, "%.2f",
                 "speed: share of the memory bandwidth a decode step reads at"),
      LLMMEM_NUM("mfu", mfu, G::kSpeed, "MFU", "", 0.01, 1, 0.05, "%.2f",
                 "speed: share of the dense peak the matrix units sustain (model FLOPs utilisation)"),
      LLMMEM_NUM("bandwidth_gbps", bandwidth_gbps, G::kSpeed, "Bandwidth", "GB/s", 0, 1'000'000, 0, "%.0f",
                 "speed: one GPU's memory bandwidth (0: the catalogue's)"),
      LLMMEM_NUM("tflops", tflops, G::kSpeed, "Dense peak", "TFLOPS", 0, 1'000'000, 0, "%.1f",
                 "speed: one GPU's dense peak (0: the catalogue's)"),
      LLMMEM_NUM("ram_bandwidth_gbps", ram_bandwidth_gbps, G::kSpeed, "RAM bandwidth", "GB/s", 0, 100'000, 0, "%.0f",
                 "speed: system RAM bandwidth for llama.cpp's CPU layers"),
      LLMMEM_INT("lora_rank", lora_rank, G::kLora, "Rank", "", 1, 65'536, 8, 64, "LoRA rank r"),
      TextRow(
          "lora_targets", FieldKind::kLoraTargets, false, G::kLora, "Targets", "all, attention, or a list like q,v",
          [](const Config& c) { return LoraTargetsId(c.lora_targets); },
          [](Config& c, const std::string& t) {
            uint32_t bits = 0;
            if (!ParseLoraTargets(t, bits))
              return "\"" + t + "\" is not a target list; use all, attention, or names from q,k,v,o,gate,up,down";
            c.lora_targets = bits;
            return std::string();
          }),
      LLMMEM_BOOL("lora_dropout", lora_dropout, G::kLora, "LoRA dropout", "LoRA dropout"),
      LLMMEM_BOOL("quantized_head", quantized_head, G::kLora, "4-bit output head (litgpt)",
                  "QLoRA quantises the output head too, as litgpt's BitsandbytesPrecision does to every nn.Linear; "
                  "its backward dequantises it (4 B per weight while it runs)"),
      LLMMEM_BOOL("bnb_saves_inputs", bnb_saves_inputs, G::kLora, "4-bit layers keep inputs (bnb <= 0.42)",
                  "QLoRA under bitsandbytes 0.42 and earlier: MatMul4Bit keeps its input for backward (later versions "
                  "keep only the packed weight)"),
      TextRow(
          "adapter_dtype", FieldKind::kText, false, G::kLora, "Adapter format",
          Lasting("LoRA adapters' format: auto (fp32 under HF/PEFT, else the training dtype), " +
                  IdList<Dtype>(" or ", IsPlainFloatRow)),
          [](const Config& c) {
            return std::string(c.adapter_dtype == Dtype::kCount ? "auto" : Info(c.adapter_dtype).id);
          },
          [](Config& c, const std::string& t) {
            Dtype d;
            if (t == "auto")
              c.adapter_dtype = Dtype::kCount;
            else if (ParseId(t, d) && IsPlainFloat(d))
              c.adapter_dtype = d;
            else
              return "\"" + t + "\" is not an adapter format; one of: auto, " + IdList<Dtype>(", ", IsPlainFloatRow);
            return std::string();
          }),
      LLMMEM_NUM("cuda_context_gb", cuda_context_gb, G::kOverheads, "CUDA context", "GB", 0, 100, 0.1, "%.2f",
                 "CUDA context and libraries outside PyTorch's allocator"),
      LLMMEM_NUM(
          "cublas_workspace_mib", cublas_workspace_mib, G::kOverheads, "cuBLAS", "MiB", -1, 4096, 1, "%.3f",
          "cuBLAS workspace per thread that runs matmuls (CUBLAS_WORKSPACE_CONFIG; -1: PyTorch's default for the GPU)"),
      LLMMEM_NUM("fragmentation_pct", fragmentation_pct, G::kOverheads, "Fragmentation", "%", 0, 100, 1, "%.1f",
                 "allocator fragmentation reserve, as a share of the allocated peak"),
      LLMMEM_NUM("comm_buffer_gb", comm_buffer_gb, G::kOverheads, "Comm buffers", "GB", 0, 10'000, 0.1, "%.2f",
                 "communication buffers"),
      LLMMEM_NUM("other_processes_gb", other_processes_gb, G::kGpu, "Used by others", "GB", 0, 100'000, 0.5, "%.2f",
                 "memory other processes already hold on the GPU (a shared card)"),
      LLMMEM_NUM("measured_residual_gb", measured_residual_gb, G::kOverheads, "Measured beyond the model", "GB", 0,
                 100'000, 0.1, "%.2f",
                 "what your run held beyond the estimate (llmmem run FILE --calibrate: measured minus estimated), "
                 "carried as its own line; inside the KV budget for vLLM and SGLang"),
      TextRow(
          "gpu", FieldKind::kText, false, G::kGpu, "GPU",
          "GPU from the catalogue (llmmem --list-gpus); sets gpu_memory_gb", [](const Config& c) { return c.gpu; },
          SetGpu),
      // Issue 28: 100,000 GB "fit an H100" silently. The largest accelerator memory the catalogue
      // knows is 512 GB (presets/gpus.json); 2,048 GB leaves room for cards to come and refuses
      // figures no device has.
      LLMMEM_NUM("gpu_memory_gb", gpu_memory_gb, G::kGpu, "Memory", "GB", 0.001, 2'048, 1, "%.2f",
                 "usable memory of one GPU (no device has more than 2,048 GB)"),
      // Issue 31: a unified card's memory is the share the OS lets the GPU use; this gives the
      // raised limit, in the sysctl's own MiB (2,097,152 MiB: the 2,048 GB bound above).
      FieldDef{"wired_limit_mb", FieldKind::kNumber, false, G::kGpu, "GPU limit", "MiB",
               "unified memory: the GPU's raised limit, as sudo sysctl iogpu.wired_limit_mb=N sets it on a Mac "
               "(Strix Halo: the BIOS carve-out plus amdgpu.gttsize); 0: the OS's default share",
               0, 2'097'152, 1024, 0, "%.0f", [](const Config& c) { return NumText(c.wired_limit_mb); },
               SetWiredLimit, [](const Config& c) { return c.wired_limit_mb; }, nullptr, &Config::wired_limit_mb},
  };
  out.insert(out.end(), std::begin(rows), std::end(rows));
}

}  // namespace llmmem::core::field_rows

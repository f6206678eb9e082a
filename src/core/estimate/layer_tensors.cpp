// One layer's saved tensors, collected once for every reader (activation_rows.h, LayerTensorList):
// the eager-PyTorch rows of the HF profiles (activations_hf.h) or the paper's itemised list
// (activations_paper.h, Korthikanti et al. 2022) for Megatron.
#include "core/estimate/account_activations.h"

namespace llmmem::core {

LayerTensorList CollectLayerTensors(const Derived& d, bool keep_scores) {
  LayerTensorList list;
  auto add = [&list](const LayerTensor& t) { list.Add(t); };
  if (IsHuggingFace(d.c.framework))
    ForEachHfLayerTensor(d, keep_scores, add);
  else
    ForEachPaperLayerTensor(d, keep_scores, add);
  return list;
}

}  // namespace llmmem::core

// A pasted print(model): PyTorch's module repr (nn.Module.__repr__) parsed into a layer
// stack. Parameters are exact for the layer types the stack knows (Conv*, Linear,
// BatchNorm, LayerNorm, GroupNorm, Embedding, MultiheadAttention); activations follow the
// printed order, which is the forward order for nn.Sequential. For other containers the
// repr cannot tell the graph (residual branches, torch.cat, functional calls): torchvision's
// blocks (BasicBlock, Bottleneck, InvertedResidual, MBConv, SqueezeExcitation, DenseNet's
// layers, CNBlock, ViT's EncoderBlock, Swin's blocks) are rebuilt from what their forward
// does, and every other container is taken in printed order with a note saying so.
// Pure and bounded: 4 MiB of text, 64 levels, 20000 modules.
#pragma once

#include <cstddef>
#include <string>

#include "core/base/diagnostics.h"
#include "core/network/layer_stack.h"

namespace llmmem::core {

struct TorchReprParse {
  bool ok = false;
  NetworkSpec spec;         // no input: the repr does not say it (the caller sets it)
  Diagnostics diagnostics;  // errors; warnings and kInfo notes on what the repr cannot tell
  bool graph_exact = true;  // false when a container's forward had to be guessed
};

constexpr size_t kTorchReprMaxBytes = 4u << 20;  // print(model) of the largest torchvision model is ~100 KB

TorchReprParse ParseTorchRepr(const std::string& text);

}  // namespace llmmem::core

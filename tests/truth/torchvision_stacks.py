#!/usr/bin/python3
"""torchvision models as llmmem layer stacks (the JSON network format of
src/core/network/network_json.h), written once into presets/networks/ and used by
measure_cnn.py to tell the C++ estimator exactly which network was measured.

    /usr/bin/python3 tests/truth/torchvision_stacks.py --write presets/networks   # all presets
    /usr/bin/python3 tests/truth/torchvision_stacks.py --print resnet18           # one stack to stdout

Each module is converted by what its forward does (read from torchvision 0.14's source):
a residual block becomes {"type": "add", "branches": [main, shortcut]} (an empty branch is
the identity), DenseNet's torch.cat(features) a "concat" block per dense layer (x_{i+1} =
cat(x_i, f(x_i)) keeps the same tensors as torchvision's concatenation of all previous
features), squeeze-and-excitation a "mul" block (scale * input). Functional steps in a
forward (torch.flatten, F.relu, F.interpolate, ViT's class token) become layers named after
the module whose forward runs them. The parameter count of the torchvision model is written
beside the stack: the C++ tests require the stack to count exactly that many.
"""

import argparse
import json
import os
import sys

import torch.nn as nn
import torchvision
import torchvision.models as tvm
import torchvision.models.segmentation as tvs

# ----------------------------------------------------------------------------- presets

# key -> (builder, display name, family, task, default input (C, H, W), note)
PRESETS = {
    "resnet18": ("resnet18", "ResNet-18", "ResNet", "classification", 224, ""),
    "resnet34": ("resnet34", "ResNet-34", "ResNet", "classification", 224, ""),
    "resnet50": ("resnet50", "ResNet-50", "ResNet", "classification", 224, ""),
    "resnet101": ("resnet101", "ResNet-101", "ResNet", "classification", 224, ""),
    "resnet152": ("resnet152", "ResNet-152", "ResNet", "classification", 224, ""),
    "vgg16": ("vgg16", "VGG-16", "VGG", "classification", 224, ""),
    "vgg16_bn": ("vgg16_bn", "VGG-16-BN", "VGG", "classification", 224, ""),
    "mobilenet_v2": ("mobilenet_v2", "MobileNetV2", "MobileNet", "classification", 224, ""),
    "mobilenet_v3_large": ("mobilenet_v3_large", "MobileNetV3-Large", "MobileNet", "classification", 224, ""),
    "mobilenet_v3_small": ("mobilenet_v3_small", "MobileNetV3-Small", "MobileNet", "classification", 224, ""),
    "efficientnet_b0": ("efficientnet_b0", "EfficientNet-B0", "EfficientNet", "classification", 224, ""),
    "efficientnet_b4": ("efficientnet_b4", "EfficientNet-B4", "EfficientNet", "classification", 380, ""),
    "densenet121": ("densenet121", "DenseNet-121", "DenseNet", "classification", 224, ""),
    "convnext_tiny": ("convnext_tiny", "ConvNeXt-T", "ConvNeXt", "classification", 224, ""),
    "vit_b_16": ("vit_b_16", "ViT-B/16", "ViT", "classification", 224,
                 "the image size is part of the model (position embeddings): 224 unless rebuilt"),
    "swin_t": ("swin_t", "Swin-T", "Swin", "classification", 224, ""),
    "fcn_resnet50": ("fcn_resnet50", "FCN-ResNet50 (segmentation)", "Segmentation", "segmentation", 520,
                     "without the auxiliary classifier"),
    "deeplabv3_resnet50": ("deeplabv3_resnet50", "DeepLabV3-ResNet50 (segmentation)", "Segmentation",
                           "segmentation", 520, "without the auxiliary classifier"),
    "lraspp_mobilenet_v3_large": ("lraspp_mobilenet_v3_large", "LR-ASPP MobileNetV3-Large (segmentation)",
                                  "Segmentation", "segmentation", 520, ""),
    "fasterrcnn_resnet50_fpn": ("fasterrcnn_resnet50_fpn", "Faster R-CNN ResNet-50-FPN backbone (detection)",
                                "Detection", "backbone", 800,
                                "the backbone as fasterrcnn_resnet50_fpn builds it to fine-tune pretrained weights: "
                                "FrozenBatchNorm2d, conv1 and layer1 frozen (trainable_backbone_layers=3), the FPN's "
                                "five outputs; the RPN and ROI heads are not included"),
}


def build(name, c=None):
    """(torch module, stack dict) for a torchvision model name; c: the measurement case
    (its input size matters to ViT, whose position embedding is sized by the image)."""
    size = c["input"][1] if c else None
    if name == "fasterrcnn_resnet50_fpn":
        # what the builder does when weights are given (no download: the same modules)
        from torchvision.models.detection.backbone_utils import _resnet_fpn_extractor
        from torchvision.ops import misc
        m = _resnet_fpn_extractor(tvm.resnet50(weights=None, norm_layer=misc.FrozenBatchNorm2d), 3)
    elif hasattr(tvm, name) and not hasattr(tvs, name):
        kw = {}
        if name.startswith("vit") and size:
            kw["image_size"] = size
        if c and c.get("classes", 1000) != 1000:
            kw["num_classes"] = c["classes"]
        m = getattr(tvm, name)(weights=None, **kw)
    elif hasattr(tvs, name):
        kw = {"weights": None, "weights_backbone": None}
        if name.startswith("lraspp"):
            pass
        else:
            kw["aux_loss"] = False
        if c and c.get("classes"):
            kw["num_classes"] = c["classes"]
        m = getattr(tvs, name)(**kw)
    else:
        raise KeyError(name)
    return m, convert_model(m, name)


# ----------------------------------------------------------------------------- helpers

def pair(v):
    if isinstance(v, (tuple, list)):
        return [int(x) for x in v] if len(set(v)) > 1 else int(v[0])
    return int(v)


def trainable(m):
    ps = list(m.parameters(recurse=False))
    return not ps or any(p.requires_grad for p in ps)


def named(d, name, m=None):
    if name:
        d["name"] = name
    if m is not None and not trainable(m):
        d["trainable"] = False
    return d


def conv(m, name):
    kind = {nn.Conv1d: "conv1d", nn.Conv2d: "conv2d", nn.ConvTranspose2d: "conv_transpose2d"}[type(m)]
    d = {"type": kind, "in": m.in_channels, "out": m.out_channels, "kernel": pair(m.kernel_size)}
    if pair(m.stride) != 1:
        d["stride"] = pair(m.stride)
    if isinstance(m.padding, str):
        d["padding"] = m.padding
    elif pair(m.padding) != 0:
        d["padding"] = pair(m.padding)
    if pair(m.dilation) != 1:
        d["dilation"] = pair(m.dilation)
    if m.groups != 1:
        d["groups"] = m.groups
    if m.bias is None:
        d["bias"] = False
    if kind == "conv_transpose2d" and pair(m.output_padding) != 0:
        d["output_padding"] = pair(m.output_padding)
    return named(d, name, m)


ACTS = {nn.ReLU: "relu", nn.ReLU6: "relu6", nn.GELU: "gelu", nn.SiLU: "silu", nn.Sigmoid: "sigmoid",
        nn.Tanh: "tanh", nn.Hardswish: "hardswish", nn.Hardsigmoid: "hardsigmoid", nn.LeakyReLU: "leaky_relu"}


def leaf(m, name):
    t = type(m)
    if t in (nn.Conv1d, nn.Conv2d, nn.ConvTranspose2d):
        return [conv(m, name)]
    if t is nn.Linear:
        d = {"type": "linear", "in": m.in_features, "out": m.out_features}
        if m.bias is None:
            d["bias"] = False
        return [named(d, name, m)]
    if t in (nn.BatchNorm1d, nn.BatchNorm2d):
        d = {"type": "batchnorm", "in": m.num_features}
        if not m.affine:
            d["affine"] = False
        return [named(d, name, m)]
    if t.__name__ == "FrozenBatchNorm2d":
        return [named({"type": "frozen_batchnorm", "in": m.weight.shape[0]}, name)]
    if t is nn.LayerNorm:
        d = {"type": "layernorm", "in": int(m.normalized_shape[-1])}
        if not m.elementwise_affine:
            d["affine"] = False
        return [named(d, name, m)]
    if t is nn.GroupNorm:
        return [named({"type": "groupnorm", "groups": m.num_groups, "in": m.num_channels}, name, m)]
    if t in ACTS:
        d = {"type": ACTS[t]}
        if getattr(m, "inplace", False):
            d["inplace"] = True
        if t is nn.GELU and m.approximate != "none":
            d["approximate"] = m.approximate
        return [named(d, name)]
    if t is nn.MaxPool2d:
        d = {"type": "maxpool2d", "kernel": pair(m.kernel_size), "stride": pair(m.stride)}
        if pair(m.padding) != 0:
            d["padding"] = pair(m.padding)
        if pair(m.dilation) != 1:
            d["dilation"] = pair(m.dilation)
        if m.ceil_mode:
            d["ceil_mode"] = True
        return [named(d, name)]
    if t is nn.AvgPool2d:
        d = {"type": "avgpool2d", "kernel": pair(m.kernel_size), "stride": pair(m.stride)}
        if pair(m.padding) != 0:
            d["padding"] = pair(m.padding)
        if m.ceil_mode:
            d["ceil_mode"] = True
        return [named(d, name)]
    if t is nn.AdaptiveAvgPool2d:
        return [named({"type": "adaptive_avgpool2d", "size": pair(m.output_size)}, name)]
    if t is nn.AdaptiveMaxPool2d:
        return [named({"type": "adaptive_maxpool2d", "size": pair(m.output_size)}, name)]
    if t is nn.Dropout:
        return [named({"type": "dropout", "p": m.p}, name)] if m.p > 0 else []
    if t is nn.Flatten:
        d = {"type": "flatten"}
        if m.start_dim != 1:
            d["start_dim"] = m.start_dim
        if m.end_dim != -1:
            d["end_dim"] = m.end_dim
        return [named(d, name)]
    if t is nn.Identity:
        return []
    if t.__name__ == "Permute":
        return [named({"type": "permute", "dims": list(m.dims)}, name)]
    if t.__name__ == "StochasticDepth":
        if m.p == 0:
            return []
        d = {"type": "stochastic_depth", "p": round(m.p, 6)}
        if m.mode != "row":
            d["mode"] = m.mode
        return [named(d, name)]
    return None


def seq(m, prefix):
    out = []
    for n, ch in m.named_children():
        out += convert(ch, f"{prefix}.{n}" if prefix else n)
    return out


def join(prefix, n):
    return f"{prefix}.{n}" if prefix else n


# ----------------------------------------------------------------------------- blocks

def convert(m, name):
    got = leaf(m, name)
    if got is not None:
        return got
    cls = type(m).__name__
    if cls in ("BasicBlock", "Bottleneck"):
        main = convert(m.conv1, join(name, "conv1")) + convert(m.bn1, join(name, "bn1")) + \
            convert(m.relu, join(name, "relu")) + convert(m.conv2, join(name, "conv2")) + convert(m.bn2, join(name, "bn2"))
        if cls == "Bottleneck":
            main += convert(m.relu, join(name, "relu")) + convert(m.conv3, join(name, "conv3")) + \
                convert(m.bn3, join(name, "bn3"))
        short = convert(m.downsample, join(name, "downsample")) if m.downsample is not None else []
        return [{"type": "add", "name": name, "inplace": True, "branches": [main, short]}] + \
            convert(m.relu, join(name, "relu"))
    if cls == "InvertedResidual" and hasattr(m, "conv"):  # MobileNetV2: x + self.conv(x)
        body = seq(m.conv, join(name, "conv"))
        return [{"type": "add", "name": name, "branches": [body, []]}] if m.use_res_connect else body
    if cls == "InvertedResidual":  # MobileNetV3: result += input
        body = seq(m.block, join(name, "block"))
        return [{"type": "add", "name": name, "inplace": True, "branches": [body, []]}] if m.use_res_connect else body
    if cls in ("MBConv", "FusedMBConv"):
        body = seq(m.block, join(name, "block"))
        if not m.use_res_connect:
            return body
        body += convert(m.stochastic_depth, join(name, "stochastic_depth"))
        return [{"type": "add", "name": name, "inplace": True, "branches": [body, []]}]
    if cls == "SqueezeExcitation":
        gate = []
        for n in ("avgpool", "fc1", "activation", "fc2", "scale_activation"):
            gate += convert(getattr(m, n), join(name, n))
        return [{"type": "mul", "name": name, "branches": [[], gate]}]
    if cls == "_DenseBlock":
        out = []
        for n, layer in m.named_children():
            ln = join(name, n)
            body = []
            for part in ("norm1", "relu1", "conv1", "norm2", "relu2", "conv2"):
                body += convert(getattr(layer, part), join(ln, part))
            if layer.drop_rate > 0:
                body.append({"type": "dropout", "p": layer.drop_rate, "name": join(ln, "dropout")})
            out.append({"type": "concat", "name": ln, "branches": [[], body]})
        return out
    if cls == "CNBlock":
        body = seq(m.block, join(name, "block"))
        body.append(named({"type": "layer_scale", "in": int(m.layer_scale.shape[0])}, join(name, "layer_scale")))
        body += convert(m.stochastic_depth, join(name, "stochastic_depth"))
        return [{"type": "add", "name": name, "inplace": True, "branches": [body, []]}]
    if cls == "LayerNorm2d":
        return [{"type": "permute", "dims": [0, 2, 3, 1], "name": join(name, "permute")},
                named({"type": "layernorm", "in": int(m.normalized_shape[-1])}, name, m),
                {"type": "permute", "dims": [0, 3, 1, 2], "name": join(name, "permute_back")}]
    if cls == "EncoderBlock":  # ViT
        att = m.self_attention
        a = {"type": "attention", "in": att.embed_dim, "heads": att.num_heads, "name": join(name, "self_attention")}
        if att.dropout > 0:
            a["p"] = att.dropout
        if att.in_proj_bias is None:
            a["bias"] = False
        first = convert(m.ln_1, join(name, "ln_1")) + [a] + convert(m.dropout, join(name, "dropout"))
        second = convert(m.ln_2, join(name, "ln_2")) + seq(m.mlp, join(name, "mlp"))
        return [{"type": "add", "name": join(name, "attention_residual"), "branches": [first, []]},
                {"type": "add", "name": join(name, "mlp_residual"), "branches": [second, []]}]
    if cls == "SwinTransformerBlock":
        a = m.attn
        att = {"type": "window_attention", "in": a.qkv.in_features, "heads": a.num_heads,
               "window": pair(a.window_size), "shift": pair(a.shift_size), "name": join(name, "attn")}
        if a.qkv.bias is None:
            att["bias"] = False
        if a.attention_dropout > 0:
            att["p"] = a.attention_dropout
        sd = convert(m.stochastic_depth, join(name, "stochastic_depth"))
        first = convert(m.norm1, join(name, "norm1")) + [att]
        if a.dropout > 0:
            first.append({"type": "dropout", "p": a.dropout, "name": join(name, "attn.dropout")})
        first += sd
        second = convert(m.norm2, join(name, "norm2")) + seq(m.mlp, join(name, "mlp")) + sd
        return [{"type": "add", "name": join(name, "attention_residual"), "branches": [first, []]},
                {"type": "add", "name": join(name, "mlp_residual"), "branches": [second, []]}]
    if cls == "PatchMerging":
        return [{"type": "patch_merging", "name": name}] + convert(m.norm, join(name, "norm")) + \
            convert(m.reduction, join(name, "reduction"))
    if cls == "ASPPPooling":
        return seq(m, name) + [{"type": "upsample", "match": "block", "mode": "bilinear", "name": join(name, "interpolate")}]
    if cls == "ASPP":
        branches = [convert(ch, join(name, f"convs.{i}")) for i, ch in enumerate(m.convs)]
        return [{"type": "concat", "name": join(name, "cat"), "branches": branches}] + seq(m.project, join(name, "project"))
    if isinstance(m, (nn.Sequential, nn.ModuleList)) or cls in ("MLP", "MLPBlock", "Conv2dNormActivation",
                                                                 "ConvNormActivation", "ASPPConv", "DeepLabHead",
                                                                 "FCNHead", "_Transition", "IntermediateLayerGetter"):
        return seq(m, name)
    raise NotImplementedError(f"{name}: {cls}")


def convert_model(m, key):
    cls = type(m).__name__
    L = []
    if cls == "ResNet":
        for n in ("conv1", "bn1", "relu", "maxpool", "layer1", "layer2", "layer3", "layer4", "avgpool"):
            L += convert(getattr(m, n), n)
        L += [{"type": "flatten", "name": "flatten"}] + convert(m.fc, "fc")
    elif cls == "VGG":
        L += seq(m.features, "features") + convert(m.avgpool, "avgpool") + [{"type": "flatten", "name": "flatten"}]
        L += seq(m.classifier, "classifier")
    elif cls == "MobileNetV2":
        L += seq(m.features, "features") + [{"type": "adaptive_avgpool2d", "size": 1, "name": "avgpool"},
                                            {"type": "flatten", "name": "flatten"}] + seq(m.classifier, "classifier")
    elif cls in ("MobileNetV3", "EfficientNet"):
        L += seq(m.features, "features") + convert(m.avgpool, "avgpool") + [{"type": "flatten", "name": "flatten"}]
        L += seq(m.classifier, "classifier")
    elif cls == "DenseNet":
        L += seq(m.features, "features") + [{"type": "relu", "inplace": True, "name": "relu"},
                                            {"type": "adaptive_avgpool2d", "size": 1, "name": "avgpool"},
                                            {"type": "flatten", "name": "flatten"}] + convert(m.classifier, "classifier")
    elif cls == "ConvNeXt":
        L += seq(m.features, "features") + convert(m.avgpool, "avgpool") + seq(m.classifier, "classifier")
    elif cls == "VisionTransformer":
        L += convert(m.conv_proj, "conv_proj")
        L += [{"type": "flatten", "start_dim": 2, "name": "reshape"},
              {"type": "permute", "dims": [0, 2, 1], "name": "permute"},
              {"type": "class_token", "in": m.hidden_dim, "name": "class_token"},
              {"type": "position_embedding", "in": m.hidden_dim, "name": "encoder.pos_embedding"}]
        L += convert(m.encoder.dropout, "encoder.dropout")
        L += seq(m.encoder.layers, "encoder.layers") + convert(m.encoder.ln, "encoder.ln")
        L += [{"type": "select_token", "name": "class_token_out"}] + seq(m.heads, "heads")
    elif cls == "SwinTransformer":
        L += seq(m.features, "features") + convert(m.norm, "norm") + convert(m.permute, "permute")
        L += convert(m.avgpool, "avgpool") + convert(m.flatten, "flatten") + convert(m.head, "head")
    elif cls in ("FCN", "DeepLabV3"):
        L += seq(m.backbone, "backbone") + seq(m.classifier, "classifier")
        L += [{"type": "upsample", "match": "input", "mode": "bilinear", "name": "interpolate"}]
    elif cls == "BackboneWithFPN":
        body = dict(m.body.named_children())
        fpn = m.fpn
        for n in ("conv1", "bn1", "relu", "maxpool", "layer1"):
            L += convert(body[n], "body." + n)
        stages = [k for k in ("layer1", "layer2", "layer3", "layer4") if k in m.body.return_layers]
        top = len(stages) - 1
        pool = type(fpn.extra_blocks).__name__ == "LastLevelMaxPool"

        def out_block(i):  # P_i from last_inner_i; the top one also gives the max-pooled level
            out = convert(fpn.layer_blocks[i], f"fpn.layer_blocks.{i}")
            if i == top and pool:
                out.append({"type": "tap", "name": "fpn.extra_blocks", "branches": [
                    [{"type": "maxpool2d", "kernel": 1, "stride": 2, "name": "fpn.extra_blocks.pool"}]]})
            return out

        def level(i):  # from C_i to last_inner_i (the levels above inside, their outputs tapped)
            lateral = convert(fpn.inner_blocks[i], f"fpn.inner_blocks.{i}")
            if i == top:
                return lateral
            up = convert(body[stages[i + 1]], "body." + stages[i + 1]) + level(i + 1)
            up.append({"type": "tap", "name": f"fpn.output{i + 1}", "branches": [out_block(i + 1)]})
            up.append({"type": "upsample", "match": "block", "name": f"fpn.top_down{i}"})
            return [{"type": "add", "name": f"fpn.inner{i}", "branches": [lateral, up]}]

        L += level(0) + out_block(0)
    elif cls == "LRASPP":
        feats = list(m.backbone.named_children())
        low_name = [k for k, v in m.backbone.return_layers.items() if v == "low"][0]
        high_name = [k for k, v in m.backbone.return_layers.items() if v == "high"][0]
        i_low = [n for n, _ in feats].index(low_name)
        i_high = [n for n, _ in feats].index(high_name)
        for n, ch in feats[:i_low + 1]:
            L += convert(ch, f"backbone.{n}")
        high = []
        for n, ch in feats[i_low + 1:i_high + 1]:
            high += convert(ch, f"backbone.{n}")
        h = m.classifier
        high += [{"type": "mul", "name": "classifier.cbr_x_scale",
                  "branches": [seq(h.cbr, "classifier.cbr"), seq(h.scale, "classifier.scale")]},
                 {"type": "upsample", "match": "block", "mode": "bilinear", "name": "classifier.interpolate"}]
        high += convert(h.high_classifier, "classifier.high_classifier")
        L += [{"type": "add", "name": "classifier", "branches": [convert(h.low_classifier, "classifier.low_classifier"), high]}]
        L += [{"type": "upsample", "match": "input", "mode": "bilinear", "name": "interpolate"}]
    else:
        raise NotImplementedError(cls)
    return {"layers": L}


def check_preset(name, stack):
    """The preset key whose committed file holds exactly this stack (measure_cnn.py records it)."""
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(os.path.dirname(os.path.dirname(here)), "presets", "networks", name + ".json")
    with open(path) as fh:
        committed = json.load(fh)
    if committed["layers"] != stack["layers"]:
        raise SystemExit(f"{path} is not the stack of torchvision's {name}: regenerate it with --write")
    return name


def count_params(m):
    return sum(p.numel() for p in {id(p): p for p in m.parameters()}.values())


def preset_json(key):
    builder, display, family, task, size, note = PRESETS[key]
    c = {"input": [3, size, size]}
    m, stack = build(builder, c)
    doc = {
        "key": key,
        "name": display,
        "family": family,
        "task": task,
        "input": [3, size, size],
        "params": count_params(m),
        "params_source": f"torchvision {torchvision.__version__.split('+')[0]} " +
                         ("models.detection.backbone_utils._resnet_fpn_extractor(resnet50(norm_layer="
                          "FrozenBatchNorm2d), 3), as fasterrcnn_resnet50_fpn builds its backbone with weights"
                          if key == "fasterrcnn_resnet50_fpn" else f"models.{builder}(weights=None)") +
                         ": sum of p.numel() over model.parameters()",
        "generated_by": "tests/truth/torchvision_stacks.py",
    }
    if note:
        doc["note"] = note
    doc["layers"] = stack["layers"]
    return doc


def dumps_compact(doc):
    """One layer per line: small files that still diff well."""
    head = {k: v for k, v in doc.items() if k != "layers"}
    lines = ["{"]
    for k, v in head.items():
        lines.append(f" {json.dumps(k)}: {json.dumps(v)},")
    lines.append(' "layers": [')

    def emit(layers, indent):
        for i, d in enumerate(layers):
            comma = "," if i + 1 < len(layers) else ""
            if "branches" in d:
                head = {k: v for k, v in d.items() if k != "branches"}
                s = json.dumps(head)[:-1] + ', "branches": ['
                lines.append(" " * indent + s)
                for j, br in enumerate(d["branches"]):
                    bcomma = "," if j + 1 < len(d["branches"]) else ""
                    if not br:
                        lines.append(" " * (indent + 1) + "[]" + bcomma)
                        continue
                    lines.append(" " * (indent + 1) + "[")
                    emit(br, indent + 2)
                    lines.append(" " * (indent + 1) + "]" + bcomma)
                lines.append(" " * indent + "]}" + comma)
            else:
                lines.append(" " * indent + json.dumps(d) + comma)
    emit(doc["layers"], 2)
    lines.append(" ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


# print(model) of these presets is what tests/test_torch_repr.cpp parses back.
REPR_SAMPLES = ("resnet18", "resnet50", "vgg16_bn", "mobilenet_v2", "mobilenet_v3_large", "efficientnet_b0",
                "densenet121", "convnext_tiny", "vit_b_16", "swin_t", "deeplabv3_resnet50")


def repr_samples():
    out = {"generated_by": "tests/truth/torchvision_stacks.py --reprs",
           "torchvision": torchvision.__version__.split("+")[0], "samples": {}}
    for key in REPR_SAMPLES:
        m, _ = build(PRESETS[key][0])
        out["samples"][key] = {"repr": repr(m), "params": count_params(m)}
    seq = nn.Sequential(nn.Conv2d(1, 8, 3), nn.ReLU(inplace=True), nn.MaxPool2d(2), nn.Flatten(),
                        nn.Linear(8 * 13 * 13, 10))
    out["samples"]["sequential_mnist"] = {"repr": repr(seq), "params": count_params(seq), "input": [1, 28, 28]}
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reprs", help="write print(model) of a few presets to this JSON file")
    ap.add_argument("--write", help="folder for one JSON per preset")
    ap.add_argument("--print", dest="show", help="print one preset's JSON")
    args = ap.parse_args()
    if args.reprs:
        with open(args.reprs, "w") as fh:
            json.dump(repr_samples(), fh, indent=1)
            fh.write("\n")
        return 0
    if args.show:
        sys.stdout.write(dumps_compact(preset_json(args.show)))
        return 0
    if args.write:
        os.makedirs(args.write, exist_ok=True)
        for key in PRESETS:
            doc = preset_json(key)
            with open(os.path.join(args.write, key + ".json"), "w") as fh:
                fh.write(dumps_compact(doc))
            print(f"{key}: {doc['params']} parameters")
        return 0
    ap.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())


# ----------------------------------------------------------------------------- JSON stacks in PyTorch

class _AnyBatchNorm(nn.modules.batchnorm._BatchNorm):
    """BatchNorm1d or 2d by the input's rank (they run the same native_batch_norm)."""

    def _check_input_dim(self, input):
        pass


class StackModule(nn.Module):
    """Runs a layer-stack JSON (the format above) as a PyTorch module, so that custom stacks
    are measured as the C++ estimator reads them. Branches of a block run from the block's
    input; add (in place when "inplace"), concat and mul combine them."""

    def __init__(self, layers, input_shape):
        super().__init__()
        self.input_shape = list(input_shape)
        self.mods = nn.ModuleList()
        self.plan = self._build(layers)

    def _build(self, layers):
        import torch
        plan = []
        for d in layers:
            t = d["type"]
            if t in ("add", "concat", "mul", "tap"):
                plan.append((t, d, [self._build(b) for b in d["branches"]]))
                continue
            m = self._module(d)
            if m is not None:
                self.mods.append(m)
                plan.append(("mod", d, m))
            else:
                plan.append(("fn", d, None))
        return plan

    @staticmethod
    def _module(d):
        import torch
        t = d["type"]
        k = lambda key, default: tuple(d[key]) if isinstance(d.get(key), list) else d.get(key, default)
        if t in ("conv1d", "conv2d", "conv_transpose2d"):
            cls = {"conv1d": nn.Conv1d, "conv2d": nn.Conv2d, "conv_transpose2d": nn.ConvTranspose2d}[t]
            kw = dict(stride=k("stride", 1), padding=k("padding", 0), dilation=k("dilation", 1),
                      groups=d.get("groups", 1), bias=d.get("bias", True))
            if t == "conv_transpose2d":
                kw["output_padding"] = k("output_padding", 0)
            return cls(d["in"], d["out"], k("kernel", 1), **kw)
        if t == "linear":
            return nn.Linear(d["in"], d["out"], bias=d.get("bias", True))
        if t == "embedding":
            return nn.Embedding(d["vocab"], d["out"])
        if t == "batchnorm":
            return _AnyBatchNorm(d["in"], affine=d.get("affine", True))
        if t == "layernorm":
            return nn.LayerNorm(d["in"], elementwise_affine=d.get("affine", True))
        if t == "groupnorm":
            return nn.GroupNorm(d["groups"], d["in"])
        acts = {v: kk for kk, v in ACTS.items()}
        if t in acts:
            return acts[t](inplace=True) if d.get("inplace") else acts[t]()
        if t == "maxpool2d":
            return nn.MaxPool2d(k("kernel", 1), k("stride", None), k("padding", 0), k("dilation", 1),
                                ceil_mode=d.get("ceil_mode", False))
        if t == "avgpool2d":
            return nn.AvgPool2d(k("kernel", 1), k("stride", None), k("padding", 0), ceil_mode=d.get("ceil_mode", False))
        if t == "adaptive_avgpool2d":
            return nn.AdaptiveAvgPool2d(k("size", 1))
        if t == "adaptive_maxpool2d":
            return nn.AdaptiveMaxPool2d(k("size", 1))
        if t == "dropout":
            return nn.Dropout(d["p"])
        if t == "stochastic_depth":
            from torchvision.ops import StochasticDepth
            return StochasticDepth(d["p"], d.get("mode", "row"))
        if t == "flatten":
            return nn.Flatten(d.get("start_dim", 1), d.get("end_dim", -1))
        if t == "layer_scale":
            m = nn.Module()
            m.gamma = nn.Parameter(torch.ones(d["in"], 1, 1))
            return m
        if t == "attention":
            return nn.MultiheadAttention(d["in"], d["heads"], dropout=d.get("p", 0.0), bias=d.get("bias", True),
                                         batch_first=True)
        return None

    def _run(self, plan, x, block_in):
        import torch
        import torch.nn.functional as F
        for kind, d, m in plan:
            t = d["type"]
            if kind == "tap":
                self.taps.append(self._run(m[0], x, x))
                continue
            if kind in ("add", "concat", "mul"):
                outs = [self._run(b, x, x) for b in m]
                if t == "add":
                    if d.get("inplace"):
                        y = outs[0]
                        for o in outs[1:]:
                            y += o
                    else:
                        y = outs[0]
                        for o in outs[1:]:
                            y = y + o
                elif t == "mul":
                    y = outs[0]
                    for o in outs[1:]:
                        y = y * o
                else:
                    y = torch.cat(outs, d.get("dim", 1))
                x = y
            elif kind == "mod":
                if t == "layer_scale":
                    x = m.gamma * x
                elif t == "attention":
                    x = m(x, x, x, need_weights=False)[0]
                else:
                    x = m(x)
            else:
                if t == "permute":
                    x = x.permute(*d["dims"])
                elif t == "upsample":
                    if d.get("match") == "input":
                        size = self.input_shape[1:]
                    elif d.get("match") == "block":
                        size = list(block_in.shape[2:])
                    elif "size" in d:
                        s = d["size"]
                        size = s if isinstance(s, list) else [s, s]
                    else:
                        size = None
                    mode = d.get("mode", "nearest")
                    x = F.interpolate(x, size=size, scale_factor=None if size else d["scale"], mode=mode,
                                      **({"align_corners": False} if mode == "bilinear" else {}))
                elif t == "select_token":
                    x = x[:, 0]
                elif t == "identity":
                    pass
                else:
                    raise NotImplementedError(t)
        return x

    def forward(self, x):
        self.taps = []
        out = self._run(self.plan, x, x)
        return out if not self.taps else {"out": out, **{f"tap{i}": t for i, t in enumerate(self.taps)}}

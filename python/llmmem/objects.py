"""A configuration read from the live objects of a run, by duck typing (no import of
transformers or peft): the model (its `config`, a PretrainedConfig, read by the core's
config.json importer; its parameters' dtype), TrainingArguments (read by the core's
TrainingArguments importer, as `llmmem --from training_args.json`), a PEFT LoraConfig and the
torch optimizer.

The answer is a sparse configuration: only the fields something set, so that everything else
follows the defaults of the program and mode it ends with, as for any other door. Its `notes`
list says where each value came from, and names what was read but not counted: nothing that
is not understood changes the result.
"""
import functools
import json
import os

from . import _core


class Config(dict):
    """A configuration (a plain dict, json.dumps-able) with `notes`: one dict per reading,
    {"field", "value", "from", "note"}; field is None for what was read and changed nothing."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.notes = []
        self.live_parameters = None  # the live model's own count, when a model was read

    def set(self, field, value, source, note=""):
        self[field] = value
        self.notes.append({"field": field, "value": value, "from": source, "note": note})

    def note(self, source, note):
        self.notes.append({"field": None, "value": None, "from": source, "note": note})

    def describe(self):
        """The notes as lines: "batch = 4   <- TrainingArguments.per_device_train_batch_size"."""
        lines = []
        for n in self.notes:
            if n["field"] is None:
                lines.append("  - %s: %s" % (n["from"], n["note"]))
            else:
                value = "<%d model fields>" % len(n["value"]) if isinstance(n["value"], dict) else n["value"]
                lines.append("  %s = %s   <- %s%s" % (n["field"], value, n["from"], ": " + n["note"] if n["note"] else ""))
        return "\n".join(lines)


def _as_dict(obj):
    """An object's settings as a dict: to_dict() (PretrainedConfig, TrainingArguments,
    PeftConfig all have it), else its attributes."""
    if isinstance(obj, dict):
        return dict(obj)
    to_dict = getattr(obj, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    return {k: v for k, v in vars(obj).items() if not k.startswith("_")}


def _json_value(v):
    """Enums (IntervalStrategy, OptimizerNames) as their value, sets as lists, the rest as str."""
    if hasattr(v, "value") and isinstance(getattr(v, "value"), (str, int, float, bool)):
        return v.value
    if isinstance(v, (set, tuple)):
        return list(v)
    return str(v)


# torch dtypes by name (str(torch.bfloat16) == "torch.bfloat16") -> the core's dtype ids.
_TORCH_DTYPES = {"torch.float32": "fp32", "torch.float16": "fp16", "torch.bfloat16": "bf16"}


def _read_model(cfg, model):
    hf = getattr(model, "config", None)
    stored = None
    if hf is not None:
        values = _as_dict(hf)  # PretrainedConfig.to_dict() is its config.json
        answer = _core.import_hf_config(values)
        if answer.get("ok"):
            fields = answer["config"]["model"]
            if values.get("_name_or_path"):
                fields["name"] = str(values["_name_or_path"])
            cfg.set("model", fields, "model.config", "read as its config.json (model_type %s)"
                    % values.get("model_type", "absent"))
            for d in answer.get("diagnostics", []):
                if d["field"] == "seq":  # GPT-2, BERT: the model's own context is shorter
                    cfg.set("seq", answer["config"]["seq"], "model.config", d["message"])
                elif d["severity"] != "info":
                    cfg.note("model.config", d["message"])
            stored = answer.get("checkpoint_dtype")
        else:
            errors = "; ".join(d["message"] for d in answer.get("diagnostics", []) if d["severity"] == "error")
            cfg.note("model.config", "not read (%s): the model stays the default" % errors)
    else:
        cfg.note("model", "no .config (a PretrainedConfig): the model stays the default; give model=... fields")
    # The parameters as they are held: their dtype, and how many (beside the core's count).
    params = getattr(model, "parameters", None)
    if callable(params):
        counts = {}
        for p in params():
            counts[str(p.dtype)] = counts.get(str(p.dtype), 0) + p.numel()
        if counts:
            held = max(counts, key=counts.get)
            if held in _TORCH_DTYPES and stored is None:
                cfg.set("dtype", _TORCH_DTYPES[held], "model.parameters()", "%s holds most of them" % held)
            cfg.live_parameters = sum(counts.values())
            cfg.note("model.parameters()", "%d parameters in the live model (the estimate counts its "
                     "own from the architecture: parameters.total)" % cfg.live_parameters)
    four_bit = stored == "nf4" or bool(getattr(model, "is_loaded_in_4bit", False))
    if stored is not None and stored != "nf4":
        cfg.set("dtype", stored, "model.config.quantization_config", "the checkpoint's stored format")
    return four_bit


def _import_program_file(cfg, text, name, source, keep_stack=True):
    answer = _core.import_program_file(text, name)
    imported, applied = answer["import"], answer.get("config")
    for message in imported.get("errors", []):
        cfg.note(source, "not read: " + message)
    if applied is None:
        return imported
    for s in imported["settings"]:
        field = s["field"]
        if field == "stack" and not keep_stack and not s["key"]:
            continue  # a second file (a DeepSpeed JSON) keeps the first one's program
        where = "%s.%s" % (source, s["key"]) if s["key"] else source + " (assumed)"
        if field == "gpus":  # resolved into dp by the importer
            cfg.set("dp", applied["dp"], where, s["note"])
        elif field in applied:
            cfg.set(field, applied[field], where, s["note"])
        elif field in applied.get("model", {}):
            cfg.setdefault("model", {})[field] = applied["model"][field]
            cfg.notes.append({"field": "model." + field, "value": applied["model"][field], "from": where, "note": s["note"]})
    # The core's warnings name the keys that matter and are not counted, and those it does not know.
    for w in imported.get("warnings", []):
        cfg.note(source, w)
    return imported


def _read_training_args(cfg, args):
    # A live object has every field; None is "not set", as a key a file leaves out.
    values = {k: v for k, v in _as_dict(args).items() if v is not None}
    text = json.dumps(values, default=_json_value)
    imported = _import_program_file(cfg, text, "training_args.json", "TrainingArguments")
    # A DeepSpeed config named by its path is read too, as `llmmem --from` reads the file it names.
    for named in imported.get("files_named", []):
        path = named.get("value", "")
        if named.get("key") == "deepspeed" and os.path.isfile(path):
            with open(path, encoding="utf-8") as f:
                _import_program_file(cfg, f.read(), os.path.basename(path), "deepspeed " + path, keep_stack=False)
        else:
            cfg.note("TrainingArguments." + named.get("key", ""), "names %r, which is not a file here: %s"
                     % (path, named.get("note", "")))
    # The Trainer runs one data-parallel replica per process (no tensor or pipeline parallelism).
    world = getattr(args, "world_size", None)
    if isinstance(world, int) and world > 1 and "dp" not in cfg:
        cfg.set("dp", world, "TrainingArguments.world_size", "one data-parallel replica per process")


def _read_peft(cfg, peft, four_bit):
    values = _as_dict(peft)
    kind = str(_json_value(values.get("peft_type", "LORA"))).upper()
    if "LORA" not in kind or "r" not in values:
        cfg.note("peft_config", "a %s adapter: llmmem counts LoRA only; the mode is left as it was" % kind)
        return
    cfg.set("mode", "qlora" if four_bit else "lora", "peft_config",
            "LoRA over a 4-bit base (QLoRA)" if four_bit else "LoRA (peft_type %s)" % kind)
    cfg.set("lora_rank", int(values["r"]), "peft_config.r")
    targets = values.get("target_modules")
    if isinstance(targets, str):
        targets = [targets]
    if targets:
        text = ",".join(sorted(targets))
        try:  # the core's own parser decides which names it knows
            _core.config_to_query({"lora_targets": text})
            cfg.set("lora_targets", text, "peft_config.target_modules")
        except _core.LlmmemError as e:
            cfg.note("peft_config.target_modules", "%s: %s; every linear layer's adapters are counted" % (text, e))
    else:
        cfg.note("peft_config.target_modules", "None: peft takes the model type's own default; "
                 "lora_targets stays at its default")
    dropout = values.get("lora_dropout") or 0
    cfg.set("lora_dropout", dropout > 0, "peft_config.lora_dropout",
            "a mask per adapted input" if dropout > 0 else "no dropout")
    if values.get("use_dora"):
        cfg.note("peft_config.use_dora", "DoRA's magnitude vectors and extra activations are not counted")
    if values.get("modules_to_save"):
        cfg.note("peft_config.modules_to_save", "full trainable copies of %s are not counted" % values["modules_to_save"])


# Optimizer classes by name -> (the core's optimizer, why). torch/optim: Adam and AdamW keep
# exp_avg and exp_avg_sq per parameter; SGD a momentum_buffer when momentum != 0.
_OPTIMIZERS = {
    "AdamW": "adamw", "Adam": "adamw", "FusedAdam": "adamw", "DeepSpeedCPUAdam": "adamw",
    "Adafactor": "adafactor", "Lion": "lion",
    "AdamW8bit": "adam8bit", "Adam8bit": "adam8bit", "PagedAdamW8bit": "adam8bit", "PagedAdam8bit": "adam8bit",
    "PagedAdamW": "adamw", "PagedAdamW32bit": "adamw",
}


def _read_optimizer(cfg, optimizer):
    name = type(optimizer).__name__
    defaults = getattr(optimizer, "defaults", {}) or {}
    source = "optimizer (%s.%s)" % (type(optimizer).__module__, name)
    if name == "SGD":
        momentum = defaults.get("momentum", 0) or 0
        cfg.set("optimizer", "momentum" if momentum else "sgd", source,
                "momentum %g: a momentum_buffer per parameter" % momentum if momentum else "no state")
    elif name in _OPTIMIZERS:
        cfg.set("optimizer", _OPTIMIZERS[name], source)
        if name.startswith("Paged"):
            cfg.set("paged_optimizer", True, source, "bitsandbytes paged states (unified memory)")
    else:
        cfg.note(source, "an optimizer llmmem has no row for: the optimizer stays %s" % cfg.get("optimizer", "the default"))
        return
    # How the step runs: torch's fused and foreach flags (None: torch picks, which is "auto").
    if defaults.get("fused"):
        cfg.set("optimizer_impl", "fused", source + ".defaults['fused']")
    elif defaults.get("foreach") is True:
        cfg.set("optimizer_impl", "foreach", source + ".defaults['foreach']")
    elif defaults.get("foreach") is False:
        cfg.set("optimizer_impl", "forloop", source + ".defaults['foreach']")
    if defaults.get("amsgrad"):
        cfg.note(source + ".defaults['amsgrad']", "max_exp_avg_sq, a third state per parameter, is not counted")


def _installed_packages():
    """{name: version} of the environment's distributions (importlib.metadata), read once per
    process; a copy, so a caller's changes never reach the cache."""
    return dict(_read_installed())


@functools.lru_cache(maxsize=1)
def _read_installed():
    try:
        from importlib import metadata
    except ImportError:  # Python < 3.8
        return {}
    out = {}
    for dist in metadata.distributions():
        name = (dist.metadata["Name"] or "").strip()
        if name and dist.version:
            out.setdefault(name, dist.version)
    return out


def _read_packages(cfg, packages, training_args):
    """The training program and its version from the packages installed, through the core's
    package-list reader (--from requirements.txt): the most specific program installed at its
    version picks its row. Plain transformers.TrainingArguments are the HF Trainer's, whatever
    else is installed (TRL's configs are its own classes, trl.trainer.*Config)."""
    if not packages:
        return
    module = type(training_args).__module__ if training_args is not None else ""
    if module.startswith("transformers."):
        packages = {k: v for k, v in packages.items() if k.lower() == "transformers"}
    text = "".join("%s==%s\n" % (k, v) for k, v in sorted(packages.items()))
    if not text:
        return
    imported = _core.import_program_file(text, "requirements.txt")["import"]
    for s in imported.get("settings", []):
        if s["field"] == "stack" and s["key"]:
            where = ("installed package %s %s" % (s["key"], packages.get(s["key"], ""))).strip()
            cfg.set("stack", s["value"], where, s["note"])


def config_from_objects(model=None, training_args=None, peft_config=None, optimizer=None, packages="installed",
                        **overrides):
    """A configuration from the live objects of a run (any may be None), each value with where
    it came from in `.notes`. Read in this order, a later one overriding an earlier: the model,
    the TrainingArguments, the PEFT config, the optimizer, then `overrides` (any field:
    seq=2048, gpu="A100-SXM-80GB", model="llama-3.1-8b"). `packages`: {name: version} of the
    environment ("installed", the default, reads importlib.metadata; None reads none): the
    training program installed and its version pick the stack's row, unless stack= is given."""
    cfg = Config()
    if isinstance(model, str):  # a preset's key or Hub id, not a live model
        overrides = dict(overrides, model=model)
        model = None
    four_bit = _read_model(cfg, model) if model is not None else False
    if training_args is not None:
        _read_training_args(cfg, training_args)
    if model is not None and getattr(model, "is_gradient_checkpointing", False) is True:
        # model.gradient_checkpointing_enable() holds whatever TrainingArguments said.
        cfg.set("recompute", "full", "model.is_gradient_checkpointing")
    if peft_config is not None:
        _read_peft(cfg, peft_config, four_bit)
    elif four_bit:
        cfg.note("model", "a 4-bit model without a PEFT config: give peft_config= for QLoRA")
    if optimizer is not None:
        _read_optimizer(cfg, optimizer)
    if "stack" not in overrides and packages is not None:
        _read_packages(cfg, _installed_packages() if packages == "installed" else dict(packages), training_args)
    for field, value in overrides.items():
        cfg.set(field, value, "given")
    return cfg

"""The C++ core (_llmmem, src/bindings/python_module.cpp) with dicts in and out.

Each function is one call of the same C++ function the JS API calls (bindings/api_calls.h),
with json.dumps / json.loads around it, so the figures are the CLI's. The extension is the
one pip installed beside this file, else the checkout's build/native (scripts/build native),
else the folder LLMMEM_BUILD names.
"""
import glob
import importlib.machinery
import importlib.util
import json
import os


def _load_extension():
    try:
        from . import _llmmem  # installed by pip beside this file
        return _llmmem
    except ImportError:
        pass
    here = os.path.dirname(os.path.abspath(__file__))
    folder = os.environ.get("LLMMEM_BUILD") or os.path.join(here, "..", "..", "build", "native")
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        for path in sorted(glob.glob(os.path.join(folder, "_llmmem" + suffix))):
            spec = importlib.util.spec_from_file_location("llmmem._llmmem", path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return module
    raise ImportError(
        "llmmem: the extension _llmmem is not built for this Python: run scripts/build native "
        "(it needs Debian's pybind11-dev and python3-dev; scripts/bootstrap installs them), "
        "or set LLMMEM_BUILD to the folder that holds _llmmem*.so; looked in " + os.path.abspath(folder))


_ext = _load_extension()


class LlmmemError(ValueError):
    """Bad input the core refused: .document is its {"ok": false, "error", "diagnostics"}."""

    def __init__(self, document):
        super().__init__(document.get("error") or json.dumps(document.get("diagnostics", [])))
        self.document = document


def _config_text(config):
    if config is None:
        return "{}"
    if isinstance(config, str):
        return config
    return json.dumps(config)


def _answer(text):
    """A JSON answer as Python; an error document as LlmmemError."""
    value = json.loads(text)
    if isinstance(value, dict) and value.get("ok") is False and "error" in value and "per_gpu" not in value:
        raise LlmmemError(value)
    return value


def _text_or_error(text):
    """An answer that is text (a link's query, a launch command) unless the input was bad."""
    if text.startswith("{"):
        try:
            value = json.loads(text)
        except ValueError:
            return text
        if isinstance(value, dict) and value.get("ok") is False:
            raise LlmmemError(value)
    return text


def estimate(config=None):
    """The estimate of a configuration (a dict of the fields `llmmem --schema` lists; the ones
    left out take their defaults), as `llmmem --json` prints it. Bad input is not raised: the
    answer has ok false and the diagnostics name each bad field."""
    return json.loads(_ext.estimate(_config_text(config)))


def estimate_query(query):
    """The estimate of a link's query ("v=1&model=llama-3.1-8b&batch=4")."""
    return json.loads(_ext.estimate_query(query))


def default_config():
    """The whole configuration the apps open with."""
    return json.loads(_ext.default_config())


def config_to_query(config):
    """The link's query for a configuration ("v=1&..."); LlmmemError for bad input."""
    return _text_or_error(_ext.config_to_query(_config_text(config)))


def schema():
    """The configuration's JSON Schema (`llmmem --schema`)."""
    return json.loads(_ext.config_schema())


def presets():
    """The model presets: [{key, id, name, family, params, published_params, ok}]."""
    return json.loads(_ext.presets())


def import_hf_config(config_json):
    """A Hugging Face config.json (its text, or the dict PretrainedConfig.to_dict() gives) read
    onto the default configuration: {ok, config, diagnostics[, checkpoint_dtype]}."""
    text = config_json if isinstance(config_json, str) else json.dumps(config_json, default=str)
    return json.loads(_ext.import_hf_config(text))


def import_program_file(text, name):
    """A training program's file (TrainingArguments JSON, axolotl YAML, a DeepSpeed JSON, ...)
    as `llmmem --from FILE --json` reads it: {import: what each key set, assumed, did not
    count or know; config: the defaults with it applied}."""
    return json.loads(_ext.import_program_file(text, name))


def read_run(text, config=None, from_log=False):
    """A runtime's start-up log or a json.dumps(torch.cuda.memory_stats()) read and, with a
    configuration, set beside its estimate (as `llmmem run --json`)."""
    return json.loads(_ext.read_run(text, "" if config is None else _config_text(config), bool(from_log)))


def read_oom(text, config=None):
    """A CUDA out-of-memory message (or nvidia-smi, memory_summary()) read, beside a configuration."""
    return json.loads(_ext.read_oom(text, "" if config is None else _config_text(config)))


def fit(config=None):
    """Every fit answer (`llmmem fit --json`); LlmmemError for bad input."""
    return _answer(_ext.fit(_config_text(config)))


def fit_serving(config=None):
    """The serving fit answers; LlmmemError for bad input."""
    return _answer(_ext.fit_serving(_config_text(config)))


def diagnose(config=None):
    """The remedies, each re-estimated, best first (`llmmem --doctor --json`'s "doctor")."""
    return _answer(_ext.diagnose(_config_text(config)))


def export_estimate(config, fmt="markdown"):
    """The estimate as markdown, csv or json text."""
    return _text_or_error(_ext.export_estimate(_config_text(config), fmt))


def export_launch(config, target):
    """The launch command or config for a configuration (vllm, deepspeed, hf-trainer, ...)."""
    return _text_or_error(_ext.export_launch(_config_text(config), target))


def plan(request):
    """The training plan (llmmem.plan/1) for a request {config, gpus, global_batch_tokens, seq, ...}."""
    return json.loads(_ext.plan(_config_text(request)))


def plan_serving(request):
    """The serving plan (llmmem.serve_plan/1)."""
    return json.loads(_ext.plan_serving(_config_text(request)))


def plan_jobs(request):
    """Several jobs on one GPU (llmmem.jobs/1)."""
    return json.loads(_ext.plan_jobs(_config_text(request)))

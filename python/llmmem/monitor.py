"""The estimate inside a run: printed before the first step, measured beside it after the
first steps, and a warning before a step whose shape would not fit.

  MemoryCallback   a Hugging Face TrainerCallback by duck typing (transformers is not
                   imported): trainer.add_callback(llmmem.MemoryCallback(seq=2048))
  watch(...)       the same for any loop: w.before_step(batch) ... w.after_step()

Measured: torch.cuda.max_memory_allocated() / max_memory_reserved(), and the whole
torch.cuda.memory_stats() read by the core's run reader (read_run), set beside the estimate's
allocated and reserved peaks; what the run held beyond the estimate is then carried into the
estimates of later steps as its own line (measured_residual_gb). Without CUDA there is nothing
to measure, and it says so.
"""
import json
import sys
import warnings

from . import _core
from .objects import config_from_objects


class MemoryWarning(UserWarning):
    """A step's predicted peak does not fit the GPU."""


def _gb(n):
    return "%.2f GB" % (n / 1e9)


def _default_cuda():
    try:
        import torch
    except ImportError:
        return None
    return torch.cuda


def _shape_of(batch):
    """(micro-batch, sequence) of a batch: a tensor [batch, seq, ...], a dict or a list whose
    input_ids (or first tensor) is one."""
    if isinstance(batch, dict):
        batch = batch.get("input_ids", next(iter(batch.values()), None))
    elif isinstance(batch, (list, tuple)) and batch:
        batch = batch[0]
    shape = getattr(batch, "shape", None)
    if shape is None or len(shape) < 2:
        return None
    return int(shape[0]), int(shape[1])


class Monitor:
    """What MemoryCallback and watch share: one configuration, its estimate, the measurement.

    config: a configuration (dict) to use as it is; else it is read from the objects given to
    start() (config_from_objects) with `overrides` on top. cuda: torch.cuda (the default) or an
    object of its shape. out: where lines go (print to stderr by default)."""

    def __init__(self, config=None, measure_after=1, out=None, cuda="torch", **overrides):
        self.config = dict(config) if config is not None else None
        self.overrides = overrides
        self.measure_after = measure_after
        self.out = out or (lambda line: print(line, file=sys.stderr))
        self.cuda = _default_cuda() if cuda == "torch" else cuda
        self.estimate = None  # the estimate of the configuration (a dict, as llmmem --json)
        self.measured = None  # read_run's document: the measurement beside the estimate
        self.steps = 0
        self._by_shape = {}

    def _cuda_ready(self):
        return self.cuda is not None and self.cuda.is_available()

    def start(self, model=None, training_args=None, peft_config=None, optimizer=None):
        """Reads the configuration (unless one was given), estimates it and prints it."""
        if self.config is None:
            overrides = dict(self.overrides)
            if self._cuda_ready() and "gpu" not in overrides and "gpu_memory_gb" not in overrides:
                device = self.cuda.current_device()
                total = self.cuda.get_device_properties(device).total_memory
                overrides["gpu_memory_gb"] = total / 1e9
            self.config = config_from_objects(model, training_args, peft_config, optimizer, **overrides)
        self.estimate = _core.estimate(self.config)
        if self.estimate.get("ok"):
            self._by_shape[(self.estimate["config"]["batch"], self.estimate["config"]["seq"])] = self.estimate
        self.out(self.summary(self.estimate))
        notes = getattr(self.config, "describe", None)
        if notes is not None and self.config.notes:
            self.out("llmmem: read from the run:\n" + notes())
        self._warn_if_short(self.estimate, "the configured step")
        return self.estimate

    def summary(self, e):
        if not e.get("ok"):
            errors = [d["message"] for d in e.get("diagnostics", []) if d["severity"] == "error"]
            return "llmmem: no estimate: " + "; ".join(errors)
        c, g = e["config"], e["per_gpu"]
        return ("llmmem: %s, %s, micro-batch %d x seq %d: peak %s of %s per GPU (%s); torch allocated %s, reserved %s"
                % (c["model"].get("name", "model"), c["mode"], c["batch"], c["seq"], _gb(g["total_bytes"]),
                   _gb(g["capacity_bytes"]), "fits" if g["fits"] else "does NOT fit",
                   _gb(g["allocated_bytes"]), _gb(g["reserved_bytes"])))

    def _warn_if_short(self, e, what):
        if e.get("ok") and not e["per_gpu"]["fits"]:
            g = e["per_gpu"]
            message = ("llmmem: %s would not fit: predicted peak %s, the GPU has %s (%s short); "
                       "llmmem.diagnose(config) lists remedies" % (what, _gb(g["total_bytes"]), _gb(g["capacity_bytes"]),
                                                                  _gb(-g["headroom_bytes"])))
            self.out(message)
            warnings.warn(message, MemoryWarning, stacklevel=3)
            return True
        return False

    def before_step(self, batch=None, seq=None, micro_batch=None):
        """Before a step: the estimate at this step's shape (from the batch's input_ids, or seq and
        micro_batch); warns (MemoryWarning) when it would not fit. Returns that estimate."""
        shape = _shape_of(batch) if batch is not None else None
        b, s = shape if shape else (micro_batch, seq)
        b = b or self.estimate["config"]["batch"]
        s = s or self.estimate["config"]["seq"]
        key = (b, s)
        if key not in self._by_shape:
            self._by_shape[key] = _core.estimate(dict(self.config, batch=b, seq=s))
            self._warn_if_short(self._by_shape[key], "the next step (micro-batch %d x seq %d)" % key)
        return self._by_shape[key]

    def after_step(self):
        """After a step: once `measure_after` steps have run, the measurement beside the estimate."""
        self.steps += 1
        if self.steps == self.measure_after:
            self.measure()

    def measure(self):
        if not self._cuda_ready():
            self.out("llmmem: torch.cuda is not available (a CPU run): nothing to measure beside the estimate")
            return None
        allocated = self.cuda.max_memory_allocated()
        reserved = self.cuda.max_memory_reserved()
        g = self.estimate["per_gpu"]
        self.out("llmmem: after %d step(s): torch.cuda.max_memory_allocated() %s beside the estimate's %s; "
                 "max_memory_reserved() %s beside %s" % (self.steps, _gb(allocated), _gb(g["allocated_bytes"]),
                                                         _gb(reserved), _gb(g["reserved_bytes"])))
        # The whole snapshot through the core's run reader: each figure beside its estimate row.
        self.measured = _core.read_run(json.dumps(self.cuda.memory_stats()), self.config)
        for line in self.measured.get("comparison", {}).get("notes", []):
            self.out("llmmem:   " + line)
        # Calibrated (core/run/calibrate.h): what the run held beyond the estimate is carried as
        # its own line into the estimate of every later step's shape, so the warning before a
        # step that would not fit counts it.
        cal = self.measured.get("calibration", {})
        if cal.get("ok"):
            self.out("llmmem: calibration: " + cal["text"] + "; " + cal["reach"])
            if cal.get("carried_bytes", 0) > 0:
                self.config["measured_residual_gb"] = cal["measured_residual_gb"]
                self._by_shape = {}
        return self.measured


# The events transformers' CallbackHandler calls on every callback (trainer_callback.py@v4.57.1
# TrainerCallback), each as getattr(callback, event)(args, state, control, model=..., optimizer=...,
# ...): a callback without one of them would fail there, so each is here.
_EVENTS = ("on_init_end", "on_train_begin", "on_train_end", "on_epoch_begin", "on_epoch_end", "on_step_begin",
           "on_pre_optimizer_step", "on_optimizer_step", "on_substep_end", "on_step_end", "on_evaluate",
           "on_predict", "on_save", "on_log", "on_prediction_step", "on_push_begin")


class MemoryCallback:
    """trainer.add_callback(MemoryCallback(peft_config=lora, seq=2048)): the estimate when
    training begins (read from the Trainer's args, model and optimizer), the measurement after
    `measure_after` optimizer steps. Only the local main process prints. Keyword arguments are
    Monitor's (config, measure_after, out, cuda) and any configuration field as an override."""

    def __init__(self, peft_config=None, **kwargs):
        self.peft_config = peft_config
        self.monitor = Monitor(**kwargs)

    @staticmethod
    def _main(state):
        return getattr(state, "is_local_process_zero", True)

    def on_train_begin(self, args, state, control, model=None, optimizer=None, **kwargs):
        if self._main(state):
            peft = self.peft_config
            if peft is None and isinstance(getattr(model, "peft_config", None), dict):
                peft = model.peft_config.get("default")  # a PeftModel's adapters, by name
            self.monitor.start(model, args, peft, optimizer)
        return control

    def on_step_end(self, args, state, control, **kwargs):
        if self._main(state) and self.monitor.estimate is not None:
            self.monitor.after_step()
        return control


def _no_event(self, args, state, control, **kwargs):
    return control


for _event in _EVENTS:
    if not hasattr(MemoryCallback, _event):
        setattr(MemoryCallback, _event, _no_event)


class Watch(Monitor):
    """For any training loop:

        w = llmmem.watch(model, optimizer, peft_config=lora, seq=2048)
        for batch in loader:
            w.before_step(batch)          # warns before a step that would not fit
            loss = model(**batch).loss; loss.backward(); optimizer.step(); optimizer.zero_grad()
            w.after_step()                # after the first step: measured beside the estimate

    or step = w.wrap(train_step), which does both around train_step(batch, ...)."""

    def wrap(self, step_fn):
        def step(batch, *args, **kwargs):
            self.before_step(batch)
            result = step_fn(batch, *args, **kwargs)
            self.after_step()
            return result
        return step


def watch(model=None, optimizer=None, training_args=None, peft_config=None, **kwargs):
    """A Watch started on these objects: the estimate is printed now, before the first step."""
    w = Watch(**kwargs)
    w.start(model, training_args, peft_config, optimizer)
    return w

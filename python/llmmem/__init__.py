"""llmmem: how much GPU memory an LLM needs, from inside the run (issue 33 part 5).

The same C++ core as the CLI, the page and the JS API (src/bindings/python_module.cpp),
JSON-shaped dicts in and out:

  llmmem.estimate(config)            as `llmmem --json` (config: the fields of `llmmem --schema`)
  llmmem.config_from_objects(model=, training_args=, peft_config=, optimizer=, packages=, **fields)
                                     a configuration read from the live objects, with .notes
  llmmem.MemoryCallback(...)         a Hugging Face TrainerCallback (duck typed)
  llmmem.watch(model, optimizer, ...) the same for any loop: before_step(batch) / after_step()
  default_config, config_to_query, import_hf_config, import_program_file, read_run, read_oom,
  fit, diagnose, export_estimate, export_launch, plan, plan_serving, plan_jobs, schema, presets
"""
from ._core import (LlmmemError, config_to_query, default_config, diagnose, estimate, estimate_query, export_estimate,
                    export_launch, fit, fit_serving, import_hf_config, import_program_file, plan, plan_jobs, plan_serving,
                    presets, read_oom, read_run, schema)
from .monitor import MemoryCallback, MemoryWarning, Monitor, Watch, watch
from .objects import Config, config_from_objects

__all__ = ["Config", "LlmmemError", "MemoryCallback", "MemoryWarning", "Monitor", "Watch", "config_from_objects",
           "config_to_query", "default_config", "diagnose", "estimate", "estimate_query", "export_estimate",
           "export_launch", "fit", "fit_serving", "import_hf_config", "import_program_file", "plan", "plan_jobs",
           "plan_serving", "presets", "read_oom", "read_run", "schema", "watch"]

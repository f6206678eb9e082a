"""The Python module (python/llmmem over build/native/_llmmem) against the CLI, and its readers
of live objects, callback and hook on the CPU (issue 33 part 5). No network, no downloads:
Debian's torch and a tiny Llama-shaped model built here; transformers and peft are not
installed, so their objects are stand-ins of the same shape (to_dict(), attributes, the
TrainerCallback events' arguments).

  /usr/bin/python3 tests/python/test_llmmem.py      (after scripts/build native)
"""
import json
import os
import subprocess
import sys
import tempfile
import types
import unittest
import warnings

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "python"))
CLI = os.path.join(ROOT, "build", "native", "llmmem")

import llmmem  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402


def cli_json(*args, files=None):
    """`llmmem ... --json` with each files[name] = text written to a temporary file ({name} in args)."""
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for name, text in (files or {}).items():
            paths[name] = os.path.join(tmp, name)
            with open(paths[name], "w", encoding="utf-8") as f:
                f.write(text)
        argv = [CLI] + [a.format(**paths) for a in args] + ["--json"]
        done = subprocess.run(argv, capture_output=True, text=True, check=False)
        return json.loads(done.stdout)


# A Llama-shaped config.json, as PretrainedConfig.to_dict() gives it (LlamaConfig's keys).
TINY = {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "vocab_size": 1000, "hidden_size": 64,
        "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 172,
        "max_position_embeddings": 512, "rms_norm_eps": 1e-6, "tie_word_embeddings": False, "hidden_act": "silu",
        "torch_dtype": "float32", "_name_or_path": "tiny-llama"}


class FakeConfig:
    """A PretrainedConfig's shape: attributes and to_dict()."""

    def __init__(self, values):
        self._values = dict(values)
        for k, v in values.items():
            if not k.startswith("_"):
                setattr(self, k, v)

    def to_dict(self):
        return dict(self._values)


class TinyLlama(nn.Module):
    """The parameters LlamaForCausalLM has for TINY (modeling_llama.py: q/k/v/o, gate/up/down,
    two RMSNorms a layer, the final norm, an untied lm_head); the forward is a stand-in."""

    def __init__(self, c=TINY, dtype=torch.float32):
        super().__init__()
        h, kv = c["hidden_size"], c["num_key_value_heads"] * c["hidden_size"] // c["num_attention_heads"]
        self.config = FakeConfig(c)
        self.embed_tokens = nn.Embedding(c["vocab_size"], h)
        self.layers = nn.ModuleList()
        for _ in range(c["num_hidden_layers"]):
            layer = nn.Module()
            layer.q_proj, layer.k_proj = nn.Linear(h, h, bias=False), nn.Linear(h, kv, bias=False)
            layer.v_proj, layer.o_proj = nn.Linear(h, kv, bias=False), nn.Linear(h, h, bias=False)
            f = c["intermediate_size"]
            layer.gate_proj, layer.up_proj = nn.Linear(h, f, bias=False), nn.Linear(h, f, bias=False)
            layer.down_proj = nn.Linear(f, h, bias=False)
            layer.input_layernorm, layer.post_attention_layernorm = nn.Parameter(torch.ones(h)), nn.Parameter(torch.ones(h))
            self.layers.append(layer)
        self.norm = nn.Parameter(torch.ones(h))
        self.lm_head = nn.Linear(h, c["vocab_size"], bias=False)
        self.to(dtype)

    def forward(self, input_ids):
        x = self.embed_tokens(input_ids)
        for layer in self.layers:
            x = x + layer.o_proj(layer.q_proj(x * layer.input_layernorm))
            y = x * layer.post_attention_layernorm
            x = x + layer.down_proj(nn.functional.silu(layer.gate_proj(y)) * layer.up_proj(y))
        logits = self.lm_head(x * self.norm)
        return nn.functional.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]), input_ids[:, 1:].reshape(-1))


def training_args(**changes):
    """A TrainingArguments' shape: its fields as attributes, to_dict() as to_json_string writes them."""
    values = {"output_dir": "out", "per_device_train_batch_size": 4, "gradient_accumulation_steps": 8, "bf16": True,
              "fp16": False, "gradient_checkpointing": True, "optim": "adamw_torch", "learning_rate": 2e-4,
              "deepspeed": None, "fsdp": "", "report_to": ["none"], "logging_steps": 10, "seed": 42}
    values.update(changes)
    args = types.SimpleNamespace(**values)
    args.to_dict = lambda: dict(values)
    args.world_size = 1
    return args


def lora_config(**changes):
    """peft's LoraConfig shape (peft_type is a PeftType enum there: its .value is read)."""
    values = {"peft_type": types.SimpleNamespace(value="LORA"), "task_type": "CAUSAL_LM", "r": 8,
              "target_modules": {"q_proj", "v_proj"}, "lora_alpha": 16, "lora_dropout": 0.05, "use_dora": False,
              "modules_to_save": None}
    values.update(changes)
    peft = types.SimpleNamespace(**values)
    peft.to_dict = lambda: dict(values)
    return peft


class EstimateEqualsCli(unittest.TestCase):
    CONFIGS = [
        {},
        {"model": "llama-3.1-8b", "mode": "infer", "batch": 16, "seq": 8192, "kv_dtype": "fp8"},
        {"model": "qwen2.5-7b", "mode": "lora", "lora_rank": 64, "recompute": "full"},
        {"model": "mixtral-8x7b", "mode": "qlora", "seq": 2048},
        {"model": "llama-3.1-70b", "zero": 3, "dp": 8, "batch": 2, "seq": 4096, "gpu": "A100-SXM-80GB"},
        {"model": "gpt2", "mode": "train", "flash_attn": False, "dropout": True, "batch": 8, "seq": 1024},
    ]

    def test_estimate_is_the_clis_to_the_byte(self):
        for config in self.CONFIGS:
            with self.subTest(config=config):
                py = llmmem.estimate(config)
                native = cli_json("--config", "{c}", files={"c": json.dumps(config)})
                self.assertTrue(py["ok"], py["diagnostics"])
                self.assertEqual(py["per_gpu"], native["per_gpu"])  # every total, to the byte
                self.assertEqual(py["parameters"], native["parameters"])
                self.assertEqual(py["breakdown"], native["breakdown"])

    def test_default_config_round_trips(self):
        default = llmmem.default_config()
        self.assertEqual(llmmem.estimate(default)["per_gpu"], llmmem.estimate({})["per_gpu"])
        self.assertEqual(llmmem.estimate()["parameters"]["total"], 8030261248)  # Llama 3.1 8B
        self.assertEqual(llmmem.config_to_query({"batch": 4, "model": "qwen2.5-7b"}), "v=1&model=qwen2.5-7b&batch=4")

    def test_hf_config_import_is_the_clis(self):
        imported = llmmem.import_hf_config(json.dumps(TINY))
        self.assertTrue(imported["ok"], imported["diagnostics"])
        self.assertEqual(imported["config"]["seq"], 512)  # starts at the model's context
        native = cli_json("--hf-config", "{c}", files={"c": json.dumps(TINY)})
        self.assertEqual(llmmem.estimate(imported["config"])["per_gpu"], native["per_gpu"])
        four_bit = dict(TINY, quantization_config={"quant_method": "bitsandbytes", "load_in_4bit": True})
        self.assertEqual(llmmem.import_hf_config(four_bit)["checkpoint_dtype"], "nf4")
        self.assertNotIn("checkpoint_dtype", imported)

    def test_program_file_import_is_the_clis(self):
        text = json.dumps(training_args().to_dict())
        imported = llmmem.import_program_file(text, "training_args.json")
        self.assertEqual(imported["import"]["format"], "hf-args")
        native = cli_json("--from", "{a}", files={"a": text})
        self.assertEqual(llmmem.estimate(imported["config"])["per_gpu"], native["per_gpu"])

    def test_fit_diagnose_and_run_reader_answer(self):
        too_big = {"model": "llama-3.1-8b", "gpu": "RTX-4090-24GB"}
        self.assertFalse(llmmem.estimate(too_big)["per_gpu"]["fits"])
        remedies = llmmem.diagnose(too_big)
        self.assertEqual([r["id"] for r in remedies if r["fits"]], ["qlora"])
        for r in remedies:  # each remedy re-estimated: its link gives its peak
            self.assertEqual(llmmem.estimate_query(r["query"])["per_gpu"]["total_bytes"], r["peak_bytes"], r["id"])
        config = {"model": "llama-3.1-8b"}
        self.assertEqual(llmmem.fit(config), cli_json("fit", "--config", "{c}", files={"c": json.dumps(config)}))
        stats = {"allocated_bytes.all.peak": 6442450944, "reserved_bytes.all.peak": 10737418240}
        reading = llmmem.read_run(json.dumps(stats), {"batch": 2})
        peak = [r for r in reading["comparison"]["rows"] if r["label"] == "Peak allocated"][0]
        self.assertEqual(peak["measured_bytes"], 6442450944)
        self.assertEqual(peak["estimated_bytes"], llmmem.estimate({"batch": 2})["per_gpu"]["allocated_bytes"])

    def test_bad_input_is_an_error_value(self):
        bad = llmmem.estimate({"batch": "x", "model": "nope"})
        self.assertFalse(bad["ok"])
        self.assertEqual({d["field"] for d in bad["diagnostics"] if d["severity"] == "error"} >= {"batch", "model"}, True)
        with self.assertRaises(llmmem.LlmmemError):
            llmmem.diagnose({"batch": "x"})


class ConfigFromObjects(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(0)
        self.model = TinyLlama()
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-3, foreach=False)

    def test_reads_each_object_and_says_where_from(self):
        cfg = llmmem.config_from_objects(self.model, training_args(), lora_config(), self.optimizer, seq=256)
        model = cfg["model"]
        self.assertEqual((model["hidden"], model["layers"], model["heads"], model["kv_heads"], model["ffn"], model["vocab"]),
                         (64, 2, 4, 2, 172, 1000))
        self.assertEqual(model["name"], "tiny-llama")
        expected = {"batch": 4, "grad_accum": 8, "dtype": "bf16", "recompute": "full", "mode": "lora", "lora_rank": 8,
                    "lora_targets": "q_proj,v_proj", "lora_dropout": True, "optimizer": "adamw",
                    "optimizer_impl": "forloop", "seq": 256, "stack": "hf-trainer"}
        self.assertEqual({k: cfg[k] for k in expected}, expected)
        where = {n["field"]: n["from"] for n in cfg.notes if n["field"]}  # the last source of each field
        self.assertEqual(where["batch"], "TrainingArguments.per_device_train_batch_size")
        self.assertEqual(where["lora_rank"], "peft_config.r")
        self.assertEqual(where["optimizer_impl"], "optimizer (torch.optim.adamw.AdamW).defaults['foreach']")
        self.assertEqual(where["seq"], "given")
        self.assertEqual(where["model"], "model.config")

        e = llmmem.estimate(cfg)
        self.assertTrue(e["ok"], e["diagnostics"])
        # The core counts the live model's parameters from its config.json alone.
        self.assertEqual(e["parameters"]["total"], sum(p.numel() for p in self.model.parameters()))
        self.assertEqual(cfg.live_parameters, e["parameters"]["total"])
        self.assertEqual((e["config"]["batch"], e["config"]["seq"], e["config"]["mode"]), (4, 256, "lora"))
        # The same settings typed as the CLI's flags over the same config.json give the same figures.
        flags = ["--%s=%s" % (k.replace("_", "-"), {True: "on", False: "off"}.get(v, v))
                 for k, v in cfg.items() if k != "model"]
        native = cli_json("--hf-config", "{c}", *flags, files={"c": json.dumps(TINY)})
        self.assertEqual(e["per_gpu"], native["per_gpu"])
        self.assertEqual(e["parameters"], native["parameters"])

    def test_unknown_things_change_nothing(self):
        plain = llmmem.config_from_objects(self.model, training_args())
        odd = llmmem.config_from_objects(self.model, training_args(a_new_flag=7, another="x"))
        self.assertEqual(dict(plain), dict(odd))
        self.assertTrue(any("a_new_flag" in n["note"] for n in odd.notes if n["field"] is None), odd.describe())
        # LoRA target names llmmem does not know (GPT-2's c_attn) leave lora_targets alone, said so.
        peft = llmmem.config_from_objects(self.model, peft_config=lora_config(target_modules=["c_attn"]))
        self.assertNotIn("lora_targets", peft)
        self.assertTrue(any(n["from"] == "peft_config.target_modules" for n in peft.notes), peft.describe())
        # An optimizer llmmem has no row for: the optimizer is not set.
        rms = llmmem.config_from_objects(optimizer=torch.optim.RMSprop(self.model.parameters()))
        self.assertEqual(dict(rms), {})
        self.assertIn("RMSprop", rms.describe())

    def test_qlora_when_the_model_is_4_bit_and_sgd(self):
        four_bit = TinyLlama(dict(TINY, quantization_config={"quant_method": "bitsandbytes", "load_in_4bit": True}))
        cfg = llmmem.config_from_objects(four_bit, peft_config=lora_config(),
                                         optimizer=torch.optim.SGD(four_bit.parameters(), lr=0.1, momentum=0.9))
        self.assertEqual((cfg["mode"], cfg["optimizer"]), ("qlora", "momentum"))
        self.assertNotIn("dtype", cfg)  # the stored format is the mode's (NF4), not the parameters'
        self.assertEqual(llmmem.config_from_objects(optimizer=torch.optim.SGD(four_bit.parameters(), lr=0.1))["optimizer"],
                         "sgd")

    def test_world_size_and_a_deepspeed_file(self):
        with tempfile.TemporaryDirectory() as tmp:
            ds = os.path.join(tmp, "ds_z3.json")
            with open(ds, "w") as f:
                json.dump({"zero_optimization": {"stage": 3}, "train_micro_batch_size_per_gpu": "auto"}, f)
            args = training_args(deepspeed=ds)
            args.world_size = 8
            cfg = llmmem.config_from_objects(self.model, args)
        self.assertEqual((cfg["zero"], cfg["sharding"], cfg["dp"], cfg["stack"]), (3, "deepspeed", 8, "hf-trainer"))


def trainer_event_kwargs(model, optimizer):
    """What transformers' CallbackHandler.call_event passes each callback besides args, state, control."""
    return {"model": model, "processing_class": None, "optimizer": optimizer, "lr_scheduler": None,
            "train_dataloader": None, "eval_dataloader": None}


class InstalledPackages(unittest.TestCase):
    """The program and version from the environment's packages (the core's package-list reader)."""

    def test_the_most_specific_program_installed_at_its_version(self):
        c = llmmem.config_from_objects(model="llama-3.1-8b",
                                       packages={"transformers": "4.46.3", "trl": "0.12.1", "torch": "2.5.1"})
        self.assertEqual(c["stack"], "trl@0.12.1")
        self.assertIn("installed package trl 0.12.1", c.describe())
        # Its row decides what the user did not say: TRL before 0.15 copies the shifted logits.
        self.assertTrue(llmmem.estimate(c)["config"]["loss_shift_copy"])

    def test_plain_training_arguments_are_the_hf_trainers(self):
        TrainingArguments = type("TrainingArguments", (), {"__module__": "transformers.training_args",
                                                           "to_dict": lambda self: {"per_device_train_batch_size": 2}})
        c = llmmem.config_from_objects(model="llama-3.1-8b", training_args=TrainingArguments(),
                                       packages={"transformers": "4.46.3", "trl": "0.12.1"})
        self.assertEqual(c["stack"], "hf-trainer@4.46.3")
        self.assertEqual(c["batch"], 2)

    def test_a_given_stack_wins_and_none_reads_nothing(self):
        self.assertEqual(llmmem.config_from_objects(packages={"trl": "0.12.1"}, stack="axolotl")["stack"], "axolotl")
        self.assertNotIn("stack", llmmem.config_from_objects(packages=None))


class FakeCuda:
    """torch.cuda's shape on a 24 GB card whose allocator peaked at 1.5 GB."""

    def __init__(self, total=24_000_000_000):
        self.total = total

    def is_available(self):
        return True

    def current_device(self):
        return 0

    def get_device_properties(self, device):
        return types.SimpleNamespace(total_memory=self.total, name="Fake GPU")

    def max_memory_allocated(self):
        return 1_500_000_000

    def max_memory_reserved(self):
        return 2_000_000_000

    def memory_stats(self):
        return {"allocated_bytes.all.peak": 1_500_000_000, "reserved_bytes.all.peak": 2_000_000_000,
                "allocated_bytes.all.current": 400_000_000, "num_alloc_retries": 0, "num_ooms": 0}


class CallbackAndHook(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(0)
        self.model = TinyLlama()
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-3)
        self.lines = []

    def test_callback_prints_the_estimate_and_says_the_cpu_cannot_measure(self):
        cb = llmmem.MemoryCallback(peft_config=lora_config(), out=self.lines.append, seq=128)
        args, control = training_args(), types.SimpleNamespace(should_training_stop=False)
        state = types.SimpleNamespace(global_step=0, is_local_process_zero=True)
        kw = trainer_event_kwargs(self.model, self.optimizer)
        # Every event the Trainer calls is there and hands control back.
        for event in llmmem.monitor._EVENTS:
            if event not in ("on_train_begin", "on_step_end"):
                self.assertIs(getattr(cb, event)(args, state, control, **kw), control, event)
        self.assertIs(cb.on_train_begin(args, state, control, **kw), control)
        e = cb.monitor.estimate
        self.assertTrue(e["ok"], e["diagnostics"])
        self.assertEqual((e["config"]["mode"], e["config"]["batch"], e["config"]["seq"]), ("lora", 4, 128))
        self.assertIn("peak %.2f GB" % (e["per_gpu"]["total_bytes"] / 1e9), self.lines[0])
        self.assertIn("micro-batch 4 x seq 128", self.lines[0])
        self.assertIn("per_device_train_batch_size", self.lines[1])  # where each value came from
        # One optimizer step: torch.cuda (real, on this CPU machine) cannot measure.
        self.assertFalse(torch.cuda.is_available())
        loss = self.model(torch.randint(0, 1000, (4, 128)))
        loss.backward()
        self.optimizer.step()
        state.global_step = 1
        self.assertIs(cb.on_step_end(args, state, control, **kw), control)
        self.assertIn("torch.cuda is not available", self.lines[-1])
        self.assertIsNone(cb.monitor.measured)

    def test_other_processes_stay_quiet(self):
        cb = llmmem.MemoryCallback(out=self.lines.append)
        state = types.SimpleNamespace(global_step=0, is_local_process_zero=False)
        cb.on_train_begin(training_args(), state, None, **trainer_event_kwargs(self.model, self.optimizer))
        cb.on_step_end(training_args(), state, None)
        self.assertEqual(self.lines, [])

    def test_measured_beside_the_estimate_with_cuda(self):
        w = llmmem.watch(self.model, self.optimizer, out=self.lines.append, cuda=FakeCuda(), seq=64)
        self.assertEqual(w.config["gpu_memory_gb"], 24.0)  # the device's own memory
        self.assertEqual(w.estimate["per_gpu"]["capacity_bytes"], 24_000_000_000)
        step = w.wrap(lambda batch: self.model(batch).backward())
        step(torch.randint(0, 1000, (1, 64)))
        self.assertIn("max_memory_allocated() 1.50 GB beside the estimate's %.2f GB"
                      % (w.estimate["per_gpu"]["allocated_bytes"] / 1e9), "\n".join(self.lines))
        peak = [r for r in w.measured["comparison"]["rows"] if r["label"] == "Peak allocated"][0]
        self.assertEqual((peak["measured_bytes"], peak["estimated_bytes"]),
                         (1_500_000_000, w.estimate["per_gpu"]["allocated_bytes"]))

    def test_a_measured_residual_is_carried_into_later_steps(self):
        # The run's reserved peak is 3 GB above the estimate's: carried, later shapes count it.
        probe = llmmem.watch(out=self.lines.append, cuda=None, model="llama-3.1-8b", mode="lora", seq=2048,
                             gpu_memory_gb=80)
        reserved = probe.estimate["per_gpu"]["reserved_bytes"] + 3_000_000_000

        class Busier(FakeCuda):
            def max_memory_reserved(self):
                return reserved

            def memory_stats(self):
                return {"reserved_bytes.all.peak": reserved}

        w = llmmem.watch(out=self.lines.append, cuda=Busier(80_000_000_000), model="llama-3.1-8b", mode="lora",
                         seq=2048)
        before = w.before_step(seq=4096, micro_batch=1)["per_gpu"]["total_bytes"]
        w.after_step()
        self.assertTrue(w.measured["calibration"]["ok"])
        self.assertAlmostEqual(w.config["measured_residual_gb"], 3.0, places=6)
        self.assertIn("measured beyond the model: +3 GB, from your run (Peak reserved", "\n".join(self.lines))
        self.assertNotIn("no .config", "\n".join(self.lines))  # model="llama-3.1-8b" is a preset's key
        after = w.before_step(seq=4096, micro_batch=1)["per_gpu"]["total_bytes"]
        self.assertAlmostEqual(after - before, 3_000_000_000, delta=1)

    def test_warns_before_the_step_that_would_not_fit(self):
        # Llama 3.1 8B LoRA on an 80 GB H100: 2,048 tokens fit, 131,072 do not.
        w = llmmem.watch(out=self.lines.append, cuda=None, model="llama-3.1-8b", mode="lora", seq=2048)
        self.assertTrue(w.estimate["per_gpu"]["fits"])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            small = w.before_step(torch.zeros((1, 2048), dtype=torch.long))
            self.assertEqual(caught, [])
            big = w.before_step(torch.zeros((1, 131072), dtype=torch.long))
        self.assertTrue(small["per_gpu"]["fits"])
        self.assertFalse(big["per_gpu"]["fits"])
        self.assertEqual([c.category for c in caught], [llmmem.MemoryWarning])
        self.assertIn("micro-batch 1 x seq 131072", str(caught[0].message))
        self.assertIn("predicted peak %.2f GB" % (big["per_gpu"]["total_bytes"] / 1e9), str(caught[0].message))
        self.assertEqual(big["per_gpu"]["total_bytes"],
                         llmmem.estimate({"model": "llama-3.1-8b", "mode": "lora", "seq": 131072})["per_gpu"]["total_bytes"])

    def test_warns_at_the_start_when_the_configuration_does_not_fit(self):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            w = llmmem.watch(out=self.lines.append, cuda=None, model="llama-3.1-70b", gpu="RTX-4090-24GB")
        self.assertFalse(w.estimate["per_gpu"]["fits"])
        self.assertEqual(len([c for c in caught if c.category is llmmem.MemoryWarning]), 1)
        self.assertIn("does NOT fit", self.lines[0])


class PipInstall(unittest.TestCase):
    def test_pip_installs_from_the_checkout_offline(self):
        with tempfile.TemporaryDirectory() as tmp:
            done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-build-isolation", "--no-index",
                                   "--target", tmp, os.path.join(ROOT, "python")], capture_output=True, text=True)
            self.assertEqual(done.returncode, 0, done.stderr)
            code = "import llmmem; print(llmmem._core._ext.__file__); print(llmmem.estimate()['per_gpu']['total_bytes'])"
            run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp,
                                 env=dict(os.environ, PYTHONPATH=tmp))
            self.assertEqual(run.returncode, 0, run.stderr)
            where, total = run.stdout.split()
            self.assertTrue(where.startswith(tmp), where)  # the installed copy, not the checkout's build
            self.assertEqual(int(total), llmmem.estimate()["per_gpu"]["total_bytes"])


if __name__ == "__main__":
    unittest.main(verbosity=2)

// --from: a training program's own config file or command read as the settings it implies
// (issue 30 part 2; core/program_files). Each case states what the program's documented
// example sets and asserts the fields it becomes, the keys it lists and the errors it gives.
#include <doctest.h>

#include <ios>
#include <string>

#include "core/config/config.h"
#include "core/config/config_json.h"
#include "core/config/fields.h"
#include "core/parse/settings_tree.h"
#include "core/parse/package_list.h"
#include "core/program_files/program_file.h"

using namespace llmmem::core;

namespace {

std::string SettingOf(const ProgramFileImport& f, const char* field) {
  for (const ProgramSetting& s : f.settings)
    if (s.field == field) return s.value;
  return "";
}
int LineOf(const ProgramFileImport& f, const char* field) {
  for (const ProgramSetting& s : f.settings)
    if (s.field == field) return s.from.line;
  return -1;
}
bool Listed(const std::vector<ProgramKey>& keys, const char* key) {
  for (const ProgramKey& k : keys)
    if (k.key == key) return true;
  return false;
}
bool HasError(const ProgramFileImport& f, const std::string& part) {
  for (const Diagnostic& d : f.diagnostics)
    if (d.severity == Severity::kError && d.message.find(part) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("settings trees: YAML, TOML, JSON and command lines flatten to dotted keys with lines") {
  const SettingsTree y = ParseYamlTree("a: 1\nfsdp_config:\n  fsdp_version: 2\nlist: [x, y]\nempty:\n");
  REQUIRE(y.ok);
  REQUIRE(y.entries.size() == 5);
  CHECK(y.entries[1].path == "fsdp_config.fsdp_version");
  CHECK(y.entries[1].value == "2");
  CHECK(y.entries[1].line == 3);
  CHECK(y.entries[3].path == "list[1]");
  CHECK(y.entries[4].is_null);
  const SettingsTree t = ParseTomlTree("[training]\nseq_len = 8192\n[parallelism]\ntensor_parallel_degree = 2\n");
  REQUIRE(t.ok);
  CHECK(FindSetting(t, "training.seq_len")->value == "8192");
  CHECK(FindSetting(t, "parallelism.tensor_parallel_degree")->line == 4);
  const SettingsTree j = ParseJsonTree("{\n  \"zero_optimization\": {\n    \"stage\": 3\n  }\n}");
  REQUIRE(j.ok);
  CHECK(FindSetting(j, "zero_optimization.stage")->line == 3);
  const SettingsTree c = ParseCommandTree(
      "CUDA_VISIBLE_DEVICES=0,1 torchrun --nproc_per_node 2 --standalone train.py \\\n  --bf16 --lr=3e-4 x.y=5 # done\n");
  REQUIRE(c.ok);
  CHECK(FindSetting(c, "env.CUDA_VISIBLE_DEVICES")->value == "0,1");
  CHECK(FindSetting(c, "torchrun.nproc_per_node")->value == "2");
  CHECK(FindSetting(c, "torchrun.standalone")->value == "true");
  CHECK(FindSetting(c, "bf16")->value == "true");
  CHECK(FindSetting(c, "bf16")->line == 2);
  CHECK(FindSetting(c, "lr")->value == "3e-4");
  CHECK(FindSetting(c, "x.y")->value == "5");  // a Hydra override
  REQUIRE(c.words.size() == 2);
  CHECK(c.words[1] == "train.py");
}

TEST_CASE("settings trees: malformed input is an error that names the line, and hostile input is bounded") {
  const SettingsTree y = ParseYamlTree("a: 1\nb: [1, 2\nc: 3\n");
  CHECK_FALSE(y.ok);
  CHECK(y.error.find("line") == 0);
  const SettingsTree t = ParseTomlTree("[training\nx = 1\n");
  CHECK_FALSE(t.ok);
  CHECK(t.error.find("line 1") == 0);
  // Headers whose key starts badly broke toml++ 3.3's precondition (an abort, or undefined
  // behaviour under clang with NDEBUG): each is a plain error naming the line.
  for (const char* header : {"[=", "[\n", "[#", "[[ =", "[a]\n[\t#", "[[[1]]]"}) {
    CAPTURE(header);
    const SettingsTree h = ParseTomlTree(header);
    CHECK_FALSE(h.ok);
    CHECK(h.error.find("line ") == 0);
  }
  CHECK_FALSE(ParseCommandTree("python train.py --name 'unclosed").ok);
  // A billion-laughs alias bomb expands past the entry limit and is refused, not expanded.
  std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'j'; ++c)
    bomb += std::string(1, c) + ": &" + c + " [*" + char(c - 1) + ", *" + char(c - 1) + ", *" + char(c - 1) + ", *" +
            char(c - 1) + ", *" + char(c - 1) + ", *" + char(c - 1) + ", *" + char(c - 1) + ", *" + char(c - 1) + "]\n";
  const SettingsTree b = ParseYamlTree(bomb);
  CHECK_FALSE(b.ok);
  CHECK(b.error.find("20000") != std::string::npos);
  CHECK_FALSE(ParseYamlTree("- a\n- b\n").ok);  // a list is not a settings file
}

namespace {
std::string Utf8(char32_t c) {
  std::string s;
  if (c < 0x80) {
    s += char(c);
  } else if (c < 0x800) {
    s += char(0xC0 | (c >> 6)), s += char(0x80 | (c & 0x3F));
  } else {
    s += char(0xE0 | (c >> 12)), s += char(0x80 | ((c >> 6) & 0x3F)), s += char(0x80 | (c & 0x3F));
  }
  return s;
}
}  // namespace

TEST_CASE("TOML: every non-ASCII character of the BMP after a line-ending backslash is kept or skipped, never undefined") {
  // toml++ 3.3 asked "is this horizontal whitespace?" of such a character and, for one in
  // U+00A1-U+0499, U+2C8E-U+3088 or U+FB26-U+FEFE that is not, reached TOML_UNREACHABLE
  // (marzer/tomlplusplus#190; CI's fuzzer found it with '\xC2\xA7'). toml_tree.cpp defines the
  // function the parser calls: Unicode's spaces are skipped there, every other character kept.
  const auto is_space = [](char32_t c) {
    return c == 0xA0 || c == 0x1680 || c == 0x180E || (c >= 0x2000 && c <= 0x200B) || c == 0x202F ||
           (c >= 0x205F && c <= 0x2060) || c == 0x3000 || c == 0xFEFF;
  };
  int kept = 0, skipped = 0, wrong = 0;
  for (char32_t c = 0xA0; c <= 0xFFFD; ++c) {
    if (c >= 0xD800 && c <= 0xDFFF) continue;  // surrogates are not characters
    const SettingsTree t = ParseTomlTree("s = \"\"\"\\\n" + Utf8(c) + "x\"\"\"\n");
    const bool right = t.ok && t.entries.size() == 1 && t.entries[0].value == (is_space(c) ? "x" : Utf8(c) + "x");
    if (!right && wrong++ < 5) CHECK_MESSAGE(right, "U+" << std::hex << uint32_t(c));
    if (right) ++(is_space(c) ? skipped : kept);
    // Where a key or a value's end is expected, any such character is an error naming line 1.
    const SettingsTree key = ParseTomlTree(Utf8(c) + " = 1\n");
    const SettingsTree end = ParseTomlTree("a = 1" + Utf8(c) + "\n");
    if (key.ok || end.ok || key.error.rfind("line 1,", 0) != 0 || end.error.rfind("line 1,", 0) != 0) {
      if (wrong++ < 5) CHECK_MESSAGE(false, "U+" << std::hex << uint32_t(c) << ": " << key.error << " / " << end.error);
    }
  }
  CHECK(wrong == 0);
  CHECK(skipped == 20);  // the 20 code points toml++ counts as horizontal whitespace
  CHECK(kept == 0xFFFD - 0xA0 + 1 - 0x800 - 20);
  // The report's own input, and a CJK full stop after the backslash.
  CHECK(ParseTomlTree("s = \"\"\"\\\n\xC2\xA7\"\"\"").entries.at(0).value == "\xC2\xA7");
  CHECK(ParseTomlTree("s = \"\"\"\\\n  \xE3\x80\x82\"\"\"").entries.at(0).value == "\xE3\x80\x82");
}

TEST_CASE("axolotl: the QLoRA example's keys become the fields, each with its line") {
  const char* yaml =
      "base_model: NousResearch/Meta-Llama-3.1-8B\n"  // 1
      "load_in_4bit: true\n"                          // 2
      "adapter: qlora\n"                              // 3
      "sequence_len: 4096\n"                          // 4
      "sample_packing: true\n"                        // 5
      "lora_r: 32\n"                                  // 6
      "lora_dropout: 0.05\n"                          // 7
      "gradient_accumulation_steps: 4\n"              // 8
      "micro_batch_size: 2\n"                         // 9
      "optimizer: paged_adamw_8bit\n"                 // 10
      "bf16: auto\n"                                  // 11
      "gradient_checkpointing: true\n"                // 12
      "flash_attention: true\n"                       // 13
      "learning_rate: 0.0002\n"                       // 14
      "wandb_project:\n"                              // 15
      "my_own_key: 3\n";                              // 16
  const ProgramFileImport f = ImportProgramFile(yaml, "qlora.yml");
  REQUIRE(f.ok);
  CHECK(f.format == "axolotl");
  CHECK(f.stack == "axolotl");
  CHECK(f.model == "NousResearch/Meta-Llama-3.1-8B");
  CHECK(SettingOf(f, "stack") == "axolotl");
  CHECK(SettingOf(f, "mode") == "qlora");
  CHECK(LineOf(f, "mode") == 2);
  CHECK(SettingOf(f, "seq") == "4096");
  CHECK(SettingOf(f, "lora_rank") == "32");
  CHECK(SettingOf(f, "lora_dropout") == "on");
  CHECK(SettingOf(f, "grad_accum") == "4");
  CHECK(SettingOf(f, "batch") == "2");
  CHECK(SettingOf(f, "optimizer") == "adam8bit");
  CHECK(SettingOf(f, "paged_optimizer") == "on");
  CHECK(SettingOf(f, "dtype") == "bf16");
  CHECK(SettingOf(f, "recompute") == "full");
  CHECK(SettingOf(f, "framework") == "hf-flash2");
  CHECK(Listed(f.not_counted, "sample_packing"));
  CHECK(Listed(f.ignored, "learning_rate"));
  CHECK(Listed(f.ignored, "adapter"));  // agrees with load_in_4bit: listed, not lost
  CHECK(Listed(f.unknown, "my_own_key"));
  CHECK(!Listed(f.unknown, "wandb_project"));
}

TEST_CASE("--from applies as the user's settings: the program's defaults fill the rest") {
  const ProgramFileImport f = ImportProgramFile(
      "model_name_or_path: meta-llama/Meta-Llama-3-8B-Instruct\nstage: sft\nfinetuning_type: lora\nlora_rank: 8\n"
      "cutoff_len: 2048\nper_device_train_batch_size: 1\ngradient_accumulation_steps: 8\nbf16: true\n",
      "lora.yaml");
  REQUIRE(f.ok);
  CHECK(f.format == "llama-factory");
  Config c = DefaultConfig();
  Diagnostics out;
  std::vector<std::string> given;
  ApplyProgramFile(c, f, out, &given);
  CHECK(out.empty());
  CHECK(c.stack == "llama-factory");
  CHECK(c.mode == Mode::kLora);
  CHECK(c.seq == 2048);
  CHECK(c.batch == 1);
  CHECK(c.grad_accum == 8);
  CHECK(c.lora_rank == 8);
  CHECK(c.model.preset == "llama-3-8b");  // the same name under meta-llama: the catalogue's architecture
  // LLaMA-Factory checkpoints by default (its row: disable_gradient_checkpointing defaults to False).
  CHECK(c.recompute == Recompute::kFull);
  CHECK(FindField("reentrant_checkpoint")->get(c) == "1");
}

TEST_CASE("DeepSpeed JSON: auto is the Trainer's, the stage and offloads are read") {
  const ProgramFileImport f = ImportProgramFile(
      "{\"train_micro_batch_size_per_gpu\": \"auto\", \"bf16\": {\"enabled\": true},\n"
      " \"zero_optimization\": {\"stage\": 3, \"offload_optimizer\": {\"device\": \"cpu\", \"pin_memory\": true},\n"
      "  \"reduce_bucket_size\": 5e8}}",
      "ds.json");
  REQUIRE(f.ok);
  CHECK(f.format == "deepspeed");
  CHECK(SettingOf(f, "zero") == "3");
  CHECK(SettingOf(f, "sharding") == "deepspeed");
  CHECK(SettingOf(f, "offload_optimizer") == "cpu");
  CHECK(SettingOf(f, "reduce_bucket") == "500000000");
  CHECK(SettingOf(f, "batch").empty());
  CHECK(Listed(f.ignored, "train_micro_batch_size_per_gpu"));
}

TEST_CASE("launch commands: torchrun's GPUs, the script's TrainingArguments, FSDP words") {
  const ProgramFileImport f = ImportProgramFile(
      "torchrun --nproc_per_node 4 --nnodes 2 run_clm.py --model_name_or_path meta-llama/Llama-3.2-1B \\\n"
      "  --per_device_train_batch_size 8 --bf16 --gradient_checkpointing --fsdp \"full_shard auto_wrap\" --block_size 2048\n",
      "train.sh");
  REQUIRE(f.ok);
  CHECK(f.format == "hf-args");
  CHECK(SettingOf(f, "gpus") == "8");
  CHECK(SettingOf(f, "batch") == "8");
  CHECK(SettingOf(f, "zero") == "3");
  CHECK(SettingOf(f, "sharding") == "fsdp");
  CHECK(SettingOf(f, "seq") == "2048");
  Config c = DefaultConfig();
  Diagnostics out;
  ApplyProgramFile(c, f, out);
  CHECK(out.empty());
  CHECK(c.dp == 8);
}

TEST_CASE("torchtune, torchtitan, verl, OpenRLHF, ms-swift and fsdp_qlora each read their own keys") {
  const ProgramFileImport tune = ImportProgramFile(
      "model:\n  _component_: torchtune.models.llama3_1.qlora_llama3_1_8b\n  lora_rank: 8\nbatch_size: 2\n"
      "tokenizer:\n  max_seq_len: 2048\noptimizer_in_bwd: True\nloss:\n  _component_: torchtune.modules.loss.CEWithChunkedOutputLoss\n",
      "8B_qlora.yaml");
  REQUIRE(tune.ok);
  CHECK(tune.format == "torchtune");
  CHECK(tune.model == "llama-3.1-8b");
  CHECK(SettingOf(tune, "mode") == "qlora");
  CHECK(SettingOf(tune, "optimizer_impl") == "in_backward");
  CHECK(SettingOf(tune, "loss_kernel") == "chunked");

  const ProgramFileImport titan = ImportProgramFile(
      "[model]\nname = \"llama3\"\nflavor = \"70B\"\n[training]\nlocal_batch_size = 2\nseq_len = 8192\n"
      "[parallelism]\ntensor_parallel_degree = 8\ndata_parallel_shard_degree = -1\n[activation_checkpoint]\nmode = \"selective\"\n",
      "llama3_70b.toml");
  REQUIRE(titan.ok);
  CHECK(titan.model == "llama-3.1-70b");
  CHECK(SettingOf(titan, "tp") == "8");
  CHECK(SettingOf(titan, "recompute") == "op_selective");  // selective_ac_option defaults to "op"
  CHECK(SettingOf(titan, "dp").empty());                     // -1: whatever the GPUs leave

  const ProgramFileImport verl = ImportProgramFile(
      "python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo data.max_prompt_length=512 "
      "data.max_response_length=1024 actor_rollout_ref.model.path=Qwen/Qwen2.5-7B-Instruct "
      "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=4 actor_rollout_ref.rollout.name=vllm "
      "trainer.n_gpus_per_node=8 trainer.nnodes=2\n",
      "run.sh");
  REQUIRE(verl.ok);
  CHECK(verl.format == "verl");
  CHECK(SettingOf(verl, "rlhf") == "grpo");
  CHECK(SettingOf(verl, "seq") == "1536");
  CHECK(SettingOf(verl, "gpus") == "16");
  CHECK(SettingOf(verl, "rollout_engine") == "on");

  const ProgramFileImport rlhf = ImportProgramFile(
      "python3 -m openrlhf.cli.train_ppo_ray --pretrain meta-llama/Llama-3.1-8B --micro_train_batch_size 4 "
      "--prompt_max_len 1024 --generate_max_len 1024 --zero_stage 3 --bf16 --gradient_checkpointing --colocate_all_models\n",
      "ppo.sh");
  REQUIRE(rlhf.ok);
  CHECK(rlhf.format == "openrlhf");
  CHECK(SettingOf(rlhf, "rlhf") == "ppo");
  CHECK(SettingOf(rlhf, "seq") == "2048");
  CHECK(SettingOf(rlhf, "zero") == "3");
  CHECK(SettingOf(rlhf, "rollout_engine") == "on");

  const ProgramFileImport swift = ImportProgramFile(
      "NPROC_PER_NODE=4 swift sft --model Qwen/Qwen2.5-7B-Instruct --train_type lora --deepspeed zero3 "
      "--per_device_train_batch_size 1 --max_length 2048 --quant_bits 4\n",
      "sft.sh");
  REQUIRE(swift.ok);
  CHECK(swift.format == "ms-swift");
  CHECK(SettingOf(swift, "gpus") == "4");
  CHECK(SettingOf(swift, "mode") == "qlora");  // quant_bits 4 over train_type lora
  CHECK(SettingOf(swift, "zero") == "3");

  const ProgramFileImport fq = ImportProgramFile(
      "python train.py --model_name meta-llama/Llama-2-70b-hf --batch_size 2 --context_length 2048 --precision bf16 "
      "--train_type qlora --use_cpu_offload true --world_size 2\n",
      "fsdp_qlora.sh");
  REQUIRE(fq.ok);
  CHECK(fq.format == "fsdp-qlora");
  CHECK(SettingOf(fq, "offload_params") == "cpu");
  CHECK(SettingOf(fq, "zero") == "3");
  CHECK(SettingOf(fq, "gpus") == "2");
}

TEST_CASE("--from refuses what it cannot read, and names what contradicts itself") {
  CHECK(HasError(ImportProgramFile("a: [1\n", "x.yaml"), "line"));
  CHECK(HasError(ImportProgramFile("just: keys\nof: nothing\n", "x.yaml"), "not as a training program"));
  // Two keys that set the batch differently name both lines.
  const ProgramFileImport twice =
      ImportProgramFile("base_model: x/y\nmicro_batch_size: 2\nmicro_batch_size_again: 1\nbf16: true\nfp16: true\n", "a.yml");
  CHECK(twice.ok);  // bf16 and autocast fp16 are different fields: no contradiction here
  const ProgramFileImport clash = ImportProgramFile(
      "base_model: x/y\nadapter: lora\nload_in_4bit: true\n", "clash.yml");
  CHECK(HasError(clash, "line 2"));
  CHECK(HasError(clash, "line 3"));
  CHECK(HasError(ImportProgramFile("base_model: x/y\nmicro_batch_size: many\n", "b.yml"), "line 2"));
}

#ifdef LLMMEM_TEST_CLI
#include "cli/cli_args.h"
#include "core/config/config_json.h"

// Two doors, one answer: `llmmem --from FILE` (flags typed first) and ApplyProgramFile (the JS
// API and the page) give the same configuration for the same file.
TEST_CASE("--from: the CLI and ApplyProgramFile agree on every program's example") {
  const std::vector<std::pair<std::string, std::string>> files = {
      {"a.yml", "base_model: meta-llama/Llama-3.1-8B\nadapter: lora\nlora_r: 16\nsequence_len: 2048\nmicro_batch_size: 4\n"
                "gradient_checkpointing: true\nflash_attention: true\n"},
      {"lf.yaml", "model_name_or_path: Qwen/Qwen2.5-7B-Instruct\nstage: dpo\nfinetuning_type: full\ncutoff_len: 1024\n"
                  "per_device_train_batch_size: 2\nbf16: true\n"},
      {"ds.json", "{\"train_micro_batch_size_per_gpu\": 2, \"zero_optimization\": {\"stage\": 2}, \"bf16\": {\"enabled\": true}}"},
      {"t.toml", "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[training]\nlocal_batch_size = 2\nseq_len = 4096\n"},
      {"run.sh", "torchrun --nproc_per_node 8 train.py --model_name_or_path meta-llama/Llama-3.2-1B "
                 "--per_device_train_batch_size 4 --fsdp full_shard --bf16\n"},
      {"v.sh", "python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo data.max_prompt_length=256 "
               "data.max_response_length=512 actor_rollout_ref.model.path=Qwen/Qwen2.5-7B trainer.n_gpus_per_node=4\n"},
  };
  for (const auto& [name, text] : files) {
    CAPTURE(name);
    const std::string body = text;
    llmmem::cli::CliParse cli = llmmem::cli::ParseCli(
        {"--from", name}, [&](const std::string&, std::string&) { return std::optional<std::string>(body); });
    for (const Diagnostic& d : cli.diagnostics) CHECK_MESSAGE(d.severity != Severity::kError, d.message);
    const ProgramFileImport f = ImportProgramFile(text, name);
    REQUIRE(f.ok);
    Config c = DefaultConfig();
    Diagnostics out;
    ApplyProgramFile(c, f, out);
    CHECK(ConfigToJson(c).Dump() == ConfigToJson(cli.options.config).Dump());
  }
}
#endif

// Issue 30: the program and version from what a user can paste: pip freeze, pip list, a
// requirements file. The most specific program installed, at its version, picks its row.
TEST_CASE("program files: a package list names the program and the version its row is for") {
  const ProgramFileImport freeze = ImportProgramFile(
      "accelerate==1.1.1\nbitsandbytes==0.44.1\npeft==0.13.2\ntorch==2.5.1\ntransformers==4.46.3\ntrl==0.12.1\n",
      "freeze.txt");
  REQUIRE(freeze.ok);
  CHECK(freeze.format == "packages");
  CHECK(freeze.stack == "trl");
  const ProgramSetting* stack = nullptr;
  for (const ProgramSetting& s : freeze.settings)
    if (s.field == "stack") stack = &s;
  REQUIRE(stack != nullptr);
  CHECK(stack->value == "trl@0.12.1");
  CHECK(stack->from.key == "trl");
  CHECK(stack->from.line == 6);
  CHECK(freeze.ignored.size() == 5);  // transformers "installed too", and four with their meaning
  CHECK(freeze.unknown.empty());
  Config c = DefaultConfig();
  Diagnostics out;
  ApplyProgramFile(c, freeze, out);
  CHECK(c.stack == "trl@0.12.1");
  CHECK(c.loss_shift_copy);  // trl's row before 0.15: the transformers of its time copies the shifted logits
  // pip list's table; a version older than every row takes the earliest, and says so.
  const ProgramFileImport list = ImportProgramFile(
      "Package      Version\n------------ -------\naxolotl      0.5.2\ntransformers 4.46.3\n", "pip-list.txt");
  REQUIRE(list.ok);
  CHECK(list.settings.front().value == "axolotl@0.18");
  CHECK(list.settings.front().from.note.find("older than any row") != std::string::npos);
  // A requirements file's lower bound picks that version's row.
  const ProgramFileImport req = ImportProgramFile("transformers[torch]>=4.41\npeft\n", "requirements.txt");
  REQUIRE(req.ok);
  CHECK(req.settings.front().value == "hf-trainer@4.41");
  // No program among them: the default is assumed, with a warning.
  const ProgramFileImport none = ImportProgramFile("numpy==1.26.4\nrequests==2.32.3\n", "env.txt");
  REQUIRE(none.ok);
  CHECK(none.diagnostics.size() == 1);
  CHECK(none.diagnostics.front().message.find("none of the packages") == 0);
  // YAML, TOML and a command line are never taken for a package list.
  CHECK_FALSE(LooksLikePackageList("base_model: meta-llama/Llama-3.1-8B\nsequence_len: 4096\n"));
  CHECK_FALSE(LooksLikePackageList("[training]\nseq_len = 8192\n"));
  CHECK_FALSE(LooksLikePackageList("torchrun --nproc_per_node 8 train.py --per_device_train_batch_size 4\n"));
  CHECK(ImportProgramFile("torchrun --nproc_per_node 8 train.py --per_device_train_batch_size 4\n", "run.txt").format ==
        "hf-args");
  // A bad line names itself.
  const ProgramFileImport bad = ImportProgramFile("transformers==4.46.3\ntrl==0.12.1\n!!!\n", "requirements.txt");
  CHECK_FALSE(bad.ok);
  CHECK(bad.diagnostics.front().message.find("line 3") != std::string::npos);
  // A program file that only implies its program keeps the version a package list gave.
  Config both = DefaultConfig();
  ApplyProgramFile(both, list, out);
  ApplyProgramFile(both, ImportProgramFile("base_model: meta-llama/Llama-3.1-8B\nsequence_len: 2048\n", "a.yml"), out);
  CHECK(both.stack == "axolotl@0.18");
  CHECK(both.seq == 2048);
}

// The UI's ImGui-free logic: settings documents (tolerant, all-or-nothing), the weights
// header read loop (bounded reads), file classification, the compare pin, the UI's
// defaults (first screen, modes, presets' formats) and the undo history.
#include <doctest.h>

#include "app/compare.h"
#include "app/settings_doc.h"
#include "app/state.h"
#include "app/ui_defaults.h"
#include "app/weights.h"
#include "core/config/stacks.h"
#include "setups.h"

using namespace llmmem::test;
using namespace llmmem::app;

TEST_CASE("Settings: a saved document round-trips; a corrupt one is refused whole") {
  Config c = DefaultConfig();
  c.batch = 6;
  c.mode = Mode::kLora;
  const std::string text = SettingsToJsonText(c, "units=gib&view=charts");
  const SettingsParse back = ParseSettingsText(text);
  REQUIRE(back.ok);
  CHECK(back.config.batch == 6);
  CHECK(back.config.mode == Mode::kLora);
  CHECK(back.view_query == "units=gib&view=charts");
  CHECK_FALSE(ParseSettingsText("{\"batch\": ").ok);
  CHECK_FALSE(ParseSettingsText("").ok);
  const SettingsParse bad_field = ParseSettingsText("{\"batch\": \"many\"}");
  CHECK_FALSE(bad_field.ok);  // never half-loaded
  CHECK_FALSE(bad_field.error.empty());
}

TEST_CASE("Weights: the header loop reads only what the header needs") {
  // A safetensors file with a 1 GB data section: only the header is ever requested.
  std::string header = "{\"w\":{\"dtype\":\"BF16\",\"shape\":[32768,16384],\"data_offsets\":[0,1073741824]}}";
  while (header.size() % 8) header += ' ';
  std::string prefix(8, '\0');
  // 64-bit before shifting: size_t is 32 bits in WASM, where a shift by 32 is undefined.
  for (int i = 0; i < 8; ++i) prefix[i] = static_cast<char>((static_cast<uint64_t>(header.size()) >> (8 * i)) & 0xff);
  prefix += header;
  const uint64_t file_size = prefix.size() + 1073741824ull;
  uint64_t largest_read = 0;
  int reads = 0;
  const llmmem::core::WeightHeaderResult r = ProbeWeightHeader([&](uint64_t offset, uint64_t n) {
    ++reads;
    largest_read = std::max(largest_read, offset + n);
    FilePrefix p;
    p.ok = true;
    p.file_size = file_size;
    const uint64_t end = std::min<uint64_t>(offset + n, 1 << 20);
    p.bytes = prefix.substr(
        std::min<size_t>(static_cast<size_t>(offset), prefix.size()),
        static_cast<size_t>(std::min<uint64_t>(end, prefix.size()) - std::min<uint64_t>(offset, prefix.size())));
    if (end > prefix.size() && end > offset)
      p.bytes.append(static_cast<size_t>(end - std::max<uint64_t>(offset, prefix.size())), '\0');
    return p;
  });
  REQUIRE(r.ok());
  CHECK(r.parameter_count == 32768ull * 16384);
  CHECK(largest_read <= llmmem::core::kWeightHeaderFirstRead);
  CHECK(reads <= 2);
  CHECK(ClassifyFileName("model.safetensors.index.json") == FileKind::kWeights);
  CHECK(ClassifyFileName("config.json") == FileKind::kJsonText);
  CHECK(LooksLikeHfConfig("{\"model_type\": \"llama\"}"));
  CHECK_FALSE(LooksLikeHfConfig("{\"batch\": 4}"));
}

TEST_CASE("Weights: the page's read across frames is chunked, resumable and cancellable") {
  // A GGUF header of many key/values, fed in 1 KiB chunks as boot.js feeds File.slice's.
  std::string f = std::string("GGUF") + std::string("\x03\0\0\0", 4) + std::string(8, '\0');
  std::string kv;
  const int n = 3000;
  // Little-endian 64-bit fields from 64-bit values (an int or a 32-bit size_t shifted by
  // 32 or more is undefined: the WASM build read garbage).
  auto u64 = [&f](uint64_t v) {
    for (int b = 0; b < 8; ++b) f += static_cast<char>((v >> (8 * b)) & 0xff);
  };
  u64(static_cast<uint64_t>(n));
  for (int i = 0; i < n; ++i) {
    const std::string key = "k" + std::to_string(i);
    u64(key.size());
    f += key + std::string("\0\0\0\0", 4) + "x";  // uint8 value
  }
  WeightStream stream;
  const int64_t id = stream.Begin("many.gguf", f.size());
  double at = 0;
  int feeds = 0;
  while (at >= 0) {
    REQUIRE(++feeds < 10000);
    const size_t off = static_cast<size_t>(at);
    const size_t len = std::min<size_t>(1024, f.size() - off);
    at = stream.Feed(id, reinterpret_cast<const uint8_t*>(f.data()) + off, len);
  }
  REQUIRE(stream.finished());
  std::string name;
  const llmmem::core::WeightHeaderResult r = stream.Take(&name);
  INFO(r.message);
  CHECK(r.ok());
  CHECK(name == "many.gguf");
  CHECK(r.gguf.kv_count == 3000);
  CHECK(feeds > 30);

  // Cancelled halfway: the next feed answers -1 and no result waits.
  const int64_t id2 = stream.Begin("many.gguf", f.size());
  CHECK(stream.Feed(id2, reinterpret_cast<const uint8_t*>(f.data()), 1024) > 0);
  stream.Cancel();
  CHECK(stream.Feed(id2, reinterpret_cast<const uint8_t*>(f.data()) + 1024, 1024) == -1);
  CHECK_FALSE(stream.finished());
  // A newer drop replaces an older read.
  const int64_t id3 = stream.Begin("a.gguf", f.size());
  const int64_t id4 = stream.Begin("b.gguf", f.size());
  CHECK(id3 != id4);
  CHECK(stream.Feed(id3, reinterpret_cast<const uint8_t*>(f.data()), 1024) == -1);
}

TEST_CASE("Compare: a pin matches components by id") {
  Config c = DefaultConfig();
  const Estimate before = Explain(c);
  const Pinned pin = MakePinned(c, before, "before");
  c.recompute = Recompute::kFull;
  const Estimate after = Explain(c);
  const double* pinned_total = PinnedBytes(pin, "total");
  REQUIRE(pinned_total != nullptr);
  CHECK(*pinned_total == before.totals.peak_bytes);
  CHECK(PinnedBytes(pin, "total.activations.layer_inputs") == nullptr);  // new with full recompute
  CHECK(after.tree.Find("total.activations.layer_inputs") != nullptr);
}

// ---- The UI's defaults (app/ui_defaults.h) and its undo history (app/state.h) ----------

TEST_CASE("UI defaults: the first screen fits; a mode brings what its training program runs it with") {
  Config c = FirstScreenConfig();
  CHECK(c.mode == Mode::kInference);
  CHECK(EstimateTotals(c).Fits());
  // hf-trainer + peft (core/config/stacks.h): prepare_model_for_kbit_training checkpoints
  // QLoRA; TrainingArguments.gradient_checkpointing=False leaves LoRA and full training alone.
  SwitchMode(c, Mode::kQlora);
  CHECK(c.recompute == Recompute::kFull);
  SwitchMode(c, Mode::kLora);
  CHECK(c.recompute == Recompute::kNone);
  c.recompute = Recompute::kFull;  // the user's choice stays through mode changes
  SwitchMode(c, Mode::kTraining);
  CHECK(c.recompute == Recompute::kFull);
  c.recompute = Recompute::kNone;
  // Under TRL >= 0.22 every training mode checkpoints (SFTConfig gradient_checkpointing=True).
  c.stack = "trl";
  FollowStack(c, "hf-trainer", c.mode);
  CHECK(c.recompute == Recompute::kFull);
  SwitchMode(c, Mode::kInference);
  CHECK(c.recompute == Recompute::kNone);
  // Qwen2.5-32B QLoRA at 8k: checkpointing is what keeps it on one 80 GB card.
  Config q = FirstScreenConfig();
  PickPreset(q, *FindPreset("qwen2.5-32b"));
  q.seq = 8192;
  SwitchMode(q, Mode::kQlora);
  CHECK(EstimateTotals(q).peak_bytes < 60e9);
}

TEST_CASE("UI defaults: a preset opens in the format it ships in") {
  const Preset* r1 = FindPreset("deepseek-r1");
  REQUIRE(r1 != nullptr);
  CHECK(r1->shipped_dtype == Dtype::kFp8);
  CHECK(FindPreset("qwen2.5-7b")->shipped_dtype == Dtype::kBf16);
  CHECK(FindPreset("gpt2")->shipped_dtype == Dtype::kFp32);
  Config c = FirstScreenConfig();
  PickPreset(c, *r1);
  CHECK(c.dtype == Dtype::kFp8);
  SwitchMode(c, Mode::kLora);  // trains in 16 bits
  CHECK(c.dtype == Dtype::kBf16);
  // A link naming the model without a dtype opens it in its format (the core's default,
  // PresetDtype); one with a dtype keeps it, and the page writes a dtype that is not the
  // preset's, so the link reopens it as it is.
  CHECK(ConfigFromQuery("v=1&model=deepseek-r1&mode=infer", DefaultConfig()).config.dtype == Dtype::kFp8);
  const ConfigParse kept = ConfigFromQuery("v=1&model=deepseek-r1&mode=infer&dtype=bf16", DefaultConfig());
  CHECK(kept.config.dtype == Dtype::kBf16);
  CHECK(ConfigToQuery(kept.config).find("&dtype=bf16") != std::string::npos);
  CHECK(ConfigToQuery(c).find("&dtype=") == std::string::npos);  // LoRA's bf16 is the default
}

TEST_CASE("Undo: every edit is a step, typing is one step, redo takes it again") {
  State s;
  s.config = FirstScreenConfig();
  ResetHistory(s);
  // Typing 8192 passes through 8, 81, 819 while the field is active: one step.
  for (int64_t v : {8, 81, 819, 8192}) {
    s.config.seq = v;
    s.dirty = true;
    Refresh(s);
    CommitEdit(s, /*editing=*/true);
  }
  CommitEdit(s, false);
  REQUIRE(s.undo.size() == 1);
  s.config.batch = 4;  // a click
  s.dirty = true;
  s.pending_label = "Sequences at once";
  Refresh(s);
  CommitEdit(s, false);
  REQUIRE(s.undo.size() == 2);
  CHECK(s.undo.back().label == "Sequences at once");
  Config reset = FirstScreenConfig();
  ApplyConfig(s, reset, "reset to defaults");
  CHECK(s.undo.size() == 3);
  CHECK(s.config.seq == reset.seq);
  REQUIRE(Undo(s));
  CHECK(s.config.batch == 4);
  CHECK(s.config.seq == 8192);
  REQUIRE(Undo(s));
  CHECK(s.config.batch == reset.batch);
  CHECK(s.config.seq == 8192);
  REQUIRE(Redo(s));
  CHECK(s.config.batch == 4);
  REQUIRE(Undo(s));
  REQUIRE(Undo(s));
  CHECK(s.config.seq == reset.seq);
  CHECK_FALSE(Undo(s));
  // A new edit after undoing drops what could be redone.
  s.config.seq = 2048;
  s.dirty = true;
  Refresh(s);
  CommitEdit(s, false);
  CHECK(s.redo.empty());
}

TEST_CASE("Links: a value that cannot be taken stays in the link and in an editable banner") {
  // Issue 28: batch=1e308 was named in a banner, then dropped from the address bar by the next
  // write, so the user could neither see nor fix what they typed.
  State s;
  std::string written;
  s.hooks.state_changed = [&written](const std::string& q) { written = q; };
  OpenLinkQuery(s, "v=1&batch=1e308&seq=4096&nosuch=1&gpu=0x10", DefaultConfig(), "Link state");
  Refresh(s);
  CHECK(s.config.seq == 4096);  // what could be taken is
  CHECK(s.link_kept == "batch=1e308&nosuch=1&gpu=0x10");
  CHECK(written.find("&batch=1e308&nosuch=1&gpu=0x10") != std::string::npos);
  REQUIRE(s.banners.size() == 1);
  CHECK(s.banners[0].link);
  CHECK(std::string(s.link_edit.data()) == s.link_kept);
  // An edit elsewhere keeps them.
  s.config.batch = 2;
  s.dirty = true;
  Refresh(s);
  CommitEdit(s, false);
  CHECK(written.find("batch=1e308") != std::string::npos);
  // Fixed in the banner: what is now taken is applied (one undo step), the rest stays.
  const size_t steps = s.undo.size();
  ApplyKeptLink(s, "batch=8&nosuch=1&gpu=0x10");
  CHECK(s.config.batch == 8);
  CHECK(s.undo.size() == steps + 1);
  CHECK(s.link_kept == "nosuch=1&gpu=0x10");
  CHECK(written.find("batch=1e308") == std::string::npos);
  REQUIRE(s.banners.size() == 1);
  DropKeptLink(s);
  CHECK(s.link_kept.empty());
  CHECK(s.banners.empty());
  CHECK(written.find("nosuch") == std::string::npos);
}

TEST_CASE("Links: an over-long link is read up to the limit and the rest is kept, not dropped whole") {
  std::string q = "v=1&seq=4096&batch=2";
  while (q.size() < 20000) q += "&name=" + std::string(100, 'x');
  State s;
  OpenLinkQuery(s, q, DefaultConfig(), "Link state");
  CHECK(s.config.seq == 4096);
  CHECK(s.config.batch == 2);
  CHECK_FALSE(s.link_kept.empty());
  CHECK(s.link_kept.size() < q.size());
  CHECK(q.substr(q.size() - s.link_kept.size()) == s.link_kept);  // kept exactly as written
}

TEST_CASE("Files: logs go to the OOM reader by name, and any text does while that tab asks for one") {
  // Issue 28: a dropped .txt went to the weights reader (its first MiB parsed as a header),
  // and Slurm's .out/.err logs never reached the OOM reader.
  for (const char* log : {"train.txt", "OOM.LOG", "slurm-4242.out", "job.err", "console.Txt"}) {
    CHECK(ClassifyFile(log, false) == FileKind::kLogText);
  }
  CHECK(ClassifyFile("nohup", false) == FileKind::kWeights);  // sniffed as weights elsewhere
  CHECK(ClassifyFile("nohup", true) == FileKind::kLogText);   // the OOM tab asked for a log
  CHECK(ClassifyFile("model.safetensors", true) == FileKind::kWeights);
  CHECK(ClassifyFile("model.safetensors.index.json", true) == FileKind::kWeights);
  CHECK(ClassifyFile("config.json", true) == FileKind::kJsonText);
  CHECK(ClassifyFileName("a.gguf") == FileKind::kWeights);
}

// Issue 32: the theme follows the platform's prefers-color-scheme; a link or saved state
// names a theme only when it is not the platform's, as it names a language.
TEST_CASE("View keys: the theme is written only when it is not the platform's colour scheme") {
  State s;
  s.browser_light = false;
  s.dark = true;
  CHECK(ViewKeys(s).find("theme=") == std::string::npos);
  s.dark = false;
  CHECK(ViewKeys(s).find("&theme=light") != std::string::npos);
  s.browser_light = true;  // a light system: light is the default, dark is written
  CHECK(ViewKeys(s).find("theme=") == std::string::npos);
  s.dark = true;
  CHECK(ViewKeys(s).find("&theme=dark") != std::string::npos);
  State link;
  link.browser_light = true;
  link.dark = false;
  CHECK(TakeViewKeys(link, "v=1&theme=dark&model=gpt2") == "v=1&model=gpt2");
  CHECK(link.dark);
}

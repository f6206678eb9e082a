// The UI's ImGui-free logic: settings documents (tolerant, all-or-nothing), the weights
// header read loop (bounded reads), file classification and the compare pin.
#include <doctest.h>

#include "app/compare.h"
#include "app/settings_doc.h"
#include "app/weights.h"
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
  for (int i = 0; i < 8; ++i) prefix[i] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
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
    p.bytes = prefix.substr(std::min<size_t>(static_cast<size_t>(offset), prefix.size()),
                            static_cast<size_t>(std::min<uint64_t>(end, prefix.size()) - std::min<uint64_t>(offset, prefix.size())));
    if (end > prefix.size() && end > offset) p.bytes.append(static_cast<size_t>(end - std::max<uint64_t>(offset, prefix.size())), '\0');
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
  for (int i = 0; i < 8; ++i) f += static_cast<char>((n >> (8 * i)) & 0xff);
  for (int i = 0; i < n; ++i) {
    const std::string key = "k" + std::to_string(i);
    for (int b = 0; b < 8; ++b) f += static_cast<char>((key.size() >> (8 * b)) & 0xff);
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

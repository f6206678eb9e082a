// Opened files and weight headers; see weights.h.
#include "app/weights.h"

#include <algorithm>

#include "app/i18n.h"
#include "core/parse/json.h"

namespace llmmem::app {
namespace {

bool EndsWith(const std::string& s, const char* suffix) {
  const std::string x(suffix);
  if (s.size() < x.size()) return false;
  for (size_t i = 0; i < x.size(); ++i) {
    char c = s[s.size() - x.size() + i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != x[i]) return false;
  }
  return true;
}

}  // namespace

FileKind ClassifyFile(const std::string& name, bool oom_tab_open) {
  const std::string& lower = name;  // EndsWith ignores case
  if (EndsWith(lower, ".index.json")) return FileKind::kWeights;
  if (EndsWith(lower, ".json")) return FileKind::kJsonText;
  for (const char* program : {".yaml", ".yml", ".toml", ".sh"})
    if (EndsWith(lower, program)) return FileKind::kProgramText;
  for (const char* log : {".txt", ".log", ".out", ".err"})
    if (EndsWith(lower, log)) return FileKind::kLogText;
  bool weights_name = false;
  for (const char* w : {".safetensors", ".gguf", ".bin", ".pt", ".pth"}) weights_name |= EndsWith(lower, w);
  return oom_tab_open && !weights_name ? FileKind::kLogText : FileKind::kWeights;
}

FileKind ClassifyFileName(const std::string& name) { return ClassifyFile(name, false); }

bool LooksLikeHfConfig(const std::string& text) {
  const core::JsonParseResult j = core::ParseJson(text);
  if (!j.ok || !j.value.IsObject()) return true;  // the HF importer reports the parse error
  return j.value.Find("model_type") != nullptr || j.value.Find("architectures") != nullptr ||
         j.value.Find("hidden_size") != nullptr;
}

core::WeightHeaderResult ProbeWeightHeader(const RangeReader& read, int max_reads) {
  core::WeightHeaderResult r;
  r.status = core::WeightHeaderStatus::kError;
  r.error = core::WeightIssue::kTruncated;
  FilePrefix first = read(0, core::kWeightHeaderFirstRead);
  if (!first.ok) {
    r.message = first.error;
    return r;
  }
  core::WeightHeaderReader reader(first.file_size);
  FilePrefix chunk = std::move(first);
  for (int i = 0; i < max_reads; ++i) {
    if (reader.Feed(reinterpret_cast<const uint8_t*>(chunk.bytes.data()), chunk.bytes.size()) !=
        core::WeightHeaderStatus::kNeedMoreBytes) {
      return reader.result();
    }
    chunk = read(reader.next_offset(), reader.next_size());
    if (!chunk.ok) {
      r.message = chunk.error;
      return r;
    }
  }
  r.message = TrF("the header did not end within %d reads", max_reads);
  return r;
}

int64_t WeightStream::Begin(const std::string& name, uint64_t file_size) {
  reader_ = std::make_unique<core::WeightHeaderReader>(file_size);
  name_ = name;
  file_size_ = file_size;
  finished_ = false;
  ++id_;
  if (reader_->status() != core::WeightHeaderStatus::kNeedMoreBytes) {  // an empty file
    result_ = reader_->result();
    reader_.reset();
    finished_ = true;
  }
  return id_;
}

double WeightStream::Feed(int64_t id, const uint8_t* data, size_t size) {
  if (id != id_ || !reader_) return -1;
  if (reader_->Feed(data, size) == core::WeightHeaderStatus::kNeedMoreBytes) return NextOffset();
  result_ = reader_->result();
  reader_.reset();
  finished_ = true;
  return -1;
}

double WeightStream::NextOffset() const { return reader_ ? static_cast<double>(reader_->next_offset()) : -1; }
// A quarter of the reader's chunk: a few milliseconds of parsing per turn of the event loop,
// but never less than the next item needs.
double WeightStream::NextSize() const {
  if (!reader_) return 0;
  const uint64_t at = reader_->next_offset();
  const uint64_t need = reader_->need_end() > at ? reader_->need_end() - at : 1;
  return static_cast<double>(std::min(reader_->next_size(), std::max(need, kPageChunk)));
}

void WeightStream::Cancel() {
  reader_.reset();
  finished_ = false;
}

core::WeightHeaderResult WeightStream::Take(std::string* name) {
  finished_ = false;
  *name = name_;
  return std::move(result_);
}

std::string ApplyGgufInfo(const core::GgufModelInfo& g, core::ModelSpec* m) {
  std::string applied;
  auto set = [&](const char* name, int64_t v, int64_t* field) {
    if (v <= 0) return;
    *field = v;
    if (!applied.empty()) applied += ", ";
    applied += std::string(name) + "=" + std::to_string(v);
  };
  set("layers", g.block_count, &m->layers);
  set("hidden", g.embedding_length, &m->hidden);
  set("heads", g.head_count, &m->heads);
  set("kv_heads", g.head_count_kv > 0 ? g.head_count_kv : g.head_count, &m->kv_heads);
  if (g.key_length > 0) {
    set("head_dim", g.key_length, &m->head_dim);
  } else if (g.embedding_length > 0 && g.head_count > 0) {
    set("head_dim", g.embedding_length / g.head_count, &m->head_dim);
  }
  set("vocab", g.vocab_size, &m->vocab);
  if (g.expert_count > 0) {
    set("experts", g.expert_count, &m->experts);
    set("experts_per_token", g.expert_used_count, &m->experts_per_token);
    set("moe_ffn", g.feed_forward_length, &m->moe_ffn);
  } else {
    set("ffn", g.feed_forward_length, &m->ffn);
  }
  if (applied.empty()) return applied;
  m->preset.clear();
  m->name = !g.name.empty() ? g.name : (!g.architecture.empty() ? g.architecture : std::string("GGUF model"));
  return applied;
}

}  // namespace llmmem::app

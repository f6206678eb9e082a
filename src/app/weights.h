// Files the user opens or drops: which kind a name is, the bounded header-read loop for
// weight files (the platform supplies the reads: File.slice in the browser, a bounded
// reader on the desktop), the page's cancellable read across frames, and what a GGUF header
// can fill in of a model.
// May include: core (no imgui), so tests can cover it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/model/model.h"
#include "core/parse/weight_headers.h"

namespace llmmem::app {

enum class FileKind {
  kJsonText,  // a .json that is not an index: a Hugging Face config.json or an llmmem config
  kWeights,   // .safetensors, .gguf, model.safetensors.index.json, or anything else (sniffed)
  kLogText,   // a log or a saved message: read on the "Read an OOM" tab, from its end
  kProgramText,  // a training program's YAML, TOML or launch script (.yaml .yml .toml .sh): --from's reading
};
// By the name's ending: .txt, .log, .out and .err (any case; Slurm writes .out/.err) are logs.
// With the "Read an OOM" tab open, which asks for a log, any file that is not named as weights
// or JSON is one too.
FileKind ClassifyFile(const std::string& name, bool oom_tab_open);
FileKind ClassifyFileName(const std::string& name);  // ClassifyFile(name, false)

// True when a parsed JSON text looks like a Hugging Face config.json (model_type or
// architectures), false for an llmmem configuration.
bool LooksLikeHfConfig(const std::string& text);

// The bytes [offset, offset + n) of the file (fewer at its end), its size, or an error.
struct FilePrefix {
  bool ok = false;
  std::string bytes;
  uint64_t file_size = 0;
  std::string error;
};
using RangeReader = std::function<FilePrefix(uint64_t offset, uint64_t n)>;

// Reads the header in chunks, each parsed as it arrives (core::WeightHeaderReader): never
// the tensor data, never a byte twice. Stops after `max_reads` reads.
core::WeightHeaderResult ProbeWeightHeader(const RangeReader& read, int max_reads = 1 << 16);

// A weights file read across frames (the page: File.slice per chunk, one chunk per turn of
// the event loop), cancellable at any point. One at a time: Begin replaces the one before,
// whose Feed calls then answer -1.
class WeightStream {
 public:
  static constexpr uint64_t kPageChunk = 256u << 10;

  // Returns the new stream's id (> 0).
  int64_t Begin(const std::string& name, uint64_t file_size);
  // Bytes from NextOffset() for stream `id`; returns the next offset wanted, or -1 when the
  // stream is done (complete, failed, cancelled or replaced).
  double Feed(int64_t id, const uint8_t* data, size_t size);
  double NextOffset() const;  // -1 when not reading
  double NextSize() const;    // how many bytes to slice next
  void Cancel();
  bool reading() const { return reader_ != nullptr; }
  bool finished() const { return finished_; }  // a result waits: Take() it
  core::WeightHeaderResult Take(std::string* name);
  const std::string& name() const { return name_; }
  uint64_t file_size() const { return file_size_; }

 private:
  std::unique_ptr<core::WeightHeaderReader> reader_;
  int64_t id_ = 0;
  std::string name_;
  uint64_t file_size_ = 0;
  bool finished_ = false;
  core::WeightHeaderResult result_;
};

// The model fields a GGUF header states, applied onto `m` (only those it states).
// Returns the applied fields as "layers=32, hidden=4096, ..." (empty: nothing usable).
std::string ApplyGgufInfo(const core::GgufModelInfo& g, core::ModelSpec* m);

}  // namespace llmmem::app

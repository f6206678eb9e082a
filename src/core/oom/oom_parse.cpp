// ReadEvidence: runs every reader over the text, orders what they found by line, folds
// repeats of one message into one observation, and says so when nothing was recognised.
#include <algorithm>

#include "core/base/safe_text.h"
#include "core/oom/oom_evidence.h"
#include "core/oom/oom_scan.h"
#include "core/base/stable_order.h"

namespace llmmem::core {
namespace {

bool Same(const Figure& a, const Figure& b) { return a.bytes == b.bytes && a.tolerance == b.tolerance; }

// One message printed twice (a traceback's last line and a log line) is one failure.
bool SameMessage(const Observation& a, const Observation& b) {
  return a.IsOom() && a.form == b.form && a.device == b.device && a.backend == b.backend &&
         Same(a.capacity, b.capacity) && Same(a.free, b.free) && Same(a.request, b.request) &&
         Same(a.allocated, b.allocated) && Same(a.reserved, b.reserved) && Same(a.process_total, b.process_total) &&
         a.processes.size() == b.processes.size() && a.form != EvidenceForm::kCudaErrorOom;
}

// The last kOomMaxTextBytes of a longer text, from the first whole line in them.
std::string Tail(const std::string& text) {
  size_t begin = text.size() - kOomMaxTextBytes;
  const size_t nl = text.find('\n', begin > 0 ? begin - 1 : 0);
  begin = nl == std::string::npos ? begin : nl + 1;
  return text.substr(begin);
}

// Names and excerpts cut to a bound, on a character boundary.
void Bound(std::string& s, size_t max_bytes) {
  if (s.size() > max_bytes) s = CutUtf8(s, max_bytes) + " ...";
}

// At most kOomMaxObservations: the failures first, the latest of them (the one that ended the
// run is at the end of its log), then the other blocks in the order of the text.
void KeepSome(std::vector<Observation>& obs, size_t not_read, Evidence& e) {
  if (obs.size() <= kOomMaxObservations && not_read == 0) return;
  std::vector<size_t> oom, other;
  for (size_t i = 0; i < obs.size(); ++i) (obs[i].IsOom() ? oom : other).push_back(i);
  std::vector<bool> keep(obs.size(), false);
  size_t kept = 0;
  for (size_t k = oom.size(); k-- > 0 && kept < kOomMaxObservations;) keep[oom[k]] = true, ++kept;
  for (size_t k = 0; k < other.size() && kept < kOomMaxObservations; ++k) keep[other[k]] = true, ++kept;
  std::vector<Observation> out;
  out.reserve(kept);
  for (size_t i = 0; i < obs.size(); ++i)
    if (keep[i]) out.push_back(std::move(obs[i]));
  e.left_out = obs.size() - kept + not_read;
  obs = std::move(out);
  e.notes.push_back("the text holds " + std::to_string(kept + e.left_out) + " blocks (GPUs and messages); " +
                    std::to_string(kept) + " are shown, the failures first and the latest of them, and " +
                    std::to_string(e.left_out) + " are left out");
}

}  // namespace

Evidence ReadEvidence(const std::string& input) {
  Evidence e;
  std::string encoding_note;
  std::string text = OomTextAsUtf8(input, &encoding_note);
  if (!encoding_note.empty()) e.notes.push_back(encoding_note);
  if (text.size() > kOomMaxTextBytes) {
    text = Tail(text);
    e.truncated = true;
    e.notes.push_back("the text is " + std::to_string(input.size()) + " bytes; only its last 8 MiB were read (a log is read up to 8 MiB, from its end, where a "
                      "run's failure is)");
  }
  oom::ObservationList list;
  oom::ReadTorchOom(oom::Flatten(text), list);
  const std::vector<std::string> lines = oom::SplitLines(text);
  oom::ReadNvidiaSmi(lines, list);
  oom::ReadNvidiaSmiCsv(lines, list);
  oom::ReadTorchSummaries(text, lines, list);
  std::vector<Observation>& found = list.items();
  StableSort(found, [](const Observation& a, const Observation& b) { return a.line < b.line; });
  // Repeats are looked for among the failures only (the other blocks are never folded), so
  // thousands of nvidia-smi rows cost no comparisons.
  std::vector<size_t> failures;
  for (Observation& o : found) {
    bool repeat = false;
    for (size_t k = failures.size(); o.IsOom() && k-- > 0 && !repeat;) {
      if (SameMessage(e.observations[failures[k]], o)) {
        ++e.observations[failures[k]].repeats;
        repeat = true;
      }
    }
    if (repeat) continue;
    if (o.IsOom()) failures.push_back(e.observations.size());
    e.observations.push_back(std::move(o));
  }
  KeepSome(e.observations, list.dropped(), e);
  for (Observation& o : e.observations) {
    Bound(o.gpu_name, kOomMaxNameBytes);
    Bound(o.excerpt, 600);
    for (GpuProcess& p : o.processes) Bound(p.name, kOomMaxNameBytes);
    if (o.capacity.Known() && o.capacity.bytes == 0)
      o.notes.push_back(
          "the total capacity reads 0 bytes: the device had no memory to give when this was printed (a MIG "
          "instance or vGPU without a memory slice, a device hidden by CUDA_VISIBLE_DEVICES, or a driver that "
          "failed); there is no card to draw or match, check nvidia-smi on that machine");
  }
  e.recognised = !e.observations.empty();
  if (!e.recognised) {
    e.notes.push_back(std::string(oom::Trim(text).empty() ? "nothing to read: the text is empty" : "not recognised") +
                      ". The reader knows these forms:\n" + RecognisedFormsText());
  }
  return e;
}

}  // namespace llmmem::core

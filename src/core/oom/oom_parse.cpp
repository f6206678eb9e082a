// ReadEvidence: runs every reader over the text, orders what they found by line, folds
// repeats of one message into one observation, and says so when nothing was recognised.
#include <algorithm>

#include "core/oom/oom_evidence.h"
#include "core/oom/oom_scan.h"

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

}  // namespace

Evidence ReadEvidence(const std::string& input) {
  Evidence e;
  std::string text = input;
  if (text.size() > kOomMaxTextBytes) {
    text.resize(kOomMaxTextBytes);
    e.truncated = true;
    e.notes.push_back("only the first 8 MiB of the text were read");
  }
  std::vector<Observation> found;
  oom::ReadTorchOom(oom::Flatten(text), found);
  const std::vector<std::string> lines = oom::SplitLines(text);
  oom::ReadNvidiaSmi(lines, found);
  oom::ReadNvidiaSmiCsv(lines, found);
  oom::ReadTorchSummaries(text, lines, found);
  std::stable_sort(found.begin(), found.end(),
                   [](const Observation& a, const Observation& b) { return a.line < b.line; });
  for (Observation& o : found) {
    auto same = std::find_if(e.observations.begin(), e.observations.end(),
                             [&](const Observation& x) { return SameMessage(x, o); });
    if (same != e.observations.end()) {
      ++same->repeats;
      continue;
    }
    e.observations.push_back(std::move(o));
  }
  e.recognised = !e.observations.empty();
  if (!e.recognised) {
    e.notes.push_back(std::string(oom::Trim(text).empty() ? "nothing to read: the text is empty" : "not recognised") +
                      ". The reader knows these forms:\n" + RecognisedFormsText());
  }
  return e;
}

}  // namespace llmmem::core

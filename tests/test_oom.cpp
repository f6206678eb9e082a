// Reading the evidence (core/oom_evidence.h) and the bar (core/oom_report.h): every form's
// figures as printed, with their rounding; segments that add up to the capacity, never
// negative; contradictions said, not drawn.
#include <doctest.h>

#include <cmath>
#include <limits>
#include <string>

#include "core/oom/oom_json.h"
#include "core/oom/oom_report.h"
#include "core/oom/oom_wire.h"
#include "core/parse/json.h"
#include "oom_samples.h"
#include "setups.h"

using namespace llmmem::test;
namespace s = llmmem::test::oom_samples;

namespace {

constexpr double GiB = 1073741824.0;
constexpr double MiB = 1048576.0;

Observation Only(const Evidence& e) {
  REQUIRE(e.observations.size() == 1);
  return e.observations.front();
}

double Segment(const OomBar& bar, SegmentKind kind) {
  double sum = 0;
  for (const BarSegment& seg : bar.segments)
    if (seg.kind == kind) sum += seg.bytes;
  return sum;
}

// The bar's promises: no negative segment, the sum is the total, and when the figures agree
// the total is the capacity within the printed rounding.
void CheckBar(const OomBar& bar) {
  double sum = 0;
  for (const BarSegment& seg : bar.segments) {
    CAPTURE(seg.label);
    CHECK(seg.bytes >= 0);
    CHECK_FALSE(seg.arithmetic.empty());
    sum += seg.bytes;
  }
  CHECK(sum == doctest::Approx(bar.total_bytes).epsilon(1e-12));
  if (bar.drawable && bar.consistent) CHECK(std::fabs(sum - bar.capacity_bytes) <= bar.rounding_bytes);
  CHECK(bar.rounding_bytes <= 0.1 * GiB);
}

}  // namespace

TEST_CASE("OOM seed 002: Baichuan-7B on a 24 GB A30, the 1.x parenthesised form") {
  const Evidence e = ReadEvidence(s::kSeed002BaichuanA30);
  const Observation& o = Only(e);
  CHECK(o.form == EvidenceForm::kTorchOom1);
  CHECK(o.backend == "CUDA");
  CHECK(o.device == 0);
  CHECK(o.capacity.bytes == doctest::Approx(22.20 * GiB));
  CHECK(o.capacity.tolerance == doctest::Approx(0.005 * GiB));
  CHECK(o.allocated.bytes == doctest::Approx(7.47 * GiB));
  CHECK(o.free.bytes == doctest::Approx(51.12 * MiB));
  CHECK(o.reserved.bytes == doctest::Approx(7.48 * GiB));
  CHECK(o.request.bytes == doctest::Approx(86 * MiB));

  const OomBar bar = BuildOomBar(o);
  CheckBar(bar);
  CHECK(bar.drawable);
  CHECK(bar.consistent);
  CHECK(Segment(bar, SegmentKind::kAllocated) == doctest::Approx(7.47 * GiB));
  CHECK(Segment(bar, SegmentKind::kCached) == doctest::Approx(0.01 * GiB));
  // Read correctly: 22.20 - 0.05 - 7.48 = 14.67 GiB outside this process's PyTorch.
  CHECK(Segment(bar, SegmentKind::kOutside) == doctest::Approx(22.20 * GiB - 51.12 * MiB - 7.48 * GiB));
  CHECK(FormatTorchSize(Segment(bar, SegmentKind::kOutside)) == "14.67 GiB");
  CHECK(Segment(bar, SegmentKind::kFree) == doctest::Approx(51.12 * MiB));
  CHECK(bar.request_bytes == doctest::Approx(86 * MiB));
}

TEST_CASE("OOM 2.x: a wrapped paste from a container, this process found by its size") {
  const Observation& o = Only(ReadEvidence(s::kTorch2ContainerWrapped));
  CHECK(o.form == EvidenceForm::kTorchOom2);
  CHECK(o.line == 4);
  CHECK(o.capacity.bytes == doctest::Approx(15.77 * GiB));
  CHECK(o.free.bytes == doctest::Approx(959.44 * MiB));
  CHECK(o.allocated.bytes == doctest::Approx(14.01 * GiB));
  CHECK(o.reserved.bytes == doctest::Approx(14.01 * GiB + 472.05 * MiB));
  REQUIRE(o.processes.size() == 1);
  CHECK(o.processes[0].pid == "12447");
  CHECK(o.processes[0].self_inferred);
  CHECK(o.process_total.bytes == doctest::Approx(14.83 * GiB));
  const OomBar bar = BuildOomBar(o);
  CheckBar(bar);
  CHECK(bar.consistent);
  CHECK(Segment(bar, SegmentKind::kOtherProcess) == 0);  // the inferred process is this one
  CHECK(Segment(bar, SegmentKind::kNonPytorch) == doctest::Approx(14.83 * GiB - 14.01 * GiB - 472.05 * MiB));
}

TEST_CASE("OOM 2.x: NVML's process lines, this process and another") {
  const Observation& o = Only(ReadEvidence(s::kTorch2OtherProcess));
  REQUIRE(o.processes.size() == 2);
  CHECK(o.processes[0].self);
  CHECK(o.processes[1].pid == "19239");
  CHECK(o.process_total.bytes == doctest::Approx(16.63 * GiB));
  const OomBar bar = BuildOomBar(o);
  CheckBar(bar);
  CHECK(Segment(bar, SegmentKind::kOtherProcess) == doctest::Approx(14.26 * GiB));
  CHECK(Segment(bar, SegmentKind::kUnattributed) < 0.02 * GiB);
}

TEST_CASE("OOM 2.1's \"capacty\", the 1.0-1.3 \"cached\" form and the allowed fraction") {
  const Observation& a = Only(ReadEvidence(s::kTorch21CapactyAllowed));
  CHECK(a.capacity.bytes == doctest::Approx(23.69 * GiB));
  CHECK(a.processes.size() == 2);
  const Observation& b = Only(ReadEvidence(s::kTorch1Cached));
  CHECK(b.form == EvidenceForm::kTorchOom1Cached);
  CHECK(b.reserved.bytes == doctest::Approx(10.62 * GiB + 52.31 * MiB));  // cached is beyond allocated
  const Observation& c = Only(ReadEvidence(s::kTorch1AllowedComment));    // "# " on every line
  CHECK(c.form == EvidenceForm::kTorchOom1);
  CHECK(c.allowed.bytes == doctest::Approx(200 * MiB));
  CHECK(c.allocated.bytes == doctest::Approx(130.35 * MiB));
  CheckBar(BuildOomBar(a));
  CheckBar(BuildOomBar(b));
  CheckBar(BuildOomBar(c));
}

TEST_CASE("OOM ROCm: HIP's message, no process lines") {
  const Observation& o = Only(ReadEvidence(s::kHipRocm));
  CHECK(o.backend == "HIP");
  CHECK(o.form == EvidenceForm::kTorchOom2);
  CHECK(o.processes.empty());
  const OomBar bar = BuildOomBar(o);
  CheckBar(bar);
  CHECK(Segment(bar, SegmentKind::kCached) == doctest::Approx(3.96 * GiB));
}

TEST_CASE("OOM: several devices in one log, a repeated message counted once") {
  const Evidence e = ReadEvidence(s::kDdpTwoRanks);
  REQUIRE(e.observations.size() == 2);
  CHECK(e.observations[0].device == 0);
  CHECK(e.observations[0].repeats == 2);
  CHECK(e.observations[1].device == 1);
  CHECK(e.observations[1].free.bytes == doctest::Approx(1.21 * GiB));
}

TEST_CASE("OOM: nvidia-smi's table, the --query CSVs, memory_summary and mem_get_info") {
  const Observation& smi = Only(ReadEvidence(s::kNvidiaSmiA30));
  CHECK(smi.form == EvidenceForm::kNvidiaSmiTable);
  CHECK(smi.gpu_name == "NVIDIA A30");
  CHECK(smi.capacity.bytes == 24576 * MiB);
  CHECK(smi.used.bytes == 22136 * MiB);
  REQUIRE(smi.processes.size() == 2);
  CHECK(smi.processes[0].pid == "31457");
  CHECK(smi.processes[0].name == "python");
  CHECK(smi.processes[1].used.bytes == 7154 * MiB);
  const OomBar bar = BuildOomBar(smi);
  CheckBar(bar);
  CHECK(Segment(bar, SegmentKind::kFree) == 2440 * MiB);

  const Evidence csv = ReadEvidence(s::kNvidiaSmiCsv);
  REQUIRE(csv.observations.size() == 3);
  CHECK(csv.observations[0].device == 0);
  CHECK(csv.observations[0].free.bytes == 41298 * MiB);
  CHECK(csv.observations[1].device == 1);
  CHECK(csv.observations[2].form == EvidenceForm::kNvidiaSmiAppsCsv);
  REQUIRE(csv.observations[2].processes.size() == 1);
  CHECK(csv.observations[2].processes[0].used.bytes == 40102 * MiB);
  const OomBar csv_bar = BuildOomBar(csv.observations[0]);
  CheckBar(csv_bar);
  CHECK(Segment(csv_bar, SegmentKind::kDriverReserved) == (81920 - 40112 - 41298) * MiB);

  const Evidence summary = ReadEvidence(s::kMemorySummary);
  REQUIRE(summary.observations.size() == 2);
  const Observation& ms = summary.observations[0];
  CHECK(ms.form == EvidenceForm::kMemorySummary);
  CHECK(ms.allocated.bytes == 14324 * MiB);
  CHECK(ms.allocated.tolerance == MiB);  // floored to whole MiB
  CHECK(ms.peak_allocated.bytes == 20511 * MiB);
  CHECK(ms.reserved.bytes == 21802 * MiB);
  CHECK(ms.non_releasable.bytes == 1290 * MiB);
  CHECK(ms.oom_count == 1);
  const Observation& info = summary.observations[1];
  CHECK(info.form == EvidenceForm::kMemGetInfo);
  CHECK(info.free.bytes == 1262485504.0);
  CHECK(info.capacity.bytes == 25434587136.0);
  CheckBar(BuildOomBar(info));
}

TEST_CASE("OOM: unknown text is not recognised, with the forms that are") {
  const Evidence e = ReadEvidence("Segmentation fault (core dumped)\n");
  CHECK_FALSE(e.recognised);
  REQUIRE(e.notes.size() == 1);
  CHECK(e.notes[0].find("not recognised") != std::string::npos);
  for (int i = 0; i < kEvidenceFormCount; ++i) {
    CAPTURE(i);
    CHECK(e.notes[0].find(FormInfo(static_cast<EvidenceForm>(i)).name) != std::string::npos);
    CHECK(std::string(FormInfo(static_cast<EvidenceForm>(i)).source).size() > 20);
  }
  CHECK_FALSE(ReadEvidence("").recognised);
}

TEST_CASE("OOM: missing and contradictory numbers are explained, never drawn negative") {
  const Observation& cut = Only(ReadEvidence(s::kCutAfterRequest));
  CHECK(cut.request.bytes == 512 * MiB);
  CHECK_FALSE(cut.notes.empty());
  CHECK_FALSE(BuildOomBar(cut).drawable);

  const OomBar bad = BuildOomBar(Only(ReadEvidence(s::kContradictory)));
  CheckBar(bad);
  CHECK_FALSE(bad.consistent);
  CHECK(Segment(bad, SegmentKind::kCached) == 0);   // 8.00 reserved - 9.50 allocated
  CHECK(Segment(bad, SegmentKind::kOutside) == 0);  // 10.00 - 3.00 free - 8.00 reserved
  REQUIRE(bad.notes.size() >= 2);
  CHECK(bad.notes[0].find("contradict") != std::string::npos);

  const OomBar docs = BuildOomBar(Only(ReadEvidence(s::kDocsInconsistent)));
  CheckBar(docs);
  CHECK_FALSE(docs.consistent);  // 6.80 free + 36.61 this process > 39.56

  // Within the rounding of the printed figures a difference below zero is zero, not a contradiction.
  const OomBar tight = BuildOomBar(Only(ReadEvidence(
      "CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 10.00 GiB total capacity; 5.00 GiB already allocated; "
      "5.00 GiB free; 5.00 GiB reserved in total by PyTorch)")));
  CheckBar(tight);
  CHECK(tight.consistent);
}

TEST_CASE("OOM: FormatTorchSize prints as PyTorch's format_size") {
  CHECK(FormatTorchSize(86 * MiB) == "86.00 MiB");
  CHECK(FormatTorchSize(0) == "0 bytes");
  CHECK(FormatTorchSize(1024) == "1024 bytes");
  CHECK(FormatTorchSize(1536) == "1.50 KiB");
  CHECK(FormatTorchSize(22.2 * GiB) == "22.20 GiB");
}

// Property: messages built from random figures, in both forms, read back to a bar whose
// segments are never negative and add up to the capacity (consistent figures) or say why not.
TEST_CASE("OOM property: segments are non-negative and sum to the capacity") {
  uint64_t state = 0x2545F4914F6CDD1Dull;
  auto next = [&] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return static_cast<double>(state % 1000000) / 1000000.0;
  };
  auto fmt = [](double bytes) { return FormatTorchSize(bytes); };
  for (int i = 0; i < 400; ++i) {
    const double T = (8 + 180 * next()) * GiB;
    const double R = T * 0.9 * next();
    const double A = R * next();
    const double P = R + (i % 3 == 0 ? 0 : 1.5 * GiB * next());
    const double other = (T - P) * 0.8 * next();
    const double F = std::fmax(0.0, T - P - other) * next();
    const double Q = (1 + 4000 * next()) * MiB;
    std::string msg;
    if (i % 2 == 0) {
      msg = "CUDA out of memory. Tried to allocate " + fmt(Q) + " (GPU 0; " + fmt(T) + " total capacity; " + fmt(A) +
            " already allocated; " + fmt(F) + " free; " + fmt(R) + " reserved in total by PyTorch)";
    } else {
      msg = "CUDA out of memory. Tried to allocate " + fmt(Q) + ". GPU 3 has a total capacity of " + fmt(T) +
            " of which " + fmt(F) + " is free. Process 77 has " + fmt(other) +
            " memory in use. Including non-PyTorch memory, this "
            "process has " +
            fmt(P) + " memory in use. Of the allocated memory " + fmt(A) + " is allocated by PyTorch, and " +
            fmt(R - A) + " is reserved by PyTorch but unallocated.";
    }
    CAPTURE(msg);
    const Observation& o = Only(ReadEvidence(msg));
    const OomBar bar = BuildOomBar(o);
    CHECK(bar.drawable);
    CHECK(bar.consistent);
    CheckBar(bar);
    // Shifting free past the capacity makes the figures contradict each other: said, not drawn negative.
    Observation wrong = o;
    wrong.free.bytes = T * 1.5;
    const OomBar broken = BuildOomBar(wrong);
    CheckBar(broken);
    CHECK_FALSE(broken.consistent);
  }
}

namespace {
// `text` with every "from" replaced by "to".
std::string Replace(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}
bool NoteSays(const std::vector<std::string>& notes, const std::string& part) {
  for (const std::string& n : notes)
    if (n.find(part) != std::string::npos) return true;
  return false;
}
}  // namespace

// Issue 28: a console with a decimal comma ("23,65 GiB"), thousands grouped by points or
// commas ("1.024,00 MiB", "1,024.00 MiB") were misread or not read at all.
TEST_CASE("OOM: sizes as locale consoles print them, decimal commas and thousands") {
  const Observation plain = Only(ReadEvidence(s::kSeed002BaichuanA30));
  std::string comma = s::kSeed002BaichuanA30;
  for (const char* figure : {"86.00", "22.20", "7.47", "51.12", "7.48"})
    comma = Replace(comma, figure, Replace(figure, ".", ","));
  const Observation o = Only(ReadEvidence(comma));
  CHECK(o.capacity.bytes == plain.capacity.bytes);
  CHECK(o.capacity.tolerance == plain.capacity.tolerance);
  CHECK(o.free.bytes == plain.free.bytes);
  CHECK(o.reserved.bytes == plain.reserved.bytes);
  CHECK(o.request.bytes == plain.request.bytes);
  CHECK(o.notes.empty());
  for (const char* form : {"1,024.00 MiB", "1.024,00 MiB"}) {
    CAPTURE(form);
    const Observation t = Only(ReadEvidence(Replace(s::kSeed002BaichuanA30, "51.12 MiB", form)));
    CHECK(t.free.bytes == doctest::Approx(1024 * MiB));
    CHECK(t.free.tolerance == doctest::Approx(0.005 * MiB));
  }
  // memory_summary's whole units with a thousands comma.
  const Observation sum = Only(ReadEvidence(Replace(Replace(s::kSeed002BaichuanA30, "7.48 GiB", "14,324 MiB"),
                                                    "7.47 GiB", "14,000 MiB")));
  CHECK(sum.reserved.bytes == doctest::Approx(14324 * MiB));
  // What is no number is said, not guessed: "1,0245 GiB" is neither form.
  const Observation bad = Only(ReadEvidence(Replace(s::kSeed002BaichuanA30, "22.20 GiB", "1,0245 GiB")));
  CHECK_FALSE(bad.capacity.Known());
  CHECK(NoteSays(bad.notes, "1,0245 GiB"));
}

// Issue 28: PowerShell's 2> writes UTF-16LE with a BOM; the reader saw NUL-spaced bytes.
TEST_CASE("OOM: UTF-16 text (PowerShell's 2>) is read as the same message") {
  const std::string utf8 = s::kSeed002BaichuanA30;
  auto utf16 = [&](bool little, bool bom) {
    std::string out = bom ? (little ? "\xFF\xFE" : "\xFE\xFF") : "";
    for (char c : utf8) {
      out += little ? std::string{c, '\0'} : std::string{'\0', c};
    }
    return out;
  };
  const Observation plain = Only(ReadEvidence(utf8));
  for (bool little : {true, false}) {
    for (bool bom : {true, false}) {
      CAPTURE(little);
      CAPTURE(bom);
      const Evidence e = ReadEvidence(utf16(little, bom));
      const Observation o = Only(e);
      CHECK(o.capacity.bytes == plain.capacity.bytes);
      CHECK(o.reserved.bytes == plain.reserved.bytes);
      CHECK(NoteSays(e.notes, little ? "UTF-16 (little-endian" : "UTF-16 (big-endian"));
    }
  }
  // A UTF-8 BOM is dropped without a word.
  const Evidence bom8 = ReadEvidence("\xEF\xBB\xBF" + utf8);
  CHECK(Only(bom8).capacity.bytes == plain.capacity.bytes);
  CHECK(bom8.notes.empty());
}

// Issue 28: "a total capacity of 0 bytes" drew nothing and said nothing.
TEST_CASE("OOM: a zero capacity is explained") {
  const Observation o = Only(ReadEvidence(Replace(s::kSeed002BaichuanA30, "22.20 GiB total", "0 bytes total")));
  CHECK(o.capacity.Known());
  CHECK(NoteSays(o.notes, "the total capacity reads 0 bytes"));
}

// Issue 28: a log's failure is at its end; a log over 8 MiB kept its head and lost it.
TEST_CASE("OOM: a log over 8 MiB is read from its end") {
  std::string log;
  while (log.size() < kOomMaxTextBytes + (1u << 20)) log += "step 123 loss 2.345 lr 3e-4 tokens/s 12345\n";
  log += s::kSeed002BaichuanA30;
  const Evidence e = ReadEvidence(log);
  CHECK(e.truncated);
  CHECK(e.recognised);
  CHECK(NoteSays(e.notes, "only its last 8 MiB were read"));
}

// Issue 28: 8 MiB of distinct nvidia-smi rows were 70 MB of JSON, 498 MB of memory and 5 s.
TEST_CASE("OOM: thousands of devices are capped, the failures kept, the rest counted") {
  std::string text = "index, name, memory.total [MiB], memory.used [MiB]\n";
  for (int i = 0; i < 200; ++i) text += std::to_string(i) + ", GPU-" + std::to_string(i) + ", 24576 MiB, 100 MiB\n";
  text += "\n";
  text = text + text + text;  // three CSV blocks: 600 rows
  text += s::kSeed002BaichuanA30;
  const Evidence e = ReadEvidence(text);
  CHECK(e.observations.size() == kOomMaxObservations);
  CHECK(e.left_out == 601 - kOomMaxObservations);
  CHECK(e.observations.back().IsOom());  // the failure at the end is kept
  CHECK(NoteSays(e.notes, std::to_string(e.left_out) + " are left out"));
  // A name as long as a line is cut.
  const Evidence longname = ReadEvidence(Replace(s::kNvidiaSmiA30, "NVIDIA A30 ", std::string(100000, 'x') + " "));
  REQUIRE(longname.observations.size() == 1);
  CHECK(longname.observations[0].gpu_name.size() <= kOomMaxNameBytes + 4);
}

// The page reads the text in its worker and builds the report from the evidence it posts back
// (core/oom/oom_wire.h): the same report, figure for figure, as reading the text here.
TEST_CASE("OOM wire: the evidence through JSON and back gives the same report") {
  const char* texts[] = {s::kSeed002BaichuanA30, s::kTorch2ContainerWrapped, s::kTorch2Fragmented, s::kTorch2OtherProcess,
                         s::kTorch21CapactyAllowed, s::kHipRocm, s::kTorch1Cached, s::kTorch1AllowedComment,
                         s::kDdpTwoRanks, s::kNvidiaSmiA30, s::kNvidiaSmiCsv, s::kMemorySummary, s::kCutAfterRequest,
                         s::kContradictory, s::kDocsInconsistent, s::kCudaError, "not an OOM at all", ""};
  const Config c = DefaultConfig();
  for (const char* text : texts) {
    CAPTURE(text);
    const Evidence e = ReadEvidence(text);
    const Json wire = EvidenceToWire(e);
    const JsonParseResult parsed = ParseJson(wire.Dump());
    REQUIRE(parsed.ok);
    Evidence back;
    std::string error;
    REQUIRE(EvidenceFromWire(parsed.value, &back, &error));
    CHECK(EvidenceToWire(back).Dump() == wire.Dump());
    CHECK(OomReportToJson(OomReportFromEvidence(back, &c)).Dump() == OomReportToJson(ReadOomReport(text, &c)).Dump());
    CHECK(OomReportToJson(OomReportFromEvidence(back, nullptr)).Dump() == OomReportToJson(ReadOomReport(text, nullptr)).Dump());
  }
  Evidence odd;
  odd.observations.emplace_back();
  odd.observations.back().capacity.bytes = std::numeric_limits<double>::infinity();
  odd.observations.back().free.tolerance = std::numeric_limits<double>::quiet_NaN();
  Evidence back;
  std::string error;
  REQUIRE(EvidenceFromWire(ParseJson(EvidenceToWire(odd).Dump()).value, &back, &error));
  CHECK(std::isinf(back.observations.front().capacity.bytes));
  CHECK(std::isnan(back.observations.front().free.tolerance));
  CHECK_FALSE(EvidenceFromWire(ParseJson("{\"observations\": [{\"form\": 99}]}").value, &back, &error));
  CHECK_FALSE(EvidenceFromWire(ParseJson("[]").value, &back, &error));
}

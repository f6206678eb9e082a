// torch.cuda's own printouts (torch/cuda/memory.py, commit in kEvidenceForms):
//  - memory_summary(): "PyTorch CUDA memory summary, device ID N", then rows
//    "| Allocated memory      |  14324 MiB |  14324 MiB | ..." (Cur Usage, Peak Usage, Tot Alloc,
//    Tot Freed), each floored to a whole unit by _format_size;
//  - mem_get_info(): "(free, total)" in bytes, exactly;
//  - list_gpu_processes(): "GPU:N" then "process  PID uses  X MB GPU memory" (X = NVML bytes / 2^20).
#include <cstdlib>

#include "core/oom/oom_scan.h"

namespace llmmem::core::oom {
namespace {

std::vector<std::string> Cells(const std::string& line) {
  std::vector<std::string> cells;
  size_t begin = 0;
  for (int guard = 0; guard < 16; ++guard) {
    const size_t end = line.find('|', begin);
    cells.push_back(Trim(line.substr(begin, end == std::string::npos ? std::string::npos : end - begin)));
    if (end == std::string::npos) break;
    begin = end + 1;
  }
  return cells;
}

bool ReadCell(const std::string& cell, Figure& f) {
  size_t p = 0;
  return ReadSize(cell, p, f, SizeStyle::kFloored);
}

void ReadMemorySummary(const std::vector<std::string>& lines, ObservationList& out) {
  for (size_t i = 0; i < lines.size(); ++i) {
    const size_t at = lines[i].find("memory summary, device ID");
    if (at == std::string::npos) continue;
    Observation o;
    o.form = EvidenceForm::kMemorySummary;
    o.line = i + 1;
    o.excerpt = Trim(lines[i]);
    if (o.excerpt.size() > 200) o.excerpt.resize(200);
    size_t p = at + 25;
    SkipSpaces(lines[i], p);
    int64_t device = 0;
    if (ReadInt(lines[i], p, device, 4)) o.device = static_cast<int>(device);
    size_t k = i + 1;
    bool rows = false;
    for (; k < lines.size() && k < i + 80; ++k) {
      const std::string& line = lines[k];
      const size_t ooms = line.find("OOMs:");
      if (ooms != std::string::npos) {
        size_t q = ooms + 5;
        SkipSpaces(line, q);
        int64_t n = 0;
        if (ReadInt(line, q, n, 9)) o.oom_count = static_cast<int>(n);
        continue;
      }
      const std::vector<std::string> c = Cells(line);
      if (c.size() < 4) {
        if (rows && line.find("====") != std::string::npos) break;  // the summary's last line
        continue;
      }
      const std::string& name = c[1];
      if (name == "Metric") {
        rows = true;
        continue;
      }
      if (name.find("memory summary") != std::string::npos) break;  // the next summary
      if (name == "Allocated memory") {
        ReadCell(c[2], o.allocated);
        ReadCell(c[3], o.peak_allocated);
      } else if (name == "GPU reserved memory" || name == "Reserved memory") {
        ReadCell(c[2], o.reserved);
        ReadCell(c[3], o.peak_reserved);
      } else if (name == "Non-releasable memory") {
        ReadCell(c[2], o.non_releasable);
      }
    }
    if (!o.allocated.Known() && !o.reserved.Known())
      o.notes.push_back("the summary's rows (Allocated memory, GPU reserved memory) are missing");
    out.push_back(std::move(o));
    i = k > i ? k - 1 : i;
  }
}

// "(23456301056, 25434587136)" at pos: free and total in bytes.
bool ReadPair(const std::string& s, size_t pos, int64_t& free, int64_t& total) {
  size_t p = pos;
  if (!ReadLiteral(s, p, "(")) return false;
  SkipSpaces(s, p);
  if (!ReadInt(s, p, free, 16) || !ReadLiteral(s, p, ",")) return false;
  SkipSpaces(s, p);
  if (!ReadInt(s, p, total, 16) || !ReadLiteral(s, p, ")")) return false;
  // A GPU's free and total: at least 256 MiB in all, free no more than total.
  return total >= (int64_t{256} << 20) && free <= total;
}

void AddMemGetInfo(int64_t free, int64_t total, size_t line, const std::string& excerpt,
                   ObservationList& out) {
  Observation o;
  o.form = EvidenceForm::kMemGetInfo;
  o.line = line;
  o.excerpt = excerpt.substr(0, 200);
  o.capacity.bytes = static_cast<double>(total);
  o.free.bytes = static_cast<double>(free);
  o.used.bytes = static_cast<double>(total - free);
  out.push_back(std::move(o));
}

void ReadMemGetInfo(const std::vector<std::string>& lines, ObservationList& out) {
  bool named = false;  // a bare "(a, b)" line counts only after mem_get_info was named
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    const size_t at = line.find("mem_get_info");
    int64_t free = 0, total = 0;
    if (at != std::string::npos) {
      named = true;
      const size_t open = line.find('(', line.find(')', at) == std::string::npos ? at : line.find(')', at) + 1);
      if (open != std::string::npos && ReadPair(line, open, free, total)) {
        AddMemGetInfo(free, total, i + 1, Trim(line), out);
        continue;
      }
      continue;
    }
    const std::string t = Trim(line);
    if (named && !t.empty() && t[0] == '(' && ReadPair(t, 0, free, total) && t.back() == ')')
      AddMemGetInfo(free, total, i + 1, t, out);
  }
}

void ReadListGpuProcesses(const std::vector<std::string>& lines, ObservationList& out) {
  Observation* current = nullptr;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string t = Trim(lines[i]);
    size_t p = 0;
    int64_t device = 0;
    if (ReadLiteral(t, p, "GPU:", false) && ReadInt(t, p, device, 4) && p == t.size()) {
      Observation o;
      o.form = EvidenceForm::kListGpuProcesses;
      o.device = static_cast<int>(device);
      o.line = i + 1;
      o.excerpt = t;
      current = out.push_back(std::move(o)) ? &out.back() : nullptr;
      continue;
    }
    if (current == nullptr) continue;
    p = 0;
    int64_t pid = 0;
    GpuProcess proc;
    if (ReadLiteral(t, p, "process", false) && (SkipSpaces(t, p), ReadInt(t, p, pid, 10)) &&
        ReadLiteral(t, p, "uses") && (SkipSpaces(t, p), ReadSize(t, p, proc.used, SizeStyle::kFormatSize)) &&
        ReadLiteral(t, p, "GPU memory")) {
      proc.pid = std::to_string(pid);
      if (current->processes.size() < 256) current->processes.push_back(proc);
      current->excerpt = (current->excerpt + " / " + t).substr(0, 600);
      continue;
    }
    if (t != "no processes are running") current = nullptr;
  }
}

}  // namespace

void ReadTorchSummaries(const std::string&, const std::vector<std::string>& lines, ObservationList& out) {
  ReadMemorySummary(lines, out);
  ReadMemGetInfo(lines, out);
  ReadListGpuProcesses(lines, out);
}

}  // namespace llmmem::core::oom

// nvidia-smi, read line by line (the table's columns matter, so no flattening):
//  - the default table: a GPU row "|   0  NVIDIA A30   Off | 00000000:00:05.0 Off | ..." whose
//    next lines hold "22136MiB / 24576MiB", then the "Processes:" rows
//    "|    0   N/A  N/A     12345      C   python     14980MiB |" (older drivers: no GI/CI);
//  - --query-gpu=... --format=csv[,nounits]: a header naming memory.total / memory.used /
//    memory.free, then one row per GPU;
//  - --query-compute-apps=pid,process_name,used_memory --format=csv.
// nvidia-smi prints MiB (2^20 bytes). Its total on R535+ drivers includes the memory the driver
// reserves, so it is larger than the "total capacity" PyTorch prints for the same card.
#include <map>

#include "core/oom/oom_scan.h"

namespace llmmem::core::oom {
namespace {

std::vector<std::string> SplitCells(const std::string& line, char sep) {
  std::vector<std::string> cells;
  size_t begin = 0;
  for (int guard = 0; guard < 64; ++guard) {
    const size_t end = line.find(sep, begin);
    cells.push_back(Trim(line.substr(begin, end == std::string::npos ? std::string::npos : end - begin)));
    if (end == std::string::npos) break;
    begin = end + 1;
  }
  return cells;
}

std::vector<std::string> Tokens(const std::string& s) {
  std::vector<std::string> out;
  size_t p = 0;
  while (p < s.size() && out.size() < 64) {
    while (p < s.size() && (s[p] == ' ' || s[p] == '\t')) ++p;
    const size_t b = p;
    while (p < s.size() && s[p] != ' ' && s[p] != '\t') ++p;
    if (p > b) out.push_back(s.substr(b, p - b));
  }
  return out;
}

bool AllDigits(const std::string& s, size_t max_digits = 10) {
  if (s.empty() || s.size() > max_digits) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// "22136MiB / 24576MiB" anywhere in the line.
bool ReadUsage(const std::string& line, Figure& used, Figure& total) {
  const size_t slash = line.find("MiB /");
  if (slash == std::string::npos) return false;
  size_t b = slash;
  while (b > 0 && line[b - 1] >= '0' && line[b - 1] <= '9') --b;
  size_t p = b;
  if (!ReadSize(line, p, used, SizeStyle::kWholeMiB)) return false;
  p = slash + 5;
  SkipSpaces(line, p);
  return ReadSize(line, p, total, SizeStyle::kWholeMiB);
}

// The first cell of a GPU row: "0  NVIDIA A30          Off" (index, name, persistence mode).
bool ReadGpuRow(const std::string& line, int& index, std::string& name) {
  const std::string t = Trim(line);
  if (t.size() < 3 || t[0] != '|') return false;
  const size_t bar = t.find('|', 1);
  if (bar == std::string::npos) return false;
  const std::vector<std::string> tok = Tokens(t.substr(1, bar - 1));
  if (tok.size() < 3 || !AllDigits(tok[0], 3)) return false;
  if (tok.back() != "On" && tok.back() != "Off") return false;
  index = std::stoi(tok[0]);
  name.clear();
  for (size_t i = 1; i + 1 < tok.size(); ++i) name += (name.empty() ? "" : " ") + tok[i];
  return !name.empty();
}

bool IsProcessType(const std::string& t) { return t == "C" || t == "G" || t == "C+G" || t == "M" || t == "M+C"; }

// "|    0   N/A  N/A     12345      C   python      14980MiB |" -> gpu, process.
bool ReadProcessRow(const std::string& line, int& gpu, GpuProcess& proc) {
  std::string t = Trim(line);
  if (t.size() < 3 || t[0] != '|') return false;
  t = Trim(t.substr(1, t.size() - (t.back() == '|' ? 2 : 1)));
  const std::vector<std::string> tok = Tokens(t);
  if (tok.size() < 4 || !AllDigits(tok[0], 3)) return false;
  size_t type = 0;
  for (size_t i = 2; i + 1 < tok.size(); ++i) {
    if (IsProcessType(tok[i]) && AllDigits(tok[i - 1])) {
      type = i;
      break;
    }
  }
  if (type == 0) return false;
  gpu = std::stoi(tok[0]);
  proc.pid = tok[type - 1];
  proc.name.clear();
  for (size_t i = type + 1; i + 1 < tok.size(); ++i) proc.name += (proc.name.empty() ? "" : " ") + tok[i];
  size_t p = 0;
  proc.used = Figure();
  if (tok.back() != "N/A") ReadSize(tok.back(), p, proc.used, SizeStyle::kWholeMiB);
  return true;
}

}  // namespace

void ReadNvidiaSmi(const std::vector<std::string>& lines, ObservationList& out) {
  std::map<int, size_t> table;  // GPU index -> observation, for this table's process rows
  bool in_processes = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (line.find("Processes:") != std::string::npos) {
      in_processes = !table.empty();
      continue;
    }
    if (in_processes) {
      int gpu = -1;
      GpuProcess proc;
      if (ReadProcessRow(line, gpu, proc)) {
        auto it = table.find(gpu);
        if (it != table.end() && out[it->second].processes.size() < 256) out[it->second].processes.push_back(proc);
        continue;
      }
      const std::string t = Trim(line);
      if (t.empty() || (t[0] == '+' && i + 1 < lines.size() && Trim(lines[i + 1]).empty())) {
        in_processes = false;
        table.clear();
      }
      continue;
    }
    int index = -1;
    std::string name;
    if (!ReadGpuRow(line, index, name)) continue;
    Observation o;
    o.form = EvidenceForm::kNvidiaSmiTable;
    o.device = index;
    o.gpu_name = name;
    o.line = i + 1;
    for (size_t k = i + 1; k < lines.size() && k <= i + 2; ++k) {
      if (ReadUsage(lines[k], o.used, o.capacity)) {
        o.excerpt = Trim(line) + " " + Trim(lines[k]);
        break;
      }
    }
    if (!o.capacity.Known()) {
      o.notes.push_back("the memory line under this GPU row (\"used MiB / total MiB\") is missing");
      o.excerpt = Trim(line);
    } else {
      o.free.bytes = o.capacity.bytes - o.used.bytes;
      o.free.tolerance = o.capacity.tolerance + o.used.tolerance;
    }
    const size_t at = out.size();
    if (out.push_back(std::move(o))) table[index] = at;
  }
}

void ReadNvidiaSmiCsv(const std::vector<std::string>& lines, ObservationList& out) {
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& header = lines[i];
    const bool gpus =
        header.find("memory.total") != std::string::npos || header.find("memory.used") != std::string::npos;
    const bool apps =
        header.find("used_gpu_memory") != std::string::npos || header.find("used_memory") != std::string::npos;
    if ((!gpus && !apps) || header.find(',') == std::string::npos) continue;
    std::vector<std::string> names = SplitCells(header, ',');
    bool field_names = true;  // "memory.total [MiB]", not the command line that asked for them
    for (std::string& n : names) {
      const size_t bracket = n.find(" [");
      if (bracket != std::string::npos) n.resize(bracket);
      field_names &= !n.empty() && n.find_first_not_of("abcdefghijklmnopqrstuvwxyz._") == std::string::npos;
    }
    if (!field_names) continue;
    auto column = [&](const char* name) -> int {
      for (size_t c = 0; c < names.size(); ++c)
        if (names[c] == name) return static_cast<int>(c);
      return -1;
    };
    // Values read "24576 MiB", or "24576" with ,nounits (the header then says [MiB]).
    auto size_at = [&](const std::vector<std::string>& cells, int c, Figure& f) {
      if (c < 0 || static_cast<size_t>(c) >= cells.size()) return;
      std::string v = cells[static_cast<size_t>(c)];
      if (!v.empty() && v.find("MiB") == std::string::npos && AllDigits(v, 9)) v += " MiB";
      size_t p = 0;
      ReadSize(v, p, f, SizeStyle::kWholeMiB);
    };
    size_t row = i + 1;
    Observation* single = nullptr;  // --query-compute-apps: one observation holding the processes
    if (apps && !gpus) {
      Observation o;
      o.form = EvidenceForm::kNvidiaSmiAppsCsv;
      o.line = i + 1;
      o.excerpt = Trim(header);
      if (out.push_back(std::move(o))) single = &out.back();
    }
    for (; row < lines.size() && row < i + 1 + 256; ++row) {
      const std::vector<std::string> cells = SplitCells(lines[row], ',');
      if (cells.size() != names.size()) break;
      if (gpus) {
        Observation o;
        o.form = EvidenceForm::kNvidiaSmiCsv;
        o.line = row + 1;
        o.excerpt = Trim(header) + " / " + Trim(lines[row]);
        const int idx = column("index");
        if (idx >= 0 && AllDigits(cells[static_cast<size_t>(idx)], 3))
          o.device = std::stoi(cells[static_cast<size_t>(idx)]);
        const int name = column("name");
        if (name >= 0) o.gpu_name = cells[static_cast<size_t>(name)].substr(0, 120);
        size_at(cells, column("memory.total"), o.capacity);
        size_at(cells, column("memory.used"), o.used);
        size_at(cells, column("memory.free"), o.free);
        if (!o.free.Known() && o.capacity.Known() && o.used.Known()) {
          o.free.bytes = o.capacity.bytes - o.used.bytes;
          o.free.tolerance = o.capacity.tolerance + o.used.tolerance;
        }
        if (!o.used.Known() && o.capacity.Known() && o.free.Known()) {
          o.used.bytes = o.capacity.bytes - o.free.bytes;
          o.used.tolerance = o.capacity.tolerance + o.free.tolerance;
        }
        out.push_back(std::move(o));
      } else if (single != nullptr) {
        GpuProcess proc;
        const int pid = column("pid");
        const int name = column("process_name");
        if (pid >= 0) proc.pid = cells[static_cast<size_t>(pid)].substr(0, 20);
        if (name >= 0) proc.name = cells[static_cast<size_t>(name)].substr(0, 120);
        size_at(cells, column("used_gpu_memory") >= 0 ? column("used_gpu_memory") : column("used_memory"), proc.used);
        if (single->processes.size() < 256) single->processes.push_back(proc);
      }
    }
    i = row - 1;
  }
}

}  // namespace llmmem::core::oom

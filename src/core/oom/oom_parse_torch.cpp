// PyTorch's out-of-memory messages, read from the flattened text (oom_scan.h). The wording of
// each form, from DeviceCachingAllocator::malloc (see kEvidenceForms for the commits):
//   2.1+   "<B> out of memory. Tried to allocate X. GPU N has a total capacity of T of which F is
//           free. [Process P has U memory in use. ...] [Including non-PyTorch memory, this process
//           has S memory in use.] [L allowed; ]Of the allocated memory A is allocated by PyTorch,
//           [with G allocated in private pools (e.g., CUDA Graphs), ]and C is reserved by PyTorch
//           but unallocated."   (2.1 spelled "capacty"; ROCm prints HIP and no process lines)
//   1.4-2.0 "<B> out of memory. Tried to allocate X (GPU N; T total capacity; A already allocated;
//           F free; [L allowed; ]R reserved in total by PyTorch)"
//   1.0-1.3 "... (GPU N; T total capacity; A already allocated; F free; C cached)"
// plus "CUDA error: out of memory" (no figures). A part that cannot be read ends the reading
// of that message with a note; what was read before it is kept.
#include <algorithm>
#include <cctype>

#include "core/oom/oom_scan.h"

namespace llmmem::core::oom {
namespace {

constexpr const char* kOutOfMemory = " out of memory. Tried to allocate";

std::string BackendBefore(const std::string& s, size_t pos) {
  size_t b = pos;
  while (b > 0 && pos - b < 8 && std::isalnum(static_cast<unsigned char>(s[b - 1]))) --b;
  std::string word = s.substr(b, pos - b);
  if (word.empty() || !std::isupper(static_cast<unsigned char>(word[0]))) return "CUDA";
  return word;
}

// "(GPU 0; 22.20 GiB total capacity; 7.47 GiB already allocated; 51.12 MiB free; 7.48 GiB
// reserved in total by PyTorch)": the parts are read by their labels, in any order.
size_t ReadParenthesised(const std::string& s, size_t pos, Observation& o) {
  const size_t close = s.find(')', pos);
  if (close == std::string::npos || close - pos > 600) {
    o.notes.push_back("the figures in parentheses are cut off; paste the whole message");
    return pos;
  }
  bool cached_form = false;
  size_t part = pos;
  while (part < close) {
    size_t end = s.find(';', part);
    if (end == std::string::npos || end > close) end = close;
    size_t p = part;
    SkipSpaces(s, p);
    int64_t device = 0;
    Figure f;
    if (ReadLiteral(s, p, "GPU ") && ReadInt(s, p, device, 4)) {
      o.device = static_cast<int>(device);
    } else if (ReadSize(s, p, f, SizeStyle::kFormatSize)) {
      const std::string label = Trim(s.substr(p, end - p));
      if (label == "total capacity")
        o.capacity = f;
      else if (label == "already allocated")
        o.allocated = f;
      else if (label == "free")
        o.free = f;
      else if (label == "allowed")
        o.allowed = f;
      else if (label == "reserved in total by PyTorch")
        o.reserved = f;
      else if (label == "cached") {
        o.reserved = f;
        cached_form = true;
      }  // completed below
      else if (!label.empty())
        o.notes.push_back("\"" + Excerpt(s, part, end, 80) + "\" is not a figure this reader knows; left out");
    } else {
      o.notes.push_back("could not read \"" + Excerpt(s, part, end, 80) + "\"");
    }
    part = end + 1;
  }
  if (cached_form) {
    // 1.0-1.3 print the cache beyond the allocated bytes: reserved = allocated + cached.
    o.form = EvidenceForm::kTorchOom1Cached;
    const Figure cached = o.reserved;
    if (o.allocated.Known()) {
      o.reserved.bytes = o.allocated.bytes + cached.bytes;
      o.reserved.tolerance = o.allocated.tolerance + cached.tolerance;
    } else {
      o.reserved = Figure();
      o.notes.push_back("the cached figure needs the allocated one to give what PyTorch reserved");
    }
  }
  return close + 1;
}

// After "Tried to allocate X": ". GPU N has a total capacity of T of which F is free. ..."
size_t ReadSentences(const std::string& s, size_t pos, Observation& o) {
  size_t p = pos;
  int64_t device = 0;
  if (!ReadLiteral(s, p, ". GPU ", false) || !ReadInt(s, p, device, 4)) {
    o.notes.push_back(
        "the message ends after the request: the figures that follow it are missing (paste the whole message)");
    return pos;
  }
  o.device = static_cast<int>(device);
  // 2.1's message said "capacty".
  if (!(ReadLiteral(s, p, "has a total capacity of") || ReadLiteral(s, p, "has a total capacty of")) ||
      !ReadSize(s, p, o.capacity, SizeStyle::kFormatSize)) {
    o.notes.push_back("could not read the total capacity after \"GPU " + std::to_string(device) + "\"");
    return p;
  }
  if (!ReadLiteral(s, p, "of which") || !ReadSize(s, p, o.free, SizeStyle::kFormatSize) ||
      !ReadLiteral(s, p, "is free.")) {
    o.notes.push_back("could not read the free memory (\"of which X is free.\")");
    return p;
  }
  // The process lines (NVML's list, in its order) and the fraction limit, in any order.
  for (int guard = 0; guard < 64; ++guard) {
    size_t q = p;
    int64_t pid = 0;
    GpuProcess proc;
    if (ReadLiteral(s, q, "Process ") && ReadInt(s, q, pid, 10) && ReadLiteral(s, q, "has") &&
        ReadSize(s, q, proc.used, SizeStyle::kFormatSize) && ReadLiteral(s, q, "memory in use.")) {
      proc.pid = std::to_string(pid);
      o.processes.push_back(proc);
      p = q;
      continue;
    }
    q = p;
    if (ReadLiteral(s, q, "Including non-PyTorch memory, this process has") &&
        ReadSize(s, q, o.process_total, SizeStyle::kFormatSize) && ReadLiteral(s, q, "memory in use.")) {
      proc = GpuProcess();
      proc.used = o.process_total;
      proc.self = true;
      o.processes.push_back(proc);
      p = q;
      continue;
    }
    q = p;
    Figure allowed;
    if (ReadSize(s, q, allowed, SizeStyle::kFormatSize) && ReadLiteral(s, q, "allowed;")) {
      o.allowed = allowed;
      p = q;
      continue;
    }
    break;
  }
  size_t q = p;
  Figure allocated, pools, unallocated;
  if (!ReadLiteral(s, q, "Of the allocated memory") || !ReadSize(s, q, allocated, SizeStyle::kFormatSize) ||
      !ReadLiteral(s, q, "is allocated by PyTorch,")) {
    o.notes.push_back("the message ends before \"Of the allocated memory ... is allocated by PyTorch\"");
    return p;
  }
  o.allocated = allocated;
  size_t r = q;
  if (ReadLiteral(s, r, "with") && ReadSize(s, r, pools, SizeStyle::kFormatSize) &&
      ReadLiteral(s, r, "allocated in private pools (e.g., CUDA Graphs),")) {
    o.private_pools = pools;
    q = r;
  }
  if (!ReadLiteral(s, q, "and") || !ReadSize(s, q, unallocated, SizeStyle::kFormatSize) ||
      !ReadLiteral(s, q, "is reserved by PyTorch but unallocated.")) {
    o.notes.push_back("could not read \"and X is reserved by PyTorch but unallocated\"");
    return q;
  }
  o.reserved.bytes = allocated.bytes + unallocated.bytes;
  o.reserved.tolerance = allocated.tolerance + unallocated.tolerance;
  return q;
}

// No line says "this process" but NVML listed processes: inside a container getpid() is not
// the PID NVML reports, so this process is listed as "Process N". It is the one that holds at
// least what PyTorch reserved, when exactly one does.
void InferSelf(Observation& o) {
  if (o.process_total.Known() || o.processes.empty() || !o.reserved.Known()) return;
  GpuProcess* candidate = nullptr;
  int count = 0;
  for (GpuProcess& p : o.processes) {
    if (p.used.bytes + p.used.tolerance >= o.reserved.bytes - o.reserved.tolerance) {
      candidate = &p;
      ++count;
    }
  }
  if (count != 1) {
    if (count > 1)
      o.notes.push_back("no line names this process, and several listed processes are large enough to be it");
    return;
  }
  candidate->self_inferred = true;
  o.process_total = candidate->used;
  o.notes.push_back("no line says \"this process\": process " + candidate->pid +
                    " is taken for it, as the only one holding at least the memory PyTorch reserved (inside a "
                    "container PyTorch's PID differs from the one NVML lists)");
}

}  // namespace

void ReadTorchOom(const FlatText& flat, ObservationList& out) {
  const std::string& s = flat.text;
  size_t search = 0;
  for (int guard = 0; guard < 10000; ++guard) {
    const size_t hit = s.find(kOutOfMemory, search);
    if (hit == std::string::npos) break;
    Observation o;
    o.backend = BackendBefore(s, hit);
    const size_t begin = hit >= o.backend.size() ? hit - o.backend.size() : hit;
    o.line = flat.LineAt(begin);
    size_t p = hit + std::char_traits<char>::length(kOutOfMemory);
    size_t end = p;
    if (!ReadSize(s, p, o.request, SizeStyle::kFormatSize)) {
      o.notes.push_back("could not read the size after \"Tried to allocate\"");
      o.form = EvidenceForm::kTorchOom2;
    } else if (ReadLiteral(s, p, "(", true)) {
      o.form = EvidenceForm::kTorchOom1;
      end = ReadParenthesised(s, p, o);
    } else {
      o.form = EvidenceForm::kTorchOom2;
      end = ReadSentences(s, p, o);
    }
    end = std::max(end, p);
    InferSelf(o);
    o.excerpt = Excerpt(s, begin, end);
    out.push_back(std::move(o));
    search = std::max(end, hit + 1);
  }
  // "CUDA error: out of memory" / "HIP error: out of memory": raised by a CUDA call outside the
  // caching allocator, so it carries no figures.
  search = 0;
  for (int guard = 0; guard < 10000; ++guard) {
    const size_t hit = s.find(" error: out of memory", search);
    if (hit == std::string::npos) break;
    search = hit + 1;
    const std::string backend = BackendBefore(s, hit);
    if (backend != "CUDA" && backend != "HIP") continue;
    if (hit < backend.size() || s.compare(hit - backend.size(), backend.size(), backend) != 0) continue;
    Observation o;
    o.form = EvidenceForm::kCudaErrorOom;
    o.backend = backend;
    o.line = flat.LineAt(hit);
    o.excerpt = Excerpt(s, hit - backend.size(), hit + 21);
    out.push_back(std::move(o));
  }
}

}  // namespace llmmem::core::oom

// ReadPickle (pickle_reader.h): one forward pass over the opcodes, a value stack of arena
// indices, MARK positions and the memo. Opcode bytes and argument layouts as CPython's
// Lib/pickletools.py (3.11) documents them.
#include "core/run/pickle_reader.h"

#include <cstdio>
#include <cstring>

namespace llmmem::core {
namespace {

struct Reader {
  const std::string& in;
  PickleDoc& doc;
  size_t pos = 0;
  std::vector<size_t> stack;
  std::vector<size_t> marks;
  std::vector<size_t> memo;

  bool Fail(size_t at, const std::string& what) {
    doc.ok = false;
    doc.error = "offset " + std::to_string(at) + ": " + what;
    return false;
  }
  bool Need(size_t n, size_t at) {
    if (in.size() - pos < n) return Fail(at, "the pickle ends inside an opcode's argument");
    return true;
  }
  uint64_t Le(size_t n) {  // n little-endian bytes at pos
    uint64_t v = 0;
    for (size_t k = 0; k < n; ++k) v |= static_cast<uint64_t>(static_cast<unsigned char>(in[pos + k])) << (8 * k);
    pos += n;
    return v;
  }
  bool Push(PickleValue&& v, size_t at) {
    if (doc.arena.size() >= kPickleMaxValues)
      return Fail(at, "more than " + std::to_string(kPickleMaxValues) + " values: not read further");
    doc.arena.push_back(std::move(v));
    stack.push_back(doc.arena.size() - 1);
    return true;
  }
  bool PushInt(int64_t v, size_t at) {
    PickleValue p;
    p.type = PickleType::kInt;
    p.i = v;
    return Push(std::move(p), at);
  }
  // The items above the last MARK, which is dropped.
  bool PopMark(std::vector<size_t>& items, size_t at) {
    if (marks.empty()) return Fail(at, "an opcode needing a MARK has none");
    const size_t m = marks.back();
    marks.pop_back();
    if (m > stack.size()) return Fail(at, "the MARK is past the stack");
    items.assign(stack.begin() + static_cast<std::ptrdiff_t>(m), stack.end());
    stack.resize(m);
    return true;
  }
  bool Top(size_t& out, size_t at) {
    if (stack.empty() || (!marks.empty() && marks.back() >= stack.size()))
      return Fail(at, "an opcode needs a value and the stack has none");
    out = stack.back();
    return true;
  }
  bool String(size_t n, size_t at) {
    if (!Need(n, at)) return false;
    PickleValue v;
    v.type = PickleType::kString;
    v.s = in.substr(pos, n);
    pos += n;
    return Push(std::move(v), at);
  }
  bool Tuple(size_t n, size_t at) {
    if (stack.size() < n || (!marks.empty() && stack.size() - n < marks.back()))
      return Fail(at, "a TUPLE opcode needs more values than the stack has");
    PickleValue v;
    v.type = PickleType::kTuple;
    v.items.assign(stack.end() - static_cast<std::ptrdiff_t>(n), stack.end());
    stack.resize(stack.size() - n);
    return Push(std::move(v), at);
  }
  bool Get(uint64_t idx, size_t at) {
    if (idx >= memo.size()) return Fail(at, "a memo GET names an entry never put");
    stack.push_back(memo[idx]);
    return true;
  }
  bool Put(uint64_t idx, size_t at) {
    size_t top = 0;
    if (!Top(top, at)) return false;
    if (idx > memo.size() || idx > kPickleMaxValues) return Fail(at, "a memo PUT skips entries");
    if (idx == memo.size()) memo.push_back(top);
    else memo[idx] = top;
    return true;
  }
  bool Run();
};

std::string OpName(unsigned char op) {
  char buf[64];
  const bool printable = op >= 0x20 && op < 0x7f;
  std::snprintf(buf, sizeof buf, "opcode 0x%02x%s%c%s", op, printable ? " ('" : "", printable ? op : ' ',
                printable ? "')" : "");
  return buf;
}

bool Reader::Run() {
  while (pos < in.size()) {
    const size_t at = pos;
    const unsigned char op = static_cast<unsigned char>(in[pos++]);
    switch (op) {
      case 0x80:  // PROTO n
        if (!Need(1, at)) return false;
        if (static_cast<unsigned char>(in[pos]) > 5) return Fail(at, "pickle protocol above 5");
        ++pos;
        break;
      case 0x95:  // FRAME: an 8-byte length, the opcodes inline
        if (!Need(8, at)) return false;
        pos += 8;
        break;
      case '.': {  // STOP
        if (stack.size() != 1 || !marks.empty()) return Fail(at, "STOP with " + std::to_string(stack.size()) + " values");
        doc.root = stack.back();
        doc.ok = true;
        return true;
      }
      case 'N': {
        PickleValue v;
        if (!Push(std::move(v), at)) return false;
        break;
      }
      case 0x88:
      case 0x89: {  // NEWTRUE, NEWFALSE
        PickleValue v;
        v.type = PickleType::kBool;
        v.i = op == 0x88;
        if (!Push(std::move(v), at)) return false;
        break;
      }
      case 'K':  // BININT1
        if (!Need(1, at) || !PushInt(static_cast<int64_t>(Le(1)), at)) return false;
        break;
      case 'M':  // BININT2
        if (!Need(2, at) || !PushInt(static_cast<int64_t>(Le(2)), at)) return false;
        break;
      case 'J':  // BININT: 4 bytes, signed
        if (!Need(4, at) || !PushInt(static_cast<int32_t>(static_cast<uint32_t>(Le(4))), at)) return false;
        break;
      case 0x8a: {  // LONG1: n bytes, little-endian two's complement
        if (!Need(1, at)) return false;
        const size_t n = static_cast<unsigned char>(in[pos++]);
        if (n > 8) return Fail(at, "LONG1 of " + std::to_string(n) + " bytes: beyond 64 bits");
        if (!Need(n, at)) return false;
        uint64_t v = Le(n);
        if (n > 0 && n < 8 && (v >> (8 * n - 1)) & 1) v |= ~uint64_t{0} << (8 * n);  // sign-extend
        if (!PushInt(static_cast<int64_t>(v), at)) return false;
        break;
      }
      case 'G': {  // BINFLOAT: 8 bytes, big-endian
        if (!Need(8, at)) return false;
        uint64_t bits = 0;
        for (int k = 0; k < 8; ++k) bits = (bits << 8) | static_cast<unsigned char>(in[pos + k]);
        pos += 8;
        PickleValue v;
        v.type = PickleType::kFloat;
        std::memcpy(&v.f, &bits, sizeof v.f);
        if (!Push(std::move(v), at)) return false;
        break;
      }
      case 0x8c:  // SHORT_BINUNICODE
        if (!Need(1, at) || !String(static_cast<size_t>(Le(1)), at)) return false;
        break;
      case 'X':  // BINUNICODE
        if (!Need(4, at) || !String(static_cast<size_t>(Le(4)), at)) return false;
        break;
      case 0x8d: {  // BINUNICODE8
        if (!Need(8, at)) return false;
        const uint64_t n = Le(8);
        if (n > in.size()) return Fail(at, "BINUNICODE8 longer than the pickle");
        if (!String(static_cast<size_t>(n), at)) return false;
        break;
      }
      case '}':
      case ']':
      case ')': {  // EMPTY_DICT, EMPTY_LIST, EMPTY_TUPLE
        PickleValue v;
        v.type = op == '}' ? PickleType::kDict : op == ']' ? PickleType::kList : PickleType::kTuple;
        if (!Push(std::move(v), at)) return false;
        break;
      }
      case '(':  // MARK
        if (marks.size() >= static_cast<size_t>(kPickleMaxDepth)) return Fail(at, "MARKs nested too deep");
        marks.push_back(stack.size());
        break;
      case 't': {  // TUPLE: the items since the MARK
        std::vector<size_t> items;
        if (!PopMark(items, at)) return false;
        PickleValue v;
        v.type = PickleType::kTuple;
        v.items = std::move(items);
        if (!Push(std::move(v), at)) return false;
        break;
      }
      case 0x85:
      case 0x86:
      case 0x87:  // TUPLE1..3
        if (!Tuple(op - 0x84u, at)) return false;
        break;
      case 'a':
      case 'e': {  // APPEND, APPENDS
        std::vector<size_t> items;
        if (op == 'e') {
          if (!PopMark(items, at)) return false;
        } else {
          size_t v = 0;
          if (!Top(v, at)) return false;
          stack.pop_back();
          items.push_back(v);
        }
        if (stack.empty()) return Fail(at, "APPEND with no list below");
        PickleValue& list = doc.arena[stack.back()];
        if (list.type != PickleType::kList) return Fail(at, "APPEND to a value that is not a list");
        list.items.insert(list.items.end(), items.begin(), items.end());
        break;
      }
      case 's':
      case 'u': {  // SETITEM, SETITEMS
        std::vector<size_t> items;
        if (op == 'u') {
          if (!PopMark(items, at)) return false;
        } else {
          if (stack.size() < 3) return Fail(at, "SETITEM needs a dict, a key and a value");
          items.assign(stack.end() - 2, stack.end());
          stack.resize(stack.size() - 2);
        }
        if (items.size() % 2 != 0) return Fail(at, "SETITEMS with a key and no value");
        if (stack.empty()) return Fail(at, "SETITEMS with no dict below");
        PickleValue& dict = doc.arena[stack.back()];
        if (dict.type != PickleType::kDict) return Fail(at, "SETITEMS on a value that is not a dict");
        for (size_t k = 0; k + 1 < items.size(); k += 2) dict.pairs.emplace_back(items[k], items[k + 1]);
        break;
      }
      case 0x94:  // MEMOIZE
        if (!Put(memo.size(), at)) return false;
        break;
      case 'q':  // BINPUT
        if (!Need(1, at) || !Put(Le(1), at)) return false;
        break;
      case 'r':  // LONG_BINPUT
        if (!Need(4, at) || !Put(Le(4), at)) return false;
        break;
      case 'h':  // BINGET
        if (!Need(1, at) || !Get(Le(1), at)) return false;
        break;
      case 'j':  // LONG_BINGET
        if (!Need(4, at) || !Get(Le(4), at)) return false;
        break;
      default:
        return Fail(at, OpName(op) + " is not read: only the plain data of a memory snapshot is (dicts, lists, "
                                     "tuples, str, int, float, bool, None); nothing is imported or called");
    }
  }
  return Fail(pos, "the pickle ends without STOP");
}

}  // namespace

const PickleValue* PickleDoc::Get(const PickleValue& dict, const char* key) const {
  if (dict.type != PickleType::kDict) return nullptr;
  for (const auto& kv : dict.pairs) {
    const PickleValue& k = arena[kv.first];
    if (k.type == PickleType::kString && k.s == key) return &arena[kv.second];
  }
  return nullptr;
}

int64_t PickleDoc::Int(const PickleValue& dict, const char* key, int64_t fallback) const {
  const PickleValue* v = Get(dict, key);
  return v != nullptr && v->type == PickleType::kInt ? v->i : fallback;
}

std::string PickleDoc::Str(const PickleValue& dict, const char* key) const {
  const PickleValue* v = Get(dict, key);
  return v != nullptr && v->type == PickleType::kString ? v->s : std::string();
}

PickleDoc ReadPickle(const std::string& bytes) {
  PickleDoc doc;
  if (bytes.size() > kPickleMaxBytes) {
    doc.error = "the pickle is larger than " + std::to_string(kPickleMaxBytes >> 20) + " MiB";
    return doc;
  }
  if (bytes.empty() || static_cast<unsigned char>(bytes[0]) != 0x80) {
    doc.error = "not a pickle of protocol 2 or later (no PROTO opcode first)";
    return doc;
  }
  Reader r{bytes, doc};
  r.Run();
  if (!doc.ok) doc.arena.clear();
  return doc;
}

}  // namespace llmmem::core

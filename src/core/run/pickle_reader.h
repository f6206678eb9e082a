// A reader of only the pickle opcodes a torch.cuda.memory._snapshot() dump uses (plain data:
// dicts, lists, tuples, str, int, float, bool, None, written by pickle.dump at protocol 2-4),
// refusing every other opcode (GLOBAL, REDUCE, BUILD, INST, OBJ, NEWOBJ, PERSID ...): nothing
// is ever looked up or called. Opcodes from CPython's Lib/pickletools.py (3.11). The values
// live in one arena addressed by index, so the memo (BINGET of an object seen before) costs
// an index, not a copy, and a cycle cannot leak. Bounded: kPickleMaxBytes in, kPickleMaxValues
// values, kPickleMaxDepth nested MARKs. Errors as values naming the opcode and its offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace llmmem::core {

enum class PickleType : uint8_t { kNone, kBool, kInt, kFloat, kString, kList, kTuple, kDict };

struct PickleValue {
  PickleType type = PickleType::kNone;
  int64_t i = 0;  // kInt, kBool (LONG1 beyond 64 bits is refused)
  double f = 0;   // kFloat
  std::string s;  // kString
  std::vector<size_t> items;                     // kList, kTuple: arena indices
  std::vector<std::pair<size_t, size_t>> pairs;  // kDict: (key, value) arena indices, in order
};

struct PickleDoc {
  bool ok = false;
  std::string error;  // "offset 12: opcode 0x63 ('c', GLOBAL) is not read: only plain data is"
  std::vector<PickleValue> arena;
  size_t root = 0;

  const PickleValue& At(size_t i) const { return arena[i]; }
  // The value of a dict's string key, or nullptr.
  const PickleValue* Get(const PickleValue& dict, const char* key) const;
  int64_t Int(const PickleValue& dict, const char* key, int64_t fallback = -1) const;
  std::string Str(const PickleValue& dict, const char* key) const;
};

constexpr size_t kPickleMaxBytes = 256u << 20;  // a 200 MB snapshot and some
constexpr size_t kPickleMaxValues = 8u << 20;
constexpr int kPickleMaxDepth = 64;

PickleDoc ReadPickle(const std::string& bytes);

}  // namespace llmmem::core

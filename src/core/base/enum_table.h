// One table per enumeration (the DtypeInfo pattern, STYLE.md "One fact, one place"): each
// row names one enumerator once, with its id (configs, JSON, URLs, CLI, JS API), the other
// spellings the parser accepts, the UI's label and whatever else its users read. Ids,
// parsing, the lists --help and error messages print and the UI's combos are generated
// from the rows, so adding an enumerator is one row plus its use in the accounting.
//
// A table is an array of rows with members `value`, `id`, `aliases` (space-separated, ""
// when none) and `label`, in enumerator order; its file static_asserts that order with
// OneRowPerEnumerator, and declares `EnumTable<Row> TableOf(E)` beside the enum, which the
// generic functions below find by argument-dependent lookup. Standard library only.
#pragma once

#include <cstddef>
#include <cstring>
#include <string>
#include <type_traits>

namespace llmmem::core {

template <typename RowT>
struct EnumTable {
  using Row = RowT;
  const Row* rows;
  size_t count;
  const Row* begin() const { return rows; }
  const Row* end() const { return rows + count; }
};

// The row of a table with no columns of its own.
template <typename E>
struct EnumInfo {
  E value;
  const char* id;       // configs, JSON, URLs, the CLI: "1f1b"
  const char* aliases;  // other spellings accepted, space-separated
  const char* label;    // the UI's (app/strings.cpp translates it where it has a row)
  const char* help;     // one line
};

template <typename Row, size_t N>
constexpr EnumTable<Row> TableFrom(const Row (&rows)[N]) {
  return {rows, N};
}

// Enumerators 0..last. Enums without a kCount end with `kLast = <their last>`, so the
// accounting's switches need no case for a sentinel.
template <typename E>
constexpr size_t EnumCount(E last) {
  return static_cast<size_t>(last) + 1;
}

// Row i is enumerator i, and there are exactly `enumerators` rows: every enumerator is
// named once, in order (which makes Info an index).
template <typename Row, size_t N>
constexpr bool OneRowPerEnumerator(const Row (&rows)[N], size_t enumerators) {
  if (N != enumerators) return false;
  for (size_t i = 0; i < N; ++i)
    if (static_cast<size_t>(rows[i].value) != i) return false;
  return true;
}

template <typename E>
using RowOf = typename decltype(TableOf(E{}))::Row;

// The row of `v` (the first row for a value outside the enum, which only a bad cast makes).
template <typename E>
const RowOf<E>& Info(E v) {
  const EnumTable<RowOf<E>> t = TableOf(v);
  const size_t i = static_cast<size_t>(v);
  return t.rows[i < t.count ? i : 0];
}

template <typename E>
const char* Id(E v) {
  return Info(v).id;
}

namespace enum_table_detail {
inline bool SameAscii(const char* a, size_t n, const std::string& b) {
  if (n != b.size()) return false;
  for (size_t i = 0; i < n; ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}
// `text` is the id or one of the space-separated aliases, ignoring ASCII case.
inline bool Names(const char* id, const char* aliases, const std::string& text) {
  if (SameAscii(id, std::strlen(id), text)) return true;
  for (const char* p = aliases; *p != 0;) {
    while (*p == ' ') ++p;
    const char* end = p;
    while (*end != 0 && *end != ' ') ++end;
    if (end > p && SameAscii(p, static_cast<size_t>(end - p), text)) return true;
    p = end;
  }
  return false;
}
}  // namespace enum_table_detail

// The enumerator whose id or alias `text` is, ignoring ASCII case. False when none.
template <typename E>
bool ParseId(const std::string& text, E& out) {
  for (const RowOf<E>& row : TableOf(E{})) {
    if (enum_table_detail::Names(row.id, row.aliases, text)) {
      out = row.value;
      return true;
    }
  }
  return false;
}

// The ids, for --help and error messages: "a, b, c" (last_separator ", "), "a, b or c"
// (" or "), "a|b|c" (both "|"). `keep` picks a subset (the optimizers a layer stack models).
template <typename E>
std::string IdList(const char* last_separator = ", ", bool (*keep)(const RowOf<E>&) = nullptr,
                   const char* separator = ", ") {
  const EnumTable<RowOf<E>> t = TableOf(E{});
  size_t kept = 0, total = 0;
  for (const RowOf<E>& row : t) total += keep == nullptr || keep(row) ? 1 : 0;
  std::string out;
  for (const RowOf<E>& row : t) {
    if (keep != nullptr && !keep(row)) continue;
    if (kept > 0) out += kept + 1 == total ? last_separator : separator;
    out += row.id;
    ++kept;
  }
  return out;
}

// "\"x\" is not <what>; one of: a, b, c": the message every enumerated setting gives.
template <typename E>
std::string NotOneOf(const std::string& text, const char* what) {
  return "\"" + text + "\" is not " + what + "; one of: " + IdList<E>();
}

}  // namespace llmmem::core

// Checks a Config before it is estimated: every number within its documented range
// (its row of the field table, fields.h), names consistent with each other, no overflow possible downstream.
// Returns diagnostics; errors mean the estimate is not computed.
#pragma once

#include "core/config/config.h"
#include "core/base/diagnostics.h"

namespace llmmem::core {

Diagnostics Validate(const Config& c);
// The same check for EstimateTotals on every call (no strings built unless invalid):
// IsValid(c) == !HasErrors(Validate(c)) always, the property tests/test_validity.cpp
// draws thousands of configurations to hold it to.
bool IsValid(const Config& c);
// Sequences a layout runs are multiples of this: 2 x cp under context parallelism, and tp
// under sequence parallelism (their least common multiple); 1 otherwise. The solvers search
// over multiples of it.
int64_t SeqMultiple(const Config& c);
// The model's own checks alone (dimensions, ranges, parameter overflow), no messages: the
// per-model cache keeps their verdict (model_facts.h).
bool CheckModelDims(const ModelSpec& m);

}  // namespace llmmem::core

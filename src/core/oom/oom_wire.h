// An OOM text's evidence (oom_evidence.h) as JSON and back, whole: the page reads the text in
// its Web Worker (bindings/background_calls.cpp "oom_evidence") and builds the report from the
// evidence (OomReportFromEvidence), so the readers of the text are not in the page's wasm
// (issue 32: the first screen's bytes). Not oom_json.h's reading for people and scripts: this
// one keeps every field and every figure's tolerance, so EvidenceFromWire(EvidenceToWire(e))
// is e (a non-finite figure travels as "inf", "-inf" or "nan").
#pragma once

#include <string>

#include "core/oom/oom_evidence.h"
#include "core/parse/json.h"

namespace llmmem::core {

Json EvidenceToWire(const Evidence& e);
// False, with `error` set, when `j` is not such a document.
bool EvidenceFromWire(const Json& j, Evidence* e, std::string* error);

}  // namespace llmmem::core

// An OOM reading (oom_report.h) as JSON, for `llmmem oom --json` and the JS API's readOom:
// {recognised, truncated, headline, notes, known_forms: [{id, name, example, source}],
//  devices: [{form, form_name, backend, device, gpu_name, line, repeats, excerpt, figures: {..._bytes},
//             processes, notes, bar: {drawable, consistent, capacity_bytes, total_bytes, request_bytes,
//             segments: [{kind, label, bytes, arithmetic, stated}], notes},
//             findings: [{id, title, text, actions, bytes, sufficient}], gpu_matches: [{key, name, gap_bytes, why}],
//             suggested: {query, gpu, gpu_memory_gb, other_processes_gb, fits},
//             comparison: {stage, rows: [{label, observed_bytes, estimated_bytes, note}], differences},
//             remedies: [{id, title, change, tradeoff, saving_bytes, peak_bytes, fits, query}]}]}
// Byte figures are whole bytes; a figure the text does not give is absent.
#pragma once

#include "core/parse/json.h"
#include "core/oom/oom_report.h"

namespace llmmem::core {

Json OomReportToJson(const OomReport& r);

}  // namespace llmmem::core

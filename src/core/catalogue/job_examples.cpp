#include "core/catalogue/job_examples.h"

#include <cstring>

#include "core/catalogue/embedded.h"

namespace llmmem::core {

extern const EmbeddedFile kEmbeddedJobExamples[];

namespace {

struct Title {
  const char* id;
  const char* title;
};
// One row per example file; a file without a row is shown by its id.
constexpr Title kTitles[] = {
    {"grpo_colocate", "RL: a GRPO trainer and its colocated vLLM engine, asleep while it trains"},
    {"llm_embedder_reranker", "Serving: an LLM, an embedder and a reranker, three vLLM processes"},
    {"draft", "Speculative decoding: llama-server with a draft model"},
    {"display", "Memory others hold: a display's 8 GB, and vLLM at its default 0.9"},
};

JobExample FromFile(const EmbeddedFile& f, const char* title) {
  JobExample e;
  e.id = std::string(f.name, std::strlen(f.name) - std::strlen(".json"));
  e.title = title != nullptr ? title : e.id;
  e.request = f.Text();
  const size_t first = e.request.find_first_not_of(" \t\r\n");
  e.bare_list = first != std::string::npos && e.request[first] == '[';
  return e;
}

}  // namespace

const std::vector<JobExample>& JobExamples() {
  static const std::vector<JobExample> examples = [] {
    std::vector<JobExample> out;
    for (const Title& t : kTitles)
      for (const EmbeddedFile* f = kEmbeddedJobExamples; f->name != nullptr; ++f)
        if (std::string(f->name) == std::string(t.id) + ".json") out.push_back(FromFile(*f, t.title));
    for (const EmbeddedFile* f = kEmbeddedJobExamples; f->name != nullptr; ++f) {
      bool titled = false;
      for (const Title& t : kTitles) titled = titled || std::string(f->name) == std::string(t.id) + ".json";
      if (!titled) out.push_back(FromFile(*f, nullptr));
    }
    return out;
  }();
  return examples;
}

}  // namespace llmmem::core

// A training program's own file dropped, pasted or opened (issue 30 part 2: what
// `llmmem --from FILE` reads): an axolotl / LLaMA-Factory / torchtune YAML, a torchtitan TOML,
// a DeepSpeed or TrainingArguments JSON, a launch script. Read off the UI thread by the
// background call "program_file" (the page's first screen carries no YAML or TOML reader: the
// worker's module does), then applied as the user's settings, one undo step, with a banner
// that lists what each key set, what it assumed, what is not counted and what is unknown.
#pragma once

#include <cstdint>
#include <string>

#include "app/state.h"

namespace llmmem::app {

// A .json that is a program's settings rather than a config.json or a saved configuration:
// DeepSpeed's, TrainingArguments', trainer_state.json or ms-swift's args.json.
bool LooksLikeProgramJson(const std::string& text);
// Sends the file to the background reader; without one (a platform that has none), a banner says so.
void AskProgramFile(State& s, const std::string& name, const std::string& text);
// The reader's answer: applies it (true when `seq` was this view's).
bool ProgramFileAnswered(State& s, int64_t seq, bool ok, const std::string& text);

}  // namespace llmmem::app

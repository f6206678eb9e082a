// Persistence of the UI state across runs, one small interface with one implementation per
// platform: the browser's localStorage (key "llmmem.state", the URL query; main_web.cpp)
// and a settings file on the desktop ($XDG_CONFIG_HOME/llmmem/settings.json, ConfigToJson
// plus a "ui" object; main_glfw.cpp). The app decides what to store and when (app.cpp);
// the store only moves text. A store never writes an empty document, and a desktop save
// goes to a temporary file renamed over the old one.
// May include: the standard library only.
#pragma once

#include <string>

namespace llmmem::app {

enum class StorageFormat { kQuery, kJson };

struct StoredText {
  enum class Status { kNone, kOk, kUnreadable };
  Status status = Status::kNone;  // kNone: nothing saved yet (first run)
  std::string text;
  std::string error;  // kUnreadable: why ("permission denied")
};

class Storage {
 public:
  virtual ~Storage() = default;
  virtual StorageFormat Format() const = 0;
  virtual StoredText Load() = 0;
  // Replaces the saved state with `text` (never empty). False with a reason on failure.
  virtual bool Save(const std::string& text, std::string* error) = 0;
  // Moves an unusable saved state out of the way so it is neither loaded nor overwritten.
  // Returns where it went (a path), or an empty string with *error set when it could not.
  virtual std::string SetAside(std::string* error) = 0;
  // Where the state lives, for messages: "/home/u/.config/llmmem/settings.json".
  virtual std::string Where() const = 0;
};

}  // namespace llmmem::app

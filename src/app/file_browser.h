// The desktop app's "Open file..." (issue 32: the page had a picker, the desktop only a drop
// and a path field): a folder's entries, the folders first, then the files the app reads
// (or every file), and a path field. Its logic is here, without ImGui and without I/O: the
// platform lists folders (PlatformHooks::list_dir, io::ListDirectory on the desktop) and
// the chosen path goes to OpenPath as a drop does. panel_file_browser.cpp draws it.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "io/list_dir.h"

namespace llmmem::app {

using ListDir = std::function<io::DirListing(const std::string& dir)>;

struct FileBrowser {
  bool open_request = false;  // the button was pressed: the popup opens next frame
  io::DirListing listing;     // the folder shown
  std::string path_text;      // the field: a folder to go to, or a file to open
  bool all_files = false;     // list every file, not only the ones the app reads
  std::string message;        // why the last folder could not be shown (kept until the next)
  int highlight = -1;         // index into Visible(); -1: none
};

// Files the app reads, by the name's ending (any case): config.json and settings (.json),
// weights (.safetensors, .gguf), training programs' files (.yaml .yml .toml .sh) and logs
// (.txt .log .out .err).
bool IsOpenableName(const std::string& name);

// What the list shows: every folder, then the files IsOpenableName takes (all with all_files).
// Hidden entries (a leading '.') only with all_files.
std::vector<const io::DirEntry*> Visible(const FileBrowser& b);

// The folder above `dir` ("/" above itself); a path joined to a name.
std::string ParentDir(const std::string& dir);
std::string JoinPath(const std::string& dir, const std::string& name);

// Shows `dir` when it can be listed; otherwise keeps the folder shown and says why in message.
// True when it moved.
bool BrowseTo(FileBrowser& b, const ListDir& list, const std::string& dir);

// The path field submitted (Enter, or "Open" with nothing highlighted): a folder is shown, and
// anything else is returned as the file to open (OpenPath says what is wrong with it). A path
// without a leading '/' is taken inside the folder shown. Empty: nothing to open yet.
std::string SubmitPathText(FileBrowser& b, const ListDir& list);

// An entry chosen (double-click, Enter on the highlighted one): a folder is shown, a file's
// full path is returned to be opened.
std::string Choose(FileBrowser& b, const ListDir& list, const io::DirEntry& entry);

// "12.3 MB" for the list's size column (decimal, as the rest of the app).
std::string SizeText(uint64_t bytes);

}  // namespace llmmem::app

// The desktop's "Open file..." (issue 32): the dialog's logic over a stand-in lister, and
// natively io::ListDirectory over a real temporary folder.
#include <doctest.h>

#include <map>
#include <string>

#include "app/file_browser.h"

#ifndef __EMSCRIPTEN__
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "io/list_dir.h"
#endif

using namespace llmmem;
using app::FileBrowser;

namespace {

// A tree of folders by absolute path; "" is the working directory, /work.
app::ListDir StandIn() {
  static const std::map<std::string, std::vector<io::DirEntry>> tree = {
      {"/", {{"work", true, 0}}},
      {"/work",
       {{".cache", true, 0},
        {"runs", true, 0},
        {".hidden.json", false, 10},
        {"axolotl.yaml", false, 812},
        {"config.json", false, 700},
        {"model.safetensors", false, 16060522496ull},
        {"notes.pdf", false, 50000},
        {"train.LOG", false, 3000}}},
      {"/work/runs", {}},
  };
  return [](const std::string& dir) {
    io::DirListing l;
    const std::string d = dir.empty() ? "/work" : dir;
    const auto it = tree.find(d);
    if (it == tree.end()) {
      l.error = d.find('.') != std::string::npos ? "not a folder" : "no such folder";
      return l;
    }
    l.ok = true;
    l.dir = d;
    l.entries = it->second;
    return l;
  };
}

std::vector<std::string> Names(const FileBrowser& b) {
  std::vector<std::string> out;
  for (const io::DirEntry* e : app::Visible(b)) out.push_back(e->name);
  return out;
}

}  // namespace

TEST_CASE("Open file: folders first, then only the files the app reads; All files shows the rest") {
  const app::ListDir list = StandIn();
  FileBrowser b;
  REQUIRE(app::BrowseTo(b, list, ""));
  CHECK(b.listing.dir == "/work");
  CHECK(b.path_text == "/work");
  CHECK(Names(b) == std::vector<std::string>{"runs", "axolotl.yaml", "config.json", "model.safetensors", "train.LOG"});
  b.all_files = true;
  CHECK(Names(b) == std::vector<std::string>{".cache", "runs", ".hidden.json", "axolotl.yaml", "config.json",
                                             "model.safetensors", "notes.pdf", "train.LOG"});
  CHECK(app::IsOpenableName("run.OUT"));
  CHECK(app::IsOpenableName("launch.sh"));
  CHECK_FALSE(app::IsOpenableName("weights.bin"));  // not a format the app reads
  CHECK(app::SizeText(16060522496ull) == "16.06 GB");
  CHECK(app::SizeText(812) == "812 B");
}

TEST_CASE("Open file: a folder opens, a file is returned for OpenPath, a bad path keeps the folder") {
  const app::ListDir list = StandIn();
  FileBrowser b;
  REQUIRE(app::BrowseTo(b, list, ""));
  const std::vector<const io::DirEntry*> shown = app::Visible(b);
  CHECK(app::Choose(b, list, *shown[0]).empty());  // runs/
  CHECK(b.listing.dir == "/work/runs");
  CHECK(Names(b).empty());
  CHECK(app::ParentDir(b.listing.dir) == "/work");
  CHECK(app::ParentDir("/work") == "/");
  CHECK(app::ParentDir("/") == "/");
  REQUIRE(app::BrowseTo(b, list, "/work"));
  CHECK(app::Choose(b, list, *app::Visible(b)[2]) == "/work/config.json");

  // The path field: a relative name is inside the folder shown; a folder is gone to.
  b.path_text = "  config.json ";
  CHECK(app::SubmitPathText(b, list) == "/work/config.json");
  b.path_text = "/";
  CHECK(app::SubmitPathText(b, list).empty());
  CHECK(b.listing.dir == "/");
  b.path_text = "";
  CHECK(app::SubmitPathText(b, list).empty());

  // A folder that cannot be listed leaves the one shown, and says why.
  CHECK_FALSE(app::BrowseTo(b, list, "/nowhere"));
  CHECK(b.listing.dir == "/");
  CHECK(b.message == "/nowhere: no such folder");
  REQUIRE(app::BrowseTo(b, list, "/work"));
  CHECK(b.message.empty());
}

#ifndef __EMSCRIPTEN__
TEST_CASE("io::ListDirectory: a real folder, sorted folders first; errors are sentences") {
  char tmpl[] = "/tmp/llmmem-listdir-XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  const std::string root = tmpl;
  REQUIRE(mkdir((root + "/b-folder").c_str(), 0700) == 0);
  { std::ofstream(root + "/a.json") << "{}"; }
  { std::ofstream(root + "/c.gguf") << "GGUF"; }
  REQUIRE(symlink((root + "/missing").c_str(), (root + "/broken").c_str()) == 0);

  const io::DirListing l = io::ListDirectory(root + "/b-folder/..");
  REQUIRE(l.ok);
  CHECK(l.dir == root);  // resolved
  REQUIRE(l.entries.size() == 3);  // the broken link left out
  CHECK(l.entries[0].name == "b-folder");
  CHECK(l.entries[0].is_dir);
  CHECK(l.entries[1].name == "a.json");
  CHECK(l.entries[1].size == 2);
  CHECK(l.entries[2].name == "c.gguf");
  CHECK_FALSE(l.truncated);
  const io::DirListing cut = io::ListDirectory(root, 2);
  CHECK(cut.truncated);
  CHECK(cut.entries.size() == 2);

  CHECK(io::ListDirectory(root + "/a.json").error == "not a folder");
  CHECK(io::ListDirectory(root + "/nothing").error == "no such folder");
  CHECK(io::ListDirectory("").ok);  // the working directory

  std::remove((root + "/broken").c_str());
  std::remove((root + "/a.json").c_str());
  std::remove((root + "/c.gguf").c_str());
  rmdir((root + "/b-folder").c_str());
  rmdir(root.c_str());
}
#endif

// "Open file..." on the desktop (issue 32): a modal with the folder's path, its folders and
// the files the app reads, a size column, "All files" and Open / Cancel. Its logic is
// file_browser.h; the chosen file goes to OpenPath, as a drop or the command line's does.
#include <algorithm>
#include <string>

#include "app/app.h"
#include "app/file_browser.h"
#include "app/i18n.h"
#include "app/panels.h"
#include "app/state.h"
#include "app/theme.h"
#include "app/widgets.h"
#include "imgui.h"

namespace llmmem::app {
namespace {

constexpr const char* kPopup = "###open_file_browser";

void OpenChosen(const std::string& path) {
  if (path.empty()) return;
  ImGui::CloseCurrentPopup();
  OpenPath(path);
}

}  // namespace

void RequestFileBrowser(State& s) {
  FileBrowser& b = s.browser;
  b.open_request = true;
  // The folder shown last, else the working directory (where the command line's paths start).
  if (!b.listing.ok || !BrowseTo(b, s.hooks.list_dir, b.listing.dir)) BrowseTo(b, s.hooks.list_dir, "");
}

void DrawFileBrowser(State& s) {
  FileBrowser& b = s.browser;
  if (b.open_request) {
    ImGui::OpenPopup(kPopup);
    b.open_request = false;
  }
  const float em = ImGui::GetFontSize();
  const ImVec2 work = ImGui::GetMainViewport()->WorkSize;
  const float w = std::min(em * 40, work.x - em * 2);
  const float list_h = std::max(em * 6, std::min(em * 20, work.y - em * 12));
  ImGui::SetNextWindowPos(ImGui::GetMainViewport()->GetCenter(), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  const std::string title = std::string(Tr("Open file")) + kPopup;
  if (!ImGui::BeginPopupModal(title.c_str(), nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return;
  const ListDir& list = s.hooks.list_dir;
  std::string chosen;

  // The path: a folder to go to or a file to open (Enter).
  char buf[4096];
  const size_t n = std::min(b.path_text.size(), sizeof buf - 1);
  b.path_text.copy(buf, n);
  buf[n] = '\0';
  ImGui::SetNextItemWidth(w);
  if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
  const bool entered = ImGui::InputText("##browser_path", buf, sizeof buf, ImGuiInputTextFlags_EnterReturnsTrue);
  b.path_text = buf;
  MarkItem(s, "browser_path");
  if (entered) {
    // Enter after Up / Down (the field still shows the folder) opens the highlighted entry.
    const std::vector<const io::DirEntry*> before = Visible(b);
    if (b.path_text == b.listing.dir && b.highlight >= 0 && b.highlight < static_cast<int>(before.size()))
      chosen = Choose(b, list, *before[static_cast<size_t>(b.highlight)]);
    else
      chosen = SubmitPathText(b, list);
  }
  if (!b.message.empty()) ImGui::TextColored(BadColor(), "%s", b.message.c_str());

  // `shown` points into the listing: once the folder changes (moved) it is not read again.
  const std::vector<const io::DirEntry*> shown = Visible(b);
  const int count = static_cast<int>(shown.size());
  bool moved = false;
  // Up / Down move the highlight, in the path field too (a one-line field has no use for
  // them); Enter opens the highlighted entry, Escape closes at once (the field would take the
  // first press for itself).
  const bool keys = !ImGui::IsAnyItemActive();
  if (count > 0) {
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_DownArrow))) b.highlight = std::min(count - 1, b.highlight + 1);
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_UpArrow))) b.highlight = std::max(0, b.highlight - 1);
  }
  if (b.highlight >= count) b.highlight = count - 1;

  if (ImGui::BeginChild("##browser_list", ImVec2(w, list_h), true)) {
    if (b.listing.ok && b.listing.dir != "/") {
      if (ImGui::Selectable("..")) moved = BrowseTo(b, list, ParentDir(b.listing.dir));
      MarkItem(s, "browser_up");
    }
    for (int i = 0; i < count && !moved && chosen.empty(); ++i) {
      const io::DirEntry& e = *shown[static_cast<size_t>(i)];
      ImGui::PushID(i);
      const std::string label = e.is_dir ? e.name + "/" : e.name;
      if (ImGui::Selectable(label.c_str(), i == b.highlight, ImGuiSelectableFlags_AllowDoubleClick)) {
        b.highlight = i;
        // A folder opens on one click, a file on a double-click (one click selects it).
        if (e.is_dir || ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) {
          const std::string dir = b.listing.dir;
          chosen = Choose(b, list, e);
          moved = b.listing.dir != dir;
        }
      }
      MarkItem(s, ("browser_" + label).c_str());
      if (!moved && !e.is_dir) {
        ImGui::SameLine(w - em * 6);
        ImGui::TextDisabled("%s", SizeText(e.size).c_str());
      }
      if (i == b.highlight && (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_DownArrow)) ||
                               ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_UpArrow))))
        ImGui::SetScrollHereY();
      ImGui::PopID();
    }
    if (!moved && b.listing.ok && count == 0)
      ImGui::TextDisabled("%s", Tr(b.all_files ? "This folder is empty." : "No file here the calculator reads."));
    if (!moved && b.listing.truncated) ImGui::TextDisabled("%s", Tr("(only the first 5,000 entries)"));
  }
  ImGui::EndChild();

  ImGui::Checkbox(Tr("All files"), &b.all_files);
  MarkItem(s, "browser_all");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%s", Tr("Also list files whose names the calculator does not know, and hidden ones."));
  ImGui::SameLine();
  const bool open = ImGui::Button(Tr("Open"));
  MarkItem(s, "browser_open");
  ImGui::SameLine();
  const bool cancel = ImGui::Button(Tr("Cancel"));
  const bool enter = keys && !entered && ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Enter));
  if (chosen.empty() && !moved && (open || enter)) {
    // A path typed wins over the highlight; the field showing the folder means the highlight.
    if (b.path_text != b.listing.dir)
      chosen = SubmitPathText(b, list);
    else if (b.highlight >= 0 && b.highlight < count)
      chosen = Choose(b, list, *shown[static_cast<size_t>(b.highlight)]);
  }
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + w);
  ImGui::TextDisabled("%s", Tr("config.json, .safetensors and .gguf (only the header is read), a training "
                               "program's YAML, TOML or script, or a log."));
  ImGui::PopTextWrapPos();
  if (cancel || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) ImGui::CloseCurrentPopup();
  OpenChosen(chosen);
  ImGui::EndPopup();
}

}  // namespace llmmem::app

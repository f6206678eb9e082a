// The desktop's runner of the core's long calls; see desktop_background.h.
#include "platform/desktop_background.h"

#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "bindings/background_calls.h"

namespace llmmem::platform::desktopbackground {
namespace {

struct Answer {
  int64_t seq = 0;
  std::string text;
  double ms = 0;
};

std::mutex g_mutex;
std::vector<Answer> g_answers;
void (*g_wake)() = nullptr;

}  // namespace

void Install(app::PlatformHooks* hooks, void (*wake)()) {
  g_wake = wake;
  hooks->background = [](int64_t seq, const std::string& fn, const std::string& request) {
    std::thread([seq, fn, request] {
      const auto t0 = std::chrono::steady_clock::now();
      Answer a{seq, bindings::CallBackground(fn, request), 0};
      a.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      std::lock_guard<std::mutex> lock(g_mutex);
      g_answers.push_back(std::move(a));
      if (g_wake) g_wake();
    }).detach();
  };
}

void Poll() {
  std::vector<Answer> answers;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    answers.swap(g_answers);
  }
  for (const Answer& a : answers) app::BackgroundAnswered(a.seq, true, a.text, a.ms);
}

}  // namespace llmmem::platform::desktopbackground

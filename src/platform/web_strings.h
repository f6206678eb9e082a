// The page's Chinese strings, fetched when Chinese is first shown (web_strings.cpp).
#pragma once

namespace llmmem::platform::webstrings {

// Where to wake the page once the strings arrived.
void Install(void (*wake)());
// Fetches llmmem-zh.json (once, unless it failed) and hands it to app::AddStrings.
void Request();

}  // namespace llmmem::platform::webstrings

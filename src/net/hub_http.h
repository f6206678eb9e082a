// One bounded HTTP GET for the Hub loader (native only: libcurl in hub_http_curl.cpp, or
// hub_http_none.cpp when the build found no libcurl). Every request has a timeout and a
// byte cap; a body past the cap is cut off and reported, never kept.
#pragma once

#include <cstdint>
#include <string>

namespace llmmem::net {

struct HttpRequest {
  std::string url;
  std::string token;         // sent as "Authorization: Bearer" to the URL's host only;
                             // one with a byte outside visible ASCII is never sent
  int64_t range_begin = -1;  // >= 0: "Range: bytes=begin-end" (inclusive)
  int64_t range_end = -1;
  uint64_t max_bytes = 1 << 20;
  long timeout_ms = 30000;  // the whole request, redirects included
};

struct HttpResponse {
  bool answered = false;  // false: no HTTP answer (offline, DNS, timeout, TLS); see error
  int status = 0;
  std::string body;
  uint64_t total_size = 0;  // Content-Range's total on a 206, else the body's size
  bool capped = false;      // the body was larger than max_bytes
  std::string error_code;     // the Hub's X-Error-Code header (GatedRepo, RepoNotFound, ...)
  std::string error_message;  // its X-Error-Message header
  std::string error;        // transport failure, as a sentence
};

bool HttpAvailable();  // false when built without libcurl
HttpResponse HttpGet(const HttpRequest& request);

}  // namespace llmmem::net

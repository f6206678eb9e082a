// hub_http.h with libcurl (Debian's libcurl4-openssl-dev). Redirects are followed (the Hub
// sends weight files to its CDN with a 302); curl drops a custom Authorization header on a
// redirect to another host (since 7.58, unless CURLOPT_UNRESTRICTED_AUTH), as
// huggingface_hub's requests session does, so the token never reaches the CDN.
#include <curl/curl.h>

#include <strings.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "net/hub_http.h"

namespace llmmem::net {
namespace {

struct Sink {
  std::string* body;
  uint64_t cap;
  bool capped = false;
  uint64_t range_total = 0;
  HttpResponse* response = nullptr;
};

// "Name: value\r\n" -> value when the name matches (case-insensitive), bounded.
bool HeaderValue(const std::string& line, const char* name, std::string* value) {
  const size_t n = std::strlen(name);
  if (line.size() <= n || line[n] != ':' || strncasecmp(line.c_str(), name, n) != 0) return false;
  size_t a = n + 1, b = line.size();
  while (a < b && line[a] == ' ') ++a;
  while (b > a && (line[b - 1] == '\r' || line[b - 1] == '\n' || line[b - 1] == ' ')) --b;
  *value = line.substr(a, std::min<size_t>(b - a, 1000));
  return true;
}

size_t OnBody(char* data, size_t size, size_t n, void* user) {
  Sink* s = static_cast<Sink*>(user);
  const size_t bytes = size * n;
  if (s->body->size() + bytes > s->cap) {
    s->capped = true;
    return 0;  // aborts the transfer: CURLE_WRITE_ERROR
  }
  s->body->append(data, bytes);
  return bytes;
}

// "Content-Range: bytes 0-7/12345": the total after the slash.
size_t OnHeader(char* data, size_t size, size_t n, void* user) {
  Sink* s = static_cast<Sink*>(user);
  const std::string line(data, size * n);
  // A redirect's headers come first: each answer's status line starts a fresh set.
  if (line.compare(0, 5, "HTTP/") == 0) {
    s->response->error_code.clear();
    s->response->error_message.clear();
  }
  HeaderValue(line, "X-Error-Code", &s->response->error_code);
  HeaderValue(line, "X-Error-Message", &s->response->error_message);
  if (line.size() > 14 && (line.compare(0, 14, "Content-Range:") == 0 || line.compare(0, 14, "content-range:") == 0)) {
    const size_t slash = line.find('/');
    if (slash != std::string::npos) s->range_total = std::strtoull(line.c_str() + slash + 1, nullptr, 10);
  }
  return size * n;
}

}  // namespace

bool HttpAvailable() { return true; }

HttpResponse HttpGet(const HttpRequest& q) {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  HttpResponse r;
  CURL* curl = curl_easy_init();
  if (curl == nullptr) {
    r.error = "libcurl could not start";
    return r;
  }
  for (char c : q.token) {
    if (static_cast<unsigned char>(c) <= 0x20 || static_cast<unsigned char>(c) >= 0x7f) {
      r.error = "the access token has a character that cannot go into a header; it was not sent";
      curl_easy_cleanup(curl);
      return r;
    }
  }
  Sink sink{&r.body, q.max_bytes};
  sink.response = &r;
  curl_slist* headers = nullptr;
  if (!q.token.empty()) headers = curl_slist_append(headers, ("Authorization: Bearer " + q.token).c_str());
  const std::string range = std::to_string(q.range_begin) + "-" + std::to_string(q.range_end);
  curl_easy_setopt(curl, CURLOPT_URL, q.url.c_str());
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(curl, CURLOPT_MAXREDIRS, 5L);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, q.timeout_ms);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, q.timeout_ms < 10000 ? q.timeout_ms : 10000L);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_USERAGENT, "llmmem/0.1");
  curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");  // gzip'd JSON, decoded by curl
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, OnBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, OnHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &sink);
  if (headers != nullptr) curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  if (q.range_begin >= 0) curl_easy_setopt(curl, CURLOPT_RANGE, range.c_str());
  const CURLcode code = curl_easy_perform(curl);
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  r.status = static_cast<int>(status);
  r.capped = sink.capped;
  r.answered = status > 0 && (code == CURLE_OK || sink.capped);
  if (code != CURLE_OK && !sink.capped) {
    r.error = code == CURLE_OPERATION_TIMEDOUT ? "timed out after " + std::to_string(q.timeout_ms / 1000) + " s"
                                               : std::string(curl_easy_strerror(code));
  }
  r.total_size = status == 206 && sink.range_total > 0 ? sink.range_total : r.body.size();
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  return r;
}

}  // namespace llmmem::net

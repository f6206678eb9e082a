// Built when CMake found no libcurl: the Hub is reachable only through the local cache.
#include "net/hub_http.h"

namespace llmmem::net {

bool HttpAvailable() { return false; }

HttpResponse HttpGet(const HttpRequest&) {
  HttpResponse r;
  r.error =
      "this llmmem was built without libcurl (install libcurl4-openssl-dev and rebuild); "
      "only models already in the Hugging Face cache can be read";
  return r;
}

}  // namespace llmmem::net

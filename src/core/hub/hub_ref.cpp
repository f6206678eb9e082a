// Hub references, URLs and cache folder names; see hub_ref.h for the sources.
#include "core/hub/hub_ref.h"

#include <cctype>
#include <vector>

#include "core/parse/json.h"
#include "core/parse/percent_encoding.h"
#include "core/base/safe_text.h"

namespace llmmem::core {
namespace {

bool NameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.'; }

// One part of a repo id: 1..96 name characters, not starting or ending with '-' or '.'.
bool ValidPart(std::string_view s) {
  if (s.empty() || s.size() > 96) return false;
  for (char c : s)
    if (!NameChar(c)) return false;
  return s.front() != '-' && s.front() != '.' && s.back() != '-' && s.back() != '.';
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Hosts that are read as URLs without a scheme, and so are never an organisation's name.
bool KnownHost(std::string_view host) {
  return host == "huggingface.co" || host == "www.huggingface.co" || host == "hf.co" || host == "hf-mirror.com";
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// "host[:port]" of "scheme://host[:port]/..." lower-cased, without the scheme's default port.
std::string Authority(std::string_view url) {
  const bool https = url.substr(0, 8) == "https://";
  const size_t start = url.find("://");
  if (start == std::string_view::npos) return "";
  std::string_view rest = url.substr(start + 3);
  std::string a = Lower(rest.substr(0, rest.find_first_of("/?#")));
  const std::string default_port = https ? ":443" : ":80";
  if (a.size() > default_port.size() && a.compare(a.size() - default_port.size(), std::string::npos, default_port) == 0)
    a.resize(a.size() - default_port.size());
  return a;
}

bool HuggingFaceHost(std::string_view host) { return host == "huggingface.co" || host == "www.huggingface.co" || host == "hf.co"; }

// The endpoint is huggingface.co or a mirror of it (HubMirrors): huggingface.co URLs name
// the same ids there.
bool ServesHuggingFaceIds(std::string_view endpoint) {
  const std::string a = Authority(endpoint);
  if (HuggingFaceHost(a)) return true;
  size_t n = 0;
  const HubMirror* m = HubMirrors(&n);
  for (size_t i = 0; i < n; ++i)
    if (Authority(m[i].endpoint) == a) return true;
  return false;
}

HubRefParse Fail(std::string_view text, const std::string& why) {
  HubRefParse r;
  r.error = "\"" + EchoValue(text, 120) + "\" is not a Hugging Face model: " + why +
            " (write org/name, org/name@revision or a huggingface.co URL)";
  return r;
}

}  // namespace

bool IsValidRepoId(std::string_view id) {
  if (id.find("--") != std::string_view::npos || id.find("..") != std::string_view::npos) return false;
  const size_t slash = id.find('/');
  if (slash == std::string_view::npos) return ValidPart(id);
  return ValidPart(id.substr(0, slash)) && ValidPart(id.substr(slash + 1));
}

bool IsCommitHash(std::string_view rev) {
  if (rev.size() != 40) return false;
  for (char c : rev)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

HubRefParse ParseHubRef(std::string_view text, std::string_view endpoint) {
  const std::string_view t = Trim(text);
  if (t.empty()) return Fail(t, "the text is empty");
  if (t.size() > 2048) return Fail(t, "the text is too long");
  std::string_view rest = t;
  bool url = false;
  for (const char* scheme : {"https://", "http://"}) {
    if (rest.substr(0, std::string_view(scheme).size()) == scheme) {
      rest.remove_prefix(std::string_view(scheme).size());
      url = true;
    }
  }
  // A known host typed without a scheme ("huggingface.co/org/name") is a URL too. Only
  // these: an org with a '.' in its name ("a.b/c@x/y") stays an id.
  const size_t first_slash = rest.find('/');
  if (!url && first_slash != std::string_view::npos) url = KnownHost(rest.substr(0, first_slash));
  HubRefParse r;
  if (url) {
    const size_t host_end = rest.find('/');
    if (host_end == std::string_view::npos) return Fail(t, "the URL names no model");
    // The host decides where the model comes from: it must be the endpoint's.
    const std::string host =
        Authority(std::string(t.substr(0, 5) == "http:" ? "http://" : "https://") + std::string(rest.substr(0, host_end)));
    const std::string own = Authority(endpoint);
    if (host.find('@') != std::string::npos)
      return Fail(t, "the URL has a user name or password before its host (refused, not printed)");
    if (host != own && !(HuggingFaceHost(host) && ServesHuggingFaceIds(endpoint))) {
      return Fail(t, "the URL's host " + EchoValue(host, 80) + " is not the Hub endpoint in use (" + EchoValue(own, 80) +
                         "); models are read only from the endpoint: set HF_ENDPOINT (or pick the mirror) to read "
                         "from that host");
    }
    std::string_view path = rest.substr(host_end + 1);
    path = path.substr(0, path.find_first_of("?#"));
    std::vector<std::string> parts;
    size_t at = 0;
    while (at <= path.size()) {
      const size_t next = path.find('/', at);
      const std::string_view p = path.substr(at, next == std::string_view::npos ? std::string_view::npos : next - at);
      if (!p.empty()) parts.push_back(PercentDecode(p, false));
      if (next == std::string_view::npos) break;
      at = next + 1;
    }
    if (!parts.empty() && parts[0] == "models") parts.erase(parts.begin());  // a legacy /models/ prefix
    if (parts.empty()) return Fail(t, "the URL names no model");
    if (parts[0] == "datasets" || parts[0] == "spaces")
      return Fail(t, "it is a " + parts[0].substr(0, parts[0].size() - 1) + ", not a model");
    size_t n = 1;
    if (parts.size() >= 2 && parts[1] != "tree" && parts[1] != "blob" && parts[1] != "resolve") n = 2;
    r.ref.repo_id = parts[0] + (n == 2 ? "/" + parts[1] : std::string());
    if (parts.size() > n) {
      const std::string& kind = parts[n];
      if ((kind == "tree" || kind == "blob" || kind == "resolve") && parts.size() > n + 1) {
        r.ref.revision = parts[n + 1];
        for (size_t i = n + 2; i < parts.size(); ++i) r.ref.file += (r.ref.file.empty() ? "" : "/") + parts[i];
      } else if (kind != "tree") {
        return Fail(t, "the URL's path after the model is not tree/, blob/ or resolve/");
      }
    }
  } else {
    const size_t at = rest.find('@');
    r.ref.repo_id = std::string(rest.substr(0, at));
    if (at != std::string_view::npos) r.ref.revision = std::string(rest.substr(at + 1));
  }
  if (r.ref.revision.empty()) return Fail(t, "the revision after @ is empty");
  for (char c : r.ref.revision) {
    if (static_cast<unsigned char>(c) < 0x20 || c == ' ')
      return Fail(t, "the revision has spaces or control characters");
  }
  // The revision is a cache path too (refs/<revision>): it must stay inside the repo.
  if (const std::string why = HubPathProblem(r.ref.revision); !why.empty()) return Fail(t, "the revision " + why);
  if (!r.ref.file.empty()) {
    if (const std::string why = HubPathProblem(r.ref.file); !why.empty()) return Fail(t, "the file " + why);
  }
  if (KnownHost(r.ref.repo_id.substr(0, r.ref.repo_id.find('/'))) && r.ref.repo_id.find('/') != std::string::npos) {
    return Fail(t, "the URL's path starts with a host name, not a model");
  }
  if (!IsValidRepoId(r.ref.repo_id)) {
    return Fail(t, "an id is one or two names of letters, digits, '-', '_' and '.' (at most 96 each) joined by '/'");
  }
  r.ok = true;
  return r;
}

std::string HubRefToText(const HubRef& ref) {
  return ref.revision.empty() || ref.revision == "main" ? ref.repo_id : ref.repo_id + "@" + ref.revision;
}

std::string HubEndpoint(std::string_view env_value, std::string* error) {
  std::string v(Trim(env_value));
  while (!v.empty() && v.back() == '/') v.pop_back();
  if (v.empty()) return kHubDefaultEndpoint;
  const size_t scheme = v.substr(0, 7) == "http://" ? 7 : v.substr(0, 8) == "https://" ? 8 : 0;
  // A user name or password ("https://user:pw@host"): dropped, and never repeated.
  const size_t host_end = scheme > 0 ? v.find_first_of("/?#", scheme) : std::string::npos;
  const size_t at = scheme > 0 ? v.rfind('@', host_end == std::string::npos ? v.size() : host_end) : std::string::npos;
  std::string warning;
  if (at != std::string::npos && at >= scheme) {
    v.erase(scheme, at + 1 - scheme);
    warning = "HF_ENDPOINT has a user name or password before its host: it is dropped, not sent and not printed "
              "(give an access token as HF_TOKEN)";
  }
  bool clean = scheme > 0 && v.size() > scheme && v.find_first_of("?#", scheme) == std::string::npos &&
               v[scheme] != '/' && v[scheme] != ':';
  for (char c : v) clean &= static_cast<unsigned char>(c) > 0x20 && static_cast<unsigned char>(c) < 0x7f;
  if (!clean) {
    if (error)
      *error = "HF_ENDPOINT \"" + EchoValue(v, 120) + "\" is not an http(s) URL with a host; using " +
               kHubDefaultEndpoint;
    return kHubDefaultEndpoint;
  }
  if (error) *error = warning;
  return v;
}

std::string HubTokenProblem(std::string_view token, std::string_view source) {
  if (token.size() > 4096) return std::string(source) + " is longer than 4096 characters: it is not sent";
  for (size_t i = 0; i < token.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(token[i]);
    if (c <= 0x20 || c >= 0x7f) {
      const std::string what = c == '\r' || c == '\n' ? "a line break"
                               : c == ' '             ? "a space"
                               : c < 0x20 || c == 0x7f ? "a control character"
                                                      : "a non-ASCII character";
      return std::string(source) + " has " + what + " at character " + std::to_string(i + 1) +
             ": it is not sent (an access token is letters, digits and punctuation; copy it again from "
             "huggingface.co/settings/tokens)";
    }
  }
  return "";
}

std::string HubPathProblem(std::string_view name) {
  if (name.empty()) return "is empty";
  if (name.size() > 1024) return "is longer than 1024 bytes";
  const std::string shown = "\"" + EchoValue(name, 120) + "\" is not a path inside the repo: ";
  if (name.front() == '/') return shown + "it starts with '/'";
  if (name.size() >= 2 && std::isalpha(static_cast<unsigned char>(name[0])) && name[1] == ':')
    return shown + "it starts with a drive letter";
  for (char c : name) {
    if (c == '\\') return shown + "it has a backslash";
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return shown + "it has a control character";
  }
  size_t at = 0;
  while (at <= name.size()) {
    const size_t next = name.find('/', at);
    const std::string_view part = name.substr(at, next == std::string_view::npos ? std::string_view::npos : next - at);
    const std::string decoded = PercentDecode(part, false);
    if (part.empty()) return shown + "it has an empty part (\"//\" or a trailing '/')";
    if (decoded == "." || decoded == ".." || decoded.find_first_of("/\\") != std::string::npos ||
        decoded.find('\0') != std::string::npos)
      return shown + "it has a \".\" or \"..\" part, or one that decodes to it";
    if (next == std::string_view::npos) break;
    at = next + 1;
  }
  return "";
}

bool HubOfflineValue(std::string_view env_value) {
  std::string up;
  for (char c : Trim(env_value)) up += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return up == "1" || up == "ON" || up == "YES" || up == "TRUE";
}

std::string HubFileUrl(const std::string& endpoint, const HubRef& ref, const std::string& file) {
  return endpoint + "/" + ref.repo_id + "/resolve/" + PercentEncode(ref.revision) + "/" + PercentEncode(file, "/");
}

std::string HubModelApiUrl(const std::string& endpoint, const HubRef& ref) {
  std::string url = endpoint + "/api/models/" + ref.repo_id;
  if (!ref.revision.empty() && ref.revision != "main") url += "/revision/" + PercentEncode(ref.revision);
  return url + "?blobs=true";
}

std::string HubSearchUrl(const std::string& endpoint, std::string_view query, int limit) {
  return endpoint + "/api/models?search=" + PercentEncode(Trim(query)) +
         "&sort=downloads&limit=" + std::to_string(limit) + "&expand=downloads&expand=safetensors&expand=gguf";
}

std::string HubCacheFolder(const std::string& repo_id) {
  std::string out = "models--";
  for (char c : repo_id) {
    if (c == '/')
      out += "--";
    else
      out += c;
  }
  return out;
}

const HubMirror* HubMirrors(size_t* count) {
  static const HubMirror kMirrors[] = {
      {"huggingface.co", "https://huggingface.co"},
      {"hf-mirror.com", "https://hf-mirror.com"},
  };
  *count = sizeof kMirrors / sizeof kMirrors[0];
  return kMirrors;
}

}  // namespace llmmem::core

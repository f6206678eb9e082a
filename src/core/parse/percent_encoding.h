// Percent-encoding (RFC 3986 §2.1), one implementation for links (config_json, the
// network request's query), the Hub's URLs (hub_ref) and the page's hf= parameter.
#pragma once

#include <string>
#include <string_view>

namespace llmmem::core {

// Everything but the unreserved characters (letters, digits, - _ . ~) and those in `keep`
// as %XX, upper-case hex.
std::string PercentEncode(std::string_view s, std::string_view keep = "");
// %XX decoded; an invalid escape is kept as it is. In a query (form encoding) '+' is a space.
std::string PercentDecode(std::string_view s, bool plus_is_space);

}  // namespace llmmem::core

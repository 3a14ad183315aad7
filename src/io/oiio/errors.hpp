#pragma once
// OpenImageIO's error text, for the readers and writers over it.
#include <cctype>
#include <string>

namespace gp::io {

// OIIO's error text (which clears it), trimmed; `fallback` when it has nothing to say.
inline std::string oiio_message(std::string message, const char* fallback) {
  while (!message.empty() && std::isspace(static_cast<unsigned char>(message.back()))) message.pop_back();
  return message.empty() ? fallback : message;
}

}  // namespace gp::io

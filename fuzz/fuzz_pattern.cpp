// --match and a policy's match (common/pattern.h): any pattern compiles or
// is refused with a message, and a compiled one searches any path without
// a crash or a stall (libFuzzer's -timeout catches a stall). The input is
// a pattern, a NUL, then the path; without a NUL, the input is both.
#include <cstring>

#include "common/pattern.h"
#include "fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cgmem;
  auto text = fuzz::text(data, size);
  size_t nul = text.find('\0');
  std::string_view pattern = text.substr(0, nul), path = nul == text.npos ? text : text.substr(nul + 1);
  auto p = Pattern::compile(pattern, "--match");
  if (!p) {
    fuzz::check(!p.error().what.empty());
    return 0;
  }
  (void)p->search(path);
  fuzz::check(p->text() == pattern);
  return 0;
}

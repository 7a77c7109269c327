// /proc/PID/stat (comm with spaces and ')') and /proc/PID/wchan.
#include "fuzz.h"
#include "proc/stat.h"
#include "proc/wchan.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cgmem;
  auto text = fuzz::text(data, size);
  auto stat = proc::parse_proc_stat(text);
  if (stat) {
    fuzz::check(stat->pid > 0 && stat->state != '?');
    // comm is a view into the input.
    fuzz::check(stat->comm.data() >= text.data() &&
                stat->comm.data() + stat->comm.size() <= text.data() + text.size());
  }
  auto wchan = proc::parse_wchan(text);
  fuzz::check(wchan.size() <= text.size());
  return 0;
}

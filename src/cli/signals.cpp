#include "cli/signals.h"

namespace cgmem::cli {
namespace {

volatile std::sig_atomic_t g_stop = 0;

void on_signal(int) { g_stop = 1; }

}  // namespace

void catch_stop_signals() {
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaction(s, &action, nullptr);
}

bool stop_requested() { return g_stop != 0; }

volatile std::sig_atomic_t* stop_flag() { return &g_stop; }

}  // namespace cgmem::cli

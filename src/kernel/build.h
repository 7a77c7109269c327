// `cgmem kernel build`: Debian's linux-source-6.12, configured from the
// lab's fragment over tinyconfig, optionally patched, compiled to a bzImage
// and cached (see cache.h). The steps, each named in a failure:
//   unpack     tar -xf the source tarball into a temporary directory
//   patch      patch -p1 --forward (only with --patch)
//   configure  make tinyconfig; merge_config.sh -m .config FRAGMENT;
//              make olddefconfig; then every option the fragment sets must
//              have survived (Kconfig silently drops one whose dependencies
//              are off)
//   compile    make -jN bzImage, with a progress line
//   install    bzImage, vmlinux.pvh, config, build.log and build.json into
//              the temporary entry, renamed to kernels/NAME-KEY
// The temporary directory (kernels/.build-NAME-KEY-XXXXXX, on the cache's
// file system so the rename is atomic) is removed at the end; a failure
// keeps only the log, as kernels/NAME-KEY.failed.log. A plan (--plan) runs
// the steps up to configure, then removes the directory: nothing compiled,
// nothing cached.
#pragma once

#include <csignal>
#include <functional>
#include <string>
#include <vector>

#include "common/error.h"
#include "kernel/cache.h"
#include "kernel/inputs.h"

namespace cgmem::kernel {

struct BuildRequest {
  BuildInputs inputs;
  Source source;
  unsigned jobs = 2;
  std::string kernels;  // the cache directory
  bool force = false;   // build even when cached (the new entry replaces the old)
  bool plan = false;    // unpack or copy, patch, configure; no compile, no entry
};

struct BuildEvents {
  std::function<void(const std::string& step)> step;           // a step starts
  std::function<void(const std::string& line)> note;           // "patch: memcg-stock-slots skipped: ..."
  std::function<void(uint64_t compiled, uint64_t expected, double seconds)> compiling;  // about once a second
};

struct BuildResult {
  Entry entry;             // for a plan: what the entry would say (no dir, image or release)
  bool cache_hit = false;
  bool planned = false;    // a plan: configured and removed
  bool cached = false;     // a plan: the entry is in the cache already
  std::string config;      // a plan: the .config it made
};

Result<BuildResult> build_kernel(const BuildRequest& request, const BuildEvents& events,
                                 const volatile std::sig_atomic_t* stop);

// Options set in a fragment ("CONFIG_X=y", "CONFIG_S=\"text\"", "# CONFIG_X is
// not set") that `config` (a .config) does not have with the same value.
std::vector<std::string> missing_options(const std::string& fragment, const std::string& config);

// CONFIG_HZ from a .config's text, or 0.
int config_hz(const std::string& config);

// Lines of make's output that name a compiled file ("  CC      mm/memcontrol.o").
uint64_t count_compiled(const std::string& make_output);

}  // namespace cgmem::kernel

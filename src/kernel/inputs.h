// What a kernel of cgmem's own is built from, and its name and cache key.
//
// A build is a kernel source (Debian's linux-source-6.12 tarball by default,
// or --source: another tarball or a directory holding a tree, see source.h),
// configured from kernel/config/lab.config (compiled into cgmem, so an
// installed cgmem needs no source tree) on top of `make tinyconfig`, with the
// HZ chosen and the patches asked for (--patch, from kernel/patches/) applied
// in one fixed order: memory-high-throttle, memcg-stock-slots, then
// memcg-trace (which needs both). The name says what a user asked for:
// "hz1000", "hz1000-throttle", "hz1000-slots", "hz1000-throttle-slots-trace"
// (one suffix per patch, in that order); a kernel
// from --source is prefixed with its version from the tree's Makefile
// ("6.16.3-hz1000"). The key is the first 12 hex digits of a SHA-256 over the
// source's identity, the whole fragment (HZ and CONFIG_LOCALVERSION included)
// and every patch's text, so a change to any of them is a new cache entry.
// The kernel's release carries the name ("6.12.117-cgmem-hz1000-throttle"),
// so run records made in the guest name it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"

namespace cgmem::kernel {

inline constexpr int kHzChoices[] = {100, 250, 300, 1000};

// The patches cgmem knows, in the order they are applied:
// the RFC "memory.high.throttle", ported to 6.12; and 6.16's per-CPU charge
// stock of several memcgs, ported to 6.12 with its slot count a boot
// parameter (memcontrol.stock_slots=1..7, default 1); and trace events of
// that stock's drains and of each throttle's reclaim, penalty and sleep
// (events/memcg/ in tracefs), which hook into the other two.
inline constexpr std::string_view kThrottlePatch = "memory-high-throttle";
inline constexpr std::string_view kSlotsPatch = "memcg-stock-slots";
inline constexpr std::string_view kTracePatch = "memcg-trace";

// The source tarball of Debian's linux-source-6.12 package.
inline constexpr const char* kSourcePackage = "linux-source-6.12";
inline constexpr const char* kSourceTarball = "/usr/src/linux-source-6.12.tar.xz";

struct Source {
  std::string tarball;         // an .tar.xz holding one top directory, or
  std::string dir;             // a directory holding a kernel tree (copied, never modified)
  std::string version;         // the key's part: the package version, "file SIZE MTIME", "dir DIGEST"
  std::string kernel_version;  // "6.12.117", from the package version or the tree's Makefile
  bool from_option = false;    // --source: the name carries kernel_version
};

struct BuildInputs {
  int hz = 1000;
  std::vector<std::string> patches;  // names from patch_names(), in patch_names()'s order
  std::string version;               // --source: the kernel's version, the name's prefix; empty for Debian's
};

// The patches in the order they are applied, each once; an error names an
// unknown one and the known ones, or memcg-trace without both others.
Result<std::vector<std::string>> ordered_patches(const std::vector<std::string>& patches);

// The name's suffix of a patch: "-throttle", "-slots", "-trace".
std::string_view patch_suffix(std::string_view patch);

// "hz1000", "hz1000-throttle-slots-trace", "6.16.3-hz1000".
std::string kernel_name(const BuildInputs& inputs);

// The inputs a name stands for ("hz250-throttle" -> 250 + the patch,
// "6.16.3-hz1000-slots" -> version 6.16.3, 1000, the slots patch), or nothing
// when the name is not one kernel_name makes (suffixes out of order included).
std::optional<BuildInputs> inputs_from_name(std::string_view name);

// The command that builds the kernel `name` ("cgmem kernel build --hz 1000
// --patch memory-high-throttle"; "cgmem kernel build --source DIR --hz 1000"
// for a versioned name), or empty when the name is not cgmem's.
std::string build_command(std::string_view name);

// The fragment merged over tinyconfig: lab.config, then the HZ choice and
// CONFIG_LOCALVERSION="-cgmem-NAME".
std::string fragment(const BuildInputs& inputs);

// The patch text for a patch name; an error names the known patches.
Result<std::string> patch_text(std::string_view patch);
std::vector<std::string> patch_names();

// The embedded kernel/config/lab.config and patch files.
std::string_view lab_config();
std::string_view throttle_patch();
std::string_view slots_patch();
std::string_view trace_patch();

// The cache key: 12 hex digits of SHA-256(source.version, fragment, each
// patch's text in order).
std::string cache_key(const Source& source, const BuildInputs& inputs);

}  // namespace cgmem::kernel

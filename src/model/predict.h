// Predictions from the throttle arithmetic: what memory.high costs a program
// over time. Sizes are bytes (as memory.current and memory.high read);
// times are seconds.
//
// The one unknown the kernel's formula does not settle is how many sleeps a
// task pays per 64-page batch, k. The kernel charges a whole batch and keeps
// the rest as a per-CPU stock, so one return to user space per batch sleeps
// (k = 1, the kernel comment's "per allocation batch"). When something
// empties the stock between pages (another cgroup charging on the same CPU),
// every page charges a new batch and sleeps the full batch penalty (k = 64).
// The study measured both, and phases in between. Each sleep is the penalty
// for nr_pages = batch at the usage reached so far.
//
// Left out: the time the program itself needs to allocate (only sleeps are
// counted), reclaim time, wake-up latency, the batch the kernel charges ahead
// of the usage it then evaluates (+64 pages; see docs/model.md), and the
// smaller batch near memory.max.
#pragma once

#include <cstdint>
#include <optional>

#include "model/penalty.h"

namespace cgmem::model {

struct Throttle {
  Kernel kernel;
  uint64_t high = 0;            // memory.high, bytes (rounded down to pages)
  uint32_t shift = 0;           // memory.high.throttle (RFC), 0..32
  double sleeps_per_batch = 1;  // k, 1 (per batch) .. kernel.batch (per page)
  uint32_t procs = 1;           // tasks allocating at once, each throttled on its own
  bool wheel = false;           // sleeps last the timer wheel's typical length, not J jiffies
};

// The length of one sleep at this usage, 0 when the kernel does not sleep.
double sleep_seconds(const Throttle& t, uint64_t usage);

// One operation of `bytes` at this usage: (pages / batch) * k sleeps.
double op_seconds(const Throttle& t, uint64_t usage, uint64_t bytes);

// (unthrottled + op_seconds) / unthrottled; unthrottled must be > 0.
double slowdown(const Throttle& t, uint64_t usage, uint64_t bytes, double unthrottled_seconds);

// Bytes per second the cgroup grows at this usage (all procs together);
// +infinity where the kernel does not sleep.
double growth_rate(const Throttle& t, uint64_t usage);

// The smallest usage (a whole page) at which a batch sleeps, and at which the
// 2 * HZ clamp applies; nullopt if none below 2^64 bytes.
std::optional<uint64_t> sleep_start(const Throttle& t);
std::optional<uint64_t> cap_start(const Throttle& t);

struct Growth {
  double seconds = 0;   // time asleep from `from` to `to` (wall clock, procs together)
  uint64_t sleeps = 0;  // sleeps paid (all procs together)
  std::optional<uint64_t> throttled_from;  // sleep_start, if below `to`
  std::optional<uint64_t> capped_from;     // cap_start, if below `to`
};

// k for a task beside `other_cgroups` cgroups charging on its CPU, by the
// kernel's stock rule (kernel.rules): one sleep per page (k = batch) once
// they can empty the stock between pages, else one per batch (k = 1). With
// several slots (6.16+) that bound is reached only when each of their
// charges evicts this cgroup's slot; a random one goes, so k can be lower.
double sleeps_per_batch_beside(const Kernel& kernel, uint32_t other_cgroups);

// Time for usage to grow from `from` to `to` (to memory.max: the time until
// the OOM kill). Sums one sleep per batch / k pages at the usage reached.
Growth grow(const Throttle& t, uint64_t from, uint64_t to);

}  // namespace cgmem::model

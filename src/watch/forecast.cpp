#include "watch/forecast.h"

#include <algorithm>
#include <cmath>

#include "model/predict.h"
#include "model/wheel.h"

namespace cgmem::watch {

std::string_view regime_name(Regime r) {
  switch (r) {
    case Regime::per_batch: return "per_batch";
    case Regime::per_page: return "per_page";
    case Regime::unknown: break;
  }
  return "unknown";
}

namespace {


// The two terms and their clamped sum for one batch, as the kernel computes them.
void penalty_terms(Forecast& f, const Sample& now, const model::Kernel& kernel) {
  model::Level memory{.usage = model::to_pages(now.current, kernel)};
  if (!now.high.is_max()) memory.high = model::to_pages(now.high.bytes(), kernel);
  model::Level swap{.usage = model::to_pages(now.swap_current, kernel)};
  bool swap_over = now.over_swap_high();  // the swap term applies
  if (swap_over) swap.high = model::to_pages(now.swap_high.bytes(), kernel);
  model::Penalty p = model::penalty(
      model::PenaltyInput{.memory = {&memory, 1}, .swap = {&swap, swap_over ? 1u : 0u}, .nr_pages = kernel.batch},
      kernel);
  f.over_percent = model::over_percent(memory.usage, memory.high);
  f.swap_over_percent = swap_over ? model::over_percent(swap.usage, swap.high) : 0;
  f.memory_delay_ms = model::jiffies_to_ms(model::high_delay(p.memory_overage, kernel.batch, kernel), kernel);
  f.swap_delay_ms = model::jiffies_to_ms(model::high_delay(p.swap_overage, kernel.batch, kernel), kernel);
  f.clamped = p.clamped;
  if (!p.sleeps) return;
  f.sleep_s = model::jiffies_to_ms(p.jiffies, kernel) / 1e3;
  f.sleep_wheel_s = model::wheel_sleep(p.jiffies, kernel).typical_ms / 1e3;
}

}  // namespace

Forecast forecast(const Sample& now, const Rates& r, const model::Kernel& kernel, uint32_t procs) {
  Forecast f;
  // No forecast on values that are no facts (the state is unknown).
  if (!now.has(File::current) || !now.trusted(File::high) || !now.trusted(File::max)) return f;
  bool over_high = !now.high.is_max() && now.current > now.high.bytes();
  if (!over_high && !now.over_swap_high()) return f;
  f.valid = true;
  f.regime_rule = kernel.rules.per_page_rule();
  penalty_terms(f, now, kernel);

  double sleeps = r.sleeps_per_s * r.dt_s;
  if (sleeps >= 1) {
    uint64_t page = kernel.page_size;
    double charged = std::max(r.pgfault_per_s * r.dt_s, r.growth_bytes_per_s * r.dt_s / double(page));
    f.pages_per_sleep = charged / sleeps;
    double middle = std::sqrt(double(kernel.batch));
    if (f.pages_per_sleep > 0)
      f.regime = f.pages_per_sleep >= middle ? Regime::per_batch : Regime::per_page;
  }
  if (now.max.is_max() || now.current >= now.max.bytes()) return f;
  uint64_t to = now.max.bytes();
  if (r.growth_bytes_per_s > 0) f.max_eta_s = double(to - now.current) / r.growth_bytes_per_s;
  if (f.swap_delay_ms > 0 || now.high.is_max()) return f;  // the model's growth has no swap term
  model::Throttle t{.kernel = kernel, .high = now.high.bytes(), .procs = std::max(procs, 1u)};
  t.sleeps_per_batch = 1;
  f.max_eta_per_batch_s = model::grow(t, now.current, to).seconds;
  t.sleeps_per_batch = kernel.batch;
  f.max_eta_per_page_s = model::grow(t, now.current, to).seconds;
  return f;
}

}  // namespace cgmem::watch

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

Forecast forecast(const Sample& now, const Rates& r, const model::Kernel& kernel, uint32_t procs) {
  Forecast f;
  // No forecast on values that are no facts (the state is unknown).
  if (!now.has(File::current) || !now.trusted(File::high) || !now.trusted(File::max)) return f;
  if (now.high.is_max() || now.current <= now.high.bytes()) return f;
  f.valid = true;
  f.regime_rule = kernel.rules.per_page_rule();
  uint64_t page = kernel.page_size;
  f.over_percent = model::over_percent(now.current / page, model::to_pages(now.high.bytes(), kernel));
  model::Throttle t{.kernel = kernel, .high = now.high.bytes(), .procs = std::max(procs, 1u)};
  f.sleep_s = model::sleep_seconds(t, now.current);
  auto p = model::penalty(now.current / page, model::to_pages(now.high.bytes(), kernel), kernel);
  if (p.sleeps) f.sleep_wheel_s = model::wheel_sleep(p.jiffies, kernel).typical_ms / 1e3;

  double sleeps = r.sleeps_per_s * r.dt_s;
  if (sleeps >= 1) {
    double charged = std::max(r.pgfault_per_s * r.dt_s, r.growth_bytes_per_s * r.dt_s / double(page));
    f.pages_per_sleep = charged / sleeps;
    double middle = std::sqrt(double(kernel.batch));
    if (f.pages_per_sleep > 0)
      f.regime = f.pages_per_sleep >= middle ? Regime::per_batch : Regime::per_page;
  }
  if (now.max.is_max() || now.current >= now.max.bytes()) return f;
  uint64_t to = now.max.bytes();
  if (r.growth_bytes_per_s > 0) f.max_eta_s = double(to - now.current) / r.growth_bytes_per_s;
  t.sleeps_per_batch = 1;
  f.max_eta_per_batch_s = model::grow(t, now.current, to).seconds;
  t.sleeps_per_batch = kernel.batch;
  f.max_eta_per_page_s = model::grow(t, now.current, to).seconds;
  return f;
}

}  // namespace cgmem::watch

// The batches a report reads, as `cgmem matrix` recorded them in
// batch.json: the parts of sharded plans (`--shard K/N`), which are here and
// which are missing, and the hosts the batches ran on.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report/run.h"

namespace cgmem::report {

// The shards of one plan: a spec's name and kernel label, split N ways.
struct ShardSet {
  std::string name, kernel;
  int count = 0;
  uint64_t plan_runs = 0;     // the whole plan's runs, as each part's batch.json says
  std::vector<int> present;   // the parts here, 1-based, sorted
  std::vector<int> missing;
  std::vector<int> twice;     // parts given by more than one batch
  bool plans_differ = false;  // the parts do not agree on plan_runs: other specs or --reps
  size_t runs = 0;            // of them in this report
};

// Where a batch ran (batch.json's "host"), and how many of the report's runs it holds.
struct HostGroup {
  std::string hostname, kernel, virtualized;
  unsigned cpus = 0;
  int hz = 0;
  size_t batches = 0, runs = 0;
};

struct Batches {
  std::vector<ShardSet> shards;
  std::vector<HostGroup> hosts;
};

// Reads the batch.json beside each run (its parent directory), once per batch.
Batches read_batches(const std::vector<Run>& runs);

// One sentence per plan with parts missing or twice, and one for the hosts
// when there are several.
std::vector<std::string> batch_set_notes(const Batches& b);

// report.json's "shards" and "hosts".
nlohmann::json shards_json(const Batches& b);
nlohmann::json hosts_json(const Batches& b);

}  // namespace cgmem::report

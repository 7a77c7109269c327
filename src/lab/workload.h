// `cgmem workload`: the study's workload (the study's own Python program), in C++.
//
// Each operation maps a private anonymous chunk (256 KiB, 64 pages: the
// kernel's charge batch), writes all of it, and copies one random chunk it
// already holds into a scratch buffer so the working set stays in use. The
// phases: grow until the process holds its share of --target, then --churn
// operations that free one random chunk and map a new one. Variants: page
// cache reads (--file), MAP_POPULATE, N processes, --set-own-high (after
// growing, write its own memory.high; each churn op then maps one 4 KiB page),
// and --own-code-size (each op first reads one byte of every page of its own
// padded binary, mapped executable: own_code.h).
//
// Around every operation it reads memory.current and memory.events through
// OwnCounters and writes one JSON line (op_line.h) with one write(2). The
// loop allocates nothing but the measured memory: the chunk table, the
// scratch chunk and the line buffer exist before the first op.
#pragma once

#include <cstdint>

#include "common/error.h"
#include "common/sink.h"
#include "lab/own_code.h"
#include "lab/own_counters.h"
#include "lab/workload_options.h"

namespace cgmem::lab {

// What one process of the workload does: its share of the target, its seed.
struct Share {
  uint64_t target_bytes = 0;
  uint32_t seed = 1;
  uint64_t file_offset = 0;  // where its part of --file starts
};

// Runs one process's operations, writing op lines to `out_fd`; walks `code`
// (when not null) at the start of every op. Returns the number of operations done.
Result<uint64_t> run_share(const WorkloadOptions& options, const Share& share,
                           OwnCounters& counters, int out_fd, const CodeMap* code = nullptr);

// The whole workload: prepares --file, maps its own binary for
// --own-code-size (/proc/self/exe: in the exec'd copy, the padded copy),
// forks --procs processes (or runs in this one), waits for them. Returns the
// process exit code. A forked process's error goes to `errors` as its
// message (one process's failure does not end the others).
Result<int> run_workload(const WorkloadOptions& options, OwnCounters& counters, int out_fd,
                         const LineSink& errors);

}  // namespace cgmem::lab

// A workload's `build` (docs/matrix.md): a command the host runs in the
// spec's directory before any run, writing into {build}, so that a program
// the spec keeps as source (Go, Java) runs as the binary it builds. For
// `matrix --vm` the host builds once into a directory of its own, which
// comes into the guest as /vm/in/build; the guest's matrix does not build.
#pragma once

#include <functional>
#include <string>

#include "common/error.h"
#include "matrix/plan.h"
#include "matrix/spec.h"

namespace cgmem::matrix {

// Runs every workload's build (those that have one, in the spec's order)
// into workload_build_dir(o, NAME), made first; a build that fails stops
// here with its exit code and the end of its output.
Result<void> build_workloads(const MatrixSpec& spec, const PlanOptions& o,
                             const std::function<void(const std::string&)>& progress);

bool has_builds(const MatrixSpec& spec);

}  // namespace cgmem::matrix

// YAML inputs: the same text as a pod (kubelet 1.36, gate on, and 1.28) and
// as a compose file. The shape check runs first, so deep or huge documents
// are refused before yaml-cpp sees them.
#include "fuzz.h"
#include "manager_invariants.h"
#include "managers/compose.h"
#include "managers/kubelet.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cgmem;
  auto text = fuzz::text(data, size);
  if (auto pod = managers::parse_pod_yaml(text, "fuzz.yaml")) {
    for (int minor : {28, 36}) {
      auto k = managers::resolve_kubelet_config(
          {.minor = minor, .memory_qos = true, .capacity = int64_t{8} << 30});
      std::vector<std::string> notes;
      if (auto t = managers::translate_kubelet(*k, managers::apply_api_defaults(*pod, notes, minor)))
        fuzz::check_translation(*t, 4096);
    }
  }
  if (auto services = managers::parse_compose_yaml(text, "fuzz.yaml")) {
    if (auto t = managers::translate_compose(*services, "", 4096)) fuzz::check_translation(*t, 4096);
  }
  return 0;
}

// The labels of a cgroup's series, from its path alone (no API server, no
// container runtime asked): the path itself, and what the kubelet and
// systemd encode in the names they give.
//
// Kubernetes pods, both cgroup drivers:
//   systemd:  /kubepods.slice/kubepods-burstable.slice/
//               kubepods-burstable-pod1f2e..._4b5c.slice/cri-containerd-<64 hex>.scope
//             (guaranteed pods sit directly under kubepods.slice: kubepods-pod<uid>.slice;
//              the UID's dashes are underscores in a unit name)
//   cgroupfs: /kubepods/burstable/pod1f2e...-4b5c/<64 hex>
// Container scopes: cri-containerd-ID.scope (containerd), crio-ID.scope
// (CRI-O; its conmon sits in crio-conmon-ID.scope), docker-ID.scope; with
// the cgroupfs driver the directory is the bare ID.
//
// systemd: the innermost unit (NAME.service, .scope, .socket, .mount, .swap)
// outside kubepods, and the innermost slice.
#pragma once

#include <string>
#include <string_view>

#include <cstddef>

namespace cgmem::exporter {

struct CgroupLabels {
  std::string pod_uid;       // with dashes, as the API server shows it
  std::string qos;           // guaranteed, burstable, besteffort
  std::string container_id;  // the runtime's ID (64 hex)
  std::string runtime;       // containerd, crio, docker ("" with the cgroupfs driver: unknown)
  std::string unit;          // systemd unit
  std::string slice;         // systemd slice
};

CgroupLabels labels_for(std::string_view path);

// The longest label value on the page, in bytes (before the exposition's
// own escaping of backslash, quote and newline, which Prometheus undoes).
// A cgroup's path has no length limit (each directory is opened relative to
// its parent), and every series of the cgroup repeats it: 1,000 cgroups with
// 200,000-byte paths made a 7.6 GB page. A longer value keeps its first
// bytes and ends with kCutMark and a hash of the whole value, so two long
// paths with the same head stay two series.
inline constexpr size_t kMaxLabelValue = 1024;
inline constexpr std::string_view kCutMark = "...[cut ";  // "...[cut 1a2b3c4d5e6f7a8b]"

// A value as it appears on the page: shown with visible() (common/text.h:
// control bytes and bytes that are not UTF-8 as \xHH escapes, so the page
// is valid UTF-8 and prints safely), then cut to kMaxLabelValue. cut says
// whether it was.
std::string label_value(std::string_view raw, bool& cut);

// The label block of a cgroup's series, without braces:
//   cgroup="/a/b",pod_uid="...",qos="burstable",container_id="...",runtime="containerd"
// Empty labels are left out. Values are label_value()s, escaped for the
// exposition (backslash, quote, newline); `cut` counts the values cut.
struct LabelBlock {
  std::string text;
  unsigned cut = 0;
};
LabelBlock label_block(std::string_view path, const CgroupLabels& labels);

// Appends value escaped for a label value of the text format and OpenMetrics.
void append_escaped(std::string& out, std::string_view value);

}  // namespace cgmem::exporter

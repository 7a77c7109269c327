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

// The label block of a cgroup's series, without braces:
//   cgroup="/a/b",pod_uid="...",qos="burstable",container_id="...",runtime="containerd"
// Empty labels are left out. Values are escaped (backslash, quote, newline).
std::string label_block(std::string_view path, const CgroupLabels& labels);

// Appends value escaped for a label value of the text format and OpenMetrics.
void append_escaped(std::string& out, std::string_view value);

}  // namespace cgmem::exporter

// Labels from cgroup paths: the kubelet's two cgroup drivers, containerd,
// CRI-O and Docker names, systemd units; and escaping.
#include <gtest/gtest.h>

#include "exporter/labels.h"

namespace cgmem::exporter {
namespace {

TEST(Labels, KubepodsSystemdDriverContainerd) {
  auto l = labels_for(
      "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1f2e3d4c_5b6a_4789_9abc_def012345678.slice/"
      "cri-containerd-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope");
  EXPECT_EQ(l.qos, "burstable");
  EXPECT_EQ(l.pod_uid, "1f2e3d4c-5b6a-4789-9abc-def012345678");
  EXPECT_EQ(l.container_id, "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
  EXPECT_EQ(l.runtime, "containerd");
  EXPECT_EQ(l.unit, "");  // a container scope is not a systemd service here
}

TEST(Labels, KubepodsSystemdDriverGuaranteedCrio) {
  auto l = labels_for(
      "/kubepods.slice/kubepods-pod1f2e3d4c_5b6a_4789_9abc_def012345678.slice/"
      "crio-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.scope");
  EXPECT_EQ(l.qos, "guaranteed");
  EXPECT_EQ(l.pod_uid, "1f2e3d4c-5b6a-4789-9abc-def012345678");
  EXPECT_EQ(l.runtime, "crio");
  EXPECT_EQ(l.container_id, std::string(64, 'a'));
}

TEST(Labels, KubepodsSystemdDriverPodSliceItself) {
  auto l = labels_for("/kubepods.slice/kubepods-besteffort.slice/"
                      "kubepods-besteffort-pod1f2e3d4c_5b6a_4789_9abc_def012345678.slice");
  EXPECT_EQ(l.qos, "besteffort");
  EXPECT_EQ(l.pod_uid, "1f2e3d4c-5b6a-4789-9abc-def012345678");
  EXPECT_EQ(l.container_id, "");
}

TEST(Labels, KubepodsCgroupfsDriver) {
  auto l = labels_for("/kubepods/besteffort/pod1f2e3d4c-5b6a-4789-9abc-def012345678/"
                      "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
  EXPECT_EQ(l.qos, "besteffort");
  EXPECT_EQ(l.pod_uid, "1f2e3d4c-5b6a-4789-9abc-def012345678");
  EXPECT_EQ(l.container_id, "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
  EXPECT_EQ(l.runtime, "");  // the bare ID does not say which runtime

  auto g = labels_for("/kubepods/pod1f2e3d4c-5b6a-4789-9abc-def012345678/crio-" + std::string(64, 'b'));
  EXPECT_EQ(g.qos, "guaranteed");
  EXPECT_EQ(g.runtime, "crio");
  EXPECT_EQ(g.container_id, std::string(64, 'b'));
}

TEST(Labels, SystemdUnitAndSlice) {
  auto l = labels_for("/system.slice/nginx.service");
  EXPECT_EQ(l.unit, "nginx.service");
  EXPECT_EQ(l.slice, "system.slice");
  EXPECT_EQ(l.pod_uid, "");
  auto u = labels_for("/user.slice/user-1000.slice/user@1000.service/app.slice/app-firefox-1234.scope");
  EXPECT_EQ(u.unit, "app-firefox-1234.scope");
  EXPECT_EQ(u.slice, "app.slice");
  auto d = labels_for("/system.slice/docker-" + std::string(64, 'c') + ".scope");
  EXPECT_EQ(d.unit, "docker-" + std::string(64, 'c') + ".scope");
}

TEST(Labels, PlainPathsHaveOnlyTheCgroupLabel) {
  EXPECT_EQ(label_block("/cgmem/throttled", labels_for("/cgmem/throttled")), "cgroup=\"/cgmem/throttled\"");
  EXPECT_EQ(label_block("/", labels_for("/")), "cgroup=\"/\"");
  // A pod-looking name outside kubepods is not a pod.
  EXPECT_EQ(labels_for("/podman/pod1f2e3d4c-5b6a-4789-9abc-def012345678").pod_uid, "");
  // A UID of the wrong length is not taken.
  EXPECT_EQ(labels_for("/kubepods/burstable/pod123").pod_uid, "");
}

TEST(Labels, ValuesAreEscaped) {
  EXPECT_EQ(label_block("/a\"b\\c\nd", {}), "cgroup=\"/a\\\"b\\\\c\\nd\"");
  EXPECT_EQ(label_block("/system.slice/x.service", labels_for("/system.slice/x.service")),
            "cgroup=\"/system.slice/x.service\",unit=\"x.service\",slice=\"system.slice\"");
}

}  // namespace
}  // namespace cgmem::exporter

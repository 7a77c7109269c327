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
  EXPECT_EQ(label_block("/cgmem/throttled", labels_for("/cgmem/throttled")).text, "cgroup=\"/cgmem/throttled\"");
  EXPECT_EQ(label_block("/", labels_for("/")).text, "cgroup=\"/\"");
  // A pod-looking name outside kubepods is not a pod.
  EXPECT_EQ(labels_for("/podman/pod1f2e3d4c-5b6a-4789-9abc-def012345678").pod_uid, "");
  // A UID of the wrong length is not taken.
  EXPECT_EQ(labels_for("/kubepods/burstable/pod123").pod_uid, "");
}

TEST(Labels, ValuesAreEscaped) {
  // The value is the name as visible() shows it (a newline as \n), then escaped for the exposition.
  EXPECT_EQ(label_block("/a\"b\\c\nd", {}).text, "cgroup=\"/a\\\"b\\\\\\\\c\\\\nd\"");
  EXPECT_EQ(label_block("/system.slice/x.service", labels_for("/system.slice/x.service")).text,
            "cgroup=\"/system.slice/x.service\",unit=\"x.service\",slice=\"system.slice\"");
}

TEST(Labels, ValuesAreValidUtf8WithoutControlBytes) {
  bool cut = true;
  EXPECT_EQ(label_value("/bad\xff/clear\x1b[2J/cr\r", cut), "/bad\\xff/clear\\x1b[2J/cr\\r");
  EXPECT_FALSE(cut);
  EXPECT_EQ(label_value("/caf\xc3\xa9.service", cut), "/caf\xc3\xa9.service");
  auto block = label_block("/system.slice/x\xff.service", labels_for("/system.slice/x\xff.service"));
  EXPECT_EQ(block.text, "cgroup=\"/system.slice/x\\\\xff.service\",unit=\"x\\\\xff.service\",slice=\"system.slice\"");
}

TEST(Labels, ALongValueIsCutMarkedAndStillUnique) {
  std::string head = "/" + std::string(2000, 'd');
  bool cut = false;
  std::string a = label_value(head + "/a", cut);
  EXPECT_TRUE(cut);
  EXPECT_EQ(a.size(), kMaxLabelValue);
  EXPECT_EQ(a.substr(0, kMaxLabelValue - 25), head.substr(0, kMaxLabelValue - 25));  // the mark: 25 bytes
  EXPECT_EQ(a.substr(kMaxLabelValue - 25, 8), "...[cut ");
  EXPECT_EQ(a.back(), ']');
  EXPECT_NE(label_value(head + "/b", cut), a);  // the hash of the whole value tells them apart
  EXPECT_EQ(label_value(head + "/a", cut), a);  // and is stable
  // 200,000 bytes: cut the same way, the cut counted per value.
  auto block = label_block(std::string(200'000, 'x') + ".service", labels_for(std::string(200'000, 'x') + ".service"));
  EXPECT_EQ(block.cut, 2u);  // cgroup and unit
  EXPECT_LT(block.text.size(), 2 * kMaxLabelValue + 32);
  // Escapes count toward the bound and are never split; a UTF-8 character neither.
  std::string escaped = label_value(std::string(300, '\x1b'), cut);
  EXPECT_TRUE(cut);
  EXPECT_LE(escaped.size(), kMaxLabelValue);
  std::string wide = label_value(std::string(1500, 'a') + std::string(600, '\xc3') , cut);
  EXPECT_LE(wide.size(), kMaxLabelValue);
  std::string utf8;
  for (int i = 0; i < 600; ++i) utf8 += "\xc3\xa9";
  std::string cut_utf8 = label_value(utf8, cut);
  EXPECT_EQ(cut_utf8.find("...[cut ") % 2, 0u);  // whole two-byte characters before the mark
}

}  // namespace
}  // namespace cgmem::exporter

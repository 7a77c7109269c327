#!/usr/bin/env bash
# deploy/ checked with the tools that run it: the alert and recording rules
# with `promtool check rules` and their unit tests (`promtool test rules`), the
# systemd unit with `systemd-analyze verify` (ExecStart pointed at /bin/true:
# the binary is not installed here), the DaemonSet parsed as YAML with the
# fields the issue asks for.
set -euo pipefail
deploy=${1:?usage: check_deploy.sh DEPLOY_DIR}
command -v promtool >/dev/null || { echo "promtool missing: apt-get install prometheus (scripts/install-deps.sh)" >&2; exit 1; }

promtool check rules "$deploy/prometheus/cgmem-rules.yml" "$deploy/prometheus/cgmem-recording.yml"
(cd "$deploy/prometheus" && promtool test rules cgmem-rules.test.yml cgmem-recording.test.yml)

if command -v systemd-analyze >/dev/null; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  sed 's|/usr/local/bin/cgmem|/bin/true|' "$deploy/systemd/cgmem-exporter.service" > "$tmp/cgmem-exporter.service"
  out=$(systemd-analyze verify "$tmp/cgmem-exporter.service" 2>&1 || true)
  if [[ -n $out ]]; then
    echo "systemd-analyze verify cgmem-exporter.service:" >&2
    echo "$out" >&2
    exit 1
  fi
  echo "systemd-analyze verify: cgmem-exporter.service ok"
fi

python3 - "$deploy/kubernetes/cgmem-exporter.yaml" <<'PY'
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
kinds = {d["kind"]: d for d in docs}
for kind in ("Namespace", "ServiceAccount", "DaemonSet"):
    assert kind in kinds, f"no {kind} in the manifest"
ds = kinds["DaemonSet"]
assert ds["apiVersion"] == "apps/v1"
spec = ds["spec"]["template"]["spec"]
meta = ds["spec"]["template"]["metadata"]
assert meta["labels"] == ds["spec"]["selector"]["matchLabels"], "the selector must match the pod labels"
assert meta["annotations"]["prometheus.io/scrape"] == "true"
assert spec["serviceAccountName"] == kinds["ServiceAccount"]["metadata"]["name"]
c = spec["containers"][0]
mounts = {m["mountPath"]: m for m in c["volumeMounts"]}
for path in ("/host/sys/fs/cgroup", "/host/proc"):
    assert mounts[path].get("readOnly") is True, f"{path} must be mounted read-only"
volumes = {v["name"]: v for v in spec["volumes"]}
assert volumes[mounts["/host/sys/fs/cgroup"]["name"]]["hostPath"]["path"] == "/sys/fs/cgroup"
assert volumes[mounts["/host/proc"]["name"]]["hostPath"]["path"] == "/proc"
port = c["ports"][0]["containerPort"]
assert str(port) == meta["annotations"]["prometheus.io/port"], "the scrape annotation names the container port"
sc = c["securityContext"]
assert sc["readOnlyRootFilesystem"] and not sc["allowPrivilegeEscalation"] and sc["capabilities"]["drop"] == ["ALL"]
assert c["image"] == "localhost/cgmem-exporter:latest", "the image built from deploy/kubernetes/Containerfile"
assert "--root=/host/sys/fs/cgroup" in c["args"] and "--proc-root=/host/proc" in c["args"]
print("cgmem-exporter.yaml: Namespace, ServiceAccount, DaemonSet ok")
PY

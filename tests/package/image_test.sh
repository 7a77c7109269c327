#!/usr/bin/env bash
# The exporter's image, built FROM scratch by deploy/kubernetes/build-image.sh
# with Debian's buildah and run with Debian's podman and crun: one layer (no
# base image), cgmem's exporter as its entrypoint; `cgmem exporter --once`
# in it prints a page over a fixture tree that promtool accepts, and served
# from it (as the DaemonSet runs it) it answers /healthz and /metrics.
#   image_test.sh CGMEM SOURCE_DIR
#
# Nothing of this machine's is touched: buildah, podman and crun keep their
# storage and state in a temporary directory, in a mount and network
# namespace of its own where /run and /var/lib are empty, /sys/fs/cgroup a
# read-only view without the hierarchies under it (the containers run with
# --cgroups=disabled) and the only interface loopback.
set -euo pipefail
fail() { echo "image_test: $*" >&2; exit 1; }

for c in buildah podman crun ip curl jq promtool python3; do
  command -v "$c" > /dev/null || fail "$c missing: scripts/install-deps.sh installs buildah, podman and crun"
done
. "$(dirname "$0")/../support/own_namespace.sh"
own_namespace image_test "$@"
cgmem=$(realpath "${1:?usage: image_test.sh CGMEM SOURCE_DIR}")
source_dir=$(realpath "${2:?usage: image_test.sh CGMEM SOURCE_DIR}")
tree=$source_dir/tests/fixtures/cgroup-v2-6.12-throttled
# podman, crun and the blob cache write under /run and /var/lib whatever
# their flags say; here those are this namespace's own.
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /var/lib

tmp=$(mktemp -d /tmp/cgmem-image-XXXXXX)
served=
cleanup() {
  if [[ -n $served ]]; then
    pid=$(podman_ inspect --format '{{.State.Pid}}' "$served" 2> /dev/null || true)
    podman_ stop --time 5 "$served" > /dev/null 2>&1 || { [[ $pid -gt 0 ]] && kill -KILL "$pid" 2> /dev/null; }
    podman_ rm --force "$served" > /dev/null 2>&1 || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
store=$tmp/storage
podman_() {
  podman --root "$store/root" --runroot "$store/run" --storage-driver vfs --tmpdir "$tmp/libpod" \
    --runtime crun --cgroup-manager cgroupfs --events-backend none "$@"
}
# crun cannot raise a limit past this host's hard one (no CAP_SYS_RESOURCE
# here), and podman asks for more by default.
run_flags=(--pull=never --cgroups=disabled --ulimit nofile=4096:4096 --ulimit nproc=4096:4096
  -v "$tree:/tree:ro")

"$source_dir/deploy/kubernetes/build-image.sh" --storage "$store" --archive "$tmp/image.tar" "$cgmem" > "$tmp/build.out" ||
  fail "build-image.sh failed"
image=localhost/cgmem-exporter:latest

# FROM scratch: one layer, holding cgmem and its libraries only.
mkdir "$tmp/oci" && tar -xf "$tmp/image.tar" -C "$tmp/oci"
manifest=$(jq -r '.manifests[0].digest' "$tmp/oci/index.json" | sed 's#sha256:#sha256/#')
layers=$(jq '.layers | length' "$tmp/oci/blobs/$manifest")
[[ $layers -eq 1 ]] || fail "the image has $layers layers, not 1 (a base image?)"
config=$(jq -r '.config.digest' "$tmp/oci/blobs/$manifest" | sed 's#sha256:#sha256/#')
entry=$(jq -c '.config.Entrypoint' "$tmp/oci/blobs/$config")
[[ $entry == '["/usr/bin/cgmem","exporter"]' ]] || fail "entrypoint $entry"
layer=$(jq -r '.layers[0].digest' "$tmp/oci/blobs/$manifest" | sed 's#sha256:#sha256/#')
files=$(tar -tzf "$tmp/oci/blobs/$layer" 2> /dev/null || tar -tf "$tmp/oci/blobs/$layer")
grep -qx 'usr/bin/cgmem' <<< "$files" || fail "no usr/bin/cgmem in the layer"
others=$(grep -v -e '/$' -e '^usr/bin/cgmem$' -e '\.so' -e '^lib' <<< "$files" || true)
[[ -z $others ]] || fail "the layer holds more than cgmem and its libraries: $others"

# --once: two scans and one page, in the container.
podman_ run --rm --network=none "${run_flags[@]}" "$image" --once --root /tree --interval 100ms > "$tmp/page" 2> "$tmp/once.err" ||
  fail "cgmem exporter --once in the image: $(cat "$tmp/once.err")"
promtool check metrics < "$tmp/page" > "$tmp/promtool.out" 2>&1 || fail "promtool: $(cat "$tmp/promtool.out")"
grep -q '^cgmem_memory_events_high_total{cgroup="/lab-run1"} [1-9]' "$tmp/page" ||
  fail "no high events of the throttled cgroup in the page: $(head -5 "$tmp/page")"

# Served, as the DaemonSet runs it (the host's network, here this namespace's).
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
served=$(podman_ run --detach --network=host "${run_flags[@]}" "$image" --listen "127.0.0.1:$port" --root /tree --interval 1s)
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/healthz" > /dev/null && break; sleep 0.1; done
health=$(curl -sf "http://127.0.0.1:$port/healthz") || fail "no /healthz: $(podman_ logs "$served" 2>&1 | tail -5)"
[[ $health == ok* ]] || fail "/healthz said: $health"
series=$(curl -sf "http://127.0.0.1:$port/metrics" | grep -c '^cgmem_') || fail "no /metrics"
((series > 20)) || fail "/metrics has $series cgmem series"
size=$(awk '{print $3, $4}' <<< "$(tail -1 "$tmp/build.out")")
echo "image_test: $image ($size, 1 layer) ran --once ($(grep -c '^cgmem_' "$tmp/page") series) and served $series series"

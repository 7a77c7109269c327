#!/usr/bin/env bash
# Builds the image the DaemonSet runs, FROM scratch: no base image is
# pulled, and the image holds cgmem, the shared libraries it loads (as ldd
# lists them: the static cgmem has no HTTP server, since Debian's
# cpp-httplib is a shared library only) and nothing else: no shell, no
# package manager. With Debian's buildah.
#
#   deploy/kubernetes/build-image.sh [--tag NAME] [--archive FILE] [--storage DIR] CGMEM
#
# CGMEM     the dynamically linked cgmem (build/release/src/cli/cgmem)
# --tag     the image's name (default localhost/cgmem-exporter:latest)
# --archive also write the image as an OCI archive (for `podman load`,
#           `skopeo copy oci-archive:FILE docker://REGISTRY/...`)
# --storage a containers storage of its own (root and run directories under
#           DIR) instead of the host's /var/lib/containers
set -euo pipefail
usage() { sed -n '/^#   deploy/p' "$0" | sed 's/^#   /usage: /' >&2; exit 2; }
tag=localhost/cgmem-exporter:latest archive= storage=
while (($#)); do
  case $1 in
    --tag) tag=${2:?--tag NAME}; shift 2 ;;
    --archive) archive=$(realpath -m "${2:?--archive FILE}"); shift 2 ;;
    --storage) storage=$(realpath -m "${2:?--storage DIR}"); shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "build-image: unknown option $1" >&2; usage ;;
    *) break ;;
  esac
done
(($# == 1)) || usage
cgmem=$(realpath "$1")
[[ -f $cgmem && -x $cgmem ]] || { echo "build-image: $1 is not an executable file" >&2; exit 1; }
command -v buildah > /dev/null || { echo "build-image: buildah missing: apt-get install buildah" >&2; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)

rootfs=$(mktemp -d)
trap 'rm -rf "$rootfs"' EXIT
install -D -m 755 "$cgmem" "$rootfs/usr/bin/cgmem"
# "libre2.so.9 => /lib/x86_64-linux-gnu/libre2.so.9 (0x...)" and the loader
# "/lib64/ld-linux-x86-64.so.2 (0x...)"; a static binary lists none.
libs=$(ldd "$cgmem" 2> /dev/null | sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) .*/\1/p' || true)
for lib in $libs; do
  cp --dereference --parents "$lib" "$rootfs"
done
# The bookworm layout: /lib is /usr/lib, as the loader's path expects.
[[ -d $rootfs/lib && ! -d $rootfs/usr/lib ]] && mv "$rootfs/lib" "$rootfs/usr/lib" && ln -s usr/lib "$rootfs/lib"
[[ -d $rootfs/lib64 && ! -L $rootfs/lib64 ]] && mv "$rootfs/lib64" "$rootfs/usr/lib64" && ln -s usr/lib64 "$rootfs/lib64"

store=()
[[ -n $storage ]] && store=(--root "$storage/root" --runroot "$storage/run" --storage-driver vfs)
echo "build-image: $tag from $cgmem and $(wc -w <<< "$libs") libraries" >&2
buildah "${store[@]}" build --quiet --pull=never -f "$here/Containerfile" -t "$tag" "$rootfs" > /dev/null
[[ -n $archive ]] && buildah "${store[@]}" push --quiet "$tag" "oci-archive:$archive:$tag"
buildah "${store[@]}" images --noheading --format '{{.Name}}:{{.Tag}} {{.ID}} {{.Size}}' "$tag"

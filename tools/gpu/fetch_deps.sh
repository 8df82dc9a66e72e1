#!/usr/bin/env bash
# Downloads, here (a Debian 12 machine with a package registry), the Debian 12 .deb files of the
# build dependencies that the bare GPU machine lacks, into .deps/ (ignored by git). The GPU kit
# (bench/run_gpu_checks.sh) unpacks them there with `dpkg -x`; nothing is installed anywhere.
#
#   tools/gpu/fetch_deps.sh [DIR]        # default DIR: <repo>/.deps; idempotent
#
# Then name `.deps` in the device call's carry list (bench/README.md, "GPU kit"). Writes
# DIR/MANIFEST (package, version, sha256 of each .deb), which the kit checks before unpacking.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dest=${1:-$root/.deps}
# shellcheck source=tools/gpu/kit_packages.sh
source "$root/tools/gpu/kit_packages.sh"

command -v apt-get >/dev/null || { echo "fetch_deps.sh: apt-get not found (run this on Debian 12)" >&2; exit 2; }
mkdir -p "$dest"
apt_opts=(-o APT::Sandbox::User=root)
arch=$(dpkg --print-architecture)
if [[ $arch != amd64 ]]; then
  # The GPU machine is x86-64: fetch amd64 packages with their own package lists.
  lists=/tmp/gpb-amd64-lists
  mkdir -p "$lists/partial"
  apt_opts+=(-o APT::Architecture=amd64 -o APT::Architectures=amd64 -o "Dir::State::Lists=$lists")
  apt-get "${apt_opts[@]}" update >/dev/null
fi

have() {  # a .deb of package $1 that dpkg-deb can read
  local f
  for f in "$dest/$1"_*.deb; do
    [[ -e $f ]] && dpkg-deb --info "$f" >/dev/null 2>&1 && return 0
  done
  return 1
}
missing=()
for p in "${GPB_KIT_PACKAGES[@]}"; do
  if ! have "$p"; then
    rm -f "$dest/$p"_*.deb
    missing+=("$p")
  fi
done
if ((${#missing[@]})); then
  echo "fetch_deps.sh: downloading ${missing[*]}"
  (cd "$dest" && apt-get "${apt_opts[@]}" download "${missing[@]}" 2>&1 | grep -v "^W: Download is performed unsandboxed" || true)
fi
manifest="$dest/MANIFEST.tmp"
: >"$manifest"
for p in "${GPB_KIT_PACKAGES[@]}"; do
  have "$p" || { echo "fetch_deps.sh: $p could not be downloaded" >&2; exit 1; }
  for f in "$dest/$p"_*.deb; do
    printf '%s %s %s %s\n' "$p" "$(dpkg-deb --field "$f" Version)" \
      "$(sha256sum "$f" | cut -d' ' -f1)" "$(basename "$f")" >>"$manifest"
  done
done
mv "$manifest" "$dest/MANIFEST"
echo "fetch_deps.sh: ${#GPB_KIT_PACKAGES[@]} packages in $dest ($(du -sh "$dest" | cut -f1)); carry '.deps' in the device call"

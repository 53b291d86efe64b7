#!/bin/sh
# The build stage of both images (run from the repository root inside the image):
#   build-stage.sh install <package>...     what building those workspace packages needs, nothing else
#   build-stage.sh deploy <package> <dir>   build it and write its production tree to <dir>
#   build-stage.sh console <dir>            build the web console (after deploying the manager) into <dir>
set -eu

install_build_dependencies() {
  filters=""
  optional="--no-optional"
  for package in "$@"; do
    filters="$filters --filter $package..."
    # The console's bundler (Vite's rolldown) is a platform binary behind an optional dependency.
    if [ "$package" = "@agentplane/console" ]; then optional=""; fi
  done
  # Only <package> and the workspace packages it depends on. --ignore-scripts keeps the root's pinned
  # `node` package from downloading its 120 MB binary, and --no-optional skips the platform binaries
  # behind optional dependencies (embedded PostgreSQL, biome, turbo, swc): building needs only tsc and
  # the Prisma generator, and `deploy` installs the runtime's optional binaries (argon2) itself.
  # shellcheck disable=SC2086 # one word per filter and option
  pnpm install --frozen-lockfile $filters $optional --ignore-scripts
}

deploy() {
  pnpm --filter @agentplane/db run generate
  pnpm --filter "$1..." run build
  pnpm --filter "$1" deploy --prod --legacy "$2"
  # @prisma/client ships a query compiler for every database it supports (about 55 MB). The generated
  # client (provider postgresql) loads runtime/client and the postgresql compiler only; the image smoke
  # test (docker/smoke-test.sh) migrates, signs up and runs an agent through it.
  find "$2/node_modules/.pnpm" -path '*/@prisma/client/runtime/query_compiler_*' ! -name '*.postgresql.*' -delete
}

# Static files only: what it imports is bundled, and its API types come from the manager just built.
build_console() {
  pnpm --filter "@agentplane/console^..." run build
  pnpm --filter @agentplane/console run generate
  pnpm --filter @agentplane/console run build
  cp -r apps/console/dist "$1"
}

case "${1:-}" in
install)
  shift
  install_build_dependencies "$@"
  ;;
deploy) deploy "$2" "$3" ;;
console) build_console "$2" ;;
*)
  echo "usage: build-stage.sh install <package>... | deploy <package> <dir> | console <dir>" >&2
  exit 2
  ;;
esac

#!/bin/sh
# The build stage of both images (run from the repository root inside the image):
#   build-stage.sh install <package>        what building that workspace package needs, nothing else
#   build-stage.sh deploy <package> <dir>   build it and write its production tree to <dir>
set -eu

install_build_dependencies() {
  # Only <package> and the workspace packages it depends on. --ignore-scripts keeps the root's pinned
  # `node` package from downloading its 120 MB binary, and --no-optional skips the platform binaries
  # behind optional dependencies (embedded PostgreSQL, biome, turbo, swc): building needs only tsc and
  # the Prisma generator, and `deploy` installs the runtime's optional binaries (argon2) itself.
  pnpm install --frozen-lockfile --filter "$1..." --no-optional --ignore-scripts
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

case "${1:-}" in
install) install_build_dependencies "$2" ;;
deploy) deploy "$2" "$3" ;;
*)
  echo "usage: build-stage.sh install <package> | deploy <package> <dir>" >&2
  exit 2
  ;;
esac

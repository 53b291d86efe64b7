#!/usr/bin/env bash
# Builds both images without a Docker daemon (buildah) and runs them end to end against the local
# PostgreSQL, as docker/compose.yaml does: migrate, a pool's credentials issued by the manager's CLI
# (docker/pool-credentials.sh), the manager placing new agents on that pool, the pool engine on the
# credentials as files, then a sign-up, an agent streaming a run from the pool at once, and the engine's
# 401 without a token. Prints each image's size over its base and fails when a size target is missed,
# an image does not start or a run does not stream.
# Needs root (buildah, installed with apt-get when missing); skips, saying so, where it cannot have it.
# SMOKE_ADMIN_URL: a PostgreSQL superuser URL (default postgresql://postgres@127.0.0.1:5432/postgres).
set -euo pipefail
cd "$(dirname "$0")/.."

BASE_IMAGE=docker.io/library/node:22.23.3-bookworm-slim # the Dockerfiles' NODE_IMAGE
NODE_VERSION=22.23.3
MANAGER_TARGET_MB=150
ENGINE_TARGET_MB=220
ADMIN_URL=${SMOKE_ADMIN_URL:-postgresql://postgres@127.0.0.1:5432/postgres}

if [ "$(id -u)" -ne 0 ]; then
  echo "== image smoke test SKIPPED: it needs root to run buildah (chroot isolation)"
  exit 0
fi
if ! command -v buildah >/dev/null || ! command -v debootstrap >/dev/null; then
  echo "== installing buildah and debootstrap"
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq buildah debootstrap; } >/dev/null; then
    echo "== image smoke test SKIPPED: buildah could not be installed"
    exit 0
  fi
fi

# .ci/run makes .tools/ when it installs Node there; run on its own, the script may be the first to need it.
mkdir -p "$PWD/.tools"
run_dir=$(mktemp -d "$PWD/.tools/smoke-run.XXXXXX")
database="agentplane_smoke_$(date +%s)_$$"
manager_role="${database}_manager"
# Pool roles are cluster-wide: one of this run's own, dropped with the rest.
pool="smoke_$(date +%s)_$$"
containers=()
wrappers=()

psql_admin() { psql "$ADMIN_URL" -v ON_ERROR_STOP=1 -qAt "$@"; }

# The node process a `buildah run` wrapper started (its child under tini): the one to SIGTERM, since
# killing the wrapper would SIGKILL it.
node_pid_under() {
  local pid child
  for pid in $(pgrep -P "$1" || true); do
    if [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = node ]; then echo "$pid"; return; fi
    child=$(node_pid_under "$pid")
    if [ -n "$child" ]; then echo "$child"; return; fi
  done
}

stop_wrapper() {
  local wrapper=$1 node_pid
  kill -0 "$wrapper" 2>/dev/null || return 0
  node_pid=$(node_pid_under "$wrapper")
  [ -n "$node_pid" ] && kill -TERM "$node_pid" 2>/dev/null
  for _ in $(seq 1 100); do kill -0 "$wrapper" 2>/dev/null || return 0; sleep 0.1; done
  echo "== $wrapper did not stop on SIGTERM; killing it"
  [ -n "$node_pid" ] && kill -KILL "$node_pid" 2>/dev/null
  wait "$wrapper" 2>/dev/null || true
}

cleanup() {
  local status=$? wrapper container roles
  set +e
  for wrapper in "${wrappers[@]}"; do stop_wrapper "$wrapper"; done
  for container in "${containers[@]}"; do buildah rm "$container" >/dev/null 2>&1; done
  if [ -n "$(psql_admin -c "SELECT 1 FROM pg_database WHERE datname = '$database'" 2>/dev/null)" ]; then
    # Engine roles are cluster-wide: each agent's is named after its checkpoint schema in this database.
    roles=$(psql "${ADMIN_URL%/*}/$database" -qAt -c \
      "SELECT 'agentplane_engine_' || substr(nspname, 11) FROM pg_namespace WHERE nspname ~ '^langgraph_[0-9a-f]{32}$'")
    psql_admin -c "DROP DATABASE IF EXISTS \"$database\" WITH (FORCE)"
    for role in $roles "agentplane_pool_$pool"; do psql_admin -c "DROP ROLE IF EXISTS \"$role\""; done
  fi
  psql_admin -c "DROP ROLE IF EXISTS \"$manager_role\"" 2>/dev/null
  rm -rf "$run_dir"
  [ "$status" -ne 0 ] && echo "== image smoke test FAILED"
  exit "$status"
}
trap cleanup EXIT

free_port() { node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }

# --- build ------------------------------------------------------------------------------------------
bash docker/smoke/stand-in-base.sh "$BASE_IMAGE" "$NODE_VERSION" "$PWD/.tools/stand-in"
for service in manager engine; do
  echo "== building agentplane-$service"
  buildah bud --pull=never --layers --format docker --isolation chroot --quiet \
    -f "docker/$service.Dockerfile" -t "agentplane-$service:smoke" . >"$run_dir/build-$service.log" 2>&1 \
    || { tail -40 "$run_dir/build-$service.log"; exit 1; }
done

# Bytes of an image's root filesystem, as buildah stores it.
image_bytes() {
  local container bytes
  container=$(buildah from --pull-never "$1")
  bytes=$(du -sb --apparent-size "$(buildah mount "$container")" | cut -f1)
  buildah rm "$container" >/dev/null
  echo "$bytes"
}
base_bytes=$(image_bytes "$BASE_IMAGE")
oversize=0
for service in manager engine; do
  target_var="${service^^}_TARGET_MB"
  over_mb=$((($(image_bytes "agentplane-$service:smoke") - base_bytes) / 1000000))
  echo "== agentplane-$service: $over_mb MB over the base ($((base_bytes / 1000000)) MB), target ≤ ${!target_var} MB"
  [ "$over_mb" -le "${!target_var}" ] || oversize=1
done
[ "$oversize" -eq 0 ] || { echo "== an image misses its size target"; exit 1; }

# --- run --------------------------------------------------------------------------------------------
# `buildah run` runs the given command, not the image's entrypoint: run the image's own ENTRYPOINT+CMD.
image_command() {
  buildah inspect --type image --format '{{range .OCIv1.Config.Entrypoint}}{{.}} {{end}}{{range .OCIv1.Config.Cmd}}{{.}} {{end}}' "$1"
}

# start <image> <log> <command...>: a container with $service_args in the background; sets $wrapper.
# tini is not PID 1 without a PID namespace (chroot isolation), so it registers as a subreaper instead.
start() {
  local image=$1 log=$2 container
  shift 2
  container=$(buildah from --pull-never "$image")
  containers+=("$container")
  buildah run --isolation chroot --network host -e TINI_SUBREAPER=1 "${service_args[@]}" "$container" -- "$@" >"$log" 2>&1 &
  wrapper=$!
  wrappers+=("$wrapper")
}

# One cold start on this machine failed with this buildah error; a second attempt starts.
memfd_flake() { grep -q 'Close_Fd sealing memfd copy' "$1"; }

# run_service <name> <image> <ready command...>: starts the image's command and waits for the ready check.
run_service() {
  local name=$1 image=$2 attempt log
  shift 2
  for attempt in 1 2; do
    log="$run_dir/$name.log"
    # shellcheck disable=SC2046 # the image's command is words without spaces
    start "$image" "$log" $(image_command "$image")
    if "$@"; then return 0; fi
    stop_wrapper "$wrapper"
    if [ "$attempt" -eq 1 ] && memfd_flake "$log"; then echo "== $name: memfd flake, starting again"; continue; fi
    echo "== $name did not start:"; tail -30 "$log"; return 1
  done
}

# The manager's database user as in production: CREATEROLE, owns the database, not a superuser.
manager_password=$(openssl rand -hex 16)
psql_admin -c "CREATE ROLE \"$manager_role\" LOGIN CREATEROLE PASSWORD '$manager_password'"
psql_admin -c "CREATE DATABASE \"$database\" OWNER \"$manager_role\""
database_url="postgresql://$manager_role:$manager_password@127.0.0.1:5432/$database"
manager_port=$(free_port)
engine_port=$(free_port)
manager_url="http://127.0.0.1:$manager_port"
engine_url="http://127.0.0.1:$engine_port"

# run_once <name> <command...>: a container of the manager image, with $once_args, that must succeed.
run_once() {
  local name=$1 attempt container log="$run_dir/$1.log"
  shift
  for attempt in 1 2; do
    container=$(buildah from --pull-never agentplane-manager:smoke)
    containers+=("$container")
    if buildah run --isolation chroot --network host -e TINI_SUBREAPER=1 "${once_args[@]}" "$container" \
      -- /usr/bin/tini -- "$@" >"$log" 2>&1; then
      cat "$log"; return 0
    fi
    if [ "$attempt" -eq 1 ] && memfd_flake "$log"; then continue; fi
    echo "== $name failed:"; cat "$log"; return 1
  done
}

once_args=(-e "DATABASE_URL=$database_url")
run_once migrate node node_modules/@agentplane/db/dist/migrations/cli.js

# The pool's credentials, as compose's pool-credentials service issues them: the manager's CLI, with the
# manager's environment, into a directory the engine then reads the files of.
secrets_key=$(openssl rand -hex 32)
session_secret=$(openssl rand -hex 32)
engine_pools="$pool=$engine_url"
mkdir -m 0755 "$run_dir/credentials"
once_args=(
  --user root -e "DATABASE_URL=$database_url" -e "SESSION_SECRET=$session_secret" -e "SECRETS_KEY=$secrets_key"
  -e "ENGINE_POOLS=$engine_pools"
  -v "$PWD/docker/pool-credentials.sh:/pool-credentials.sh:ro" -v "$run_dir/credentials:/credentials"
)
run_once pool-credentials sh /pool-credentials.sh "$pool"

service_args=(
  -e "DATABASE_URL=$database_url" -e "PORT=$manager_port" -e HOST=127.0.0.1
  -e "SESSION_SECRET=$session_secret" -e "SECRETS_KEY=$secrets_key"
  -e "ENGINE_POOLS=$engine_pools" -e "DEFAULT_ENGINE_POOL=$pool"
  -e "ISSUER_URL=$manager_url" -e COOKIE_SECURE=false -e LOG_LEVEL=warn
)
run_service manager agentplane-manager:smoke node docker/smoke/end-to-end.mjs ready "$manager_url"
manager_wrapper=$wrapper

service_args=(
  -v "$run_dir/credentials:/credentials:ro" -e "ENGINE_POOL=$pool"
  -e DATABASE_URL_FILE=/credentials/database-url -e ENGINE_POOL_KEY_FILE=/credentials/pool-key
  -e "PORT=$engine_port" -e HOST=127.0.0.1 -e "ENGINE_MANAGER_ISSUER=$manager_url" -e LOG_LEVEL=warn
)
run_service engine agentplane-engine:smoke node docker/smoke/end-to-end.mjs pool-ready "$engine_url" "$pool"

# An agent created once the pool runs, and streamed from at once.
node docker/smoke/end-to-end.mjs provision "$manager_url" "$run_dir"
node docker/smoke/end-to-end.mjs run "$manager_url" "$run_dir"

# What runs: node under tini, as the node user, with code it cannot change.
for wrapper in "$manager_wrapper" "$wrapper"; do
  node_pid=$(node_pid_under "$wrapper")
  uid=$(awk '/^Uid:/ { print $2 }' "/proc/$node_pid/status")
  parent=$(cat "/proc/$(awk '/^PPid:/ { print $2 }' "/proc/$node_pid/status")/comm")
  writable=$(find "/proc/$node_pid/root/app/dist" -maxdepth 0 -user "$uid" 2>/dev/null)
  if [ "$uid" != 1000 ] || [ "$parent" != tini ] || [ -n "$writable" ]; then
    echo "== node (pid $node_pid) runs as uid $uid under $parent, app code owned by it: ${writable:-no}"; exit 1
  fi
done
echo "== both services ran node as uid 1000 under tini, with root-owned code"
echo "== image smoke test passed"

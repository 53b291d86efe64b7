#!/bin/sh
# pool-credentials.sh <pool> [rotate]: a pool engine's credentials, issued by the manager's CLI (run in the
# manager's image, with its environment) into /credentials, where the pool's engines read them as files
# (DATABASE_URL_FILE, ENGINE_POOL_KEY_FILE). Issued once: later runs keep them, unless told to rotate
# (which turns the previous password away at once: restart the pool's engines then). Run as root to own
# the directory; the files go to the node user (uid 1000) the engine image runs as, readable by it alone.
set -eu
pool=${1:?usage: pool-credentials.sh <pool> [rotate]}
dir=/credentials
if [ "${2:-}" != rotate ] && [ -s "$dir/pool-key" ] && [ -s "$dir/database-url" ]; then
  echo "pool-credentials: the pool \"$pool\" has its credentials already"
  exit 0
fi
umask 077
issued=$(mktemp)
trap 'rm -f "$issued" "$dir/database-url.new" "$dir/pool-key.new"' EXIT
node dist/cli/main.js engine-credentials --pool "$pool" >"$issued"
sed -n 's/^DATABASE_URL=//p' "$issued" >"$dir/database-url.new"
sed -n 's/^ENGINE_POOL_KEY=//p' "$issued" >"$dir/pool-key.new"
chown 1000:1000 "$dir/database-url.new" "$dir/pool-key.new"
mv "$dir/database-url.new" "$dir/database-url"
mv "$dir/pool-key.new" "$dir/pool-key"
echo "pool-credentials: issued the credentials of the pool \"$pool\""

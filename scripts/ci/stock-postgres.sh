#!/usr/bin/env bash
# The engine tests on Debian's stock PostgreSQL (the postgresql-NN server package, JIT on as packaged), not the
# embedded server the rest of the suite uses, which ships no JIT library: a statement costed past
# jit_above_cost is only slow there (docs/DEVELOPMENT.md, "Stock PostgreSQL").
#
#   scripts/ci/stock-postgres.sh [vitest arguments]    (default: test/engine test/deploy/stock-postgres.test.ts)
set -euo pipefail
cd "$(dirname "$0")/../.."

bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)"
if [ -z "$bin" ] || [ ! -f "$bin/../lib/llvmjit.so" ]; then
  echo "error: no Debian PostgreSQL server with JIT (apt-get install postgresql-15)" >&2
  exit 1
fi
dir="$(mktemp -d)"
chmod 755 "$dir"
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" = 0 ] && chown postgres:postgres "$dir"
port="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
as_postgres "$bin/initdb" -D "$dir/data" -U postgres --auth=trust --no-sync >/dev/null
as_postgres "$bin/pg_ctl" -D "$dir/data" -w -l "$dir/log" \
  -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300" start >/dev/null
trap 'as_postgres "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null; rm -rf "$dir"' EXIT
url="postgres://postgres@127.0.0.1:$port/postgres"
echo "stock PostgreSQL: $("$bin/postgres" --version), jit = $(psql "$url" -Atc 'SHOW jit' 2>/dev/null || echo on)"
if [ "$#" -eq 0 ]; then set -- test/engine test/deploy/stock-postgres.test.ts; fi
TEST_PG_ADMIN_URL="$url" npx vitest run --project suite "$@"

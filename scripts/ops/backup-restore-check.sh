#!/usr/bin/env bash
# Backs up a live database and proves the backup restores: pg_dump (a consistent snapshot; the service keeps
# running and writing), pg_restore into an empty database, then checks the restored copy.
#
#   scripts/ops/backup-restore-check.sh SOURCE_URL EMPTY_TARGET_URL [DUMP_FILE]
#
# Checks: every table of the source exists in the copy; the copy's schema is one this build knows with
# nothing pending (the migrate step applies nothing); per table, the copy holds rows when the source did.
# Needs pg_dump/pg_restore/psql of the server's major version or newer (Debian: postgresql-client-NN). The
# schema check runs the migrate step: `npm run migrate` from a checkout, or on a production install
# MIGRATE_COMMAND="node dist/scripts/migrate.js".
set -euo pipefail
cd "$(dirname "$0")/../.."
source_url="${1:?usage: backup-restore-check.sh SOURCE_URL EMPTY_TARGET_URL [DUMP_FILE]}"
target_url="${2:?usage: backup-restore-check.sh SOURCE_URL EMPTY_TARGET_URL [DUMP_FILE]}"
dump="${3:-$(mktemp -d)/sms.dump}"

pg_dump --format=custom --no-owner --no-privileges --file="$dump" "$source_url"
pg_restore --exit-on-error --no-owner --no-privileges --dbname="$target_url" "$dump"
echo "restored $(pg_restore --list "$dump" | grep -c 'TABLE DATA') tables from $dump ($(du -h "$dump" | cut -f1))"

tables() { psql -XAtq "$1" -c "SELECT relname FROM pg_stat_user_tables ORDER BY relname"; }
missing="$(comm -23 <(tables "$source_url") <(tables "$target_url"))"
if [ -n "$missing" ]; then echo "error: tables missing from the restored copy: $missing" >&2; exit 1; fi

read -r -a migrate_command <<<"${MIGRATE_COMMAND:-npm run --silent migrate}"
migrate_out="$(DATABASE_URL="$target_url" LOG_LEVEL=info "${migrate_command[@]}" 2>&1)" || { echo "$migrate_out" >&2; exit 1; }
if grep -q "migrations applied" <<<"$migrate_out"; then
  echo "error: the restored copy lacked migrations (the migrate step applied some):" >&2
  echo "$migrate_out" >&2
  exit 1
fi

for table in $(tables "$target_url"); do
  in_source="$(psql -XAtq "$source_url" -c "SELECT count(*) > 0 FROM \"$table\"")"
  in_copy="$(psql -XAtq "$target_url" -c "SELECT count(*) FROM \"$table\"")"
  if [ "$in_source" = "t" ] && [ "$in_copy" = "0" ]; then echo "error: $table is empty in the copy" >&2; exit 1; fi
  printf '  %-28s %s rows\n' "$table" "$in_copy"
done
echo "backup verified: $dump"

#!/bin/sh
# First start on an empty data folder: create the cluster, the user and the database from
# POSTGRES_USER, POSTGRES_PASSWORD and POSTGRES_DB, as the official postgres image does. Later
# starts use the folder as it is (a changed POSTGRES_PASSWORD changes nothing: see
# docs/operations.md, "Changing the Postgres password").
set -eu
case " $* " in
*" --version "* | *" -V "* | *" --help "* | *" -? "*) exec "$@" ;;
esac
if [ "${1:-postgres}" = postgres ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
  : "${POSTGRES_PASSWORD:?is required for the first start}"
  user=${POSTGRES_USER:-postgres}
  db=${POSTGRES_DB:-$user}
  pwfile=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
  initdb --username="$user" --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 \
    --encoding=UTF8 --locale=C.UTF-8 -D "$PGDATA" >/dev/null
  rm -f "$pwfile"
  echo 'host all all all scram-sha-256' >>"$PGDATA/pg_hba.conf"
  if [ "$db" != postgres ]; then
    pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
    createdb --username="$user" --owner="$user" "$db"
    pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  fi
  echo "postgres-entrypoint: created the cluster, user \"$user\" and database \"$db\""
fi
if [ "${1:-postgres}" = postgres ]; then
  shift || true
  exec postgres -D "$PGDATA" -c listen_addresses='*' "$@"
fi
exec "$@"

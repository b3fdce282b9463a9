#!/usr/bin/env bash
# Runs the Docker Compose deployment for real, as docs/operations.md tells an operator to: the
# gateway's image built from this tree, Postgres, Redis and Caddy from Debian packages
# (deploy/debian/Dockerfile on a debootstrapped Debian 13), the migrate job, the gateway, a
# completion and a stream with a key seeded by its SHA-256, a key made with the CLI in the
# container, a stop and a restart, a backup and a restore, an upgrade and a rollback, a new
# Postgres password, and the `tls` profile. Slow (10-20 minutes the first time, when the base
# images are built), so it is not part of `npm test`.
#
#   scripts/compose-smoke.sh            # base images kept for the next run
#   scripts/compose-smoke.sh --clean    # remove the base images and the build cache at the end
#
# Needs root (to start dockerd and run debootstrap if need be), docker, Compose v2 or v1, curl,
# and for the first run debootstrap and access to deb.debian.org and the npm registry. Where
# Docker cannot run it says why and exits 0; a failed check exits 1 with the services' logs.
# SMOKE_COMPOSE="docker-compose" picks a Compose; SMOKE_PORT and SMOKE_TLS_PORT the host ports.
set -euo pipefail
cd "$(dirname "$0")/.."

CLEAN=0
[ "${1:-}" = --clean ] && CLEAN=1
PROJECT=gwsmoke
PORT=${SMOKE_PORT:-18080}
TLS_PORT=${SMOKE_TLS_PORT:-18443}
BASE=gw-smoke # prefix of the base images
WORK=$(mktemp -d /var/tmp/compose-smoke.XXXXXX)
STARTED=$SECONDS
CHECKS=0
DOCKERD_PID=
VOLUMES_BEFORE=
C=()

say() { printf 'compose-smoke: %s\n' "$*"; }
step() { printf '\n== %s\n' "$*"; }
ok() {
  CHECKS=$((CHECKS + 1))
  printf '  ok  %s\n' "$*"
}
skip() {
  say "SKIPPED: $*"
  exit 0
}
fail() {
  say "FAILED: $*" >&2
  if [ ${#C[@]} -gt 0 ]; then "${C[@]}" logs --no-color --tail 40 >&2 2>&1 || true; fi
  exit 1
}

cleanup() {
  local status=$?
  if [ ${#C[@]} -gt 0 ]; then
    "${C[@]}" --profile tls down -v --remove-orphans >/dev/null 2>&1 || true
    docker image rm llm-gateway-smoke:1 llm-gateway-smoke:2 >/dev/null 2>&1 || true
    # Anonymous volumes (the image's /data) left by `run --rm` and by recreated containers.
    for v in $(docker volume ls -q --filter dangling=true); do
      if [[ $v =~ ^[0-9a-f]{64}$ ]] && ! grep -qx "$v" <<<"$VOLUMES_BEFORE"; then
        docker volume rm "$v" >/dev/null 2>&1 || true
      fi
    done
    if [ "$CLEAN" = 1 ]; then
      for t in debian node postgres redis caddy; do
        docker image rm "$BASE-$t:trixie" >/dev/null 2>&1 || true
      done
      docker image prune -f >/dev/null 2>&1 || true
      docker builder prune -af >/dev/null 2>&1 || true
    fi
  fi
  rm -rf "$WORK"
  if [ -n "$DOCKERD_PID" ]; then
    kill "$DOCKERD_PID" 2>/dev/null || true
    wait "$DOCKERD_PID" 2>/dev/null || true
    say "stopped the dockerd it started (pid $DOCKERD_PID)"
  fi
  exit "$status"
}
trap cleanup EXIT

# ---------------------------------------------------------------------------------------------
step 'Docker and Compose'
command -v docker >/dev/null || skip 'no docker client here (Debian: apt-get install docker.io)'
if ! docker info >/dev/null 2>&1; then
  command -v dockerd >/dev/null || skip 'no Docker daemon running and no dockerd to start (apt-get install docker.io)'
  [ "$(id -u)" = 0 ] || skip 'no Docker daemon running, and starting dockerd needs root'
  dockerd >"$WORK/dockerd.log" 2>&1 &
  DOCKERD_PID=$!
  for _ in $(seq 1 30); do
    docker info >/dev/null 2>&1 && break
    kill -0 "$DOCKERD_PID" 2>/dev/null || break
    sleep 1
  done
  if ! docker info >/dev/null 2>&1; then
    reason=$(grep -iE 'level=(error|fatal)|failed' "$WORK/dockerd.log" | tail -n 3)
    kill "$DOCKERD_PID" 2>/dev/null || true
    DOCKERD_PID=
    skip "dockerd cannot start on this machine: ${reason:-see the output of dockerd}"
  fi
  say "started dockerd (pid $DOCKERD_PID)"
fi
if [ -n "${SMOKE_COMPOSE:-}" ]; then
  read -r -a COMPOSE <<<"$SMOKE_COMPOSE"
elif docker compose version >/dev/null 2>&1; then
  COMPOSE=(docker compose)
elif command -v docker-compose >/dev/null; then
  COMPOSE=(docker-compose)
else
  skip 'no Compose: neither the docker compose plugin nor docker-compose (apt-get install docker-compose)'
fi
ENV_FILE=$WORK/smoke.env
VOLUMES_BEFORE=$(docker volume ls -q)
C=("${COMPOSE[@]}" -p "$PROJECT" --env-file "$ENV_FILE")
say "$(docker version --format 'Docker engine {{.Server.Version}}'), $("${COMPOSE[@]}" version | head -n 1)"

# ---------------------------------------------------------------------------------------------
step 'Base images from Debian packages'
if ! docker image inspect "$BASE-debian:trixie" >/dev/null 2>&1; then
  command -v debootstrap >/dev/null || skip 'no base image and no debootstrap to make one (apt-get install debootstrap)'
  say 'debootstrap --variant=minbase trixie (about a minute) ...'
  debootstrap --variant=minbase trixie "$WORK/rootfs" http://deb.debian.org/debian >"$WORK/debootstrap.log" 2>&1 ||
    fail "debootstrap: $(tail -n 3 "$WORK/debootstrap.log")"
  rm -rf "$WORK"/rootfs/var/lib/apt/lists/* "$WORK"/rootfs/var/cache/apt/*
  tar -C "$WORK/rootfs" -c . | docker import - "$BASE-debian:trixie" >/dev/null
  rm -rf "$WORK/rootfs"
fi
ok "$BASE-debian:trixie ($(docker run --rm "$BASE-debian:trixie" sh -c '. /etc/os-release; echo "$PRETTY_NAME"'))"
# The build context: deploy/debian plus this machine's extra CA certificates (a TLS-inspecting
# proxy in front of the npm registry must be trusted inside the build, as on the host).
cp -r deploy/debian "$WORK/debian"
cp /usr/local/share/ca-certificates/*.crt "$WORK/debian/certs/" 2>/dev/null || true
for t in node postgres redis caddy; do
  docker build -q --build-arg "DEBIAN_IMAGE=$BASE-debian:trixie" --target "$t" \
    -t "$BASE-$t:trixie" "$WORK/debian" >"$WORK/build-$t.log" 2>&1 ||
    fail "building $t: $(tail -n 5 "$WORK/build-$t.log")"
done
ok "node $(docker run --rm "$BASE-node:trixie" node --version), $(docker run --rm "$BASE-postgres:trixie" postgres --version)," \
  "$(docker run --rm "$BASE-redis:trixie" redis-server --version | cut -d' ' -f1-3), caddy $(docker run --rm "$BASE-caddy:trixie" caddy version | cut -d' ' -f1)"

# ---------------------------------------------------------------------------------------------
step 'Settings (.env) and the seed file'
hex() { od -An -tx1 -N"$1" /dev/urandom | tr -d ' \n'; }
ADMIN_KEY=$(hex 24)
PG_PASSWORD=$(hex 16)
SEEDED_KEY=gk-$(hex 24)
cat >"$WORK/seed-keys.yaml" <<EOF
keys:
  - name: smoke-seeded
    key_sha256: $(printf %s "$SEEDED_KEY" | sha256sum | cut -d' ' -f1)
    rpm_limit: 600
EOF
chmod 0644 "$WORK/seed-keys.yaml"
chmod 0755 "$WORK"
# No provider can be reached from here: the mock provider stands in for one (the model file is
# the one `npm start` serves by default). Everything else is as an operator's .env.
cat >"$ENV_FILE" <<EOF
POSTGRES_PASSWORD=$PG_PASSWORD
GATEWAY_CONFIG_FILE=./gateway.mock-demo.yaml
GATEWAY_SEED_KEYS_FILE=$WORK/seed-keys.yaml
GATEWAY_PORT=$PORT
PROXY_BIND=127.0.0.1
PROXY_HTTPS_PORT=$TLS_PORT
PROXY_HTTP_PORT=$((TLS_PORT + 1))
GATEWAY_DOMAIN=localhost
METRICS_TOKEN=$(hex 16)
GATEWAY_IMAGE=llm-gateway-smoke
GATEWAY_TAG=1
GATEWAY_BASE_IMAGE=$BASE-node:trixie
POSTGRES_IMAGE=$BASE-postgres:trixie
REDIS_IMAGE=$BASE-redis:trixie
CADDY_IMAGE=$BASE-caddy:trixie
EOF
out=$("${C[@]}" config -q 2>&1) && fail 'compose accepted a .env without ADMIN_API_KEY'
grep -q 'ADMIN_API_KEY' <<<"$out" || fail "no clear error without ADMIN_API_KEY: $out"
ok "without ADMIN_API_KEY compose refuses: $(grep -o 'set ADMIN_API_KEY in .env[^;]*' <<<"$out" | head -n 1)"
echo "ADMIN_API_KEY=$ADMIN_KEY" >>"$ENV_FILE"
"${C[@]}" config -q || fail 'compose config'
ok 'compose config valid'

# ---------------------------------------------------------------------------------------------
health() {
  local id
  id=$("${C[@]}" ps -q "$1")
  [ -n "$id" ] || return 0
  docker inspect -f '{{if .State.Health}}{{.State.Health.Status}}{{else}}{{.State.Status}}{{end}}' "$id"
}
wait_healthy() {
  local deadline=$((SECONDS + 180))
  until [ "$(health "$1")" = healthy ]; do
    [ $SECONDS -lt $deadline ] || fail "$1 not healthy after 180 s ($(health "$1"))"
    sleep 2
  done
}
# chat KEY STREAM [BASE_URL [curl args]]: the HTTP status; the body in $WORK/body.
chat() {
  local key=$1 stream=$2 base=${3:-http://127.0.0.1:$PORT}
  shift 3 || shift $#
  curl -sS -N "$@" -o "$WORK/body" -w '%{http_code}' "$base/v1/chat/completions" \
    -H "Authorization: Bearer $key" -H 'Content-Type: application/json' \
    -d "{\"model\":\"alpha-k3\",\"stream\":$stream,\"messages\":[{\"role\":\"user\",\"content\":\"Hello!\"}]}"
}
expect_answer() {
  local status
  status=$(chat "$1" false) || fail "$2: curl failed"
  [ "$status" = 200 ] && grep -q 'mock answer from alpha-k3' "$WORK/body" ||
    fail "$2: HTTP $status $(cat "$WORK/body")"
  ok "$2: 200, $(grep -o '"content":"[^"]*' "$WORK/body" | cut -c12-40)..."
}
expect_refused() {
  local status
  status=$(chat "$1" false) || fail "$3: curl failed"
  [ "$status" = 401 ] && grep -q "\"code\":\"$2\"" "$WORK/body" || fail "$3: HTTP $status $(cat "$WORK/body")"
  ok "$3: 401 $2"
}
cli() { "${C[@]}" exec -T gateway gateway "$@"; }
new_key() { cli keys create --name "$1" | sed -n 's/^Secret (shown once, store it now): //p'; }
running_image() { docker inspect -f '{{.Config.Image}}' "$("${C[@]}" ps -q gateway)"; }

step 'Build and first start (docker compose up -d --build)'
t0=$SECONDS
"${C[@]}" build >"$WORK/build-gateway.log" 2>&1 || fail "build: $(tail -n 20 "$WORK/build-gateway.log")"
ok "built llm-gateway-smoke:1 on $BASE-node:trixie in $((SECONDS - t0)) s"
"${C[@]}" up -d >"$WORK/up.log" 2>&1 || fail "up: $(cat "$WORK/up.log")"
wait_healthy gateway
ok "gateway healthy $((SECONDS - t0)) s after the build started"
"${C[@]}" logs --no-color migrate | sed -E 's/\x1b\[[0-9;]*[A-Za-z]//g; s/^[^|]*\| /      /' | tail -n 4
published=$(docker port "$("${C[@]}" ps -q gateway)" 8080/tcp)
[ "$published" = "127.0.0.1:$PORT" ] || fail "port published as $published"
ok "port published on $published only"

step 'Completion and stream with the seeded key (key_sha256)'
expect_answer "$SEEDED_KEY" 'seeded key, JSON'
status=$(chat "$SEEDED_KEY" true)
[ "$status" = 200 ] && tail -n 2 "$WORK/body" | grep -q '^data: \[DONE\]' || fail "stream: HTTP $status"
ok "seeded key, stream: 200, $(grep -c '^data: {' "$WORK/body") chunks, then data: [DONE]"
status=$(curl -sS -o "$WORK/body" -w '%{http_code}' "http://127.0.0.1:$PORT/admin/keys" -H "Authorization: Bearer $ADMIN_KEY")
[ "$status" = 200 ] && grep -q smoke-seeded "$WORK/body" || fail "admin API: HTTP $status"
ok 'admin API answers with ADMIN_API_KEY from .env (GET /admin/keys: 200)'
status=$(curl -sS -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/metrics")
[ "$status" = 401 ] || fail "metrics without METRICS_TOKEN: HTTP $status"
ok 'METRICS_TOKEN from .env reaches the gateway (GET /metrics without it: 401)'

step 'A key from the CLI in the container (docker compose exec gateway gateway keys create)'
CLI_KEY=$(new_key smoke-cli)
[ -n "$CLI_KEY" ] || fail 'keys create printed no secret'
expect_answer "$CLI_KEY" 'CLI key'
echo "      Redis holds: $("${C[@]}" exec -T redis redis-cli --scan | sed 's/[0-9a-f-]\{36\}/<key-id>/; s/:[0-9]\{6,\}$/:<window>/' | sort -u | tr '\n' ' ')"

step 'Stop and restart'
t0=$SECONDS
"${C[@]}" stop gateway >/dev/null 2>&1
code=$(docker inspect -f '{{.State.ExitCode}}' "$("${C[@]}" ps -aq gateway)")
[ "$code" = 0 ] || fail "gateway exit status $code on stop"
ok "gateway stopped by SIGTERM in $((SECONDS - t0)) s, exit status 0 (stop_grace_period 45s)"
"${C[@]}" down >/dev/null 2>&1
"${C[@]}" up -d >/dev/null 2>&1
wait_healthy gateway
expect_answer "$SEEDED_KEY" 'after down and up -d, seeded key'
expect_answer "$CLI_KEY" 'after down and up -d, CLI key'

step 'Backup and restore (pg_dump / pg_restore through compose)'
"${C[@]}" exec -T postgres pg_dump -U gateway -d gateway -Fc >"$WORK/backup.dump"
ok "pg_dump -Fc: $(wc -c <"$WORK/backup.dump") bytes"
LATE_KEY=$(new_key after-backup)
cli keys revoke smoke-cli >/dev/null
expect_refused "$CLI_KEY" key_revoked 'after the backup, smoke-cli revoked'
"${C[@]}" stop gateway >/dev/null 2>&1
"${C[@]}" exec -T postgres dropdb -U gateway gateway
"${C[@]}" exec -T postgres createdb -U gateway gateway
"${C[@]}" exec -T postgres pg_restore -U gateway -d gateway --exit-on-error <"$WORK/backup.dump"
"${C[@]}" start gateway >/dev/null 2>&1
wait_healthy gateway
expect_answer "$CLI_KEY" 'restored: smoke-cli active again'
expect_refused "$LATE_KEY" invalid_api_key 'restored: the key made after the backup is gone'

step 'Upgrade (build tag 2, migrate job first, up -d) and rollback (tag 1)'
sed -i 's/^GATEWAY_TAG=.*/GATEWAY_TAG=2/' "$ENV_FILE"
"${C[@]}" build >>"$WORK/build-gateway.log" 2>&1 || fail 'build of tag 2'
"${C[@]}" run --rm migrate >"$WORK/migrate.log" 2>&1 || fail "migrate job: $(cat "$WORK/migrate.log")"
ok "migrate job on tag 2: $(grep -E 'schema|seeded' "$WORK/migrate.log" | tr '\n' ' ')"
"${C[@]}" up -d >/dev/null 2>&1
wait_healthy gateway
[ "$(running_image)" = llm-gateway-smoke:2 ] || fail "running $(running_image) after the upgrade"
expect_answer "$SEEDED_KEY" "upgraded, running $(running_image)"
sed -i 's/^GATEWAY_TAG=.*/GATEWAY_TAG=1/' "$ENV_FILE"
"${C[@]}" up -d >/dev/null 2>&1
wait_healthy gateway
[ "$(running_image)" = llm-gateway-smoke:1 ] || fail "running $(running_image) after the rollback"
expect_answer "$SEEDED_KEY" "rolled back, running $(running_image)"

step 'Changing the Postgres password'
NEW_PASSWORD=$(hex 16)
"${C[@]}" exec -T postgres psql -q -U gateway -d gateway -c "ALTER ROLE gateway PASSWORD '$NEW_PASSWORD'"
sed -i "s/^POSTGRES_PASSWORD=.*/POSTGRES_PASSWORD=$NEW_PASSWORD/" "$ENV_FILE"
"${C[@]}" up -d >/dev/null 2>&1
wait_healthy gateway
expect_answer "$SEEDED_KEY" 'gateway on the new password'
if "${C[@]}" exec -T postgres psql -q "postgresql://gateway:$PG_PASSWORD@127.0.0.1/gateway" -c 'select 1' >/dev/null 2>&1; then
  fail 'the old password still works'
fi
ok 'the old password is refused'

step 'TLS in front (docker compose --profile tls up -d)'
"${C[@]}" --profile tls up -d >/dev/null 2>&1 || fail 'profile tls up'
for _ in $(seq 1 30); do
  "${C[@]}" exec -T proxy cat /data/caddy/pki/authorities/local/root.crt >"$WORK/caddy-root.crt" 2>/dev/null &&
    curl -s -o /dev/null --cacert "$WORK/caddy-root.crt" "https://localhost:$TLS_PORT/health" && break
  sleep 1
done
status=$(chat "$SEEDED_KEY" false "https://localhost:$TLS_PORT" --cacert "$WORK/caddy-root.crt") || fail 'https completion'
[ "$status" = 200 ] || fail "https completion: HTTP $status"
ok "https://localhost:$TLS_PORT completion: 200 (certificate from Caddy's local CA, verified)"
status=$(chat "$SEEDED_KEY" true "https://localhost:$TLS_PORT" --cacert "$WORK/caddy-root.crt")
[ "$status" = 200 ] && tail -n 2 "$WORK/body" | grep -q '^data: \[DONE\]' || fail "https stream: HTTP $status"
ok "https stream through Caddy: 200, $(grep -c '^data: {' "$WORK/body") chunks, then data: [DONE]"

step 'Done'
say "PASSED: $CHECKS checks in $((SECONDS - STARTED)) s with ${COMPOSE[*]}"

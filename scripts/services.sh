#!/usr/bin/env bash
# Local Kafka (KRaft, single node) and PostgreSQL for turncheck's tests.
# Usage: scripts/services.sh start|stop [kafka|postgres] | status | env
set -euo pipefail
# runuser and PostgreSQL's tools live in sbin, which a non-login or cron PATH may lack.
PATH="$PATH:/usr/sbin:/sbin"

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE="${TURNCHECK_SERVICES_CACHE:-$HOME/.cache/turncheck-services}"
RUN="${TURNCHECK_SERVICES_DIR:-/tmp/turncheck-services}"
KAFKA_PORT="${TURNCHECK_KAFKA_PORT:-19092}"
CONTROLLER_PORT=$((KAFKA_PORT + 1))
PG_PORT="${TURNCHECK_PG_PORT:-15432}"

LIBS="$CACHE/libs"
KDIR="$RUN/kafka"
KPID="$KDIR/kafka.pid"
KLOG="$KDIR/server.log"
PGDIR="$RUN/postgres"
PGDATA="$PGDIR/data"

log() { echo "services: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

print_env() {
  echo "export TURNCHECK_TEST_KAFKA_BOOTSTRAP=127.0.0.1:$KAFKA_PORT"
  echo "export TURNCHECK_TEST_DATABASE_URL=postgresql+asyncpg://turncheck:turncheck@127.0.0.1:$PG_PORT/turncheck"
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# ---------------------------------------------------------------- Kafka

kafka_running() {
  local pid
  pid="$(cat "$KPID" 2>/dev/null)" || return 1
  # Checking the command line guards against a recycled pid after a reboot.
  [[ -n "$pid" ]] && grep -qa 'kafka\.Kafka' "/proc/$pid/cmdline" 2>/dev/null
}

# Kafka's command-line tools, with the cached jars and quiet logging.
KTOOL=(java -Xmx256m -Dlog4j2.configurationFile="$HERE/kafka/log4j2.xml"
       -Dturncheck.kafka.log="$KDIR/tools.log" -cp "$LIBS/*")

fetch_kafka_libs() {
  local want
  want="$(sha256sum "$HERE/kafka/pom.xml" | cut -d' ' -f1)"
  if [[ "$(cat "$CACHE/pom.sha256" 2>/dev/null)" == "$want" ]] \
      && compgen -G "$LIBS/kafka_2.13-*.jar" >/dev/null; then
    return 0
  fi
  log "fetching Kafka jars with Maven into $LIBS"
  # Start from an empty dir so a version bump leaves no stale jars on the classpath.
  rm -rf "$LIBS" "$CACHE/pom.sha256"
  mkdir -p "$LIBS"
  mvn -q -B -f "$HERE/kafka/pom.xml" dependency:copy-dependencies \
      -DoutputDirectory="$LIBS" >&2 || die "Maven could not fetch the Kafka jars"
  echo "$want" >"$CACHE/pom.sha256"
}

start_kafka() {
  kafka_running && return 0
  fetch_kafka_libs
  mkdir -p "$KDIR"
  port_open "$KAFKA_PORT" && die "port $KAFKA_PORT is taken by another process"

  sed -e "s|@PORT@|$KAFKA_PORT|g" -e "s|@CONTROLLER_PORT@|$CONTROLLER_PORT|g" \
      -e "s|@DATA_DIR@|$KDIR/data|g" "$HERE/kafka/server.properties.in" >"$KDIR/server.properties"

  # Every start gets fresh storage: it only ever holds test data, and a broker
  # killed with the session that ran it leaves logs it must recover first, at a
  # cost that grows with every run's topics (a million-turn bench's took longer
  # than the deadline below, silently, since recovery logs at INFO).
  rm -rf "$KDIR/data"
  : >"$KLOG"
  : >"$KDIR/kafka.out"
  local cluster_id
  cluster_id="$("${KTOOL[@]}" kafka.tools.StorageTool random-uuid)"
  "${KTOOL[@]}" kafka.tools.StorageTool format --standalone \
      -t "$cluster_id" -c "$KDIR/server.properties" >/dev/null \
    || die "formatting Kafka storage failed; see $KDIR/tools.log"

  log "starting Kafka on 127.0.0.1:$KAFKA_PORT"
  # 9>&-: the broker must not inherit (and so hold forever) the lock below.
  nohup java -Xmx512m -Xms256m -Djava.awt.headless=true \
      -Dlog4j2.configurationFile="$HERE/kafka/log4j2.xml" -Dturncheck.kafka.log="$KLOG" \
      -cp "$LIBS/*" kafka.Kafka "$KDIR/server.properties" \
      >>"$KDIR/kafka.out" 2>&1 </dev/null 9>&- &
  echo $! >"$KPID"

  # An open port is not enough: the broker must also have joined the quorum
  # and answer metadata requests, which TopicCommand --list proves.
  local deadline=$((SECONDS + 90))
  until port_open "$KAFKA_PORT" && timeout 30 "${KTOOL[@]}" \
        org.apache.kafka.tools.TopicCommand --bootstrap-server "127.0.0.1:$KAFKA_PORT" \
        --list >/dev/null 2>&1; do
    # kill -0, not kafka_running: right after the fork the child's command line
    # is still nohup's, not java's, and reading it then would call a good start dead.
    if ! kill -0 "$(cat "$KPID")" 2>/dev/null || ((SECONDS > deadline)); then
      log "Kafka did not come up; last lines of $KLOG and $KDIR/kafka.out:"
      tail -n 40 "$KLOG" "$KDIR/kafka.out" >&2 2>/dev/null || true
      stop_kafka
      die "Kafka failed to start"
    fi
    sleep 0.5
  done
  log "Kafka is up"
}

stop_kafka() {
  kafka_running || { rm -f "$KPID"; return 0; }
  local pid i
  pid="$(cat "$KPID")"
  kill "$pid"
  # A controlled shutdown takes a few seconds; give it 30 before SIGKILL.
  for ((i = 0; i < 60; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
  done
  kill -0 "$pid" 2>/dev/null && { log "Kafka ignored SIGTERM, killing it"; kill -9 "$pid"; }
  rm -f "$KPID"
  log "Kafka stopped"
}

# ----------------------------------------------------------- PostgreSQL

PGBIN=""
find_pg() {
  local initdb
  # Debian keeps initdb off PATH, under /usr/lib/postgresql/<major>/bin.
  initdb="$(printf '%s\n' /usr/lib/postgresql/*/bin/initdb | sort -V | tail -n 1)"
  [[ -x "$initdb" ]] || initdb="$(command -v initdb || true)"
  [[ -n "$initdb" ]] && PGBIN="$(dirname "$(readlink -f "$initdb")")"
}

# PostgreSQL refuses to run as root; cd / so it never warns about an unreadable cwd.
as_pg() { (cd / && runuser -u postgres -- "$@"); }

pg_running() {
  [[ -f "$PGDATA/postmaster.pid" ]] || return 1
  find_pg || return 1
  as_pg "$PGBIN/pg_ctl" status -D "$PGDATA" >/dev/null 2>&1
}

pg_sql() {
  as_pg "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$PGDIR" -p "$PG_PORT" -U postgres -d postgres -tA -c "$1"
}

start_pg() {
  pg_running && return 0
  if ! find_pg; then
    log "PostgreSQL not found, installing it with apt"
    # stdout carries only the export lines (callers eval it), so apt talks on stderr.
    { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql; } >&2
    find_pg || die "PostgreSQL is still missing after apt-get install"
  fi
  mkdir -p "$PGDIR"
  chown postgres: "$PGDIR"
  if [[ ! -f "$PGDATA/PG_VERSION" ]]; then
    rm -rf "$PGDATA"
    # trust on the socket for the setup below; passwords over TCP like production.
    as_pg "$PGBIN/initdb" -D "$PGDATA" -U postgres -E UTF8 --locale=C.UTF-8 \
        --auth-local=trust --auth-host=scram-sha-256 >"$PGDIR/initdb.log" 2>&1 \
      || { tail -n 20 "$PGDIR/initdb.log" >&2; die "initdb failed"; }
  fi

  log "starting PostgreSQL on 127.0.0.1:$PG_PORT"
  # Durability settings off: the data is disposable and tests run faster.
  # 9>&-: the server must not inherit (and so hold forever) the lock below.
  as_pg "$PGBIN/pg_ctl" start -D "$PGDATA" -l "$PGDIR/postgres.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -p $PG_PORT -k $PGDIR -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
      >/dev/null 9>&- || { tail -n 30 "$PGDIR/postgres.log" >&2; die "PostgreSQL failed to start"; }

  [[ "$(pg_sql "select 1 from pg_roles where rolname = 'turncheck'")" == 1 ]] \
    || pg_sql "create role turncheck login createdb password 'turncheck'"
  [[ "$(pg_sql "select 1 from pg_database where datname = 'turncheck'")" == 1 ]] \
    || pg_sql "create database turncheck owner turncheck"
  log "PostgreSQL is up"
}

stop_pg() {
  pg_running || return 0
  as_pg "$PGBIN/pg_ctl" stop -D "$PGDATA" -m fast -w >/dev/null
  log "PostgreSQL stopped"
}

# ------------------------------------------------------------------ main

main() {
  case "${1:-}" in
    start|stop)
      mkdir -p "$RUN"
      # Two concurrent starts (e.g. parallel jobs) must not launch two brokers.
      exec 9>"$RUN/.lock"
      flock 9
      # A second word names one service: `start kafka` starts the broker alone.
      case "$1 ${2:-both}" in
        "start both") start_pg; start_kafka; print_env ;;
        "start kafka") start_kafka; print_env ;;
        "start postgres") start_pg; print_env ;;
        "stop both") stop_kafka; stop_pg ;;
        "stop kafka") stop_kafka ;;
        "stop postgres") stop_pg ;;
        *) echo "usage: $0 start|stop [kafka|postgres]" >&2; return 2 ;;
      esac
      ;;
    status)
      local rc=0
      if kafka_running; then echo "kafka: up (pid $(cat "$KPID"), 127.0.0.1:$KAFKA_PORT)"; else echo "kafka: down"; rc=1; fi
      if pg_running; then echo "postgres: up (127.0.0.1:$PG_PORT)"; else echo "postgres: down"; rc=1; fi
      return "$rc"
      ;;
    env) print_env ;;
    *) echo "usage: $0 start|stop [kafka|postgres] | status | env" >&2; return 2 ;;
  esac
}

# Parsed whole before it runs, so editing this file never disturbs a running copy.
main "$@"; exit

#!/usr/bin/env bash
# Load benchmark of x12kit-server with oha (a real HTTP load generator),
# on a release build with the limits raised. Not a test: it prints figures.
#   examples/server/bench.sh            (DURATION=10s CONNECTIONS=64 by default; BUILD=0)
#   PARTS="api sqlite postgres" (default: all three) picks the parts; PG=0 is PARTS without postgres;
#   PGSTATS=1 adds PostgreSQL's own account per statement (pg_stat_statements) to the postgres part.
#   SERVER=path runs another build of x12kit-server (an older one, to compare in the same
#   conditions); bench-parse and the receiver always come from this release build.
# For each part it prints the load average and the CPU seconds the server process(es) and
# the load generator used, and each server's own account of where its time went (the
# metrics lines it logs at exit, src/metrics.rs). /parse is compared with the core's own
# parse speed on the same file in the same run (x12kit-server bench-parse: one thread,
# then one per core).
# Targets (issue 14): POST /documents/outbound >= 2,000/s with p99 < 50 ms;
# POST /parse >= 200 MB/s of X12 on 1 MB bodies; GET /transactions >= 5,000/s.
# (These API figures are measured with --no-workers: the API alone.)
# Then the lifecycle (issue 15): DOCS documents (default 5000) sent at RATE/s (default 500)
# with the http transport to a local partner and webhooks to a local receiver; documents/s
# from accept to routed, end-to-end latency percentiles (accept → routed, from the store's
# history), every webhook delivered; on SQLite, then on PostgreSQL with two server
# processes (PG=0 skips it; it needs Debian's postgresql package, as test.sh installs).
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$(pwd)"
duration="${DURATION:-10s}"
connections="${CONNECTIONS:-64}"
command -v oha >/dev/null || cargo install oha --locked
# BUILD=0 uses the release binary already built.
[ "${BUILD:-1}" = 0 ] || cargo build --release -p x12kit-server
parts="${PARTS:-api sqlite postgres}"
server="${SERVER:-${CARGO_TARGET_DIR:-target}/release/x12kit-server}"
[ "${PG:-1}" = 1 ] || parts="${parts//postgres/}"
has() { [[ " $parts " == *" $1 "* ]]; }
cpu() { # CPU seconds (user + system) used so far by process $1
  awk '{ printf "%.2f\n", ($14 + $15) / 100 }' "/proc/$1/stat" 2>/dev/null || echo 0
}
# The server's own account of its time: stop it (SIGTERM) and print its metrics totals.
stop_report() { # pid stderr-file name
  kill -TERM "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
  echo "-- where $3's time went (its metrics totals, src/metrics.rs):"
  grep -o 'since start: .*' "$2" | sed 's/; /\n   /g; s/^/   /' || echo "   (no metrics line)"
}
work="$(mktemp -d)"
pid=""
pids=()
pgdir="" pgctl="" pgas=()
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  if [ -n "$pgctl" ]; then "${pgas[@]}" "$pgctl" -D "$pgdir/data" -m immediate stop >/dev/null 2>&1 || true; fi
  rm -rf "$work"
  if [ -n "$pgdir" ]; then rm -rf "$pgdir"; fi
}
trap cleanup EXIT

sed -e 's/^transactions_per_minute.*/transactions_per_minute = 1000000000/' \
    -e 's/^parse_validate_per_minute.*/parse_validate_per_minute = 1000000000/' \
    -e 's/^other_per_minute.*/other_per_minute = 1000000000/' \
    -e "s#^profile = .*#profile = \"$root/examples/partners/acme-retail.json\"#" \
    examples/server/demo.toml > "$work/bench.toml"
auth="Authorization: Bearer x12k_demo_alpha"

printf '{"partnerId":"acme-retail","documentTypeCode":"850","payload":%s}' \
  "$(cat examples/payloads/850.json)" > "$work/outbound.json"
# About 1 MB of X12: the example purchase orders, interchange after interchange.
python3 - "$root/examples/x12/purchase-orders-850.edi" "$work/1mb.edi" <<'PY'
import sys
one = open(sys.argv[1], "rb").read()
if not one.endswith(b"\n"):
    one += b"\n"
out = bytearray()
while len(out) < 1_000_000:
    out += one
open(sys.argv[2], "wb").write(out)
PY
size=$(wc -c < "$work/1mb.edi")

summary() { # name file [bytes per request]
  python3 - "$1" "$2" "${3:-0}" <<'PY'
import json, sys
name, path, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
r = json.load(open(path))
s = r["summary"]
codes = r.get("statusCodeDistribution", {})
lat = r.get("latencyPercentiles", {})
line = f"{name}: {s['requestsPerSec']:.0f} req/s, p50 {lat.get('p50', 0) * 1000:.1f} ms, p99 {lat.get('p99', 0) * 1000:.1f} ms, statuses {codes}"
if size:
    line += f", {s['requestsPerSec'] * size / 1e6:.0f} MB/s of X12"
print(line)
PY
}

# Runs oha (its arguments) into $work/NAME.out and prints the CPU seconds oha and the server used.
load() { # name oha-arguments...
  local name="$1"; shift
  local before t0 t1 after
  before="$(cpu "$pid")"; t0="$(date +%s.%N)"
  /usr/bin/time -f '%U %S' -o "$work/$name.time" oha --no-tui --output-format json "$@" > "$work/$name.out"
  t1="$(date +%s.%N)"; after="$(cpu "$pid")"
  python3 - "$before" "$after" "$t0" "$t1" "$work/$name.time" <<'PY'
import sys
b, a, t0, t1 = map(float, sys.argv[1:5])
u, s = map(float, open(sys.argv[5]).read().split()[-2:])
wall = t1 - t0
print(f"   CPU: server {a - b:.1f} s, oha {u + s:.1f} s, in {wall:.1f} s of wall time "
      f"(2 cores = {2 * wall:.1f} CPU-s; the rest went to other work on the machine)")
PY
}

# The core's own parse speed on the same file, now: the core call behind /parse
# (x12::parse_into = ops::parse_json_into, into one reused buffer per thread as the
# server's pool gives) timed in a process of its own, one thread, then one per core.
core_parse() { # label [--no-documents]
  local label="$1"; shift
  echo "   the core alone ($label, x12kit-server bench-parse, same file, now): $(
    "${CARGO_TARGET_DIR:-target}/release/x12kit-server" bench-parse "$@" --threads 1 "$work/1mb.edi") on one thread; $(
    "${CARGO_TARGET_DIR:-target}/release/x12kit-server" bench-parse "$@" "$work/1mb.edi") on $(nproc)"
}

if has api; then
X12KIT_LOG=warn,x12kit_server::metrics=info "$server" --config "$work/bench.toml" \
  --listen 127.0.0.1:0 --database "$work/bench.db" --no-workers > "$work/stdout" 2> "$work/api-stderr" &
pid=$!
for _ in $(seq 1 100); do [ -s "$work/stdout" ] && break; sleep 0.1; done
base="$(head -1 "$work/stdout" | sed -n 's/^listening on //p')"
[ -n "$base" ] || { echo "the server did not start"; exit 1; }
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine lowers every figure)"
echo "== POST /api/v1/documents/outbound ($connections connections, $duration)"
load outbound -z "$duration" -c "$connections" -m POST -H "$auth" \
  -T application/json -D "$work/outbound.json" "$base/api/v1/documents/outbound"
summary "POST /documents/outbound" "$work/outbound.out"

echo "== POST /api/v1/parse (1 MB bodies, 4 connections, $duration), load average $(cut -d' ' -f1 /proc/loadavg)"
core_parse "with documents"
load parse -z "$duration" -c 4 -m POST -H "$auth" \
  -T application/edi-x12 -D "$work/1mb.edi" "$base/api/v1/parse"
summary "POST /parse ($size bytes)" "$work/parse.out" "$size"
core_parse "with documents"

echo "== POST /api/v1/parse?documents=false (1 MB bodies, 4 connections, $duration)"
core_parse "--no-documents" --no-documents
load parse-nodoc -z "$duration" -c 4 -m POST -H "$auth" \
  -T application/edi-x12 -D "$work/1mb.edi" "$base/api/v1/parse?documents=false"
summary "POST /parse?documents=false ($size bytes)" "$work/parse-nodoc.out" "$size"
core_parse "--no-documents" --no-documents

echo "== GET /api/v1/transactions ($connections connections, $duration), load average $(cut -d' ' -f1 /proc/loadavg)"
load list -z "$duration" -c "$connections" -H "$auth" "$base/api/v1/transactions"
summary "GET /transactions (limit 50)" "$work/list.out"

stop_report "$pid" "$work/api-stderr" "the API server"; pid=""
fi

# ---------------------------------------------------------------- lifecycle
docs="${DOCS:-5000}"
rate="${RATE:-500}"
bin="${CARGO_TARGET_DIR:-target}/release"
secret="whsec_demo_alpha_only_for_trying_it_out"
"$bin/x12kit-receiver" --listen 127.0.0.1:0 --secret "$secret" --partner-path /edi > "$work/receiver.out" 2>/dev/null &
pids+=($!)
receiver=$!
for _ in $(seq 1 100); do [ -s "$work/receiver.out" ] && break; sleep 0.1; done
rbase="$(head -1 "$work/receiver.out" | sed -n 's/^listening on //p')"
[ -n "$rbase" ] || { echo "the receiver did not start"; exit 1; }
# The demo configuration, limits raised, the partner reached over HTTP, webhooks to the receiver.
python3 - "$work/bench.toml" "$work/life.toml" "$rbase" <<'PY'
import sys
src, dst, rbase = sys.argv[1:]
out, skip = [], False
for line in open(src).read().splitlines():
    if line.startswith("profile = "):
        out += [line, "[accounts.partners.transport]", 'kind = "http"', f'url = "{rbase}/edi"',
                "retries = 3", "backoff_ms = 100", "timeout_ms = 10000", ""]
        skip = True
        continue
    if skip and line.startswith("[[accounts.webhooks]]"):
        skip = False
    if skip:
        continue
    if line.startswith("url = ") and "x12kit-webhooks" in line:
        line = f'url = "{rbase}/hooks"'
    if line.startswith("poll_ms"):
        line = "poll_ms = 50"
    out.append(line)
open(dst, "w").write("\n".join(out) + "\n")
PY

start_server() { # database name; the base URL is then in $work/base-<name>
  X12KIT_LOG=warn,x12kit_server::metrics=info "$server" --config "$work/life.toml" \
    --listen 127.0.0.1:0 --database "$1" > "$work/life-stdout-$2" 2> "$work/life-stderr-$2" &
  pids+=($!)
  echo $! > "$work/pid-$2"
  for _ in $(seq 1 100); do [ -s "$work/life-stdout-$2" ] && break; sleep 0.1; done
  head -1 "$work/life-stdout-$2" | sed -n 's/^listening on //p' > "$work/base-$2"
  [ -s "$work/base-$2" ] || { echo "the server did not start"; exit 1; }
}

wait_done() { # base
  python3 - "$1" "$docs" <<'PY'
import json, sys, time, urllib.request
base, docs = sys.argv[1], int(sys.argv[2])
end = time.time() + 600
while time.time() < end:
    req = urllib.request.Request(base + "/api/v1/stats", headers={"Authorization": "Bearer x12k_demo_alpha"})
    st = json.load(urllib.request.urlopen(req))["data"]
    d, w = st["documents"], st["webhooks"]
    if d["routed"] + d["failed"] >= docs and w["pending"] == 0:
        print(f"routed {d['routed']}, failed {d['failed']}, webhooks delivered {w['delivered']}, failed {w['failed']}")
        sys.exit(0 if d["routed"] == docs and w["delivered"] == 2 * docs else 1)
    time.sleep(0.5)
print("timed out", st)
sys.exit(1)
PY
}

report() { # name; reads "queued_at routed_at" lines (Unix ms) on stdin
  python3 -c '
import sys
name = sys.argv[1]
rows = [tuple(map(int, l.split())) for l in sys.stdin if l.strip()]
lat = sorted(r - q for q, r in rows)
span = (max(r for _, r in rows) - min(q for q, _ in rows)) / 1000
pct = lambda p: lat[min(len(lat) - 1, int(p * len(lat)))]
print(f"{name}: {len(rows)} documents accept->routed in {span:.1f} s = {len(rows) / span:.0f} documents/s; "
      f"end-to-end p50 {pct(0.5)} ms, p99 {pct(0.99)} ms, max {lat[-1]} ms")
' "$1"
}

send() { # base rate count name: oha's JSON in $work/NAME.out, its CPU seconds in $work/NAME.time
  /usr/bin/time -f '%U %S' -o "$work/$4.time" oha --no-tui --output-format json -n "$3" -q "$2" -c 32 \
    -m POST -H "$auth" -T application/json -D "$work/outbound.json" "$1/api/v1/documents/outbound" > "$work/$4.out"
}
cpus() { # total CPU seconds used so far by the processes given
  local t=0 p
  for p in "$@"; do t="$(awk -v t="$t" '{ printf "%.2f", t + ($14 + $15) / 100 }' "/proc/$p/stat" 2>/dev/null || echo "$t")"; done
  echo "$t"
}
oha_cpu() { # time files...
  cat "$@" | awk '{ t += $(NF-1) + $NF } END { printf "%.1f", t }'
}

if has sqlite; then
  echo "== lifecycle on SQLite: $docs documents at $rate/s, http transport to a local partner, webhooks to a local receiver; load average $(cut -d' ' -f1-3 /proc/loadavg)"
  start_server "$work/life.db" sqlite
  lbase="$(cat "$work/base-sqlite")"
  r0="$(cpus "$receiver")" t0="$(date +%s.%N)"
  send "$lbase" "$rate" "$docs" life
  summary "POST /documents/outbound (lifecycle run)" "$work/life.out"
  wait_done "$lbase"
  t1="$(date +%s.%N)"
  echo "   CPU: server $(cpus "$(cat "$work/pid-sqlite")") s, receiver (partner + webhooks) $(awk -v a="$r0" -v b="$(cpus "$receiver")" 'BEGIN { printf "%.1f", b - a }') s, oha $(oha_cpu "$work/life.time") s, in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s of wall time; load average $(cut -d' ' -f1 /proc/loadavg)"
  python3 - "$work/life.db" <<'PY' | report "SQLite"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for q, r in db.execute("""SELECT q.at, r.at FROM status_history q JOIN status_history r
    ON r.document_id = q.document_id AND r.status = 'routed' WHERE q.status = 'queued'"""):
    print(q, r)
PY
  stop_report "$(cat "$work/pid-sqlite")" "$work/life-stderr-sqlite" "the SQLite server"
fi

if has postgres; then
  echo "== lifecycle on PostgreSQL, two server processes: $docs documents at $rate/s (half to each)"
  pgbin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
  # PGSTATS=1: pg_stat_statements (in Debian's postgresql package) reports where
  # PostgreSQL's own time went, statement by statement, after the run.
  pgstats_opts=""
  if [ "${PGSTATS:-0}" = 1 ]; then
    pgstats_opts="-c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track_planning=on -c pg_stat_statements.max=1000"
  fi
  [ -x "$pgbin/initdb" ] || { echo "PostgreSQL is not installed (apt-get install -y postgresql); PG=0 skips this part"; exit 1; }
  pgdir="$(mktemp -d /tmp/x12kit-pgbench.XXXXXX)"
  if [ "$(id -u)" = 0 ]; then chown postgres "$pgdir"; pgas=(runuser -u postgres --); fi
  pgport="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  "${pgas[@]}" "$pgbin/initdb" -D "$pgdir/data" -A trust -U x12kit -E UTF8 > /dev/null
  pgctl="$pgbin/pg_ctl"
  "${pgas[@]}" "$pgctl" -D "$pgdir/data" -l "$pgdir/server.log" -w \
    -o "-c listen_addresses=127.0.0.1 -p $pgport -c unix_socket_directories=$pgdir -c max_connections=200 ${pgstats_opts}" start > /dev/null
  if [ "${PGSTATS:-0}" = 1 ]; then
    psql -q -h 127.0.0.1 -p "$pgport" -U x12kit postgres -c "CREATE EXTENSION pg_stat_statements" >/dev/null
  fi
  url="postgres://x12kit@127.0.0.1:$pgport/postgres"
  start_server "$url" pg-a
  start_server "$url" pg-b
  a="$(cat "$work/base-pg-a")" b="$(cat "$work/base-pg-b")"
  half=$((docs / 2))
  r0="$(cpus "$receiver")" t0="$(date +%s.%N)"
  send "$a" $((rate / 2)) "$half" pg-a &
  spid=$!
  send "$b" $((rate / 2)) $((docs - half)) pg-b
  wait "$spid"
  summary "POST /documents/outbound (process A)" "$work/pg-a.out"
  summary "POST /documents/outbound (process B)" "$work/pg-b.out"
  wait_done "$a"
  t1="$(date +%s.%N)"
  postmaster="$(head -1 "$pgdir/data/postmaster.pid")"
  echo "   CPU: servers $(cpus "$(cat "$work/pid-pg-a")" "$(cat "$work/pid-pg-b")") s, PostgreSQL $(cpus "$postmaster" $(pgrep -P "$postmaster")) s, receiver $(awk -v a="$r0" -v b="$(cpus "$receiver")" 'BEGIN { printf "%.1f", b - a }') s, oha $(oha_cpu "$work/pg-a.time" "$work/pg-b.time") s, in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s of wall time; load average $(cut -d' ' -f1 /proc/loadavg)"
  psql -At -F ' ' -h 127.0.0.1 -p "$pgport" -U x12kit postgres -c \
    "SELECT q.at, r.at FROM status_history q JOIN status_history r ON r.document_id = q.document_id AND r.status = 'routed' WHERE q.status = 'queued'" \
    | report "PostgreSQL, 2 processes"
  if [ "${PGSTATS:-0}" = 1 ]; then
    echo "-- where PostgreSQL's time went (pg_stat_statements: total ms of planning + execution, of which planning, calls, ms per call, rows; top 20)"
    psql -At -F ' | ' -h 127.0.0.1 -p "$pgport" -U x12kit postgres -c \
      "SELECT round((total_plan_time + total_exec_time)::numeric, 0), round(total_plan_time::numeric, 0), calls,
              round(((total_plan_time + total_exec_time) / GREATEST(calls, 1))::numeric, 3), rows,
              left(regexp_replace(query, '\\s+', ' ', 'g'), 150)
       FROM pg_stat_statements ORDER BY total_plan_time + total_exec_time DESC LIMIT 20" | sed 's/^/   /'
  fi
  stop_report "$(cat "$work/pid-pg-a")" "$work/life-stderr-pg-a" "PostgreSQL server A"
  stop_report "$(cat "$work/pid-pg-b")" "$work/life-stderr-pg-b" "PostgreSQL server B"
fi

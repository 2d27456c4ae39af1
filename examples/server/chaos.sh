#!/usr/bin/env bash
# Chaos run of x12kit-server (issue 35): the lifecycle under load (documents sent with
# Idempotency-Keys to two server processes on one PostgreSQL, routed over HTTP to a local
# partner that records every POST, webhooks to the receiver example) while the server
# processes are killed (SIGKILL) and restarted, and PostgreSQL is restarted (fast or
# immediate), at random. Then it checks that every accepted document reached its final
# state exactly as tests/crash.rs defines it:
#   - every key answered 202 has one document, and the store has no other;
#   - every document is `routed`, and reached the partner, every copy byte for byte the
#     stored interchange under its Idempotency-Key;
#   - a document the partner got twice was not yet `routed` in the store at some kill of a
#     server process, and its transaction says it was sent again (routingAttempts[0] is
#     "interrupted"); a document marked so was not `routed` at some kill;
#   - every webhook delivery the store lists is delivered and was received under its id
#     (document.validated, then document.routed).
# Not in CI (a minute of chaos and its settling): run it by hand.
#   examples/server/chaos.sh            DURATION=60 (seconds of chaos), SENDERS=4, SEED=random,
#                                       BUILD=0 reuses the release build
# Needs Debian's postgresql package (examples/server/test.sh installs it). Loopback only;
# every loop is bounded in count and time. Last line: `chaos: N passed, N failed`.
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$(pwd)"
[ "${BUILD:-1}" = 0 ] || cargo build --release -p x12kit-server --bins
bin="${CARGO_TARGET_DIR:-$root/target}/release"
pgbin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
[ -x "$pgbin/initdb" ] || { echo "PostgreSQL is not installed (apt-get install -y postgresql)"; exit 1; }
work="$(mktemp -d)"
pgdir="$(mktemp -d /tmp/x12kit-pgchaos.XXXXXX)"
pgas=()
if [ "$(id -u)" = 0 ]; then chown postgres "$pgdir"; pgas=(runuser -u postgres --); fi
cleanup() {
  "${pgas[@]}" "$pgbin/pg_ctl" -D "$pgdir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$work" "$pgdir"
}
trap cleanup EXIT
pgport="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
"${pgas[@]}" "$pgbin/initdb" -D "$pgdir/data" -A trust -U x12kit -E UTF8 > /dev/null
"${pgas[@]}" "$pgbin/pg_ctl" -D "$pgdir/data" -l "$pgdir/server.log" -w \
  -o "-c listen_addresses=127.0.0.1 -p $pgport -c unix_socket_directories=$pgdir -c max_connections=300" start > /dev/null
echo "PostgreSQL $("$pgbin/postgres" --version | awk '{print $NF}') on 127.0.0.1:$pgport"

CHAOS_ROOT="$root" CHAOS_WORK="$work" CHAOS_BIN="$bin" CHAOS_PGURL="postgres://x12kit@127.0.0.1:$pgport/postgres" \
CHAOS_PGCTL="${pgas[*]} $pgbin/pg_ctl -D $pgdir/data -l $pgdir/server.log -w" CHAOS_PSQL="$pgbin/psql" \
python3 - <<'PY'
import hashlib, http.client, http.server, json, os, random, re, socket, subprocess, sys, threading, time

env = os.environ
root, work, bin_dir, pgurl = env["CHAOS_ROOT"], env["CHAOS_WORK"], env["CHAOS_BIN"], env["CHAOS_PGURL"]
pgctl, psql = env["CHAOS_PGCTL"], env["CHAOS_PSQL"]
duration = float(env.get("DURATION", "60"))
senders = int(env.get("SENDERS", "4"))
seed = int(env.get("SEED", str(random.randrange(1 << 30))))
rng = random.Random(seed)
print(f"chaos: {duration:.0f} s, {senders} senders, seed {seed} (SEED={seed} repeats the choices)")
secret = "whsec_demo_alpha_only_for_trying_it_out"
failures = []
checks = 0

def check(ok, what):
    global checks
    checks += 1
    if not ok:
        failures.append(what)
        print("FAILED:", what)

# The partner: records every POST (Idempotency-Key, body) and answers 200.
received, rlock = [], threading.Lock()
class Partner(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        with rlock:
            received.append((self.headers.get("Idempotency-Key"), body))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()
    def log_message(self, *a):
        pass
partner = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Partner)
threading.Thread(target=partner.serve_forever, daemon=True).start()

# The webhook receiver example, logging every delivery it accepts.
rlog = os.path.join(work, "received.jsonl")
receiver = subprocess.Popen([os.path.join(bin_dir, "x12kit-receiver"), "--listen", "127.0.0.1:0", "--secret", secret,
                             "--log", rlog], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
rbase = receiver.stdout.readline().decode().strip().replace("listening on ", "")
# The receiver prints a line per delivery: read them, or its pipe fills and it stops.
threading.Thread(target=lambda: [None for _ in receiver.stdout], daemon=True).start()

# The demo's server-wide settings (limits raised, fast polls), and one account of our own.
demo = open(os.path.join(root, "examples/server/demo.toml")).read()
demo = demo[:re.search(r"(?m)^\[\[accounts\]\]", demo).start()]
demo = re.sub(r"(?m)^(transactions|parse_validate|other)_per_minute.*$", r"\1_per_minute = 1000000", demo)
demo = re.sub(r"(?m)^poll_ms.*$", "poll_ms = 50", demo)
demo = re.sub(r"(?m)^webhook_retry_ms.*$", "webhook_retry_ms = [500, 1000, 2000, 4000, 8000, 16000, 32000]", demo)
demo += """
[[accounts]]
id = "alpha"

[[accounts.keys]]
name = "demo"
sha256 = "6d7dff8b896c0ddf9a311a0c4bda0b9bae1f87970d25d5339e04f01c181c4ea5"

[[accounts.partners]]
id = "acme-retail"
profile = "%s"
[accounts.partners.transport]
kind = "http"
url = "http://127.0.0.1:%d/edi"
retries = 5
backoff_ms = 200
timeout_ms = 5000

[[accounts.webhooks]]
url = "%s/hooks"
secrets = ["%s"]
""" % (os.path.join(root, "examples/partners/acme-retail.json"), partner.server_address[1], rbase, secret)
config = os.path.join(work, "chaos.toml")
open(config, "w").write(demo)

def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p

ports = [free_port(), free_port()]
procs = [None, None]
def start(i):
    log = open(os.path.join(work, f"server-{i}.log"), "a")
    procs[i] = subprocess.Popen([os.path.join(bin_dir, "x12kit-server"), "--config", config, "--listen", f"127.0.0.1:{ports[i]}",
                                 "--database", pgurl], stdout=log, stderr=log, env=dict(env, X12KIT_LOG="warn"))
    end = time.time() + 60
    while time.time() < end:
        try:
            c = http.client.HTTPConnection("127.0.0.1", ports[i], timeout=2)
            c.request("GET", "/healthz"); c.getresponse().read(); return
        except OSError:
            if procs[i].poll() is not None:
                break
            time.sleep(0.1)
    raise SystemExit(f"server {i} did not start:\n" + open(os.path.join(work, f"server-{i}.log")).read()[-3000:])

def query(sql):
    """Rows of one column, or None when PostgreSQL does not answer."""
    out = subprocess.run([psql, pgurl, "-At", "-c", sql], capture_output=True, text=True)
    return out.stdout.split("\n") if out.returncode == 0 else None

start(0)
start(1)
headers = {"Authorization": "Bearer x12k_demo_alpha", "Content-Type": "application/json"}
payload = json.load(open(os.path.join(root, "examples/payloads/850.json")))
body = json.dumps({"partnerId": "acme-retail", "documentTypeCode": "850", "payload": payload})
accepted, answers, alock = {}, {}, threading.Lock()
stop = threading.Event()

def sender(t):
    n = 0
    while not stop.is_set():
        key = f"chaos-{seed}-{t}-{n}"
        n += 1
        for _ in range(600):
            port = rng.choice(ports)
            try:
                c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                c.request("POST", "/api/v1/documents/outbound", body=body, headers=dict(headers, **{"Idempotency-Key": key}))
                r = c.getresponse(); data = r.read(); status = r.status
            except OSError:
                status, data = "no answer", b""
            with alock:
                answers[str(status)] = answers.get(str(status), 0) + 1
            if status == 202:
                with alock:
                    accepted[key] = json.loads(data)["documentId"]
                break
            if status not in (503, "no answer"):
                check(False, f"key {key}: answered {status} {data[:200]!r}")
                break
            time.sleep(0.2)

threads = [threading.Thread(target=sender, args=(t,)) for t in range(senders)]
for t in threads:
    t.start()

in_doubt = set()
events = []
deadline = time.time() + duration
while time.time() < deadline:
    time.sleep(rng.uniform(2, 6))
    if rng.random() < 0.6:
        i = rng.randrange(2)
        procs[i].kill(); procs[i].wait()
        rows = query("SELECT id FROM documents WHERE status IN ('queued', 'validated')")
        if rows is None:
            # PostgreSQL is down: what it had not recorded as routed is read at its next start.
            rows = []
            events.append("kill during a PostgreSQL restart (statuses read later)")
        in_doubt.update(r for r in rows if r)
        events.append(f"kill -9 server {i}")
        time.sleep(rng.uniform(0, 2))
        start(i)
    else:
        mode = rng.choice(["fast", "immediate"])
        subprocess.run(f"{pgctl} -m {mode} restart", shell=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        events.append(f"PostgreSQL restart -m {mode}")
stop.set()
for t in threads:
    t.join()
print(f"chaos: {len(events)} events: " + "; ".join(events))
print(f"chaos: answers {answers}; {len(accepted)} documents accepted")

def get(path, port=None):
    c = http.client.HTTPConnection("127.0.0.1", port or ports[0], timeout=30)
    c.request("GET", path, headers=headers)
    r = c.getresponse()
    return r.status, json.loads(r.read() or b"null")

end = time.time() + 300
while True:
    status, st = get("/api/v1/stats")
    d, w = st["data"]["documents"], st["data"]["webhooks"]
    if d["routed"] + d["failed"] >= len(accepted) and d["queued"] == d["validated"] == 0 and w["pending"] == 0:
        break
    if time.time() > end:
        check(False, f"not settled after 300 s: {st}")
        break
    time.sleep(1)

stored = set(r for r in (query("SELECT id FROM documents") or []) if r)
ids = set(accepted.values())
check(len(ids) == len(accepted), "two keys share a document")
check(stored == ids, f"store and accepted differ: {len(stored - ids)} extra, {len(ids - stored)} missing")
got = {}
for key, b in received:
    got.setdefault(key, []).append(b)
check(set(got) == ids, f"the partner got {len(set(got) - ids)} unknown and missed {len(ids - set(got))}")
hooks = {}
for line in open(rlog):
    try:
        e = json.loads(line)
        hooks[e["deliveryId"]] = e
    except ValueError:
        pass
twice = marked = 0
for doc in sorted(ids):
    status, t = get(f"/api/v1/transactions/{doc}")
    t = t["data"]
    check(t["status"] == "routed", f"{doc} is {t['status']}")
    x12 = t["x12"].encode()
    bodies = got.get(doc, [])
    check(all(b == x12 for b in bodies), f"{doc} sent with other bytes")
    is_marked = bool(t["routingAttempts"]) and t["routingAttempts"][0].get("result") == "interrupted"
    marked += is_marked
    if len(bodies) > 1:
        twice += 1
        check(doc in in_doubt, f"{doc} sent {len(bodies)} times though routed at every kill")
        check(is_marked, f"{doc} sent {len(bodies)} times and not marked as resent")
    if is_marked:
        check(doc in in_doubt, f"{doc} marked as resent, never in doubt at a kill")
    evs = []
    for dlv in t["webhookDeliveries"]:
        check(dlv["state"] == "delivered", f"delivery {dlv['id']} of {doc} is {dlv['state']}")
        check(dlv["id"] in hooks, f"delivery {dlv['id']} of {doc} never received")
        evs.append(dlv["event"])
    check(evs == ["document.validated", "document.routed"], f"{doc}: events {evs}")
print(f"chaos: {len(ids)} documents routed; {twice} sent twice (each in doubt at a kill and marked), {marked} marked as resent; {len(hooks)} webhook deliveries received")
if failures:
    # What the servers logged (warnings and errors), to tell why.
    for i in range(2):
        lines = open(os.path.join(work, f"server-{i}.log")).read().splitlines()
        counts = {}
        for l in lines:
            key = re.sub(r"^\S+\s+", "", re.sub(r"\x1b\[[0-9;]*m", "", l))[:160]
            counts[key] = counts.get(key, 0) + 1
        print(f"server {i} logged (most frequent first):")
        for k, n in sorted(counts.items(), key=lambda kv: -kv[1])[:15]:
            print(f"  {n} x {k}")
    pending = [d for doc in sorted(ids)[:50] for d in get(f"/api/v1/transactions/{doc}")[1]["data"]["webhookDeliveries"] if d["state"] != "delivered"]
    if pending:
        print("a delivery not delivered:", json.dumps(pending[0])[:1500])
for p in procs:
    p.terminate(); p.wait()
receiver.kill()
print(f"chaos: {checks - len(failures)} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
PY

#!/usr/bin/env python3
"""Measures x12kit-server under the attacks of issue 35, on loopback, and prints figures.

Not a test (the tests are tests/hostile.rs and tests/faults.rs): it runs the same attacks
against any build of the server, so that an old build and a new one can be compared in
the same conditions (the README's "Hostile traffic" figures come from it).

  python3 examples/server/attacks.py --server target/release/x12kit-server [SCENARIO...]
  (--demo OLD/examples/server/demo.toml: the demo configuration of an older build)

Scenarios (default: all): slowloris, slowbody, flood, bigparse. Each starts a fresh server
on 127.0.0.1 with the demo configuration (limits per key raised, no workers, its own
defaults for everything else), attacks it from 127.0.0.2 and up (Linux routes all of
127.0.0.0/8 to loopback), measures a normal client from 127.0.0.1 meanwhile, and stops it.
Every loop is bounded in count and time.
"""

import argparse
import http.client
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
AUTH = {"Authorization": "Bearer x12k_demo_alpha"}


DEMO = os.path.join(ROOT, "examples/server/demo.toml")


class Server:
    def __init__(self, binary, nofile=None):
        self.dir = tempfile.TemporaryDirectory()
        demo = open(DEMO).read()
        # The server's own defaults for the serving layer.
        demo = re.sub(r"(?ms)^\[server\]\n.*?(?=^\[)", "", demo)
        demo = re.sub(r"(?m)^(transactions|parse_validate|other)_per_minute.*$",
                      r"\1_per_minute = 1000000", demo)
        demo = re.sub(r"(?m)^profile = .*$",
                      'profile = "%s"' % os.path.join(ROOT, "examples/partners/acme-retail.json"), demo)
        config = os.path.join(self.dir.name, "server.toml")
        open(config, "w").write(demo)
        cmd = [binary, "--config", config, "--listen", "127.0.0.1:0",
               "--database", os.path.join(self.dir.name, "server.db"), "--no-workers"]
        if nofile:
            cmd = ["prlimit", "--nofile=%d:%d" % (nofile, nofile)] + cmd
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     env=dict(os.environ, X12KIT_LOG="error"))
        line = self.proc.stdout.readline().decode()
        m = re.match(r"listening on http://127\.0\.0\.1:(\d+)", line)
        if not m:
            raise SystemExit("the server did not start: %r" % line)
        self.port = int(m.group(1))
        self.pid = self.proc.pid

    def fds(self):
        try:
            return len(os.listdir("/proc/%d/fd" % self.pid))
        except OSError:
            return -1

    def status(self, field):
        for line in open("/proc/%d/status" % self.pid):
            if line.startswith(field + ":"):
                return int(line.split()[1])
        return 0

    def cpu(self):
        parts = open("/proc/%d/stat" % self.pid).read().rsplit(")", 1)[1].split()
        return (int(parts[11]) + int(parts[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self):
        self.proc.kill()
        self.proc.wait()
        self.dir.cleanup()


def normal_request(port, path="/healthz", method="GET", body=None, headers=None, timeout=5):
    """One request on a fresh connection from 127.0.0.1: (status or error, seconds)."""
    started = time.monotonic()
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        c.request(method, path, body=body, headers=dict(AUTH, **(headers or {})))
        r = c.getresponse()
        r.read()
        c.close()
        return r.status, time.monotonic() - started
    except Exception as e:  # noqa: BLE001 - a figure, whatever failed
        return type(e).__name__, time.monotonic() - started


def normal_clients(port, n=10):
    out = [normal_request(port) for _ in range(n)]
    ok = [t for s, t in out if s == 200]
    statuses = sorted({str(s) for s, _ in out})
    if not ok:
        return "normal client: %s (none answered 200; %d tries)" % (",".join(statuses), n)
    return "normal client: %d/%d answered 200, median %.0f ms, max %.0f ms (statuses %s)" % (
        len(ok), n, statistics.median(ok) * 1000, max(t for _, t in out) * 1000, ",".join(statuses))


def connect_from(source, port, timeout=5):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind((source, 0))
    s.settimeout(timeout)
    try:
        s.connect(("127.0.0.1", port))
    except OSError:
        s.close()
        raise
    return s


def classify(socks, seen):
    """What the server did with each socket so far (sticky: a socket answered or closed
    stays so): 'open' (held, nothing said), 'closed', 'reset', or the status it answered."""
    for s in socks:
        if seen.get(s, "open") != "open":
            continue
        s.setblocking(False)
        try:
            data = s.recv(65536)
            m = re.match(rb"HTTP/1\.1 (\d+)", data)
            seen[s] = m.group(1).decode() if m else ("closed" if data == b"" else "other")
        except BlockingIOError:
            seen[s] = "open"
        except OSError:
            seen[s] = "reset"
    counts = {}
    for s in socks:
        counts[seen[s]] = counts.get(seen[s], 0) + 1
    return counts


def open_many(port, n, sources, send=b"", timeout=5):
    socks, failed, in_a_row = [], 0, 0
    for i in range(n):
        if in_a_row >= 20:
            # The server no longer accepts (its backlog is full): the rest would wait too.
            failed += n - i
            break
        try:
            s = connect_from(sources[i % len(sources)], port, timeout)
            if send:
                s.sendall(send)
            socks.append(s)
            in_a_row = 0
        except OSError:
            failed += 1
            in_a_row += 1
    return socks, failed


def slowloris(binary, n=3000):
    srv = Server(binary)
    try:
        base_fds = srv.fds()
        half = b"POST /api/v1/parse HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\n"
        socks, failed = open_many(srv.port, n, ["127.0.0.2"], half)
        seen = {}
        time.sleep(1)
        print("slowloris: %d connections from one address each sent half a request head (%d could not connect)" % (len(socks), failed))
        print("  after 1 s: %s; server fds %d (%d before)" % (classify(socks, seen), srv.fds(), base_fds))
        print("  " + normal_clients(srv.port))
        time.sleep(11)
        print("  after 12 s: %s; server fds %d" % (classify(socks, seen), srv.fds()))
        print("  " + normal_clients(srv.port))
        for s in socks:
            s.close()
    finally:
        srv.stop()


def slowbody(binary, n=200):
    srv = Server(binary)
    try:
        head = (b"POST /api/v1/parse HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer x12k_demo_alpha\r\n"
                b"Content-Type: text/plain\r\nContent-Length: 1000000\r\n\r\nISA")
        socks, failed = open_many(srv.port, n, ["127.0.0.2"], head)
        print("slow body: %d connections sent a head announcing 1 MB, then one byte a second (%d could not connect)" % (len(socks), failed))
        seen = {}
        start = time.monotonic()
        while time.monotonic() - start < 12:
            for s in socks:
                if seen.get(s, "open") == "open":
                    try:
                        s.send(b"*")
                    except OSError:
                        pass
            time.sleep(1)
            if int(time.monotonic() - start) == 2:
                print("  after 2 s: %s; server fds %d; %s" % (classify(socks, seen), srv.fds(), normal_clients(srv.port)))
        print("  after 12 s: %s; server fds %d" % (classify(socks, seen), srv.fds()))
        print("  " + normal_clients(srv.port))
        for s in socks:
            s.close()
    finally:
        srv.stop()


def flood(binary, n=3000, nofile=1024):
    srv = Server(binary, nofile=nofile)
    try:
        cpu0 = srv.cpu()
        sources = ["127.0.0.%d" % i for i in range(2, 12)]
        socks, failed = open_many(srv.port, n, sources, timeout=0.2)
        seen = {}
        time.sleep(1)
        print("flood: %d idle connections from %d addresses to a server with ulimit -n %d (%d could not connect within 0.2 s)" % (len(socks), len(sources), nofile, failed))
        print("  after 1 s: %s; server fds %d" % (classify(socks, seen), srv.fds()))
        print("  " + normal_clients(srv.port, 5))
        time.sleep(7)
        print("  after 8 s: %s; server fds %d, server CPU %.1f s" % (classify(socks, seen), srv.fds(), srv.cpu() - cpu0))
        print("  " + normal_clients(srv.port, 5))
        for s in socks:
            s.close()
        time.sleep(1)
        print("  flood closed: " + normal_clients(srv.port, 5))
    finally:
        srv.stop()


def big_x12(size):
    one = open(os.path.join(ROOT, "examples/x12/purchase-orders-850.edi"), "rb").read()
    if not one.endswith(b"\n"):
        one += b"\n"
    return one * (size // len(one) + 1)


def bigparse(binary, n=64, size=30_000_000):
    srv = Server(binary)
    body = big_x12(size)
    small = big_x12(1)
    results, lock = [], threading.Lock()

    def one():
        started = time.monotonic()
        try:
            c = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=300)
            c.request("POST", "/api/v1/parse", body=body, headers=dict(AUTH, **{"Content-Type": "application/edi-x12"}))
            r = c.getresponse()
            n = len(r.read())
            status = r.status
            c.close()
        except Exception as e:  # noqa: BLE001
            status, n = type(e).__name__, 0
        with lock:
            results.append((status, time.monotonic() - started, n))

    try:
        rss0 = srv.status("VmRSS")
        threads = [threading.Thread(target=one) for _ in range(n)]
        started = time.monotonic()
        for t in threads:
            t.start()
        smalls = []
        while any(t.is_alive() for t in threads) and time.monotonic() - started < 600:
            for path, method, b, h in [("/healthz", "GET", None, None),
                                       ("/api/v1/transactions", "GET", None, None),
                                       ("/api/v1/parse", "POST", small, {"Content-Type": "application/edi-x12"})]:
                smalls.append((path,) + normal_request(srv.port, path, method, b, h, timeout=60))
            time.sleep(0.1)
        for t in threads:
            t.join()
        wall = time.monotonic() - started
        statuses = {}
        for s, _, _ in results:
            statuses[str(s)] = statuses.get(str(s), 0) + 1
        ok = [t for s, t, _ in results if s == 200]
        print("bigparse: %d concurrent POST /parse of %d bytes each (%.1f s in all)" % (n, len(body), wall))
        print("  statuses %s; the 200s took median %.1f s, max %.1f s" % (
            statuses, statistics.median(ok) if ok else 0, max(ok) if ok else 0))
        print("  server peak RSS (VmHWM) %d MiB (%d MiB before)" % (srv.status("VmHWM") // 1024, rss0 // 1024))
        for path in ["/healthz", "/api/v1/transactions", "/api/v1/parse"]:
            lat = [t for p, s, t in smalls if p == path and s == 200]
            bad = sorted({str(s) for p, s, _ in smalls if p == path and s != 200})
            if lat:
                print("  small %s meanwhile: %d answered 200, median %.0f ms, max %.0f ms%s" % (
                    path, len(lat), statistics.median(lat) * 1000, max(lat) * 1000,
                    (", other answers: " + ",".join(bad)) if bad else ""))
            else:
                print("  small %s meanwhile: none answered 200 (%s)" % (path, ",".join(bad)))
    finally:
        srv.stop()


def main():
    global DEMO
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--server", required=True, help="the x12kit-server binary")
    p.add_argument("--demo", default=DEMO, help="the demo configuration to start it with")
    p.add_argument("scenarios", nargs="*", default=["slowloris", "slowbody", "flood", "bigparse"])
    a = p.parse_args()
    DEMO = a.demo
    print("server %s, %d cores, load average %s" % (a.server, os.cpu_count(), open("/proc/loadavg").read().split()[0]))
    for s in a.scenarios:
        {"slowloris": slowloris, "slowbody": slowbody, "flood": flood, "bigparse": bigparse}[s](a.server)
        sys.stdout.flush()


if __name__ == "__main__":
    main()

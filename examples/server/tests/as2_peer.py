"""An AS2 partner no one here wrote: pyas2lib (PyPI), driven by tests/as2.rs.

serve: an HTTP receiver on 127.0.0.1 that parses the server's messages with pyas2lib
  (decrypts, verifies our signature, decompresses) and answers pyas2lib's MDN,
  synchronously or to the Receipt-Delivery-Option URL; it logs each message as a JSON
  line. --mdn-mode bad-mic answers a correctly signed MDN with a wrong MIC; negative, a
  processed/error one. --openssl-decrypt decrypts with `openssl cms` first (AES-GCM,
  which pyas2lib does not implement), then hands the rest to pyas2lib.
send: builds a message with pyas2lib, POSTs it to the server (optionally twice, or
  tampered, or encrypted with AES-GCM by `openssl cms`), verifies the server's MDN with
  pyas2lib (signature and MIC) and prints one JSON line per POST.
"""

import argparse
import base64
import http.server
import json
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

from pyas2lib import Message, Mdn, Organization, Partner


def read(path):
    with open(path, "rb") as f:
        return f.read()


def raw(headers, body):
    head = "".join(f"{k}: {v}\r\n" for k, v in headers)
    return head.encode() + b"\r\n" + body


def openssl_decrypt(der, key, cert):
    with tempfile.NamedTemporaryFile() as f:
        f.write(der)
        f.flush()
        out = subprocess.run(
            ["openssl", "cms", "-decrypt", "-binary", "-inform", "DER", "-in", f.name,
             "-inkey", key, "-recip", cert],
            capture_output=True, check=True)
    return out.stdout


def openssl_encrypt(entity, cert, cipher):
    with tempfile.NamedTemporaryFile() as f:
        f.write(entity)
        f.flush()
        out = subprocess.run(
            ["openssl", "cms", "-encrypt", "-binary", f"-{cipher}", "-outform", "DER",
             "-in", f.name, cert], capture_output=True, check=True)
    return out.stdout


def serve(a):
    org = Organization(as2_name=a.name, sign_key=read(a.key) + read(a.cert),
                       decrypt_key=read(a.key) + read(a.cert))
    partner = Partner(as2_name=a.partner_name, verify_cert=read(a.partner_cert),
                      encrypt_cert=read(a.partner_cert), validate_certs=False,
                      sign=a.require_signed, encrypt=a.require_encrypted and not a.openssl_decrypt)
    log = open(a.log, "a", buffering=1)

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            self.send_response(405)
            self.end_headers()

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("content-length", "0")))
            headers = list(self.headers.items())
            if a.openssl_decrypt:
                inner = openssl_decrypt(body, a.key, a.cert)
                head, _, rest = inner.partition(b"\r\n\r\n")
                kept = [(k, v) for k, v in headers if not k.lower().startswith("content-")]
                content = [tuple(l.split(": ", 1)) for l in head.decode().split("\r\n")]
                message_raw = raw(kept + content, rest)
            else:
                message_raw = raw(headers, body)
            message = Message()
            status, (exc, _tb), mdn = message.parse(
                message_raw, find_org_cb=lambda n: org if n == a.name else None,
                find_partner_cb=lambda n: partner if n == a.partner_name else None)
            payload = message.content if status == "processed" else b""
            if isinstance(payload, str):
                payload = payload.encode()
            log.write(json.dumps({
                "messageId": message.message_id, "status": status,
                "error": str(exc) if exc else None, "signed": message.signed,
                "digest": message.digest_alg, "encrypted": message.encrypted or a.openssl_decrypt,
                "compressed": message.compressed,
                "mic": message.mic.decode() if message.mic else None,
                "payload": base64.b64encode(payload).decode()}) + "\n")
            if mdn is not None and a.mdn_mode in ("bad-mic", "negative"):
                if a.mdn_mode == "bad-mic":
                    message.mic = base64.b64encode(b"not the digest of what was sent")
                    mdn = Mdn(mdn_mode=mdn.mdn_mode, digest_alg=mdn.digest_alg, mdn_url=mdn.mdn_url)
                    mdn.build(message=message, status="processed")
                else:
                    mdn = Mdn(mdn_mode=mdn.mdn_mode, digest_alg=mdn.digest_alg, mdn_url=mdn.mdn_url)
                    mdn.build(message=message, status="processed/Error",
                              detailed_status="unexpected-processing-error")
            if mdn is not None and mdn.mdn_mode == "ASYNC":
                self.send_response(200)
                self.end_headers()

                def later():
                    time.sleep(0.3)
                    for _ in range(20):
                        req = urllib.request.Request(mdn.mdn_url, data=mdn.content,
                                                     headers=mdn.headers, method="POST")
                        try:
                            with urllib.request.urlopen(req, timeout=30) as r:
                                log.write(json.dumps({"asyncMdn": r.status}) + "\n")
                                return
                        except Exception as e:  # pylint: disable=broad-except
                            log.write(json.dumps({"asyncMdnError": str(e)}) + "\n")
                            time.sleep(0.5)
                threading.Thread(target=later, daemon=True).start()
                return
            self.send_response(200)
            if mdn is not None:
                for k, v in mdn.headers.items():
                    self.send_header(k, v)
                content = mdn.content
            else:
                content = b""
            self.send_header("Content-Length", str(len(content)))
            self.end_headers()
            self.wfile.write(content)

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(f"listening on http://127.0.0.1:{httpd.server_address[1]}", flush=True)
    httpd.serve_forever()


def mdn_catcher():
    """An HTTP server on 127.0.0.1 that keeps the first asynchronous MDN POSTed to it."""
    got = []

    class Catch(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("content-length", "0")))
            got.append((list(self.headers.items()), body))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Catch)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{httpd.server_address[1]}/mdn", got


def send(a):
    got = None
    if a.mdn == "ASYNC":
        a.mdn_url, got = mdn_catcher()
    org = Organization(as2_name=a.name, sign_key=read(a.key) + read(a.cert),
                       decrypt_key=read(a.key) + read(a.cert), mdn_url=a.mdn_url)
    partner = Partner(
        as2_name=a.partner_name, verify_cert=read(a.partner_cert),
        encrypt_cert=read(a.partner_cert), validate_certs=False, compress=a.compress,
        sign=a.sign != "none", digest_alg=a.sign if a.sign != "none" else "sha256",
        encrypt=a.encrypt not in ("none", "aes-128-gcm", "aes-256-gcm"),
        enc_alg=a.encrypt if a.encrypt not in ("none", "aes-128-gcm", "aes-256-gcm") else "aes_256_cbc",
        mdn_mode=a.mdn, mdn_digest_alg=None if a.mdn_unsigned else "sha256")
    message = Message(sender=org, receiver=partner)
    message.build(read(a.payload), filename="po.x12", content_type="application/edi-x12",
                  message_id=a.message_id)
    headers = dict(message.headers)
    body = message.content
    if isinstance(body, str):
        body = body.encode()
    if a.encrypt in ("aes-128-gcm", "aes-256-gcm"):
        entity = raw([(k, v) for k, v in headers.items() if k.lower().startswith("content-")], body)
        body = openssl_encrypt(entity, a.partner_cert, a.encrypt)
        headers = {k: v for k, v in headers.items() if not k.lower().startswith("content-")}
        headers["Content-Type"] = 'application/pkcs7-mime; smime-type=enveloped-data; name="smime.p7m"'
        headers["Content-Transfer-Encoding"] = "binary"
    if a.tamper:
        assert a.tamper.encode() in body, "the text to tamper with is not in the body"
        body = body.replace(a.tamper.encode(), a.tamper.encode()[::-1], 1)
    if a.strip_signature_header:
        headers.pop("Disposition-Notification-Options", None)
    for _ in range(a.times):
        req = urllib.request.Request(a.url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                status_code, rh, rb = r.status, list(r.headers.items()), r.read()
        except urllib.error.HTTPError as e:
            status_code, rh, rb = e.code, list(e.headers.items()), e.read()
        if got is not None and status_code == 200:
            for _ in range(200):
                if got:
                    break
                time.sleep(0.1)
            rh, rb = got.pop(0) if got else ([], b"")
        out = {"http": status_code, "messageId": message.message_id, "mdnBody": base64.b64encode(rb).decode()}
        if rb and any(k.lower() == "content-type" and "multipart" in v for k, v in rh):
            mdn = Mdn()
            status, detail = mdn.parse(raw(rh, rb), find_message_cb=lambda mid, rcpt: message)
            out.update({"mdnStatus": status, "mdnDetail": detail, "mdnSigned": "multipart/signed" in dict((k.lower(), v) for k, v in rh).get("content-type", "")})
        else:
            out["text"] = rb.decode(errors="replace")[:500]
        print(json.dumps(out), flush=True)


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    for name in ("serve", "send"):
        s = sub.add_parser(name)
        s.add_argument("--name", required=True, help="our AS2 name")
        s.add_argument("--partner-name", required=True)
        s.add_argument("--key", required=True)
        s.add_argument("--cert", required=True)
        s.add_argument("--partner-cert", required=True)
    s = sub.choices["serve"]
    s.add_argument("--log", required=True)
    s.add_argument("--mdn-mode", default="ok", choices=["ok", "bad-mic", "negative"])
    s.add_argument("--require-signed", action="store_true")
    s.add_argument("--require-encrypted", action="store_true")
    s.add_argument("--openssl-decrypt", action="store_true")
    s = sub.choices["send"]
    s.add_argument("--url", required=True)
    s.add_argument("--payload", required=True)
    s.add_argument("--message-id")
    s.add_argument("--sign", default="sha256")
    s.add_argument("--encrypt", default="aes_256_cbc")
    s.add_argument("--compress", action="store_true")
    s.add_argument("--mdn", default="SYNC")
    s.add_argument("--mdn-url")
    s.add_argument("--mdn-unsigned", action="store_true")
    s.add_argument("--tamper")
    s.add_argument("--strip-signature-header", action="store_true")
    s.add_argument("--times", type=int, default=1)
    a = p.parse_args()
    if a.cmd == "send" and a.mdn == "none":
        a.mdn = None
    serve(a) if a.cmd == "serve" else send(a)


if __name__ == "__main__":
    sys.exit(main())

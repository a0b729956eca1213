"""A Standard Webhooks receiver for PushTests (plain HTTP/1.1), checking signatures with the stdlib.

Usage: webhook_server.py LOG SECRET. Prints "PORT <n>", logs one JSON line per request (headers,
body, whether the signature verified by the stdlib check below, and "library_valid": whether the reference
`standardwebhooks` package verified it too, null when that package is not installed), exits when stdin closes. A bad signature gets 401; otherwise
the path scripts the answer: /ok 204, /accepted 202, /gone 410, /busy 429 (Retry-After 12), /broken 500,
/slow 204 after 3 seconds, /outage/<n>/<anything> 503 to its first n requests and 204 afterwards (a backend that is
down for a while).
"""
import base64
import hashlib
import hmac
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

try:
    from standardwebhooks.webhooks import Webhook
except ImportError:
    Webhook = None

log_path, secret = sys.argv[1], sys.argv[2]
log = open(log_path, "a", buffering=1)
key = base64.b64decode(secret[len("whsec_"):])
answers = {"/slow": 204, "/ok": 204, "/accepted": 202, "/gone": 410, "/busy": 429, "/broken": 500}
outage_seen = {}
outage_lock = threading.Lock()


def answer(path):
    if path.startswith("/outage/"):
        with outage_lock:
            seen = outage_seen[path] = outage_seen.get(path, 0) + 1
        return 503 if seen <= int(path.split("/")[2]) else 204
    return answers.get(path, 404)


def signature_valid(headers, body):
    signed = f"{headers.get('webhook-id')}.{headers.get('webhook-timestamp')}.".encode() + body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    offered = [part.split(",", 1)[1] for part in headers.get("webhook-signature", "").split(" ") if part.startswith("v1,")]
    return any(hmac.compare_digest(expected, candidate) for candidate in offered)


def library_valid(headers, body):
    """The reference library's verdict (its timestamp tolerance included); None without the library."""
    if Webhook is None:
        return None
    try:
        Webhook(secret).verify(body, headers)
        return True
    except Exception:
        return False


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        headers = {k.lower(): v for k, v in self.headers.items()}
        valid = signature_valid(headers, body)
        status = answer(self.path.split("?")[0]) if valid else 401
        log.write(json.dumps({"path": self.path, "headers": headers, "body": body.decode(),
                              "signature_valid": valid, "library_valid": library_valid(headers, body),
                              "status": status}) + "\n")
        if self.path == "/slow":
            time.sleep(3)
        self.send_response(status)
        if status == 429:
            self.send_header("retry-after", "12")
        self.send_header("content-length", "0")
        self.end_headers()


def exit_when_stdin_closes():
    sys.stdin.buffer.read()
    os._exit(0)


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=exit_when_stdin_closes, daemon=True).start()
print(f"PORT {server.server_port}", flush=True)
server.serve_forever()

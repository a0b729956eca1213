"""A fake Google OAuth token endpoint and FCM v1 send API for PushTests (plain HTTP/1.1).

Usage: fcm_server.py LOG PUBLIC_KEY_PEM EXPIRES_IN. Prints "PORT <n>", logs one JSON line per
request, exits when stdin closes.

POST /token verifies the RS256 assertion with PUBLIC_KEY_PEM using the openssl CLI (independent of
the Swift signer) and its claims, then issues "tok-<n>" with expires_in EXPIRES_IN.
POST /v1/projects/<p>/messages:send needs a bearer it issued; the message token's prefix scripts the
answer: ok, unreg (404 UNREGISTERED), badtoken (400 about the registration token), badfield (400
other INVALID_ARGUMENT), quota (429, Retry-After 30), unavail (503), revoke (401 for the first
bearer it sees, which is then revoked; then ok).
"""
import base64
import json
import os
import subprocess
import sys
import tempfile
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

log_path, public_key, expires_in = sys.argv[1], sys.argv[2], int(sys.argv[3])
log = open(log_path, "a", buffering=1)
lock = threading.Lock()
issued = set()
counter = [0]


def b64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def verify_assertion(assertion, audience):
    header_b64, claims_b64, signature_b64 = assertion.split(".")
    header = json.loads(b64url(header_b64))
    claims = json.loads(b64url(claims_b64))
    with tempfile.NamedTemporaryFile(delete=False) as signature_file:
        signature_file.write(b64url(signature_b64))
    try:
        result = subprocess.run(["openssl", "dgst", "-sha256", "-verify", public_key, "-signature", signature_file.name],
                                input=f"{header_b64}.{claims_b64}".encode(), capture_output=True)
    finally:
        os.unlink(signature_file.name)
    valid = (result.returncode == 0 and header.get("alg") == "RS256" and claims.get("aud") == audience
             and claims.get("scope") == "https://www.googleapis.com/auth/firebase.messaging"
             and claims["exp"] - claims["iat"] == 3600)
    return valid, header, claims


def fcm_error(status, code, text, error_code=None):
    error = {"code": status, "message": text, "status": code}
    if error_code:
        error["details"] = [{"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": error_code}]
    return status, {"error": error}, {}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, body, headers):
        data = json.dumps(body).encode()
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        record = {"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body.decode()}
        if self.path == "/token":
            status, reply, extra = self.token(body, record)
        else:
            status, reply, extra = self.send_message(body, record)
        record["status"] = status
        log.write(json.dumps(record) + "\n")
        self.reply(status, reply, extra)

    def token(self, body, record):
        form = urllib.parse.parse_qs(body.decode())
        audience = f"http://127.0.0.1:{self.server.server_port}/token"
        if form.get("grant_type") != ["urn:ietf:params:oauth:grant-type:jwt-bearer"]:
            return 400, {"error": "unsupported_grant_type"}, {}
        valid, header, claims = verify_assertion(form["assertion"][0], audience)
        record.update({"kind": "token", "valid": valid, "jwt_header": header, "claims": claims})
        if not valid:
            return 400, {"error": "invalid_grant", "error_description": "Invalid JWT Signature."}, {}
        with lock:
            counter[0] += 1
            token = f"tok-{counter[0]}"
            issued.add(token)
        record["access_token"] = token
        return 200, {"access_token": token, "expires_in": expires_in, "token_type": "Bearer"}, {}

    def send_message(self, body, record):
        record["kind"] = "send"
        bearer = self.headers.get("authorization", "")[len("Bearer "):]
        with lock:
            known = bearer in issued
        if not known:
            return fcm_error(401, "UNAUTHENTICATED", "Request had invalid authentication credentials.")
        token = json.loads(body)["message"]["token"]
        if token.startswith("unreg"):
            return fcm_error(404, "NOT_FOUND", "Requested entity was not found.", "UNREGISTERED")
        if token.startswith("badtoken"):
            return fcm_error(400, "INVALID_ARGUMENT", "The registration token is not a valid FCM registration token",
                             "INVALID_ARGUMENT")
        if token.startswith("badfield"):
            return fcm_error(400, "INVALID_ARGUMENT", "Invalid value at 'message.data[0].value'", "INVALID_ARGUMENT")
        if token.startswith("quota"):
            status, reply, _ = fcm_error(429, "RESOURCE_EXHAUSTED", "Quota exceeded.", "QUOTA_EXCEEDED")
            return status, reply, {"retry-after": "30"}
        if token.startswith("unavail"):
            return fcm_error(503, "UNAVAILABLE", "The service is currently unavailable.", "UNAVAILABLE")
        if token.startswith("revoke"):
            with lock:
                if f"revoked:{token}" not in issued:
                    issued.discard(bearer)
                    issued.add(f"revoked:{token}")
                    return fcm_error(401, "UNAUTHENTICATED", "Request had invalid authentication credentials.")
        with lock:
            counter[0] += 1
            name = f"projects/demo/messages/{counter[0]}"
        return 200, {"name": name}, {}


def exit_when_stdin_closes():
    sys.stdin.buffer.read()
    os._exit(0)


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=exit_when_stdin_closes, daemon=True).start()
print(f"PORT {server.server_port}", flush=True)
server.serve_forever()

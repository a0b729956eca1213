"""A fake APNs provider API for PushTests: HTTP/2 over TLS (hypercorn), scripted by token prefix.

Usage: apns_server.py LOG CERT KEY. Prints "PORT <n>" once listening on 127.0.0.1, appends one JSON
line per request to LOG (path, headers, body, client connection, answer), and exits when stdin
closes (the test process ended or stopped it).

Token prefixes (tokens are hex, like real ones):
  b410 -> 410 Unregistered         b400 -> 400 BadDeviceToken     b401 -> 400 DeviceTokenNotForTopic
  c429 -> 429 TooManyRequests, Retry-After: 7                     c500 -> 500   c503 -> 503
  d400 -> 400 BadExpirationDate    e403 -> 403 ExpiredProviderToken for the first bearer seen, then 200
  f403 -> 403 ExpiredProviderToken always                         anything else -> 200 with an apns-id
"""
import asyncio
import json
import os
import socket
import sys
import threading
import uuid

from hypercorn.asyncio import serve
from hypercorn.config import Config

log_path, cert_file, key_file = sys.argv[1:4]
log = open(log_path, "a", buffering=1)
first_bearer = {}


def answer(token, headers):
    if token.startswith("b410"):
        return 410, {"reason": "Unregistered", "timestamp": 1700000000000}, {}
    if token.startswith("b400"):
        return 400, {"reason": "BadDeviceToken"}, {}
    if token.startswith("b401"):
        return 400, {"reason": "DeviceTokenNotForTopic"}, {}
    if token.startswith("c429"):
        return 429, {"reason": "TooManyRequests"}, {"retry-after": "7"}
    if token.startswith("c500"):
        return 500, {"reason": "InternalServerError"}, {}
    if token.startswith("c503"):
        return 503, {"reason": "ServiceUnavailable"}, {}
    if token.startswith("d400"):
        return 400, {"reason": "BadExpirationDate"}, {}
    bearer = headers.get("authorization", "")
    if token.startswith("e403") and first_bearer.setdefault(token, bearer) == bearer:
        return 403, {"reason": "ExpiredProviderToken"}, {}
    if token.startswith("f403"):
        return 403, {"reason": "ExpiredProviderToken"}, {}
    return 200, None, {"apns-id": str(uuid.uuid4()).upper()}


async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    headers = {k.decode(): v.decode() for k, v in scope["headers"]}
    token = scope["path"].rsplit("/", 1)[-1]
    status, reply, extra = answer(token, headers)
    client = scope.get("client") or ("?", 0)
    log.write(json.dumps({
        "method": scope["method"], "path": scope["path"], "http_version": scope["http_version"],
        "connection": f"{client[0]}:{client[1]}", "headers": headers, "body": body.decode(),
        "status": status, "apns_id": extra.get("apns-id"),
    }) + "\n")
    payload = json.dumps(reply).encode() if reply is not None else b""
    response_headers = [(k.encode(), v.encode()) for k, v in extra.items()]
    if payload:
        response_headers.append((b"content-type", b"application/json"))
    await send({"type": "http.response.start", "status": status, "headers": response_headers})
    await send({"type": "http.response.body", "body": payload})


def exit_when_stdin_closes():
    sys.stdin.buffer.read()
    os._exit(0)


def main():
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    config = Config()
    config.bind = [f"fd://{listener.fileno()}"]
    config.certfile = cert_file
    config.keyfile = key_file
    config.alpn_protocols = ["h2"]
    config.accesslog = None
    config.errorlog = None
    threading.Thread(target=exit_when_stdin_closes, daemon=True).start()
    print(f"PORT {listener.getsockname()[1]}", flush=True)
    asyncio.run(serve(app, config))


main()

#!/usr/bin/env python3
"""A short black-box check of a running gateway, over the network only: what a new user tries first.

For the first base URL: /healthz answers {"status":"ok"}, and a standalone device registers (201, a random 128-bit
deviceToken). Then, for every base URL given (nginx and each node of a cluster, or one container), /readyz answers
200 and a WebSocket on /v1/ws with that device's token gets its `welcome` and a reply to `set_presence` (one round
trip through the gateway's command path). Used by scripts/container-test and scripts/cluster --check.

Prints one line per failed check and `NAME: N passed, M failed` last; exit status 1 when any check failed.
Needs the `websockets` package (scripts/test puts .build/test-venv first on PATH).

Usage: blackbox_check.py --name container http://127.0.0.1:7420 [http://127.0.0.1:7421 …]
"""
import argparse
import asyncio
import json
import secrets
import sys
import urllib.error
import urllib.request

import websockets


def http(method, url, body=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


async def round_trip(ws_url, token):
    async with websockets.connect(ws_url, additional_headers={"Authorization": f"Bearer {token}"}, open_timeout=10) as ws:
        welcome = json.loads(await asyncio.wait_for(ws.recv(), 10))
        if welcome.get("type") != "welcome":
            return f"first frame is not welcome: {welcome}"
        await ws.send(json.dumps({"id": "c1", "type": "set_presence", "status": "online"}))
        while True:
            frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
            if frame.get("type") == "reply" and frame.get("id") == "c1":
                return None if frame.get("ok") else f"set_presence refused: {frame}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--name", default="blackbox")
    parser.add_argument("urls", nargs="+", help="base URLs, http://host:port")
    args = parser.parse_args()
    passed = failed = 0

    def check(what, problem):
        nonlocal passed, failed
        if problem:
            failed += 1
            print(f"{args.name}: FAILED: {what}: {problem}", file=sys.stderr)
        else:
            passed += 1

    first = args.urls[0].rstrip("/")
    status, body = http("GET", first + "/healthz")
    check("GET /healthz", None if (status, body) == (200, {"status": "ok"}) else f"{status} {body}")
    status, body = http("POST", first + "/v1/devices/register", {"deviceToken": secrets.token_hex(16), "platform": "ios"})
    token = body.get("token") if isinstance(body, dict) else None
    check("POST /v1/devices/register", None if status == 201 and token else f"{status} {body}")
    for base in (url.rstrip("/") for url in args.urls):
        status, body = http("GET", base + "/readyz")
        check(f"GET {base}/readyz", None if status == 200 else f"{status} {body}")
        if token:
            ws_url = "ws://" + base.split("://", 1)[1] + "/v1/ws"
            try:
                problem = asyncio.run(round_trip(ws_url, token))
            except Exception as error:  # a refused connection or a timeout is a failed check, not a crash
                problem = repr(error)
            check(f"WebSocket round trip on {ws_url}", problem)
    print(f"{args.name}: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Browser tests of /v1/client.js and the /demo page, against the real `switchboard` executable.

Starts the server (standalone mode, its own temporary database), starts headless Chromium, drives it over the
DevTools protocol (CDP, a JSON-over-WebSocket protocol: the `websockets` package is the only dependency) and checks
the DOM after each flow (and the client's own rules against a scripted fake WebSocket, scripts/web_client_checks.js):
setup, presence, messages, an approval with its live countdown answered from either device,
a session handoff, the node's live view, the client's reconnect and resume after the server is killed and restarted,
and a screenshot that is not blank. Prints one line per check and `web: N passed` (exit 0) or the failures (exit 1).

Usage: web_demo_test.py --switchboard .build/debug/switchboard [--chromium chromium] [--screenshot out.png]
"""
import argparse
import asyncio
import base64
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import zlib

import websockets

TIMEOUT = 30.0  # generous: a loaded 2-core CI machine runs Chromium next to the build


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """`switchboard serve` on a fixed port with its database in `directory` (restartable on the same data)."""

    def __init__(self, binary, directory, extra=""):
        self.binary, self.directory, self.port = binary, directory, free_port()
        self.config = os.path.join(directory, f"switchboard-{self.port}.toml")
        with open(self.config, "w") as f:
            f.write(f'[server]\nlisten = "127.0.0.1:{self.port}"\nevent_loops = 1\ndrain_timeout_ms = 0\n'
                    f'[log]\nlevel = "error"\n[storage]\npath = "{directory}/gateway.db"\n'
                    f'[gateway]\npresence_grace_ms = 300\n{extra}')
        self.process = None

    def start(self):
        self.log = open(os.path.join(self.directory, "server.log"), "ab")
        self.process = subprocess.Popen([self.binary, "serve", "--config", self.config], stdout=self.log, stderr=self.log)
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"switchboard exited with {self.process.returncode}: {self.tail()}")
            try:
                if http(self.url("/healthz"))[0] == 200:
                    return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("switchboard did not answer /healthz")

    def kill(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"

    def tail(self):
        with open(os.path.join(self.directory, "server.log"), "rb") as f:
            return f.read()[-2000:].decode(errors="replace")


class OtherOrigin:
    """A second local HTTP server, on another port and so on another origin than the gateway, serving one blank page:
    where a real web app lives, unlike /demo, which the gateway serves itself."""

    def __init__(self):
        class Page(BaseHTTPRequestHandler):
            def do_GET(self):
                body = b"<!doctype html><meta charset=utf-8><title>an app on another origin</title><body></body>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def http(url, method="GET", headers=None, body=None):
    request = urllib.request.Request(url, method=method, headers=headers or {}, data=body)
    try:
        with urllib.request.urlopen(request, timeout=10) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


class Browser:
    """Headless Chromium with one page, driven over CDP."""

    def __init__(self, chromium, directory):
        args = [chromium, "--headless=new", "--remote-debugging-port=0", f"--user-data-dir={directory}/profile",
                "--no-first-run", "--no-default-browser-check", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1400,900", "about:blank"]
        if os.geteuid() == 0:
            args.insert(1, "--no-sandbox")  # Chromium refuses to run as root with its sandbox
        self.stderr = open(os.path.join(directory, "chromium.log"), "w+b")
        self.process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=self.stderr)
        self.ids, self.waiters, self.console = 0, {}, []

    async def open(self):
        deadline = time.monotonic() + TIMEOUT
        port = None
        while port is None:
            self.stderr.seek(0)
            found = re.search(rb"DevTools listening on ws://127\.0\.0\.1:(\d+)/", self.stderr.read())
            if found:
                port = int(found.group(1))
            elif self.process.poll() is not None or time.monotonic() > deadline:
                self.stderr.seek(0)
                raise RuntimeError(f"chromium did not start: {self.stderr.read()[-1500:].decode(errors='replace')}")
            else:
                await asyncio.sleep(0.05)
        targets = json.loads(http(f"http://127.0.0.1:{port}/json/list")[2])
        page = next(t for t in targets if t["type"] == "page")
        self.socket = await websockets.connect(page["webSocketDebuggerUrl"], max_size=64 * 1024 * 1024)
        self.reader = asyncio.create_task(self.read())
        await self.call("Runtime.enable")
        await self.call("Page.enable")

    async def read(self):
        async for raw in self.socket:
            message = json.loads(raw)
            if "id" in message and message["id"] in self.waiters:
                self.waiters.pop(message["id"]).set_result(message)
            elif message.get("method") == "Runtime.consoleAPICalled":
                self.console.append(" ".join(str(a.get("value", a.get("description", ""))) for a in message["params"]["args"]))
            elif message.get("method") == "Runtime.exceptionThrown":
                self.console.append("exception: " + json.dumps(message["params"]["exceptionDetails"])[:500])

    async def call(self, method, **params):
        self.ids += 1
        future = asyncio.get_running_loop().create_future()
        self.waiters[self.ids] = future
        await self.socket.send(json.dumps({"id": self.ids, "method": method, "params": params}))
        message = await asyncio.wait_for(future, TIMEOUT)
        if "error" in message:
            raise RuntimeError(f"{method}: {message['error']}")
        return message["result"]

    async def js(self, expression):
        """Evaluates `expression` in the page (promises awaited) and returns its JSON value."""
        result = await self.call("Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails'].get('exception', {}).get('description')}")
        return result["result"].get("value")

    async def until(self, expression, what, timeout=TIMEOUT):
        """Polls a condition in the page until it is truthy (the page's state is the thing waited for)."""
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            last = await self.js(expression)
            if last:
                return last
            await asyncio.sleep(0.1)
        raise AssertionError(f"timed out waiting for {what} ({expression} = {last!r})")

    async def click(self, selector):
        await self.js(f"document.querySelector({json.dumps(selector)}).click()")

    async def text(self, selector):
        return await self.js(f"document.querySelector({json.dumps(selector)})?.textContent ?? null")

    async def close(self):
        try:
            await self.socket.close()
        except Exception:
            pass
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def png_pixels(data):
    """Decodes an 8-bit RGB/RGBA non-interlaced PNG (what Chromium's screenshots are) into (width, height, rows)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    width, height, depth, color, _, _, interlace = header
    assert depth == 8 and color in (2, 6) and interlace == 0, f"unsupported PNG {header}"
    bpp = 3 if color == 2 else 4
    raw, stride, rows, previous = zlib.decompress(idat), width * bpp, [], bytearray(width * bpp)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = previous[i]
            c = previous[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + b) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append(bytes(line))
        previous = line
    return width, height, bpp, rows


class Run:
    def __init__(self):
        self.passed, self.failed = 0, []

    async def check(self, name, body):
        started = time.monotonic()
        try:
            await body()
            self.passed += 1
            print(f"ok   {name} ({time.monotonic() - started:.1f} s)", flush=True)
        except Exception as e:  # one failed flow must not hide the others
            self.failed.append(name)
            print(f"FAIL {name}: {type(e).__name__}: {e}", flush=True)


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--switchboard", required=True)
    parser.add_argument("--chromium", default="chromium")
    parser.add_argument("--screenshot")
    args = parser.parse_args()
    chromium = shutil.which(args.chromium)
    if not chromium:
        print(f"FAIL chromium: {args.chromium} is not installed (Debian: apt-get install chromium; .ci/run installs it)")
        print("web: 0 passed, 1 failed")
        return 1
    directory = tempfile.mkdtemp(prefix="switchboard-web-")
    run = Run()
    server = Server(args.switchboard, directory).start()
    browser = Browser(chromium, directory)
    try:
        await browser.open()
        await flows(run, server, browser, args, directory)
    finally:
        await browser.close()
        server.kill()
        if run.failed:
            print(f"server log: {server.tail()}\nbrowser console: {browser.console[-20:]}")
        shutil.rmtree(directory, ignore_errors=True)
    print(f"web: {run.passed} passed, {len(run.failed)} failed")
    return 0 if not run.failed else 1


async def flows(run, server, browser, args, directory):
    b = browser

    async def client_module_is_served():
        status, headers, body = http(server.url("/v1/client.js"))
        assert status == 200, status
        assert headers["Content-Type"] == "text/javascript; charset=utf-8", headers
        assert headers["Cache-Control"] == "no-cache" and headers["Access-Control-Allow-Origin"] == "*", headers
        assert b"export class SwitchboardClient" in body
        etag = headers["ETag"]
        assert re.fullmatch(r'"[0-9a-f]{20}"', etag), etag
        status, headers, body = http(server.url("/v1/client.js"), headers={"If-None-Match": etag})
        assert status == 304 and body == b"" and headers["ETag"] == etag, (status, body)
        status, headers, body = http(server.url("/v1/client.js"), headers={"If-None-Match": '"stale"'})
        assert status == 200 and len(body) > 1000
        status, _, _ = http(server.url("/v1/client.js"), method="POST")
        assert status == 405, status
        # The TypeScript declarations beside it, with the same CORS header.
        status, headers, body = http(server.url("/v1/client.d.ts"))
        assert status == 200 and headers["Content-Type"] == "application/typescript; charset=utf-8", (status, headers)
        assert headers["Access-Control-Allow-Origin"] == "*" and b"export declare class SwitchboardClient" in body, headers

    async def demo_is_off_with_a_backend():
        other_dir = tempfile.mkdtemp(dir=directory)
        other = Server(args.switchboard, other_dir, extra='[auth]\napi_keys = ["demo-test-api-key-0123456789"]\n').start()
        try:
            assert http(other.url("/demo"))[0] == 404
            assert http(other.url("/demo/api/stats"))[0] == 404
            # auth.standalone = "auto": with API keys devices cannot register themselves either
            assert http(other.url("/v1/devices/register"), method="POST")[0] == 404
            assert http(other.url("/v1/client.js"))[0] == 200  # the client module is always served
        finally:
            other.kill()

    async def demo_sets_up_two_devices_and_a_friend():
        await b.call("Page.navigate", url=server.url("/demo"))
        await b.until("window.demo && (window.demo.ready || window.demo.error)", "the demo to start")
        assert not await b.js("window.demo.error ?? null"), await b.js("window.demo.error")
        for key in ("phone", "desktop", "friend"):
            await b.until(f"document.querySelector('[data-testid={key}-state]').textContent === 'live'", f"{key} live")
        ids = await b.js("({p: demo.ids.phone.userId, d: demo.ids.desktop.userId, f: demo.ids.friend.userId})")
        assert ids["p"] == ids["d"] != ids["f"], ids
        assert await b.js("demo.ids.phone.deviceId !== demo.ids.desktop.deviceId")

    async def friend_presence_is_live():
        await b.until("document.querySelector('[data-testid=phone-presence]')?.dataset.status === 'online'", "Bob online on the phone")
        await b.until("document.querySelector('[data-testid=friend-presence]')?.dataset.status === 'online'", "Alice online for Bob")
        await b.click("[data-testid=friend-away]")
        await b.until("document.querySelector('[data-testid=desktop-presence]').dataset.status === 'away'", "Bob away")
        await b.click("[data-testid=friend-back]")
        await b.until("document.querySelector('[data-testid=desktop-presence]').dataset.status === 'online'", "Bob back")
        await b.click("[data-testid=friend-offline]")
        await b.until("document.querySelector('[data-testid=phone-presence]').dataset.status === 'offline'", "Bob offline")
        assert await b.text("[data-testid=friend-state]") == "stopped"
        await b.click("[data-testid=friend-online]")
        await b.until("document.querySelector('[data-testid=phone-presence]').dataset.status === 'online'", "Bob online again")

    async def type_and_send(key, text):
        await b.js(f"(() => {{ const f = document.querySelector('#{key} form'); f.querySelector('input').value = {json.dumps(text)};"
                   " f.requestSubmit(); })()")

    async def messages_flow_both_ways():
        await type_and_send("friend", "hi Alice")
        for key in ("phone", "desktop", "friend"):
            await b.until(f"[...document.querySelectorAll('#{key} .msg span')].some(s => s.textContent === 'hi Alice')",
                          f"Bob's message on {key}")
        await type_and_send("phone", "hi Bob, from my phone")
        await b.until("[...document.querySelectorAll('#friend .msg span')].some(s => s.textContent === 'hi Bob, from my phone')",
                      "Alice's message at Bob")
        # The sender's other device sees it too, marked as Alice's own.
        await b.until("[...document.querySelectorAll('#desktop .msg.mine span')].some(s => s.textContent === 'hi Bob, from my phone')",
                      "Alice's message on her desktop")

    async def post_approval():
        before = await b.js("demo.phone.cards.size")
        await b.click("[data-testid=post-approval]")
        for key in ("phone", "desktop"):
            await b.until(f"document.querySelectorAll('#{key} .approval').length === {before + 1}", f"the card on {key}")
        return await b.js("document.querySelector('#phone .approval:last-child').dataset.requestId")

    async def countdown(key, request):
        text = await b.text(f"#{key} .approval[data-request-id={request}] .countdown")
        return int(text.split()[0])

    async def approval_counts_down_and_desktop_approves():
        request = await post_approval()
        first = await countdown("phone", request)
        assert 55 <= first <= 60, first
        assert await b.until(f"document.querySelector('[data-testid=stat-pending]').textContent !== '0'", "pending in the live view")
        await b.until(f"parseInt(document.querySelector('#phone .approval[data-request-id={request}] .countdown').textContent) < {first}",
                      "the countdown to tick")
        await b.click(f"#desktop .approval[data-request-id={request}] .approve")
        for key in ("phone", "desktop"):
            await b.until(f"!document.querySelector('#{key} .approval[data-request-id={request}]')", f"the card to clear on {key}")
            await b.until(f"document.getElementById('{key}').dataset.lastApproval === '{request} approved on desktop'",
                          f"the outcome on {key}")

    async def phone_denies_and_late_answer_is_typed():
        request = await post_approval()
        await b.click(f"#phone .approval[data-request-id={request}] .deny")
        await b.until(f"document.getElementById('desktop').dataset.lastApproval === '{request} denied on ios'", "denied on the desktop")
        assert await b.js(f"document.querySelectorAll('#desktop .approval[data-request-id={request}]').length") == 0
        error = await b.js(f"demo.desktop.client.approve('{request}').then(() => 'accepted', e => e.name + ' ' + e.code)")
        assert error == "ApprovalAlreadyResolvedError approval_already_resolved", error

    async def desktop_takes_the_session_over():
        await b.click("[data-testid=desktop-attach]")
        await b.until("document.querySelector('[data-testid=phone-session]')?.dataset.state === 'handed-off'", "the phone's handoff banner")
        banner = await b.text("[data-testid=phone-session]")
        assert "Continued on your Mac" in banner, banner
        await b.until("document.querySelector('[data-testid=desktop-session]')?.dataset.state === 'active'", "the desktop active")
        session = await b.js("demo.desktop.client.session(demo.sessionId)")
        assert session["activeClient"]["clientType"] == "desktop", session

    async def live_view_shows_the_node():
        await b.until("Number(document.querySelector('[data-testid=stat-connections]').textContent) >= 3", "3 connections")
        assert int(await b.text("[data-testid=stat-events]")) > 0
        float(await b.text("[data-testid=stat-rate]"))

    async def client_resumes_after_server_restart():
        # The phone goes away; Bob writes while it is gone; then the server is killed (-9) and restarted on the same
        # database. Bob queues messages while the server is down. Every message must reach the phone exactly once,
        # in order, and the phone's offsets must have no gap and no repeat.
        await b.js("demo.phone.client.close()")
        offline = ["while you were away 1", "while you were away 2", "while you were away 3"]
        for text in offline:
            await b.js(f"demo.friend.client.send(demo.ids.phone.userId, {json.dumps(text)})")
        server.kill()
        await b.until("demo.friend.client.state === 'reconnecting' && demo.desktop.client.state === 'reconnecting'", "clients noticing")
        queued = ["sent while the server was down 1", "sent while the server was down 2"]
        # (…, true): evaluate must not wait for the sends, they cannot finish before the restart.
        await b.js("(window.queued = Promise.all([" + ",".join(
            f"demo.friend.client.send(demo.ids.phone.userId, {json.dumps(t)})" for t in queued) + "]), true)")
        server.start()
        await b.js("demo.phone.client.connect()")
        await b.js("window.queued")  # the queued sends are answered after the friend's reconnect
        for key in ("phone", "desktop", "friend"):
            await b.until(f"demo.{key}.client.state === 'live'", f"{key} live again", timeout=40)
        expected = offline + queued
        await b.until(f"(t => {json.dumps(expected)}.every(x => t.includes(x)))([...document.querySelectorAll('#phone .msg span')].map(s => s.textContent))",
                      "every message on the phone")
        texts = await b.js("[...document.querySelectorAll('#phone .msg span')].map(s => s.textContent)")
        assert [t for t in texts if t in expected] == expected, texts
        for key in ("phone", "desktop"):
            ids = await b.js(f"demo.{key}.messageIds")
            assert len(ids) == len(set(ids)), f"{key} shows a message twice: {ids}"
            offsets = await b.js(f"demo.{key}.received")
            assert offsets == list(range(offsets[0], offsets[0] + len(offsets))), f"{key} offsets {offsets}"
        assert await b.js("demo.phone.messageIds.join()") == await b.js("demo.desktop.messageIds.join()")

    async def approval_after_restart_and_screenshot():
        request = await post_approval()
        await b.until(f"!!document.querySelector('#desktop .approval[data-request-id={request}]')", "a card after the restart")
        await b.until("document.querySelector('[data-testid=stat-pending]').textContent === '1'", "the node view to count it")
        shot = base64.b64decode((await b.call("Page.captureScreenshot", format="png"))["data"])
        if args.screenshot:
            with open(args.screenshot, "wb") as f:
                f.write(shot)
        width, height, bpp, rows = png_pixels(shot)
        colors, counts = set(), {}
        for row in rows[::4]:
            for x in range(0, width * bpp, bpp * 4):
                pixel = row[x:x + 3]
                colors.add(pixel)
                counts[pixel] = counts.get(pixel, 0) + 1
        share = max(counts.values()) / sum(counts.values())
        assert len(colors) > 50 and share < 0.9, f"{len(colors)} colors, the commonest covers {share:.0%}"

    async def documented_example_runs():
        # docs/CLIENTS.md's web example (the html block with the log element), as written, in a page of the gateway's origin.
        await run_documented_example()

    async def run_documented_example():
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "CLIENTS.md")) as f:
            doc = f.read()
        block = next(b for b in re.findall(r"```html\n(.*?)```", doc, re.S) if 'id="log"' in b)
        block = block.replace("https://gateway.example.com", server.url(""))
        markup, script = re.fullmatch(r"(.*?)<script type=\"module\">\n(.*)</script>\n", block, re.S).groups()
        await b.js(f"document.body.innerHTML = {json.dumps(markup)}; true")
        source = base64.b64encode(script.encode()).decode()
        await b.js(f"(import('data:text/javascript;base64,{source}'), true)")
        await b.until("/my connect code: \\d{6}/.test(document.getElementById('log').textContent)", "the example's connect code")
        assert "connection: live" in await b.text("#log"), await b.text("#log")

    async def react_native_example_runs_in_a_worker():
        # docs/CLIENTS.md's React Native example in a module worker — no document, window or localStorage, as under
        # React Native — with its imports mapped: an AsyncStorage whose calls resolve later, Platform, and the module.
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "CLIENTS.md")) as f:
            doc = f.read()
        example = next(b for b in re.findall(r"```js\n(.*?)```", doc, re.S) if "react-native-async-storage" in b)
        data = lambda source: "data:text/javascript;base64," + base64.b64encode(source.encode()).decode()
        modules = {
            "@react-native-async-storage/async-storage": data(
                "const items = new Map(); const later = () => new Promise((r) => setTimeout(r, 20));\n"
                "export default { _items: items, getItem: async (k) => { await later(); return items.has(k) ? items.get(k) : null; },\n"
                "  setItem: async (k, v) => { await later(); items.set(k, v); } };\n"),
            "react-native-get-random-values": data("export {};\n"),  # a worker has crypto.getRandomValues
            "react-native": data("export const Platform = { OS: 'ios' };\n"),
            "./switchboard/client.js": server.url("/v1/client.js"),
        }
        for specifier, url in modules.items():
            assert f"'{specifier}'" in example, specifier
            example = example.replace(f"'{specifier}'", json.dumps(url))
        example = example.replace("https://gateway.example.com", server.url(""))
        driver = """
(async () => {
  try {
    const client = await startSwitchboard((m) => postMessage({ message: m.text }));
    const code = (await client.connectCode()).code;
    const items = AsyncStorage._items;
    for (let i = 0; i < 200 && ![...items.keys()].some((k) => k.startsWith('switchboard.offset.')); i++) await new Promise((r) => setTimeout(r, 10));
    postMessage({ code, state: client.state, identity: JSON.parse(items.get('switchboard.identity')), keys: [...items.keys()],
      dom: [typeof document, typeof window, typeof localStorage] });
  } catch (e) { postMessage({ error: String(e?.stack ?? e) }); }
})();
"""
        source = json.dumps(example + driver)
        await b.js(f"""window.rn = null;
            const worker = new Worker(URL.createObjectURL(new Blob([{source}], {{type: 'text/javascript'}})), {{type: 'module'}});
            worker.onmessage = (e) => {{ if (!('message' in e.data)) window.rn = e.data; }};
            worker.onerror = (e) => {{ window.rn = {{ error: e.message || 'worker error' }}; }}; true""")
        await b.until("window.rn !== null", "the React Native example in the worker")
        result = await b.js("window.rn")
        assert "error" not in result, result
        assert re.fullmatch(r"\d{6}", result["code"]) and result["state"] == "live", result
        assert result["dom"] == ["undefined", "undefined", "undefined"], result
        identity = result["identity"]
        assert re.fullmatch(r"[0-9a-f]{32}", identity["deviceToken"]) and identity["userId"].startswith("usr_"), identity
        assert f"switchboard.offset.{identity['userId']}.{identity['deviceId']}" in result["keys"], result["keys"]

    other_origin = OtherOrigin()
    long_token = base64.urlsafe_b64encode(os.urandom(24)).decode()  # a device secret: long and random

    async def cors_answers_of_the_browser_endpoints():
        origin = {"Origin": other_origin.origin}
        for path, method in (("/v1/devices/register", "POST"), ("/v1/users/me/display-name", "PUT")):
            status, headers, _ = http(server.url(path), method="OPTIONS", headers={
                **origin, "Access-Control-Request-Method": method, "Access-Control-Request-Headers": "content-type"})
            assert status == 204, (path, status)
            assert headers["Access-Control-Allow-Origin"] == other_origin.origin and headers["Vary"] == "Origin", headers
            assert headers["Access-Control-Allow-Methods"] == f"{method}, OPTIONS", headers
            assert "Content-Type" in headers["Access-Control-Allow-Headers"] and headers["Access-Control-Max-Age"] == "600", headers
        body = json.dumps({"deviceToken": long_token, "platform": "web"}).encode()
        status, headers, _ = http(server.url("/v1/devices/register"), method="POST", body=body,
                                  headers={**origin, "Content-Type": "application/json"})
        assert status in (200, 201) and headers["Access-Control-Allow-Origin"] == other_origin.origin, (status, headers)
        status, headers, _ = http(server.url("/v1/users/me/display-name"), method="PUT", body=b"{}", headers=origin)
        assert status == 401 and headers["Access-Control-Allow-Origin"] == other_origin.origin, (status, headers)  # errors readable too
        # Never on the server API (API key), preflight or not.
        for method in ("OPTIONS", "GET"):
            status, headers, _ = http(server.url("/v1/users/u1/devices"), method=method, headers=origin)
            assert "Access-Control-Allow-Origin" not in headers, (method, status, headers)

    async def documented_example_runs_from_another_origin():
        # The same example in a page of another origin, as every real web app is: needs the gateway's CORS answers.
        await b.call("Page.navigate", url=other_origin.origin + "/")
        await b.until(f"location.origin === {json.dumps(other_origin.origin)} && document.readyState === 'complete'", "the other origin's page")
        await run_documented_example()

    async def production_refuses_other_origins_by_default():
        other_dir = tempfile.mkdtemp(dir=directory)
        production = Server(args.switchboard, other_dir,
                            extra='[auth]\nstandalone = true\napi_keys = ["cors-test-api-key-0123456789"]\n').start()
        try:
            status, headers, body = http(production.url("/v1/devices/register"), method="OPTIONS", headers={
                "Origin": other_origin.origin, "Access-Control-Request-Method": "POST"})
            assert status == 403 and b'"origin_not_allowed"' in body and "Access-Control-Allow-Origin" not in headers, (status, body)
            # The browser (still on the other origin's page) refuses the call: registerDevice cannot read the answer.
            error = await b.js(f"""fetch({json.dumps(production.url("/v1/devices/register"))}, {{method: 'POST',
                headers: {{'Content-Type': 'application/json'}}, body: JSON.stringify({{deviceToken: {json.dumps(long_token)}, platform: 'web'}})}})
                .then(() => 'no error', (e) => e.name)""")
            assert error == "TypeError", error
        finally:
            production.kill()

    await run.check("client module and its declarations served with type, ETag, 304 and CORS", client_module_is_served)
    await run.check("CORS: preflight and Allow-Origin on the browser endpoints, never on the server API", cors_answers_of_the_browser_endpoints)
    await run.check("demo off when API keys are set", demo_is_off_with_a_backend)
    await run.check("demo registers two devices of one user and a friend", demo_sets_up_two_devices_and_a_friend)
    if run.failed:
        return  # nothing below can work without the page
    # The client's own rules, against a scripted fake WebSocket, in a page of the gateway's origin.
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "web_client_checks.js")) as f:
        results = await b.js(f.read())
    for name, ok, detail in results:
        async def unit(ok=ok, detail=detail):
            assert ok, detail
        await run.check(f"client.js: {name}", unit)
    await run.check("friend presence: online, away, offline, back", friend_presence_is_live)
    await run.check("messages both ways, on both of Alice's devices", messages_flow_both_ways)
    await run.check("approval: live countdown, approved on desktop, cleared on phone", approval_counts_down_and_desktop_approves)
    await run.check("approval: denied on phone, cleared on desktop, late answer typed", phone_denies_and_late_answer_is_typed)
    await run.check("handoff: desktop attaches, phone shows it", desktop_takes_the_session_over)
    await run.check("live view of the node", live_view_shows_the_node)
    await run.check("reconnect after kill -9 and restart: no loss, no duplicates", client_resumes_after_server_restart)
    await run.check("approval after the restart; screenshot not blank", approval_after_restart_and_screenshot)
    await run.check("the example in docs/CLIENTS.md runs", documented_example_runs)
    await run.check("the React Native example in docs/CLIENTS.md runs in a worker (no DOM), with an asynchronous store", react_native_example_runs_in_a_worker)
    await run.check("the example in docs/CLIENTS.md runs from a page on another origin", documented_example_runs_from_another_origin)
    await run.check("with an app backend, other origins are refused by default", production_refuses_other_origins_by_default)
    other_origin.close()


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

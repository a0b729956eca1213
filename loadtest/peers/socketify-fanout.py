"""Publish/subscribe peer for `switchboard-load fanout` on socketify (uWebSockets), for the fan-out comparison in
docs/BENCHMARKS.md. It speaks the part of the gateway protocol that the `fanout` scenario uses, and nothing more:

- WebSocket `/v1/ws?token=…`: the token is NOT checked (the gateway verifies an HS256 JWT); every socket joins one
  topic and gets `{"type":"welcome","data":{"latestOffset":N}}`.
- HTTP `POST /v1/users/{id}/events` with `{"name":…,"payload":…}`: the offset is a counter in memory (the gateway
  appends the event to SQLite first), the event `{"type":"custom","offset":N,"ts":…,"data":{name,payload}}` is
  encoded once and published to the topic (uWS writes it to every subscriber), reply 201 `{"offset":N}`.

So the comparison is of what the fan-out costs per delivery (one encode, N socket writes) with the gateway doing
strictly more per publish (auth, a durable log, one commit). Loopback only; stops on SIGTERM/SIGINT.
Usage: python socketify-fanout.py PORT   (in a venv with `pip install socketify`)
"""
import json
import sys
import time

from socketify import App, CompressOptions, OpCode

TOPIC = "user"
state = {"offset": 0}
app = App()


def ws_open(ws):
    ws.subscribe(TOPIC)
    ws.send(json.dumps({"type": "welcome", "ts": int(time.time() * 1000),
                        "data": {"latestOffset": state["offset"]}}, separators=(",", ":")), OpCode.TEXT)


def ws_message(ws, message, opcode):
    pass  # the fan-out scenario sends no commands


async def publish(res, req):
    body = await res.get_json()
    if not isinstance(body, dict) or not isinstance(body.get("name"), str):
        res.write_status(400).end('{"error":"bad_request"}')
        return
    state["offset"] += 1
    offset = state["offset"]
    data = {"name": body["name"]}
    if "payload" in body:
        data["payload"] = body["payload"]
    event = json.dumps({"type": "custom", "offset": offset, "ts": int(time.time() * 1000), "data": data},
                       separators=(",", ":"))
    app.publish(TOPIC, event, OpCode.TEXT)
    res.write_status(201).write_header("Content-Type", "application/json").end('{"offset":%d}' % offset)


app.ws("/v1/ws", {
    "compression": CompressOptions.DISABLED,
    "max_payload_length": 1 << 20,
    "idle_timeout": 0,
    "max_backpressure": 16 << 20,
    "open": ws_open,
    "message": ws_message,
})
app.post("/v1/users/:id/events", publish)
app.get("/healthz", lambda res, req: res.end("ok"))
app.listen(int(sys.argv[1]), lambda config: None)
app.run()

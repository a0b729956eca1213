"""Echo server on picows (pip install picows), after its examples/echo_server.py.

A comparison peer for docs/BENCHMARKS.md: python3 picows-echo.py PORT  (listens on 127.0.0.1).
picows has no permessage-deflate, so it is compared without --deflate only.
"""
import asyncio
import sys

from picows import WSFrame, WSListener, WSMsgType, WSTransport, WSUpgradeRequest, ws_create_server


class EchoListener(WSListener):
    def on_ws_frame(self, transport: WSTransport, frame: WSFrame):
        if frame.msg_type == WSMsgType.CLOSE:
            transport.send_close(frame.get_close_code(), frame.get_close_message())
            transport.disconnect()
        elif frame.msg_type in (WSMsgType.TEXT, WSMsgType.BINARY, WSMsgType.CONTINUATION):
            transport.send(frame.msg_type, frame.get_payload_as_memoryview(), frame.fin)


async def main(port: int) -> None:
    def factory(request: WSUpgradeRequest):
        return EchoListener()

    server = await ws_create_server(factory, "127.0.0.1", port)
    print(f"picows echo listening on 127.0.0.1:{port}", file=sys.stderr)
    await server.serve_forever()


if __name__ == "__main__":
    try:
        import uvloop  # optional, as in picows' own benchmarks
        uvloop.install()
    except ImportError:
        pass
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 9003))

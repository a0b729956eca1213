// Echo server on Node's `ws` (Debian: apt-get install node-ws; run with NODE_PATH=/usr/share/nodejs).
// A comparison peer for docs/BENCHMARKS.md: node ws-echo.js PORT  (listens on 127.0.0.1).
// perMessageDeflate is on so --deflate runs compare like for like (ws negotiates it only when the client offers).
const { WebSocketServer } = require('ws');
const port = Number(process.argv[2] || 9002);
const wss = new WebSocketServer({ host: '127.0.0.1', port, perMessageDeflate: { threshold: 0 } });
wss.on('connection', (ws) => {
  ws.on('message', (data, isBinary) => ws.send(data, { binary: isBinary }));
});
console.error(`ws echo listening on 127.0.0.1:${port}`);

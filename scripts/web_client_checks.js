// Unit checks of /v1/client.js against a scripted fake WebSocket (no server): backoff by close code, token refresh,
// the bounded queue, in-flight commands on a drop, duplicates, acks after the handlers, typed errors, resync, every
// command method's wire type, asynchronous (React Native) stores and URLs without a page origin. Only
// standaloneIdentity talks to the page's gateway (it registers).
// scripts/web_demo_test.py evaluates this in a page of the gateway's origin; it resolves to [[name, ok, detail], …].
(async () => {
  const m = await import('/v1/client.js');
  const until = async (condition, what) => {
    for (let i = 0; i < 200; i++) { if (condition()) return; await new Promise((r) => setTimeout(r, 10)); }
    throw new Error(`timed out: ${what}`);
  };

  // A WebSocket whose server side the check scripts.
  function harness(options = {}) {
    const sockets = [];
    class FakeSocket {
      constructor(url) { this.url = url; this.sent = []; this.readyState = 0; sockets.push(this); }
      send(text) { this.sent.push(JSON.parse(text)); }
      close() { this.readyState = 3; }
      open() { this.readyState = 1; this.onopen(); }
      frame(object) { this.onmessage({ data: JSON.stringify(object) }); }
      welcome(latestOffset = 0) { this.frame({ type: 'welcome', ts: Date.now(), data: { userId: 'u', deviceId: 'd', clientType: 'web', latestOffset, serverTime: Date.now() } }); }
      drop(code) { this.readyState = 3; this.onclose({ code, reason: '' }); }
      reply(index, result, error) {
        const id = this.sent[index].id;
        this.frame(error ? { type: 'reply', id, ok: false, error } : { type: 'reply', id, ok: true, result });
      }
    }
    const tokenCalls = [];
    const client = new m.SwitchboardClient({
      url: 'http://127.0.0.1:1', WebSocket: FakeSocket, offsetStore: m.memoryOffsetStore(), backoffBaseMs: 10, backoffMaxMs: 40,
      random: () => 1, token: async (info) => { tokenCalls.push(info.refresh); return 'tok'; }, ...options,
    });
    const live = async (index, latestOffset = 0) => {
      await until(() => sockets.length > index, `socket ${index}`);
      sockets[index].open();
      sockets[index].welcome(latestOffset);
    };
    return { client, sockets, tokenCalls, live };
  }

  const checks = {
    async 'backoff is full jitter, doubling up to the cap, reset by welcome'() {
      const { client, sockets, live } = harness();
      client.connect();
      await live(0);
      const delays = [];
      for (let i = 0; i < 4; i++) {
        sockets[i].drop(1006);
        delays.push(client.reconnectDelayMs);
        await until(() => sockets.length === i + 2, 'the reconnect');
        sockets[i + 1].open();
      }
      if (delays.join() !== '10,20,40,40') throw new Error(`delays ${delays}`);
      sockets[4].welcome();
      sockets[4].drop(1001);
      if (client.reconnectDelayMs !== 10) throw new Error(`after welcome ${client.reconnectDelayMs}`);
      client.options.random = () => 0.25;
      await until(() => sockets.length === 6, 'reconnect');
      sockets[5].drop(1011);
      if (client.reconnectDelayMs !== 5) throw new Error(`jittered ${client.reconnectDelayMs}`);
      client.close();
    },
    async '1013 reconnects soon without growing the backoff'() {
      const { client, sockets, live } = harness();
      client.connect();
      await live(0);
      sockets[0].drop(1006);
      await until(() => sockets.length === 2, 'reconnect');
      sockets[1].drop(1013);
      if (client.reconnectDelayMs > 10 || client.attempt !== 1) throw new Error(`delay ${client.reconnectDelayMs} attempt ${client.attempt}`);
      client.close();
    },
    async '4003 asks the provider for a new token, then stops after repeated refusals'() {
      const { client, sockets, tokenCalls } = harness();
      let stopped = null;
      client.on('stopped', (e) => { stopped = e; });
      client.connect();
      for (let i = 0; i < 3; i++) {
        await until(() => sockets.length === i + 1, 'socket');
        sockets[i].open();
        if (sockets[i].sent[0].type !== 'auth' || sockets[i].sent[0].token !== 'tok') throw new Error('no auth first');
        sockets[i].reply(0, null, { code: 'token_invalid', message: 'expired: …' });
        sockets[i].drop(4003);
      }
      if (tokenCalls.join() !== 'false,true,true') throw new Error(`refresh flags ${tokenCalls}`);
      if (client.state !== 'stopped' || stopped?.code !== 'token_invalid') throw new Error(`state ${client.state} ${stopped?.code}`);
    },
    async 'policy refusals (1008) stop and surface; queued commands fail with stopped'() {
      const { client, sockets } = harness();
      let stopped = null;
      client.on('stopped', (e) => { stopped = e; });
      client.connect();
      const queued = client.presence().then(() => 'sent', (e) => e.code);
      await until(() => sockets.length === 1, 'socket');
      sockets[0].open();
      sockets[0].drop(1008);
      if (client.state !== 'stopped' || stopped?.code !== 'close_1008') throw new Error(`${client.state} ${stopped?.code}`);
      if (await queued !== 'stopped') throw new Error('queued command not failed');
      await new Promise((r) => setTimeout(r, 60));
      if (sockets.length !== 1) throw new Error('reconnected after 1008');
    },
    async 'a deleted account (4010) or a revoked device (4011) stops for good with its code'() {
      for (const [close, code] of [[4010, 'account_deleted'], [4011, 'device_revoked']]) {
        const { client, sockets } = harness();
        let stopped = null;
        client.on('stopped', (e) => { stopped = e; });
        client.connect();
        await until(() => sockets.length === 1, 'socket');
        sockets[0].open();
        sockets[0].welcome();
        sockets[0].drop(close);
        if (client.state !== 'stopped' || stopped?.code !== code) throw new Error(`${close}: ${client.state} ${stopped?.code}`);
        await new Promise((r) => setTimeout(r, 60));
        if (sockets.length !== 1) throw new Error(`reconnected after ${close}`);
      }
    },
    async 'deleteAccount and revokeDevice act for the token\'s own user'() {
      const store = { value: null, get() { return this.value; }, set(v) { this.value = v; } };
      const me = await m.standaloneIdentity(location.origin, store);
      const code = (promise) => promise.then(() => 'ok', (e) => e.code);
      if (await code(m.revokeDevice(location.origin, me.token, 'not-my-device')) !== 'not_found') throw new Error('a foreign id was revoked');
      const done = await m.deleteAccount(location.origin, me.token);
      if (done?.ok !== true) throw new Error(`deleteAccount answered ${JSON.stringify(done)}`);
      if (await code(m.deleteAccount(location.origin, me.token)) !== 'token_revoked') throw new Error('the token still works');
    },
    async 'commands wait in a bounded queue and go out in order after welcome'() {
      const { client, sockets, live } = harness({ maxQueue: 2 });
      client.connect();
      const a = client.send('bob', 'one', { clientMessageId: 'm1' });
      const b = client.send('bob', 'two', { clientMessageId: 'm2' });
      const c = await client.send('bob', 'three').then(() => 'sent', (e) => e.code);
      if (c !== 'queue_full') throw new Error(`third: ${c}`);
      await live(0);
      const sent = sockets[0].sent.slice(1).map((f) => `${f.type}:${f.text}`);
      if (sent.join() !== 'send_message:one,send_message:two') throw new Error(`sent ${sent}`);
      sockets[0].reply(1, { messageId: 1, sentAt: 1 });
      sockets[0].reply(2, { messageId: 2, sentAt: 2 });
      if ((await a).messageId !== 1 || (await b).messageId !== 2) throw new Error('replies');
      client.close();
    },
    async 'a drop resends retry-safe commands (same clientMessageId) and fails the others'() {
      const { client, sockets, live } = harness();
      client.connect();
      await live(0);
      const send = client.send('bob', 'hi');
      const approve = client.approve('apr_1').then(() => 'ok', (e) => e.code);
      const first = sockets[0].sent[1];
      sockets[0].drop(1006);
      if (await approve !== 'connection_lost') throw new Error('approve not failed');
      await live(1);
      const again = sockets[1].sent.find((f) => f.type === 'send_message');
      if (!again || again.clientMessageId !== first.clientMessageId) throw new Error('send not resent with its id');
      sockets[1].reply(sockets[1].sent.indexOf(again), { messageId: 9, sentAt: 1 });
      if ((await send).messageId !== 9) throw new Error('send result');
      client.close();
    },
    async 'events are handled in order, once, and acknowledged after the handler; resume sends the offset'() {
      const { client, sockets, live } = harness();
      const seen = [];
      let release;
      const gate = new Promise((r) => { release = r; });
      client.on('message', async (data, frame) => { seen.push(frame.offset); if (frame.offset === 1) await gate; });
      client.connect();
      await live(0);
      for (const offset of [1, 2, 2, 1, 3]) sockets[0].frame({ type: 'message', offset, ts: 1, data: { text: `${offset}` } });
      await new Promise((r) => setTimeout(r, 80));
      if (sockets[0].sent.some((f) => f.type === 'ack')) throw new Error('acked before the handler finished');
      release();
      await until(() => sockets[0].sent.some((f) => f.type === 'ack' && f.offset === 3), 'the ack of 3');
      if (seen.join() !== '1,2,3') throw new Error(`handled ${seen}`);
      sockets[0].drop(1006);
      await until(() => sockets.length === 2, 'reconnect');
      sockets[1].open();
      if (sockets[1].sent[0].offset !== 3) throw new Error(`resumed from ${sockets[1].sent[0].offset}`);
      client.close();
    },
    async 'approve/deny reject with typed errors'() {
      const { client, sockets, live } = harness();
      client.connect();
      await live(0);
      const late = client.approve('apr_1').catch((e) => e);
      const gone = client.deny('apr_2').catch((e) => e);
      sockets[0].reply(1, null, { code: 'approval_already_resolved', message: 'was already denied' });
      sockets[0].reply(2, null, { code: 'approval_expired', message: 'timed out' });
      const [e1, e2] = [await late, await gone];
      if (!(e1 instanceof m.ApprovalAlreadyResolvedError) || !(e1 instanceof m.SwitchboardError) || e1.code !== 'approval_already_resolved') throw new Error(`${e1}`);
      if (!(e2 instanceof m.ApprovalExpiredError) || e2.code !== 'approval_expired') throw new Error(`${e2}`);
      client.close();
    },
    async 'recovered:false raises resync; approvals count down on the server clock'() {
      const { client, sockets, live } = harness();
      let resync = null, request = null;
      client.on('resync', (d) => { resync = d; });
      client.on('approvalRequest', (a) => { request = a; });
      client.connect();
      await live(0);
      sockets[0].frame({ type: 'resume', ts: 1, data: { recovered: false, requestedOffset: 5 } });
      const now = Date.now();
      sockets[0].frame({ type: 'approval_request', offset: 1, ts: now, data: { requestId: 'apr_1', createdAt: now, expiresAt: now + 60000 } });
      await until(() => resync && request, 'resync and the request');
      const left = request.remainingMs();
      if (left > 60000 || left < 55000) throw new Error(`remaining ${left}`);
      if (Object.keys(request).includes('remainingMs')) throw new Error('remainingMs leaks into the data');
      client.close();
    },
    async 'an offset ahead of a restored server moves back to its latestOffset'() {
      const store = m.memoryOffsetStore();
      store.set(6);
      const { client, sockets, live } = harness({ offsetStore: store });
      const seen = [];
      client.on('custom', (c) => { seen.push(c.payload.n); });
      client.connect();
      await live(0, 2);
      if (sockets[0].sent[0].offset !== 6) throw new Error(`resumed from ${sockets[0].sent[0].offset}`);
      sockets[0].frame({ type: 'resume', ts: 1, data: { recovered: false, requestedOffset: 6 } });
      if (store.get() !== 2) throw new Error(`stored offset ${store.get()} after the resync`);
      // The restored log's next event has offset 3: below the old offset, yet new.
      sockets[0].frame({ type: 'custom', offset: 3, ts: 1, data: { name: 'tick', payload: { n: 7 } } });
      await until(() => seen.length === 1 && store.get() === 3, "the restored log's event");
      client.close();
    },
    async 'every command method sends its wire type (commandMethods)'() {
      const { client, sockets, live } = harness();
      client.connect();
      await live(0);
      const args = {
        sendEvent: [{ to: 'u', name: 'wave' }], createGroup: [{ name: 'Family' }], discover: [{ numbers: ['+4915112345678'] }],
        setNotificationSettings: [{ showDetails: true }], registerPush: ['apns', 'tok', { environment: 'sandbox' }],
      };
      const entries = Object.entries(m.commandMethods);
      if (entries.length < 40) throw new Error(`only ${entries.length} commands`);
      for (const [wire, method] of entries) {
        if (typeof client[method] !== 'function') throw new Error(`no method ${method} for ${wire}`);
        const before = sockets[0].sent.length;
        client[method](...(args[method] ?? ['x', 'y'])).catch(() => {});
        const frame = sockets[0].sent[before];
        if (frame?.type !== wire) throw new Error(`${method} sent ${frame?.type}, not ${wire}`);
      }
      const group = sockets[0].sent.find((f) => f.type === 'group_send_message');
      if (!group.clientMessageId) throw new Error('sendGroupMessage without a clientMessageId');
      client.close();
    },
    async 'app_state follows visibilitychange, and a hidden page says so on every new connection'() {
      const visibility = new EventTarget();
      visibility.visibilityState = 'visible';
      const { client, sockets, live } = harness({ visibility });
      client.connect();
      await live(0);
      const states = (i) => sockets[i].sent.filter((f) => f.type === 'app_state').map((f) => f.state);
      visibility.visibilityState = 'hidden';
      visibility.dispatchEvent(new Event('visibilitychange'));
      if (states(0).join() !== 'background') throw new Error(`after hiding: ${states(0)}`);
      sockets[0].drop(1006);
      await live(1);
      if (states(1).join() !== 'background') throw new Error(`reconnected while hidden: ${states(1)}`);
      visibility.visibilityState = 'visible';
      visibility.dispatchEvent(new Event('visibilitychange'));
      if (states(1).join() !== 'background,foreground') throw new Error(`after showing: ${states(1)}`);
      client.close();
    },
    async 'an asynchronous offset store (AsyncStorage): the socket waits for get(), resume uses its offset'() {
      const items = new Map([['offset', '7']]);
      let releaseGet;
      const slowGet = new Promise((r) => { releaseGet = r; });
      const writes = [];
      const asyncStorage = {  // React Native's AsyncStorage: both calls return promises
        getItem: async (key) => { await slowGet; return items.get(key) ?? null; },
        setItem: async (key, value) => { writes.push(value); items.set(key, value); },
      };
      const { client, sockets, live } = harness({ offsetStore: m.asyncStorageStore(asyncStorage, 'offset') });
      const handled = [];
      client.on('message', (d, frame) => { handled.push(frame.offset); });
      client.connect();
      await new Promise((r) => setTimeout(r, 50));
      if (sockets.length !== 0) throw new Error('connected before the stored offset was read');
      releaseGet();
      await live(0, 7);
      if (sockets[0].sent[0].type !== 'auth' || sockets[0].sent[0].offset !== 7) throw new Error(`auth ${JSON.stringify(sockets[0].sent[0])}`);
      sockets[0].frame({ type: 'resume', ts: 1, data: { recovered: true, requestedOffset: 7, firstReplayed: 8, lastReplayed: 8 } });
      sockets[0].frame({ type: 'message', offset: 7, ts: 1, data: { text: 'already handled' } });
      sockets[0].frame({ type: 'message', offset: 8, ts: 1, data: { text: 'missed' } });
      await until(() => items.get('offset') === '8', 'the handled offset written');
      if (handled.join() !== '8') throw new Error(`handled ${handled}`);
      sockets[0].drop(1006);
      await until(() => sockets.length === 2, 'reconnect');
      sockets[1].open();
      if (sockets[1].sent[0].offset !== 8) throw new Error(`resumed from ${sockets[1].sent[0].offset}`);
      client.close();
    },
    async 'a failing asynchronous store is reported and the client keeps going'() {
      const errors = [];
      const store = { get: async () => 3, set: async () => { throw new Error('disk full'); } };
      const { client, sockets, live } = harness({ offsetStore: store });
      client.on('error', (e) => errors.push(String(e?.message ?? e)));
      client.connect();
      await live(0, 3);
      if (sockets[0].sent[0].offset !== 3) throw new Error(`auth offset ${sockets[0].sent[0].offset}`);
      sockets[0].frame({ type: 'custom', offset: 4, ts: 1, data: { name: 'n' } });
      await until(() => errors.includes('disk full'), 'the reported write failure');
      await until(() => sockets[0].sent.some((f) => f.type === 'ack' && f.offset === 4), 'the ack');
      client.close();
    },
    async 'gateway URLs are read without URL or a page origin (React Native)'() {
      const { client } = harness({ url: 'https://gw.example.com:8443/app?x=1' });
      if (client.url !== 'wss://gw.example.com:8443/v1/ws') throw new Error(client.url);
      if (harness({ url: 'WS://10.0.0.2:7420' }).client.url !== 'ws://10.0.0.2:7420/v1/ws') throw new Error('ws');
      let refused = null;
      try { harness({ url: 'gw.example.com' }); } catch (e) { refused = e; }
      if (!(refused instanceof TypeError)) throw new Error(`no TypeError for a URL without a scheme: ${refused}`);
    },
    async 'standaloneIdentity keeps the device secret in an asynchronous store and stays the same user'() {
      const items = new Map();
      const storage = { getItem: async (k) => items.get(k) ?? null, setItem: async (k, v) => { items.set(k, v); } };
      const store = m.asyncStorageStore(storage, 'identity');
      const first = await m.standaloneIdentity(location.origin, store, { platform: 'web' });
      const kept = await store.get();
      if (!/^[0-9a-f]{32}$/.test(kept.deviceToken) || kept.userId !== first.userId || kept.deviceId !== first.deviceId) {
        throw new Error(`stored ${JSON.stringify(kept)}`);
      }
      const again = await m.standaloneIdentity(location.origin, store);
      if (again.userId !== first.userId || !again.token) throw new Error('another user for the same secret');
      if ((await store.get()).deviceToken !== kept.deviceToken) throw new Error('the secret changed');
    },
  };

  const results = [];
  for (const [name, check] of Object.entries(checks)) {
    try { await check(); results.push([name, true, '']); } catch (e) { results.push([name, false, String(e?.stack ?? e)]); }
  }
  return results;
})()

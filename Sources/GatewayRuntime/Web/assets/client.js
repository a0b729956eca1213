// @ts-self-types="./client.d.ts"
// Switchboard JavaScript client: one ES module, no build step, no dependencies.
// Served by the gateway at GET /v1/client.js, its TypeScript declarations at GET /v1/client.d.ts; documented in
// docs/CLIENT-JS.md (wire protocol: docs/PROTOCOL.md). Works in browsers, in React Native (its standard WebSocket,
// no DOM) and in Node >= 22 (20/21: --experimental-websocket, or a WebSocket passed as `options.WebSocket`).

/** Close codes the gateway uses (docs/PROTOCOL.md, "Close codes"). */
export const CloseCode = Object.freeze({
  normal: 1000, goingAway: 1001, protocolError: 1002, unsupportedData: 1003, abnormal: 1006, invalidPayload: 1007,
  policyViolation: 1008, messageTooBig: 1009, mandatoryExtension: 1010, internalError: 1011, serviceRestart: 1012,
  tryAgainLater: 1013, authenticationTimeout: 4001, authenticationFailed: 4003, accountDeleted: 4010, deviceRevoked: 4011,
});

/** Error codes of `reply.error.code` a client may act on (the full list is in docs/PROTOCOL.md), plus the client's own. */
export const ErrorCode = Object.freeze({
  approvalAlreadyResolved: 'approval_already_resolved', approvalExpired: 'approval_expired',
  approvalNotFound: 'approval_not_found', tokenInvalid: 'token_invalid', notAContact: 'not_a_contact',
  tokenRevoked: 'token_revoked', accountDeleted: 'account_deleted', deviceRevoked: 'device_revoked',
  // Raised by this client, never sent by the server:
  queueFull: 'queue_full', connectionLost: 'connection_lost', stopped: 'stopped', timeout: 'timeout',
});

/** A command the server answered with `ok: false`, or a client-side failure (codes in `ErrorCode`). */
export class SwitchboardError extends Error {
  constructor(code, message, command) {
    super(`${code}: ${message}`);
    this.name = 'SwitchboardError';
    /** The stable error code, e.g. `approval_already_resolved`. */
    this.code = code;
    /** The command type that failed (when known). */
    this.command = command;
  }
}
/** `approve`/`deny` lost the race: another device (or this one) answered first. */
export class ApprovalAlreadyResolvedError extends SwitchboardError {
  constructor(message, command) { super(ErrorCode.approvalAlreadyResolved, message, command); this.name = 'ApprovalAlreadyResolvedError'; }
}
/** `approve`/`deny` after the request timed out. */
export class ApprovalExpiredError extends SwitchboardError {
  constructor(message, command) { super(ErrorCode.approvalExpired, message, command); this.name = 'ApprovalExpiredError'; }
}

function errorFor(code, message, command) {
  if (code === ErrorCode.approvalAlreadyResolved) return new ApprovalAlreadyResolvedError(message, command);
  if (code === ErrorCode.approvalExpired) return new ApprovalExpiredError(message, command);
  return new SwitchboardError(code, message, command);
}

/**
 * Wire command type → the client's method for it (docs/PROTOCOL.md, "Commands"). `auth` and `ack` are sent by the
 * connection itself. A test compares this table with the protocol's, and calls each method.
 */
export const commandMethods = Object.freeze({
  send_message: 'send', history: 'history', unread_counts: 'unreadCounts', mark_read: 'markRead',
  set_presence: 'setPresence', presence: 'presence', session_attach: 'attach', session_get: 'session',
  session_list: 'sessions', approve: 'approve', deny: 'deny', approvals_pending: 'pendingApprovals',
  push_register: 'registerPush', push_unregister: 'unregisterPush', notification_settings: 'notificationSettings',
  set_notification_settings: 'setNotificationSettings', friend_request: 'friendRequest', friend_requests: 'friendRequests',
  friend_request_accept: 'acceptFriendRequest', friend_request_reject: 'rejectFriendRequest',
  friend_request_cancel: 'cancelFriendRequest', connect_code: 'connectCode', connect: 'connectWithCode',
  contacts: 'contacts', contact_pause: 'pauseContact', contact_resume: 'resumeContact', contact_remove: 'removeContact',
  block: 'block', unblock: 'unblock', blocks: 'blocks', send_event: 'sendEvent', group_create: 'createGroup',
  group_get: 'group', group_list: 'groups', group_leave: 'leaveGroup', group_remove_member: 'removeMember',
  group_send_message: 'sendGroupMessage', invite_create: 'createInvite', invite_redeem: 'redeemInvite',
  discover: 'discover', app_state: 'appState',
});

/** Offsets kept in memory: a reload starts live again (no replay). */
export function memoryOffsetStore() {
  let offset = null;
  return { get: () => offset, set: (value) => { offset = value; } };
}

/** Offsets kept in `localStorage` under `key`, so a reloaded page resumes where it stopped. */
export function localStorageOffsetStore(key) {
  return {
    get: () => { const v = globalThis.localStorage.getItem(key); return v === null ? null : Number(v); },
    set: (value) => { globalThis.localStorage.setItem(key, String(value)); },
  };
}

/** The claims of a JWT (no verification: only to name the offset key and to read `exp`). */
export function tokenClaims(token) {
  try {
    const part = token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
    return JSON.parse(atob(part + '='.repeat((4 - (part.length % 4)) % 4)));
  } catch { return {}; }
}

/**
 * A store adapter over an asynchronous key-value storage such as React Native's AsyncStorage (`getItem`/`setItem`
 * returning promises): `get()` resolves with the parsed JSON value (or null), `set(value)` writes it. Works as an
 * `offsetStore` and as the store of `standaloneIdentity`.
 */
export function asyncStorageStore(storage, key) {
  return {
    get: async () => { const v = await storage.getItem(key); return v === null || v === undefined ? null : JSON.parse(v); },
    set: (value) => storage.setItem(key, JSON.stringify(value)),
  };
}

/**
 * Standalone mode on a device that must stay the same user across launches: reads `{deviceToken, …}` from `store`
 * (`get()` may return a promise), creates a random `deviceToken` on first use, registers it, stores what the
 * registration returned beside the secret, and resolves with the registration `{userId, hexCode, deviceId, token}`.
 */
export async function standaloneIdentity(baseUrl, store, { platform = 'web' } = {}) {
  let identity = await store.get();
  if (!identity?.deviceToken) {
    identity = { deviceToken: randomSecret() };
    await store.set(identity);  // before registering: a lost secret would be a lost user
  }
  const registration = await registerDevice(baseUrl, { deviceToken: identity.deviceToken, platform });
  const { userId, hexCode, deviceId } = registration;
  await store.set({ deviceToken: identity.deviceToken, userId, hexCode, deviceId });
  return registration;
}

/** Standalone registration (POST /v1/devices/register): `{userId, hexCode, deviceId, token}`. */
export async function registerDevice(baseUrl, { deviceToken, platform = 'web' }) {
  return httpJSON(baseUrl, 'POST', '/v1/devices/register', { deviceToken, platform });
}

/** Standalone display name (PUT /v1/users/me/display-name) for the user of `token`. */
export async function setDisplayName(baseUrl, token, displayName) {
  return httpJSON(baseUrl, 'PUT', '/v1/users/me/display-name', { displayName }, token);
}

/**
 * Deletes the user of `token` (DELETE /v1/users/me) with everything of theirs; every socket of the user closes with
 * 4010 and the token is refused from then on. Resolves with `{ok: true}`.
 */
export async function deleteAccount(baseUrl, token) {
  return httpJSON(baseUrl, 'DELETE', '/v1/users/me', undefined, token);
}

/**
 * Revokes one device of the user of `token` (DELETE /v1/users/me/devices/{deviceId}), this one included: its sockets
 * close with 4011, its push tokens go and its tokens are refused from then on. Another user's device id is 404.
 */
export async function revokeDevice(baseUrl, token, deviceId) {
  return httpJSON(baseUrl, 'DELETE', `/v1/users/me/devices/${encodeURIComponent(deviceId)}`, undefined, token);
}

async function httpJSON(baseUrl, method, path, body, token) {
  const headers = body === undefined ? {} : { 'Content-Type': 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  const init = body === undefined ? { method, headers } : { method, headers, body: JSON.stringify(body) };
  const response = await fetch(httpBase(baseUrl) + path, init);
  const json = await response.json().catch(() => ({}));
  if (!response.ok) {
    const e = json.error || {};
    throw new SwitchboardError(e.code || `http_${response.status}`, e.message || response.statusText, path);
  }
  return json;
}

// `scheme://authority` of a gateway URL, by hand rather than with `URL`: React Native's `URL` implements neither the
// `protocol` setter nor `origin`, and there is no page location to default to.
function httpBase(url) {
  const text = url ?? globalThis.location?.href;
  if (text === undefined) throw new TypeError('no gateway URL: pass options.url (there is no page origin here)');
  const match = /^([a-z][a-z0-9+.-]*):\/\/([^/?#]+)/i.exec(text);
  if (!match) throw new TypeError(`not an http(s):// or ws(s):// URL: ${text}`);
  const scheme = { ws: 'http', wss: 'https' }[match[1].toLowerCase()] ?? match[1].toLowerCase();
  return `${scheme}://${match[2]}`;
}

function socketURL(url) {
  const base = httpBase(url);
  return `${base.startsWith('https:') ? 'wss' : 'ws'}${base.slice(base.indexOf(':'))}/v1/ws`;
}

// Wire type → event name: approval_request → approvalRequest.
const camel = (type) => type.replace(/_([a-z])/g, (_, c) => c.toUpperCase());

// Commands that may be sent again after a lost connection without changing their outcome.
const RETRY_SAFE = new Set(['history', 'unread_counts', 'presence', 'session_get', 'session_list', 'approvals_pending',
  'friend_requests', 'contacts', 'notification_settings', 'group_get', 'group_list', 'blocks']);

// Close codes after which reconnecting cannot help: the client must be fixed (docs/PROTOCOL.md, "Close codes").
const FATAL_CLOSE = new Set([CloseCode.protocolError, CloseCode.unsupportedData, CloseCode.invalidPayload,
  CloseCode.policyViolation, CloseCode.mandatoryExtension]);

/**
 * One device's connection to the gateway: authenticates with a token from `token()`, resumes from the last offset
 * the app handled, acknowledges events after the handlers finished, reconnects with exponential backoff and full
 * jitter, and queues commands while disconnected.
 */
export class SwitchboardClient {
  /**
   * @param {object} options
   * @param {string} [options.url] gateway base URL (http(s) or ws(s)); default: the page's origin
   * @param {(info: {refresh: boolean}) => Promise<string>|string} options.token token provider; `refresh` is true
   *   after the server rejected the previous token (get a new one, do not return a cached one)
   * @param {{get(): number|null|Promise<number|null>, set(n: number): void|Promise<void>}} [options.offsetStore]
   *   default: localStorage keyed by the token's user and device when available, else memory. `get()` may return a
   *   promise (React Native's AsyncStorage, `asyncStorageStore`): it is read once, before the first connection
   * @param {number} [options.maxQueue=100] commands kept while disconnected; beyond it commands fail with `queue_full`
   * @param {number} [options.backoffBaseMs=500] @param {number} [options.backoffMaxMs=30000]
   * @param {number} [options.commandTimeoutMs=15000] a live command without a reply fails with `timeout`
   * @param {number} [options.maxAuthFailures=3] consecutive rejected tokens before the client stops
   * @param {Function} [options.WebSocket] WebSocket constructor (default: globalThis.WebSocket)
   * @param {() => number} [options.random] for tests: the jitter source (default Math.random)
   * @param {boolean} [options.reportAppState=true] send `app_state` when the page is hidden or shown again
   *   (`visibilitychange`), so the gateway pushes what a hidden page does not acknowledge (docs/PUSH.md)
   * @param {EventTarget & {visibilityState?: string}} [options.visibility] where visibility is read (default: the
   *   page's `document`; none in React Native, where the app calls `appState()` from its AppState listener)
   */
  constructor(options) {
    if (typeof options?.token !== 'function') throw new TypeError('options.token must be a function returning a token');
    this.options = { maxQueue: 100, backoffBaseMs: 500, backoffMaxMs: 30000, commandTimeoutMs: 15000, maxAuthFailures: 3,
      random: Math.random, ...options };
    this.url = socketURL(options.url);
    this.WebSocketImpl = options.WebSocket ?? globalThis.WebSocket;
    if (!this.WebSocketImpl) throw new TypeError('no WebSocket implementation: pass options.WebSocket');
    /** `idle`, `connecting`, `live`, `reconnecting` or `stopped`. */
    this.state = 'idle';
    /** `{userId, deviceId, clientType, latestOffset, serverTime}` from the last `welcome`. */
    this.identity = null;
    this.handlers = new Map();
    this.pending = new Map();   // id → {type, frame, resolve, reject, timer}
    this.queue = [];            // commands waiting for a live connection, in order
    this.nextId = 1;
    this.attempt = 0;
    this.authFailures = 0;
    this.refreshToken = false;
    this.socket = null;
    this.generation = 0;
    this.clockSkewMs = 0;
    this.lastQueued = null;     // highest offset handed to the handler chain (duplicates below it are dropped)
    this.chain = Promise.resolve();
    this.ackTimer = null;
    this.offsetStore = options.offsetStore ?? null;
    this.storedOffset = undefined; // the store's value, read once (it may be asynchronous), then kept here
    this.appStateValue = 'foreground';
    const visibility = options.visibility ?? (typeof document !== 'undefined' ? document : null);
    if (this.options.reportAppState !== false && visibility?.addEventListener) {
      this.appStateValue = visibility.visibilityState === 'hidden' ? 'background' : 'foreground';
      visibility.addEventListener('visibilitychange', () => {
        this.appState(visibility.visibilityState === 'hidden' ? 'background' : 'foreground').catch(() => {});
      });
    }
  }

  // MARK: Events

  /**
   * Subscribes to an event: a wire event name in camelCase (`message`, `presence`, `approvalRequest`,
   * `approvalResolved`, `approvalTimeout`, `sessionHandoff`, `contactAdded`, `friendRequest`, `custom`, …), `event`
   * for every server event, or a lifecycle event (`state`, `welcome`, `resume`, `resync`, `error`, `stopped`).
   * The handler gets `(data, event)`; durable events are acknowledged once every handler (async ones awaited) returned.
   * @returns {() => void} unsubscribe
   */
  on(name, handler) {
    if (!this.handlers.has(name)) this.handlers.set(name, new Set());
    this.handlers.get(name).add(handler);
    return () => this.handlers.get(name)?.delete(handler);
  }

  emitLifecycle(name, value) {
    for (const h of this.handlers.get(name) ?? []) {
      try { h(value); } catch (e) { if (name !== 'error') this.emitLifecycle('error', e); }
    }
  }

  async dispatch(frame) {
    const name = camel(frame.type);
    const data = frame.data ?? {};
    if (name.startsWith('approval')) this.decorateApproval(data);
    for (const h of [...(this.handlers.get(name) ?? []), ...(this.handlers.get('event') ?? [])]) {
      try { await h(data, frame); } catch (e) { this.emitLifecycle('error', e); }
    }
  }

  /** Adds `remainingMs()` (time left until `expiresAt`, on the server's clock) to approval data. */
  decorateApproval(data) {
    if (typeof data.expiresAt !== 'number') return;
    Object.defineProperty(data, 'remainingMs', { enumerable: false, value: () => this.remainingMs(data) });
  }

  /** Milliseconds until `approval.expiresAt`, corrected for the difference between this clock and the server's. */
  remainingMs(approval) {
    const left = approval.expiresAt - (Date.now() + this.clockSkewMs);
    // The skew estimate includes network delay: never show more than the request's whole lifetime.
    const lifetime = typeof approval.createdAt === 'number' ? approval.expiresAt - approval.createdAt : left;
    return Math.max(0, Math.min(left, lifetime));
  }

  // MARK: Connection

  /** Connects, and keeps reconnecting until `close()` (or a refusal that reconnecting cannot fix: `stopped`). */
  connect() {
    if (this.state === 'stopped' || this.state === 'idle') {
      this.stopReason = null;
      this.open();
    }
  }

  /** Closes for good: pending and queued commands fail with `stopped`. */
  close() {
    this.stop(null);
  }

  setState(state) {
    if (this.state === state) return;
    this.state = state;
    this.emitLifecycle('state', state);
  }

  async open() {
    const generation = ++this.generation;
    this.setState(this.attempt === 0 && !this.identity ? 'connecting' : 'reconnecting');
    let token;
    try {
      token = await this.options.token({ refresh: this.refreshToken });
    } catch (e) {
      return this.stop(new SwitchboardError(ErrorCode.tokenInvalid, `the token provider failed: ${e?.message ?? e}`));
    }
    if (generation !== this.generation || this.state === 'stopped') return;
    this.refreshToken = false;
    if (!this.offsetStore) {
      const claims = tokenClaims(token);
      this.offsetStore = globalThis.localStorage && claims.sub
        ? localStorageOffsetStore(`switchboard.offset.${claims.sub}.${claims.device_id ?? ''}`)
        : memoryOffsetStore();
    }
    if (this.storedOffset === undefined) {
      let stored;
      try { stored = await this.offsetStore.get(); } catch (e) { this.emitLifecycle('error', e); stored = null; }
      if (generation !== this.generation || this.state === 'stopped') return;
      this.storedOffset = typeof stored === 'number' ? stored : null;
    }
    let socket;
    try {
      socket = new this.WebSocketImpl(this.url);
    } catch (e) {
      this.emitLifecycle('error', e);
      return this.scheduleReconnect(CloseCode.abnormal);
    }
    this.socket = socket;
    socket.onopen = () => {
      const offset = this.storedOffset;
      const auth = { id: `auth${this.nextId++}`, type: 'auth', token };
      if (offset !== null) auth.offset = offset;
      this.authId = auth.id;
      socket.send(JSON.stringify(auth));
    };
    socket.onmessage = (message) => {
      if (generation === this.generation) this.receive(message.data);
    };
    socket.onclose = (event) => {
      if (generation !== this.generation) return;
      this.socket = null;
      this.lostConnection();
      if (this.state !== 'stopped') this.scheduleReconnect(event.code, event.reason);
    };
    socket.onerror = () => {}; // every error is followed by close, which decides
  }

  /** Backoff by close code (docs/CLIENT-JS.md, "Reconnecting"). */
  scheduleReconnect(code, reason) {
    // The user was deleted or this device revoked: its token is refused from now on, so the client stops for good.
    if (code === CloseCode.accountDeleted || code === CloseCode.deviceRevoked) {
      const what = code === CloseCode.accountDeleted ? ErrorCode.accountDeleted : ErrorCode.deviceRevoked;
      return this.stop(new SwitchboardError(what, `the server closed this client for good (${code}: ${what})`));
    }
    if (FATAL_CLOSE.has(code)) {
      return this.stop(new SwitchboardError(`close_${code}`, `the server refused this client (${code}${reason ? `: ${reason}` : ''}); reconnecting would not help`));
    }
    if (code === CloseCode.authenticationFailed || code === CloseCode.authenticationTimeout) {
      this.authFailures += 1;
      this.refreshToken = true;
      if (this.authFailures >= this.options.maxAuthFailures) {
        return this.stop(new SwitchboardError(ErrorCode.tokenInvalid, `the server rejected ${this.authFailures} tokens in a row`));
      }
    }
    this.setState('reconnecting');
    const { backoffBaseMs: base, backoffMaxMs: max } = this.options;
    let delay;
    if (code === CloseCode.tryAgainLater) {
      // Slow consumer: come back soon (a short jittered pause, not the growing backoff).
      delay = this.options.random() * base;
    } else {
      // Full jitter: uniform in [0, min(max, base·2^attempt)].
      delay = this.options.random() * Math.min(max, base * 2 ** this.attempt);
      this.attempt += 1;
    }
    this.reconnectDelayMs = delay;
    this.reconnectTimer = setTimeout(() => { this.reconnectTimer = null; if (this.state !== 'stopped') this.open(); }, delay);
  }

  stop(error) {
    this.generation += 1;
    if (this.reconnectTimer) { clearTimeout(this.reconnectTimer); this.reconnectTimer = null; }
    const socket = this.socket;
    this.socket = null;
    if (socket && socket.readyState <= 1) socket.close(1000);
    const failure = new SwitchboardError(ErrorCode.stopped, error ? error.message : 'the client was closed');
    for (const [, p] of this.pending) { clearTimeout(p.timer); p.reject(failure); }
    this.pending.clear();
    for (const q of this.queue.splice(0)) q.reject(failure);
    this.setState('stopped');
    if (error) { this.stopReason = error; this.emitLifecycle('stopped', error); }
  }

  /** In-flight commands: retry-safe ones go back to the front of the queue, the others fail with `connection_lost`. */
  lostConnection() {
    const retry = [];
    for (const [, p] of this.pending) {
      clearTimeout(p.timer);
      // An ack is never repeated: the resume offset already tells the server where this device is.
      if (p.type !== 'ack' && (RETRY_SAFE.has(p.type) || p.frame.clientMessageId !== undefined)) retry.push(p);
      else p.reject(new SwitchboardError(ErrorCode.connectionLost, 'the connection dropped before the reply; the outcome is unknown', p.type));
    }
    this.pending.clear();
    this.queue.unshift(...retry);
  }

  receive(text) {
    let frame;
    try { frame = JSON.parse(text); } catch { return; }
    if (frame.type === 'reply') return this.reply(frame);
    if (frame.type === 'welcome') {
      this.identity = frame.data;
      this.clockSkewMs = frame.data.serverTime - Date.now();
      // No stored offset: the device starts at the live end; remember it so a reconnect replays what it missed.
      if (this.storedOffset === null) this.storeOffset(frame.data.latestOffset);
      if (this.lastQueued === null) this.lastQueued = this.storedOffset;
      this.attempt = 0;
      this.authFailures = 0;
      this.setState('live');
      this.emitLifecycle('welcome', frame.data);
      // A new connection starts in foreground on the gateway: say so when the page is hidden.
      if (this.appStateValue === 'background') this.command('app_state', { state: 'background' }, { queue: false }).catch(() => {});
      this.flushQueue();
      return;
    }
    if (frame.type === 'resume') {
      this.emitLifecycle('resume', frame.data);
      if (frame.data.recovered === false) {
        // Events after our offset are gone: the app must refetch its state; continue from the live end.
        this.lastQueued = null;
        // Ahead of the server's log (a reset server): the live end is the only valid resume point now.
        if (frame.data.requestedOffset > this.identity.latestOffset) this.storeOffset(this.identity.latestOffset);
        this.chain = this.chain.then(() => this.emitLifecycle('resync', frame.data));
      }
      return;
    }
    const offset = frame.offset;
    if (typeof offset === 'number') {
      if (this.lastQueued !== null && offset <= this.lastQueued) return; // already handled or queued: a duplicate
      this.lastQueued = offset;
    }
    this.chain = this.chain.then(async () => {
      await this.dispatch(frame);
      if (typeof offset === 'number') this.handled(offset);
    });
  }

  /** The app handled `offset`: remember it and acknowledge (coalesced, at most one ack per 50 ms). */
  handled(offset) {
    this.storeOffset(offset);
    this.ackOffset = offset;
    if (this.ackTimer) return;
    this.ackTimer = setTimeout(() => {
      this.ackTimer = null;
      if (this.state === 'live') this.command('ack', { offset: this.ackOffset }, { queue: false }).catch(() => {});
    }, 50);
  }

  /** Keeps `offset` as the resume point and writes it to the store (an asynchronous store's failure is reported as
   * `error`; the next handled event writes again). */
  storeOffset(offset) {
    this.storedOffset = offset;
    try {
      const written = this.offsetStore.set(offset);
      if (written && typeof written.then === 'function') written.then(undefined, (e) => this.emitLifecycle('error', e));
    } catch (e) { this.emitLifecycle('error', e); }
  }

  reply(frame) {
    if (frame.id === this.authId) {
      if (!frame.ok) {
        this.emitLifecycle('error', errorFor(frame.error.code, frame.error.message, 'auth'));
      }
      return; // success: `welcome` follows; failure: close 4003 follows
    }
    const p = this.pending.get(frame.id);
    if (!p) return;
    this.pending.delete(frame.id);
    clearTimeout(p.timer);
    if (frame.ok) p.resolve(frame.result);
    else p.reject(errorFor(frame.error.code, frame.error.message, p.type));
  }

  // MARK: Commands

  /**
   * Sends any command (`type` and its fields as in docs/PROTOCOL.md); resolves with `result`, rejects with a
   * `SwitchboardError`. While disconnected it waits in a bounded queue and is sent, in order, after the next `welcome`.
   */
  command(type, fields = {}, { queue = true } = {}) {
    return new Promise((resolve, reject) => {
      const entry = { type, frame: { ...fields, type }, resolve, reject };
      if (this.state === 'stopped') return reject(new SwitchboardError(ErrorCode.stopped, 'the client is stopped', type));
      if (this.state === 'live' && this.queue.length === 0) return this.transmit(entry);
      if (!queue) return reject(new SwitchboardError(ErrorCode.connectionLost, 'not connected', type));
      if (this.queue.length >= this.options.maxQueue) {
        return reject(new SwitchboardError(ErrorCode.queueFull, `${this.options.maxQueue} commands are already waiting for a connection`, type));
      }
      this.queue.push(entry);
    });
  }

  transmit(entry) {
    const id = `c${this.nextId++}`;
    this.pending.set(id, entry);
    entry.timer = setTimeout(() => {
      if (this.pending.delete(id)) entry.reject(new SwitchboardError(ErrorCode.timeout, `no reply within ${this.options.commandTimeoutMs} ms`, entry.type));
    }, this.options.commandTimeoutMs);
    this.socket.send(JSON.stringify({ ...entry.frame, id }));
  }

  flushQueue() {
    while (this.state === 'live' && this.socket && this.queue.length > 0) this.transmit(this.queue.shift());
  }

  /** A direct message to a contact; retried sends keep the same `clientMessageId`, so nothing is sent twice. */
  send(to, text, { clientMessageId = randomId() } = {}) { return this.command('send_message', { to, text, clientMessageId }); }
  /** `{messages, hasMore}`, newest first. */
  history(withUser, { before, limit } = {}) { return this.command('history', strip({ with: withUser, before, limit })); }
  unreadCounts() { return this.command('unread_counts'); }
  markRead(withUser, upTo) { return this.command('mark_read', { with: withUser, upTo }); }
  /** `online` or `away`. */
  setPresence(status) { return this.command('set_presence', { status }); }
  /**
   * Tells the gateway whether the app is in `foreground` or `background`: in background its pushable events are pushed
   * at once (and its presence is `away`). Sent by the client itself on `visibilitychange`; React Native apps call it
   * from their AppState listener. Kept for reconnects; not queued while disconnected (the next connection says it).
   */
  appState(state) {
    this.appStateValue = state;
    if (this.state !== 'live') return Promise.resolve({});
    return this.command('app_state', { state }, { queue: false });
  }
  /** `{contacts: [{userId, status, lastSeenAt}]}` */
  presence() { return this.command('presence'); }
  /** Makes this device the session's active client (the previous one gets `sessionHandoff`). */
  attach(sessionId) { return this.command('session_attach', { sessionId }); }
  session(sessionId) { return this.command('session_get', { sessionId }); }
  sessions() { return this.command('session_list'); }
  /** Rejects with `ApprovalAlreadyResolvedError` or `ApprovalExpiredError` when too late. */
  approve(requestId, { reason } = {}) { return this.command('approve', strip({ requestId, reason })); }
  deny(requestId, { reason } = {}) { return this.command('deny', strip({ requestId, reason })); }
  /** `{approvals, badge}`; each approval has `remainingMs()` like those of `approvalRequest`. */
  async pendingApprovals() {
    const result = await this.command('approvals_pending');
    for (const approval of result.approvals) this.decorateApproval(approval);
    return result;
  }
  friendRequest(hexCode) { return this.command('friend_request', { hexCode }); }
  friendRequests() { return this.command('friend_requests'); }
  acceptFriendRequest(requestId) { return this.command('friend_request_accept', { requestId }); }
  rejectFriendRequest(requestId) { return this.command('friend_request_reject', { requestId }); }
  cancelFriendRequest(requestId) { return this.command('friend_request_cancel', { requestId }); }
  /** `{code, createdAt, expiresAt?}`; `regenerate: true` replaces the code. */
  connectCode({ regenerate } = {}) { return this.command('connect_code', strip({ regenerate })); }
  /** Becomes contacts with the owner of a 6-digit code; resolves with their user ref. */
  connectWithCode(code) { return this.command('connect', { code }); }
  contacts() { return this.command('contacts'); }
  pauseContact(userId) { return this.command('contact_pause', { userId }); }
  resumeContact(userId) { return this.command('contact_resume', { userId }); }
  removeContact(userId) { return this.command('contact_remove', { userId }); }
  /** An app-defined event to a contact (`to`) or a group (`groupId`). */
  sendEvent({ to, groupId, name, payload }) { return this.command('send_event', strip({ to, groupId, name, payload })); }
  /** Blocks a user (ends the contact, keeps them apart; they are not told): `{user, blockedAt}`. */
  block(userId) { return this.command('block', { userId }); }
  unblock(userId) { return this.command('unblock', { userId }); }
  /** `{blocks: [{user, blockedAt}]}`, oldest first. */
  blocks() { return this.command('blocks'); }
  /** A group owned by this user: `{name, kind?, maxMembers?, invitePolicy?: 'members'|'owner', roleLimits?}`. */
  createGroup({ name, kind, maxMembers, invitePolicy, roleLimits }) {
    return this.command('group_create', strip({ name, kind, maxMembers, invitePolicy, roleLimits }));
  }
  group(groupId) { return this.command('group_get', { groupId }); }
  /** `{groups: [group…]}` */
  groups() { return this.command('group_list'); }
  leaveGroup(groupId) { return this.command('group_leave', { groupId }); }
  /** Owner only; resolves with the group afterwards. */
  removeMember(groupId, userId) { return this.command('group_remove_member', { groupId, userId }); }
  /** `{sentAt}`; idempotent by `clientMessageId` like `send`. */
  sendGroupMessage(groupId, text, { clientMessageId = randomId() } = {}) {
    return this.command('group_send_message', { groupId, text, clientMessageId });
  }
  /** An invite (a code; with `phone` or `email` the backend's webhook sends it). */
  createInvite(groupId, { phone, email, role, expiresInHours } = {}) {
    return this.command('invite_create', strip({ groupId, phone, email, role, expiresInHours }));
  }
  /** Joins the invite's group; resolves with the group. */
  redeemInvite(code) { return this.command('invite_redeem', { code }); }
  /** `{entries: [{input, status, e164?, user?}]}` for E.164 `numbers` and/or SHA-256 hex `hashes`. */
  discover({ numbers, hashes } = {}) { return this.command('discover', strip({ numbers, hashes })); }
  /** `kind`: `apns`, `fcm`, `webhook`, `liveActivityStart`, `liveActivityUpdate` (with `sessionId`). */
  registerPush(kind, token, { environment, sessionId } = {}) {
    return this.command('push_register', strip({ kind, token, environment, sessionId }));
  }
  unregisterPush(kind, { sessionId } = {}) { return this.command('push_unregister', strip({ kind, sessionId })); }
  /** `{liveActivities, backgroundNotifications, timeSensitive, showDetails, presenceUpdates, contactUpdates}` */
  notificationSettings() { return this.command('notification_settings'); }
  /** Changes the given settings; resolves with all of them. */
  setNotificationSettings(settings) { return this.command('set_notification_settings', strip({ ...settings })); }
}

function strip(fields) {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
}

function randomId() {
  if (globalThis.crypto?.randomUUID) return globalThis.crypto.randomUUID();
  return `m-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}

// A device secret of 128 random bits (React Native without a crypto polyfill has no `crypto`: it must bring one,
// since Math.random is not a source of secrets).
function randomSecret() {
  const c = globalThis.crypto;
  if (c?.getRandomValues) return Array.from(c.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
  if (c?.randomUUID) return c.randomUUID().replace(/-/g, '');
  throw new TypeError('no crypto.getRandomValues: install a polyfill (react-native-get-random-values) for device secrets');
}

// TypeScript declarations of the Switchboard JavaScript client, served beside it at GET /v1/client.d.ts.
// Field names are the wire names of docs/PROTOCOL.md; docs/CLIENT-JS.md describes every option, event and call.
//   import { SwitchboardClient } from 'https://gateway.example.com/v1/client.js';
// and, for the compiler, declare the URL as a module whose types are this file (docs/CLIENT-JS.md, "TypeScript").

export declare const CloseCode: Readonly<{
  normal: 1000; goingAway: 1001; protocolError: 1002; unsupportedData: 1003; abnormal: 1006; invalidPayload: 1007;
  policyViolation: 1008; messageTooBig: 1009; mandatoryExtension: 1010; internalError: 1011; serviceRestart: 1012;
  tryAgainLater: 1013; authenticationTimeout: 4001; authenticationFailed: 4003; accountDeleted: 4010; deviceRevoked: 4011;
}>;

export declare const ErrorCode: Readonly<{
  approvalAlreadyResolved: 'approval_already_resolved'; approvalExpired: 'approval_expired';
  approvalNotFound: 'approval_not_found'; tokenInvalid: 'token_invalid'; notAContact: 'not_a_contact';
  tokenRevoked: 'token_revoked'; accountDeleted: 'account_deleted'; deviceRevoked: 'device_revoked';
  queueFull: 'queue_full'; connectionLost: 'connection_lost'; stopped: 'stopped'; timeout: 'timeout';
}>;

/** Wire command type → the `SwitchboardClient` method that sends it. */
export declare const commandMethods: Readonly<Record<string, keyof SwitchboardClient>>;

export declare class SwitchboardError extends Error {
  constructor(code: string, message: string, command?: string);
  /** The stable wire code (docs/PROTOCOL.md, "Error codes") or one of the client's own (`ErrorCode`). */
  readonly code: string;
  /** The command type that failed, when known. */
  readonly command?: string;
}
export declare class ApprovalAlreadyResolvedError extends SwitchboardError {}
export declare class ApprovalExpiredError extends SwitchboardError {}

// MARK: Data shapes

export interface UserRef { userId: string; hexCode: string; displayName?: string; name: string }
export interface DeviceRef { deviceId: string; clientType: ClientType }
export type ClientType = 'ios' | 'android' | 'desktop' | 'web';
export interface Welcome { userId: string; deviceId: string; clientType: ClientType; latestOffset: number; serverTime: number }
export interface Resume { recovered: boolean; requestedOffset: number; firstReplayed?: number; lastReplayed?: number }
export interface Message { messageId: number; from: string; to: string; text: string; sentAt: number; fromDisplayName?: string }
export type PresenceStatus = 'online' | 'away' | 'offline';
export interface Presence { userId: string; status: PresenceStatus; lastSeenAt?: number }
export interface Session {
  sessionId: string; title?: string; state: 'active' | 'ended'; createdAt: number;
  activeClient?: { clientType: ClientType; deviceId: string; lastActivityAt: number };
}
export interface SessionEvent { sessionId: string; kind: string; payload?: unknown }
export interface SessionHandoff { sessionId: string; handedOffTo: DeviceRef; previous: DeviceRef }
export interface Approval {
  requestId: string; sessionId: string; toolName: string; summary: string; details?: unknown;
  state: 'pending' | 'approved' | 'denied' | 'timed_out'; createdAt: number; expiresAt: number;
  decidedBy?: DeviceRef; resolvedAt?: number;
  /** Milliseconds left until `expiresAt` on the server's clock (added by the client; not enumerable). */
  remainingMs(): number;
}
export interface FriendRequest {
  requestId: string; from: UserRef; to: UserRef; state: 'pending' | 'accepted' | 'rejected' | 'cancelled';
  createdAt: number; resolvedAt?: number;
}
export interface ConnectCode { code: string; createdAt: number; expiresAt?: number }
export interface ContactState { user: UserRef; createdAt: number; paused: boolean; pausedByMe: boolean; pausedByThem: boolean }
export interface ContactPause { user: UserRef; by: string; paused: boolean; at: number }
export interface ContactEvent { from: UserRef; name: string; payload?: unknown; sentAt: number }
export interface Block { user: UserRef; blockedAt: number }
export interface GroupMember { user: UserRef; role: string; joinedAt: number }
export interface Group {
  groupId: string; name: string; kind: string; owner: UserRef; maxMembers: number; invitePolicy: 'members' | 'owner';
  roleLimits: Record<string, number>; members: GroupMember[]; createdAt: number;
}
export interface GroupMembership { groupId: string; groupName: string; member: GroupMember; reason: 'created' | 'invite' | 'backend' | 'left' | 'removed' }
export interface GroupMessage { groupId: string; from: UserRef; text: string; sentAt: number; clientMessageId?: string }
export interface GroupEvent { groupId: string; from?: UserRef; name: string; payload?: unknown; sentAt: number }
export interface Invite {
  code: string; groupId: string; groupName: string; inviter: UserRef; recipient?: string; role: string;
  state: 'pending' | 'used' | 'revoked'; createdAt: number; expiresAt: number;
}
export interface DiscoveryEntry { input: string; status: 'contact' | 'user' | 'invite' | 'self' | 'invalid'; e164?: string; user?: UserRef }
export interface NotificationSettings {
  liveActivities: boolean; backgroundNotifications: boolean; timeSensitive: boolean; showDetails: boolean;
  presenceUpdates: boolean; contactUpdates: boolean;
}
export type PushKind = 'apns' | 'fcm' | 'webhook' | 'liveActivityStart' | 'liveActivityUpdate';
export interface Registration { userId: string; hexCode: string; deviceId: string; token: string }
/** The whole event frame, the handler's second argument. */
export interface EventFrame<T = unknown> { type: string; offset?: number; ts: number; data: T }

/** Every durable or live server event by its `on()` name (the wire type in camelCase), with its data. `welcome` and
 * `resume` are in `LifecycleMap`: their handlers get the data alone. */
export interface EventMap {
  presence: Presence;
  message: Message;
  contactAdded: { userId: string; hexCode: string; displayName?: string; name?: string };
  contactRemoved: { userId: string };
  contactPaused: ContactPause;
  contactResumed: ContactPause;
  contactEvent: ContactEvent;
  sessionCreated: Session;
  sessionEvent: SessionEvent;
  sessionEnded: Session;
  sessionHandoff: SessionHandoff;
  approvalRequest: Approval;
  approvalResolved: Approval;
  approvalTimeout: Approval;
  custom: { name: string; payload?: unknown };
  friendRequest: FriendRequest;
  friendRequestAccepted: FriendRequest;
  friendRequestRejected: FriendRequest;
  friendRequestCancelled: FriendRequest;
  connectCodeChanged: ConnectCode;
  userBlocked: Block;
  userUnblocked: Block;
  groupCreated: Group;
  groupMemberJoined: GroupMembership;
  groupMemberLeft: GroupMembership;
  groupMessage: GroupMessage;
  groupEvent: GroupEvent;
  inviteCreated: Invite;
}

/** The connection's events (one argument): the server's `welcome` and `resume`, and the client's own. */
export interface LifecycleMap {
  welcome: Welcome;
  resume: Resume;
  state: ClientState;
  resync: Resume;
  error: unknown;
  stopped: SwitchboardError;
}
export type ClientState = 'idle' | 'connecting' | 'live' | 'reconnecting' | 'stopped';

/** Where the last handled offset (or an identity) lives; `get()` may return a promise (AsyncStorage). */
export interface Store<T> { get(): T | null | Promise<T | null>; set(value: T): void | Promise<void> }
export interface StandaloneIdentity { deviceToken: string; userId?: string; hexCode?: string; deviceId?: string }
/** React Native's AsyncStorage, or anything with the same two calls. */
export interface AsyncKeyValueStorage { getItem(key: string): Promise<string | null>; setItem(key: string, value: string): Promise<void> }

export interface ClientOptions {
  /** Provides a JWT; `refresh` is true after the server rejected the last one. */
  token(info: { refresh: boolean }): string | Promise<string>;
  /** The gateway's base URL, http(s) or ws(s); default the page's origin (required where there is none). */
  url?: string;
  offsetStore?: Store<number>;
  maxQueue?: number;
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  commandTimeoutMs?: number;
  maxAuthFailures?: number;
  /** The WebSocket constructor (default `globalThis.WebSocket`: browsers, React Native, Node ≥ 22). */
  WebSocket?: new (url: string) => WebSocket;
  random?: () => number;
  /** Send `app_state` on `visibilitychange` (default true). */
  reportAppState?: boolean;
  /** Where visibility is read (default: `document` when there is one). */
  visibility?: EventTarget & { visibilityState?: string };
}

export declare class SwitchboardClient {
  constructor(options: ClientOptions);
  readonly state: ClientState;
  /** The last `welcome`. */
  readonly identity: Welcome | null;
  /** The error that stopped the client. */
  readonly stopReason?: SwitchboardError | null;
  on<K extends keyof EventMap>(name: K, handler: (data: EventMap[K], frame: EventFrame<EventMap[K]>) => void | Promise<void>): () => void;
  on<K extends keyof LifecycleMap>(name: K, handler: (value: LifecycleMap[K]) => void): () => void;
  on(name: 'event', handler: (data: unknown, frame: EventFrame) => void | Promise<void>): () => void;
  connect(): void;
  close(): void;
  remainingMs(approval: Pick<Approval, 'expiresAt' | 'createdAt'>): number;
  command(type: string, fields?: Record<string, unknown>, options?: { queue?: boolean }): Promise<any>;
  send(to: string, text: string, options?: { clientMessageId?: string }): Promise<{ messageId: number; sentAt: number }>;
  history(withUser: string, options?: { before?: number; limit?: number }): Promise<{ messages: Message[]; hasMore: boolean }>;
  unreadCounts(): Promise<{ counts: Record<string, number> }>;
  markRead(withUser: string, upTo: number): Promise<{}>;
  setPresence(status: 'online' | 'away'): Promise<Presence>;
  /** `foreground` or `background`; sent by the client itself on `visibilitychange` in a browser. */
  appState(state: 'foreground' | 'background'): Promise<{}>;
  presence(): Promise<{ contacts: Presence[] }>;
  attach(sessionId: string): Promise<Session>;
  session(sessionId: string): Promise<Session>;
  sessions(): Promise<{ sessions: Session[] }>;
  approve(requestId: string, options?: { reason?: string }): Promise<Approval>;
  deny(requestId: string, options?: { reason?: string }): Promise<Approval>;
  pendingApprovals(): Promise<{ approvals: Approval[]; badge: number }>;
  friendRequest(hexCode: string): Promise<FriendRequest>;
  friendRequests(): Promise<{ incoming: FriendRequest[]; outgoing: FriendRequest[] }>;
  acceptFriendRequest(requestId: string): Promise<FriendRequest>;
  rejectFriendRequest(requestId: string): Promise<FriendRequest>;
  cancelFriendRequest(requestId: string): Promise<FriendRequest>;
  connectCode(options?: { regenerate?: boolean }): Promise<ConnectCode>;
  connectWithCode(code: string): Promise<UserRef>;
  contacts(): Promise<{ contacts: ContactState[] }>;
  pauseContact(userId: string): Promise<ContactState>;
  resumeContact(userId: string): Promise<ContactState>;
  removeContact(userId: string): Promise<{}>;
  sendEvent(event: { to?: string; groupId?: string; name: string; payload?: unknown }): Promise<{ sentAt: number }>;
  block(userId: string): Promise<Block>;
  unblock(userId: string): Promise<{}>;
  blocks(): Promise<{ blocks: Block[] }>;
  createGroup(group: { name: string; kind?: string; maxMembers?: number; invitePolicy?: 'members' | 'owner'; roleLimits?: Record<string, number> }): Promise<Group>;
  group(groupId: string): Promise<Group>;
  groups(): Promise<{ groups: Group[] }>;
  leaveGroup(groupId: string): Promise<{}>;
  removeMember(groupId: string, userId: string): Promise<Group>;
  sendGroupMessage(groupId: string, text: string, options?: { clientMessageId?: string }): Promise<{ sentAt: number }>;
  createInvite(groupId: string, options?: { phone?: string; email?: string; role?: string; expiresInHours?: number }): Promise<Invite>;
  redeemInvite(code: string): Promise<Group>;
  discover(query: { numbers?: string[]; hashes?: string[] }): Promise<{ entries: DiscoveryEntry[] }>;
  registerPush(kind: PushKind, token: string, options?: { environment?: 'sandbox' | 'production'; sessionId?: string }): Promise<{}>;
  unregisterPush(kind: PushKind, options?: { sessionId?: string }): Promise<{}>;
  notificationSettings(): Promise<NotificationSettings>;
  setNotificationSettings(settings: Partial<NotificationSettings>): Promise<NotificationSettings>;
}

export declare function memoryOffsetStore(): Store<number>;
export declare function localStorageOffsetStore(key: string): Store<number>;
export declare function asyncStorageStore<T = any>(storage: AsyncKeyValueStorage, key: string): Store<T>;
export declare function tokenClaims(token: string): Record<string, unknown>;
export declare function registerDevice(baseUrl: string, options: { deviceToken: string; platform?: ClientType }): Promise<Registration>;
export declare function setDisplayName(baseUrl: string, token: string, displayName: string): Promise<UserRef>;
/** DELETE /v1/users/me: deletes the token's user; its sockets close with 4010. */
export declare function deleteAccount(baseUrl: string, token: string): Promise<{ ok: true }>;
/** DELETE /v1/users/me/devices/{deviceId}: revokes one device of the token's user; its sockets close with 4011. */
export declare function revokeDevice(baseUrl: string, token: string, deviceId: string): Promise<{ ok: true }>;
export declare function standaloneIdentity(baseUrl: string, store: Store<StandaloneIdentity>, options?: { platform?: ClientType }): Promise<Registration>;

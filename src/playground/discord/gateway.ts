// The gateway WebSocket: HELLO/IDENTIFY/READY/GUILD_CREATE, heartbeats, sequence numbers and RESUME with replay.
import { randomBytes } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, WebSocket } from "ws";
import type { Logger } from "pino";

export interface GatewayEvent {
  readonly type: "connect" | "identify" | "resume" | "invalid_session" | "close";
  readonly shardId?: number;
  readonly sessionId?: string;
  readonly code?: number;
}

export interface ShardReady {
  /** The READY `d` for this shard (without session_id/resume_gateway_url/shard, added here). */
  readonly ready: Record<string, unknown>;
  /** GUILD_CREATE payloads for the guilds of this shard. */
  readonly guildCreates: readonly Record<string, unknown>[];
}

export interface GatewayOptions {
  readonly heartbeatIntervalMs: number;
  readonly acceptToken: (token: string) => boolean;
  readonly readyFor: (shardId: number, shardCount: number) => ShardReady;
  readonly resumeUrl: () => string;
  readonly logger: Logger;
  readonly onEvent: (event: GatewayEvent) => void;
}

interface Dispatch {
  readonly s: number;
  readonly t: string;
  readonly d: unknown;
}

interface Session {
  readonly id: string;
  readonly shardId: number;
  readonly shardCount: number;
  readonly token: string;
  seq: number;
  readonly history: Dispatch[];
  socket: WebSocket | undefined;
}

const HISTORY_LIMIT = 2000;

const Op = {
  Dispatch: 0,
  Heartbeat: 1,
  Identify: 2,
  Resume: 6,
  InvalidSession: 9,
  Hello: 10,
  HeartbeatAck: 11,
} as const;

export class Gateway {
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly sessions = new Map<string, Session>();
  /**
   * Live sessions per shard. Several processes of one application may identify on the same shard
   * (replicas): like Discord, the double keeps each session and sends every one the shard's events.
   */
  private readonly byShard = new Map<number, Session[]>();

  constructor(private readonly options: GatewayOptions) {}

  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => this.onConnection(ws));
  }

  /** Shard ids with a session (connected or waiting to resume). */
  get shards(): number[] {
    return [...this.byShard.keys()].sort((a, b) => a - b);
  }

  /** How many shards the bot identified with (1 until it connects). */
  get shardCount(): number {
    return this.byShard.values().next().value?.[0]?.shardCount ?? 1;
  }

  /** True when a session of this shard (any, when several processes share it) has an open socket. */
  isConnected(shardId: number): boolean {
    return (this.byShard.get(shardId) ?? []).some((s) => s.socket?.readyState === WebSocket.OPEN);
  }

  /**
   * Sends a dispatch to every session of a shard. When a socket is down the dispatch is kept and
   * replayed on RESUME, as Discord does. Returns the sequence number (of the newest session).
   */
  dispatch(shardId: number, t: string, d: unknown): number {
    const sessions = this.byShard.get(shardId) ?? [];
    if (sessions.length === 0)
      throw new Error(`no bot is connected to the gateway (shard ${shardId}); start the bot first`);
    let seq = 0;
    for (const session of sessions) seq = this.sendDispatch(session, t, d);
    return seq;
  }

  /** Closes every live socket with a resumable code (4000); the client reconnects and RESUMEs. */
  drop(code = 4000): string[] {
    const dropped: string[] = [];
    for (const session of [...this.byShard.values()].flat()) {
      if (session.socket?.readyState === WebSocket.OPEN) {
        session.socket.close(code, "dropped by the test double");
        session.socket = undefined;
        dropped.push(session.id);
      }
    }
    return dropped;
  }

  async close(): Promise<void> {
    for (const client of this.wss.clients) client.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private onConnection(ws: WebSocket): void {
    let session: Session | undefined;
    this.options.onEvent({ type: "connect" });
    this.send(ws, {
      op: Op.Hello,
      d: { heartbeat_interval: this.options.heartbeatIntervalMs },
      s: null,
      t: null,
    });
    ws.on("message", (data) => {
      let payload: { op?: unknown; d?: unknown };
      try {
        payload = JSON.parse(String(data)) as { op?: unknown; d?: unknown };
      } catch {
        ws.close(4002, "Error while decoding payload.");
        return;
      }
      switch (payload.op) {
        case Op.Heartbeat:
          this.send(ws, { op: Op.HeartbeatAck });
          return;
        case Op.Identify:
          session = this.identify(ws, payload.d);
          return;
        case Op.Resume:
          session = this.resume(ws, payload.d);
          return;
        default:
          // Presence updates, member requests, voice state: accepted and ignored.
          return;
      }
    });
    ws.on("close", (code) => {
      if (session && session.socket === ws) session.socket = undefined;
      this.options.onEvent({
        type: "close",
        code,
        ...(session ? { shardId: session.shardId, sessionId: session.id } : {}),
      });
    });
    ws.on("error", (error) => this.options.logger.debug({ err: error }, "gateway socket error"));
  }

  private identify(ws: WebSocket, d: unknown): Session | undefined {
    const data = (d ?? {}) as { token?: unknown; shard?: unknown };
    const token = typeof data.token === "string" ? data.token : "";
    if (!this.options.acceptToken(token)) {
      ws.close(4004, "Authentication failed.");
      return undefined;
    }
    const [shardId, shardCount] =
      Array.isArray(data.shard) && typeof data.shard[0] === "number" && typeof data.shard[1] === "number"
        ? [data.shard[0], data.shard[1]]
        : [0, 1];
    // Another process's live session on this shard stays (Discord sends the shard's events to
    // each); a session whose socket is gone, or that this socket identifies again, is replaced.
    const kept = (this.byShard.get(shardId) ?? []).filter((previous) => {
      const live = previous.socket !== ws && previous.socket?.readyState === WebSocket.OPEN;
      if (!live) this.sessions.delete(previous.id);
      return live;
    });
    const session: Session = {
      id: randomBytes(16).toString("hex"),
      shardId,
      shardCount,
      token,
      seq: 0,
      history: [],
      socket: ws,
    };
    this.sessions.set(session.id, session);
    this.byShard.set(shardId, [...kept, session]);
    const { ready, guildCreates } = this.options.readyFor(shardId, shardCount);
    this.sendDispatch(session, "READY", {
      ...ready,
      session_id: session.id,
      resume_gateway_url: this.options.resumeUrl(),
      shard: [shardId, shardCount],
    });
    for (const guild of guildCreates) this.sendDispatch(session, "GUILD_CREATE", guild);
    this.options.onEvent({ type: "identify", shardId, sessionId: session.id });
    return session;
  }

  private resume(ws: WebSocket, d: unknown): Session | undefined {
    const data = (d ?? {}) as { token?: unknown; session_id?: unknown; seq?: unknown };
    const session = typeof data.session_id === "string" ? this.sessions.get(data.session_id) : undefined;
    if (!session || session.token !== data.token) {
      this.send(ws, { op: Op.InvalidSession, d: false });
      this.options.onEvent({ type: "invalid_session" });
      return undefined;
    }
    if (session.socket && session.socket !== ws) session.socket.close(4009, "Session resumed elsewhere");
    session.socket = ws;
    const after = typeof data.seq === "number" ? data.seq : 0;
    for (const missed of session.history.filter((h) => h.s > after)) {
      this.send(ws, { op: Op.Dispatch, s: missed.s, t: missed.t, d: missed.d });
    }
    this.sendDispatch(session, "RESUMED", {});
    this.options.onEvent({ type: "resume", shardId: session.shardId, sessionId: session.id });
    return session;
  }

  private sendDispatch(session: Session, t: string, d: unknown): number {
    session.seq += 1;
    const entry: Dispatch = { s: session.seq, t, d };
    session.history.push(entry);
    if (session.history.length > HISTORY_LIMIT) session.history.shift();
    if (session.socket?.readyState === WebSocket.OPEN) {
      this.send(session.socket, { op: Op.Dispatch, s: entry.s, t, d });
    }
    return entry.s;
  }

  private send(ws: WebSocket, payload: Record<string, unknown>): void {
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(payload));
  }
}

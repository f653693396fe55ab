/**
 * What the bouncer's unit tests stand on: a real SQLite store in a temporary folder (no mock of
 * the store), and a fake client session that records what it is sent.
 */
import { openStore, type Store } from "../../../store/mod.ts";
import { Caps } from "../../../bouncer/caps.ts";
import { Sasl } from "../../../bouncer/sasl.ts";
import type { Session } from "../../../bouncer/session.ts";
import type { IrcMessage } from "../../../irc/protocol/message.ts";
import { DomainError } from "../../../lib/errors.ts";
import { formatMessage } from "../../../irc/protocol/message.ts";
import { parseConfig } from "../../../config.ts";
import { ConnectionService } from "../../../irc/connection_service.ts";
import type { IrcControl } from "../../../irc/control.ts";
import { EventBus } from "../../../lib/bus.ts";
import type { ConnectionRecord } from "../../../store/connections.ts";

/** Runs `fn` over a fresh SQLite store, then closes and removes it. */
export async function withStore<T>(fn: (store: Store) => Promise<T>): Promise<T> {
  const home = await Deno.makeTempDir({ prefix: "parley-bouncer-unit-" });
  const store = await openStore(home);
  try {
    return await fn(store);
  } finally {
    await store.close();
    await Deno.remove(home, { recursive: true });
  }
}

/** A user with one stored connection `irc-test` that stays down (nothing dials out). */
export async function userWithConnection(store: Store, email = "jane@example.com") {
  const user = await store.users.create(email, "x", []);
  const connection = await store.connections.create({
    userId: user.id,
    connectionId: "irc-test",
    name: "test",
    url: "irc://127.0.0.1:6667?nick=jane",
    onConnectCommands: [],
    wantedState: "disconnected",
    nick: "jane",
  });
  return { user, connection };
}

/** One line a fake session was sent, read back. */
export interface Sent {
  command: string;
  params: string[];
  label?: string;
}

/**
 * A client session for commands.ts and webpush.ts: its own capabilities and SASL exchange, what
 * it is sent recorded as lines (`lines`) and read back (`sent`). `cx` holds what a command reaches
 * of the listener; the test gives what its command needs.
 */
export function fakeSession(cx: Record<string, unknown> = {}, opts: { tls?: boolean } = {}) {
  const lines: string[] = [];
  const sent: Sent[] = [];
  const record = (command: string, params: string[], label?: string) => {
    sent.push({ command, params, ...(label ? { label } : {}) });
    lines.push(formatMessage({ command, params, prefix: "parley" }));
  };
  const s = {
    cx: { limits: { saslAttempts: 3 }, networkWatchers: new Set(), ...cx },
    transport: { address: "192.0.2.1", tls: opts.tls ?? false, certificate: undefined },
    caps: undefined as unknown as Caps,
    sasl: new Sasl(() => opts.tls ?? false),
    nick: "",
    username: "",
    password: undefined as string | undefined,
    login: undefined as unknown,
    hub: undefined as unknown,
    control: false,
    bind: undefined as string | undefined,
    saslFailures: 0,
    registered: false,
    closed: "",
    registerCalls: 0,
    get target() {
      return this.nick || "*";
    },
    write(line: string) {
      lines.push(line);
    },
    writeHistory(out: string[]) {
      for (const l of out) lines.push(l);
    },
    numeric(code: string, ...params: string[]) {
      record(code, [s.target, ...params]);
    },
    reply(command: string, params: string[], label?: string) {
      record(command, params, label);
    },
    quit(reason: string) {
      s.closed = reason;
    },
    tryRegister() {
      s.registerCalls++;
      return Promise.resolve();
    },
    ownLabel: () => undefined,
  };
  s.caps = new Caps(() => s.sasl.mechanisms);
  return { s, session: s as unknown as Session, lines, sent };
}

/** A parsed line for a command's `run`. */
export function msg(command: string, ...params: string[]): IrcMessage {
  return { tags: new Map(), prefix: "", command, params };
}

/** Runs `fn` while collecting what the logger writes to stderr (warnings and errors). */
export async function logged<T>(fn: () => Promise<T> | T): Promise<{ value: T; lines: string[] }> {
  const lines: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void lines.push(args.map(String).join(" "));
  try {
    return { value: await fn(), lines };
  } finally {
    console.error = original;
  }
}

/**
 * The IRC side as the connection service sees it, connecting nothing: what it was asked is kept
 * in `calls`, `failConnect` makes a wanted connect fail (as a server that refuses would).
 */
export function fakeIrc() {
  const calls: string[] = [];
  let failConnect = false;
  const irc: IrcControl = {
    start: () => Promise.resolve(),
    stop: () => Promise.resolve(),
    view: () => Promise.resolve({ state: "disconnected", info: {} }),
    states: () => Promise.resolve(new Map()),
    created(record: ConnectionRecord) {
      calls.push(`created ${record.connectionId}`);
      return Promise.resolve();
    },
    applyRecord(record: ConnectionRecord, _restart: string | undefined, wait: boolean) {
      calls.push(`apply ${record.connectionId} ${record.wantedState}`);
      if (wait && failConnect && record.wantedState === "connected") {
        return Promise.reject(new DomainError("upstream", "Connection refused"));
      }
      return Promise.resolve();
    },
    drop(record: ConnectionRecord) {
      calls.push(`drop ${record.connectionId}`);
      return Promise.resolve();
    },
    userDeleted: () => Promise.resolve(),
    userSuspended(userId: number, suspended: boolean) {
      calls.push(`${suspended ? "suspend" : "resume"} ${userId}`);
      return Promise.resolve();
    },
    send: () => Promise.reject(new DomainError("invalid", "Not connected")),
    state: () => "disconnected",
  };
  return {
    irc,
    calls,
    set failConnect(v: boolean) {
      failConnect = v;
    },
  };
}

/** The connection service over `store` and a fake IRC side, with the bus it publishes on. */
export function connectionService(store: Store) {
  const config = {
    ...parseConfig({
      PARLEY_HOME: "/nonexistent",
      PARLEY_LISTEN: "http://127.0.0.1:3000",
      PARLEY_UPDATE_URL: "",
      PARLEY_NEW_USER_CONNECTION: "0",
    }),
    secret: "test secret, long enough",
  };
  const bus = new EventBus();
  const fake = fakeIrc();
  const connections = new ConnectionService({ config, store, bus, irc: fake.irc });
  return { connections, bus, fake, config };
}

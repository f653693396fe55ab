/**
 * The bouncer: IRC clients (irssi, weechat, senpai, Goguma, gamja) attach to a user's Parley
 * connection as if it were the IRC server, sharing one live stream with the web client. Wired by
 * the daemon when `PARLEY_IRC_LISTEN` is set.
 */
import type { AppDeps } from "../http/env.ts";
import { type HistoryService, unavailableHistory } from "./history.ts";
import { type BouncerLimits, DEFAULT_LIMITS } from "./limits.ts";
import { Acceptor, listen, type ListenAddress } from "./listener.ts";
import { WebSocketTransport } from "./websocket.ts";
import { Relay } from "./relay.ts";
import type { BouncerContext } from "./session.ts";

export type { ListenAddress } from "./listener.ts";

/** A running bouncer. */
export interface Bouncer {
  ports: number[];
  relay: Relay;
  /** Runs an IRC client that came as a WebSocket on the HTTP port (`GET /socket`). */
  acceptSocket(socket: WebSocket, address: string): void;
  close(): Promise<void>;
}

/** Starts the relay and the listeners. Call before the IRC connections start, so no line is missed. */
export function startBouncer(
  deps: Pick<AppDeps, "store" | "bus" | "irc" | "loginThrottle">,
  opts: {
    addresses: ListenAddress[];
    tls?: { cert: string; key: string };
    history?: HistoryService;
    limits?: Partial<BouncerLimits>;
    version?: string;
  },
): Bouncer {
  const relay = new Relay(deps.bus);
  relay.start();
  const cx: BouncerContext = {
    store: deps.store,
    loginThrottle: deps.loginThrottle!,
    irc: deps.irc,
    relay,
    history: opts.history ?? unavailableHistory,
    limits: { ...DEFAULT_LIMITS, ...opts.limits },
    version: opts.version ?? "dev",
    attached: new Map(),
  };
  const acceptor = new Acceptor(cx);
  let listening;
  try {
    listening = listen(acceptor, opts.addresses, opts.tls);
  } catch (err) {
    relay.stop();
    throw err;
  }
  return {
    ports: listening.ports,
    relay,
    acceptSocket: (socket, address) => acceptor.accept(new WebSocketTransport(socket, address)),
    close() {
      listening.close();
      acceptor.closeAll();
      relay.stop();
      return Promise.resolve();
    },
  };
}

/** The typed Hono environment and the dependencies every route is built from. */
import type { IdentTable } from "../irc/identd.ts";
import type { DirectoryLogin } from "../auth/ldap.ts";
import type { Config } from "../config.ts";
import type { Store } from "../store/mod.ts";
import type { EventBus } from "../lib/bus.ts";
import type { UserRecord } from "../store/users.ts";
import type { IrcControl } from "../irc/control.ts";
import type { ConnectionService } from "../irc/connection_service.ts";
import type { Bot } from "../irc/bot/bot.ts";
import type { LoginThrottle } from "./throttle.ts";
import type { Revocations } from "../bouncer/credentials.ts";
import type { Outlet } from "../irc/engine/outlet.ts";

/** What `createApp` is given; routes take what they need from it. */
export interface AppDeps {
  config: Config;
  store: Store;
  bus: EventBus;
  /** All IRC connections: connect, send, stop (on whichever node runs them). */
  irc: IrcControl;
  /** Users' connections: create, update, remove, list. */
  connections: ConnectionService;
  /** Where this node's connections send each line once handled (the bouncer listener's relay). */
  lines?: { setOutlet(outlet: Outlet | undefined): void };
  /** Which of this node's connections registered as whom (the ident server answers from it). */
  ident?: IdentTable;
  /** Called before a user is deleted, to stop what runs for them and remove their files. */
  userDeleted?: ((userId: number) => Promise<void>)[];
  /**
   * Revoked app tokens, changed passwords, deleted users: the IRC sessions they let in end, on
   * every node.
   */
  revocations?: Revocations;
  /**
   * The time (ms since the epoch) sessions remember a password by; the system's unless a test
   * moves one by hand.
   */
  wallClock?: { now(): number };
  /** Failed logins, counted over every node of a cluster. */
  loginThrottle: LoginThrottle;
  /** The LDAP directory password logins are checked against first (PARLEY_AUTH_LDAP_URL). */
  directory?: DirectoryLogin;
  /** The bot configured by bot.json, once started; absent without a bot.json. */
  bot?: Bot;
  /** The IRC listener (PARLEY_IRC_LISTEN), which also takes IRC clients from `GET /socket`. */
  bouncer?: {
    acceptSocket(socket: WebSocket, address: string, otherOrigin?: boolean, binary?: boolean): void;
    clients?(): number;
  };
}

/** Per-request variables set by middleware. */
export interface AppEnv {
  Variables: {
    requestId: string;
    /** The logged-in user: a valid session's, or the one the proxy's header vouches for. */
    user?: UserRecord;
    /** Hash of the session id, when there is a valid session (a script's proxy login has none). */
    sessionHash?: string;
    /** The reverse proxy's header named the user (PARLEY_AUTH_HEADER): it vouches for them. */
    proxyLogin?: boolean;
    /** The proxy's header named a suspended account: what needs a user says so (403), not 401. */
    suspendedLogin?: boolean;
    /** The body limit of this operation when it needs more than JSON_BODY_LIMIT. */
    bodyLimit?: number;
  };
  Bindings: { remoteAddr?: Deno.NetAddr };
}

/**
 * The IRC client under one connection attempt: its socket (irc/socket/transport.ts), its
 * registration (registration.ts), the one write path of its lines and the events its readers
 * listen to (events.ts). The socket's lines go to the connection's handlers first; those of
 * REGISTRATION_COMMANDS come on here.
 *
 * Small on purpose, for it lives as long as its connection: one listener table, made on the
 * first listener, and a registration that keeps a few fields.
 */
import { ircLine, type IrcMessage as Message } from "../protocol/message.ts";
import { LineTransport, type SocketSettings, type SocketTarget } from "../socket/transport.ts";
import type { IrcEventName, IrcEvents } from "./events.ts";
import { Registration, type RegistrationOptions } from "./registration.ts";

type Listener<K extends IrcEventName> = (ev: IrcEvents[K]) => void;
/** One event's listeners: one as itself, more as an array (replaced, never changed in place). */
type Listeners = ((ev: unknown) => void) | ((ev: unknown) => void)[];

/** Where to connect and how to register. */
interface ClientOptions {
  target: SocketTarget;
  registration: RegistrationOptions;
  /** The socket's limits and where its lines go. */
  socket: SocketSettings;
  /** Whether the server acknowledged a capability (the connection's upstream state). */
  capEnabled(name: string): boolean;
}

/** One connection attempt's client: connect once, then write, listen and end. */
export class IrcClient {
  #transport: LineTransport | undefined;
  /** The socket is open (after TLS's handshake): lines may be written. */
  #open = false;
  /** The socket was open once (its TLS handshake finished). */
  opened = false;
  #listeners: Partial<Record<IrcEventName, Listeners>> | undefined;

  /** Opens the socket; registration starts once it is open. */
  connect(o: ClientOptions): void {
    const transport = this.#transport = new LineTransport(o.target, o.socket);
    const registration = new Registration(o.registration, {
      write: (line) => this.raw(line),
      emit: (event, ev) => this.emit(event, ev),
      capEnabled: o.capEnabled,
    });
    transport.on("open", () => {
      this.#open = this.opened = true;
      try {
        registration.start();
      } catch (err) {
        // A nick, user name or password no line can carry (the URL's checks should have caught it).
        this.emit("irc error", { error: "irc", reason: (err as Error).message });
        transport.close(true);
      }
    });
    transport.on("line", (m: Message) => registration.handle(m));
    transport.on("close", (err: unknown) => {
      this.#open = false;
      transport.removeAllListeners();
      this.emit("socket close", err);
    });
    transport.connect();
  }

  /**
   * When the server last sent anything (ms since the epoch; 0 before it did): a connection that
   * died silently was gone from then, not from when its silence was noticed.
   */
  get lastRead(): number {
    return this.#transport?.lastRead ?? 0;
  }

  /** Writes one line; before the socket is open, or after it closed, the line is dropped. */
  raw(line: string): void {
    if (this.#open) this.#transport!.writeLine(line);
  }

  /** Says QUIT with `message`, then closes once the line is written. */
  quit(message: string): void {
    const transport = this.#transport;
    if (!transport) return;
    if (!this.#open) return transport.close(false);
    transport.writeLine(ircLine("QUIT", message), () => transport.close(false));
  }

  /** Drops the socket at once. */
  end(): void {
    this.#transport?.close(true);
  }

  on<K extends IrcEventName>(event: K, fn: Listener<K>): void {
    const all = this.#listeners ??= {};
    const add = fn as (ev: unknown) => void;
    const now = all[event];
    // One listener is kept as itself: most events have one, and an array each costs ~100 bytes.
    all[event] = now === undefined ? add : Array.isArray(now) ? [...now, add] : [now, add];
  }

  off<K extends IrcEventName>(event: K, fn: Listener<K>): void {
    const all = this.#listeners;
    const now = all?.[event];
    if (now === fn) delete all![event];
    else if (Array.isArray(now)) all![event] = now.filter((f) => f !== fn);
  }

  /**
   * Tells an event to its listeners, in the order they came; false when none listens. The
   * payload is the event's (IrcEvents), as registration and the answers' table make it.
   */
  emit(event: IrcEventName, ev: unknown): boolean {
    const now = this.#listeners?.[event];
    if (now === undefined) return false;
    // A listener may stop listening (or start another) as it is told: each change makes a new
    // array, so this one stays as it was.
    if (Array.isArray(now)) { for (const fn of now) fn(ev); }
    else now(ev);
    return true;
  }
}

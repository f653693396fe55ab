/** The `/events` WebSocket: requests with ids, pushed events, reconnects with backoff. */
import { socketState } from "./state.ts";
// Type-only: the protocol is declared once for server and client, and nothing of it is bundled.
import type {
  AnswerTo,
  ClientRequest,
  EventError,
  PushedEvent,
  ServerFrame,
} from "../../protocol/events.ts";
import type { User } from "./types.ts";
import { t } from "./i18n.ts";
import { BASE } from "./base.ts";

/** What a request resolves with when the socket is not open, or closes before the answer. */
interface LostAnswer {
  event?: undefined;
  errors: EventError[];
}

/** The answer to a request of `method`. */
type Answer<M extends keyof AnswerTo> = AnswerTo<User>[M] | LostAnswer;

/** A request of `method`, without the id the socket gives it. */
type RequestOf<M extends keyof AnswerTo> =
  & Omit<Extract<ClientRequest, { method?: M }>, "id">
  & { method: M };

/** Keeps one socket open while the user is logged in. */
export class EventSocket {
  #ws: WebSocket | null = null;
  #nextId = 1;
  #pending = new Map<number, (frame: ServerFrame<User> | LostAnswer) => void>();
  #attempt = 0;
  #stopped = true;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #ping: ReturnType<typeof setInterval> | undefined;
  #lastPong = 0;

  /** `onEvent` gets pushed events; `onOpen` runs after every (re)connect's handshake. */
  constructor(
    readonly onEvent: (frame: PushedEvent) => void,
    readonly onOpen: (reconnect: boolean) => void,
    readonly onRefused: () => void,
  ) {}

  /** Opens the socket (and keeps it open). */
  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    if (!this.#watching) {
      this.#watching = true;
      // A phone that loses its network keeps a dead socket for a long time: drop it at once,
      // and try again as soon as the network (or the tab) is back instead of waiting out a backoff.
      addEventListener("offline", () => this.#drop());
      addEventListener("online", () => this.#retryNow());
      document.addEventListener("visibilitychange", () => {
        if (document.visibilityState === "visible") this.#retryNow();
      });
    }
    this.#connect(false);
  }

  #watching = false;

  #retryNow(): void {
    if (this.#stopped || this.#ws?.readyState === WebSocket.OPEN) return;
    if (this.#ws?.readyState === WebSocket.CONNECTING) return;
    clearTimeout(this.#timer);
    this.#attempt = 0;
    this.#connect(true);
  }

  /** Closes the socket for good (logout). */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    clearInterval(this.#ping);
    this.#ws?.close();
    this.#ws = null;
    socketState.value = "closed";
  }

  #connect(reconnect: boolean): void {
    socketState.value = "connecting";
    const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}${BASE}/events`;
    const ws = new WebSocket(url);
    this.#ws = ws;
    ws.onmessage = (e) => {
      // A socket given up still closing: what it says now is caught up after the reconnect.
      if (this.#ws !== ws) return;
      let frame: ServerFrame<User>;
      try {
        frame = JSON.parse(e.data);
      } catch {
        return;
      }
      if (frame.event === "handshake") {
        if (frame.errors) {
          this.stop();
          this.onRefused();
          return;
        }
        this.#attempt = 0;
        socketState.value = "open";
        this.#lastPong = Date.now();
        clearInterval(this.#ping);
        this.#ping = setInterval(() => this.#keepAlive(), 25_000);
        this.onOpen(reconnect);
        return;
      }
      if (frame.event === "pong") this.#lastPong = Date.now();
      if ("id" in frame) {
        // An answer: to its request, never to onEvent.
        const id = frame.id as number;
        this.#pending.get(id)?.(frame);
        this.#pending.delete(id);
        return;
      }
      // "The session has ended." closes the socket with 1008; onclose handles it.
      if (frame.event === "error") return;
      this.onEvent(frame);
    };
    ws.onclose = (e) => this.#lost(ws, e.code);
  }

  /**
   * Gives up the socket at once, without waiting for the server's side of the closing handshake:
   * a peer that is gone (no network, a frozen server) never answers it, and the browser would show
   * the socket open until its own timeout gives up on the handshake.
   */
  #drop(): void {
    const ws = this.#ws;
    if (!ws) return;
    ws.close();
    this.#lost(ws, 1006);
  }

  /** The socket `ws` closed (or was given up) with `code`: requests fail, a reconnect is due. */
  #lost(ws: WebSocket, code: number): void {
    if (this.#ws !== ws) return;
    this.#ws = null;
    clearInterval(this.#ping);
    for (const [, resolve] of this.#pending) {
      resolve({ errors: [{ message: "The connection to the server was lost.", path: "/" }] });
    }
    this.#pending.clear();
    if (this.#stopped) return;
    if (code === 1008) {
      this.stop();
      this.onRefused();
      return;
    }
    socketState.value = "closed";
    // Backoff: 0.5 s, 1 s, 2 s ... up to 15 s, with jitter so many tabs do not reconnect at once.
    const delay = Math.min(15_000, 500 * 2 ** this.#attempt++) * (0.75 + Math.random() / 2);
    this.#timer = setTimeout(() => this.#connect(true), delay);
  }

  #keepAlive(): void {
    if (Date.now() - this.#lastPong > 70_000) {
      this.#drop(); // no pong for too long: the socket is dead
      return;
    }
    this.request({ method: "ping" });
  }

  /**
   * Sends a request and resolves with its answer (or an error frame when disconnected). While
   * the socket is opening (a page just loaded, a reconnect under way) it waits for it, up to 5 s:
   * a line typed at once is sent, not refused.
   */
  async request<M extends keyof AnswerTo>(frame: RequestOf<M>): Promise<Answer<M>> {
    for (let i = 0; i < 100 && socketState.value === "connecting"; i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const ws = this.#ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) {
      return {
        // The socket comes back by itself, but this line is not sent again without the user.
        errors: [{
          message: t("Not connected to Parley: press Enter to send it again."),
          path: "/",
        }],
      };
    }
    const id = this.#nextId++;
    return new Promise((resolve) => {
      // The server answers with the request's id: the frame is the answer to this method.
      this.#pending.set(id, resolve as (frame: ServerFrame<User> | LostAnswer) => void);
      ws.send(JSON.stringify({ ...frame, id }));
    });
  }
}

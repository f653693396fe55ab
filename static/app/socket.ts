/** The `/events` WebSocket: requests with ids, pushed events, reconnects with backoff. */
import { socketState } from "./state.ts";

// deno-lint-ignore no-explicit-any
export type Frame = Record<string, any>;

/** Keeps one socket open while the user is logged in. */
export class EventSocket {
  #ws: WebSocket | null = null;
  #nextId = 1;
  #pending = new Map<number, (frame: Frame) => void>();
  #attempt = 0;
  #stopped = true;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #ping: ReturnType<typeof setInterval> | undefined;
  #lastPong = 0;

  /** `onEvent` gets pushed events; `onOpen` runs after every (re)connect's handshake. */
  constructor(
    readonly onEvent: (frame: Frame) => void,
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
      addEventListener("offline", () => this.#ws?.close());
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
    const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/events`;
    const ws = new WebSocket(url);
    this.#ws = ws;
    ws.onmessage = (e) => {
      let frame: Frame;
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
      if (frame.id !== undefined && this.#pending.has(frame.id)) {
        this.#pending.get(frame.id)!(frame);
        this.#pending.delete(frame.id);
        if (frame.event !== "sent") return;
      }
      if (frame.event === "error" && frame.errors && frame.id === undefined) {
        // "The session has ended." closes the socket with 1008; onclose handles it.
        return;
      }
      if (frame.event !== "sent") this.onEvent(frame);
    };
    ws.onclose = (e) => {
      if (this.#ws !== ws) return;
      clearInterval(this.#ping);
      for (const [, resolve] of this.#pending) {
        resolve({ errors: [{ message: "The connection to the server was lost.", path: "/" }] });
      }
      this.#pending.clear();
      if (this.#stopped) return;
      if (e.code === 1008) {
        this.stop();
        this.onRefused();
        return;
      }
      socketState.value = "closed";
      // Backoff: 0.5 s, 1 s, 2 s ... up to 15 s, with jitter so many tabs do not reconnect at once.
      const delay = Math.min(15_000, 500 * 2 ** this.#attempt++) * (0.75 + Math.random() / 2);
      this.#timer = setTimeout(() => this.#connect(true), delay);
    };
  }

  #keepAlive(): void {
    if (Date.now() - this.#lastPong > 70_000) {
      this.#ws?.close(); // no pong for too long: the socket is dead
      return;
    }
    this.request({ method: "ping" });
  }

  /** Sends a request and resolves with its answer (or an error frame when disconnected). */
  request(frame: Frame): Promise<Frame> {
    const ws = this.#ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) {
      return Promise.resolve({
        errors: [{ message: "Not connected to the server. Trying again…", path: "/" }],
      });
    }
    const id = this.#nextId++;
    return new Promise((resolve) => {
      this.#pending.set(id, resolve);
      ws.send(JSON.stringify({ ...frame, id }));
    });
  }
}

// deno-lint-ignore-file no-explicit-any -- events are read field by field
/** A client of the `/events` WebSocket that records every event it receives. */
import type { ApiClient } from "./api.ts";

/** One open /events socket. */
export class EventSocket {
  readonly events: any[] = [];
  #waiters: { test: (e: any) => boolean; resolve: (e: any) => void }[] = [];
  #nextId = 1;
  closed: Promise<CloseEvent>;

  private constructor(readonly ws: WebSocket) {
    ws.onmessage = (m) => {
      const ev = JSON.parse(String(m.data));
      this.events.push(ev);
      this.#waiters = this.#waiters.filter((w) => (w.test(ev) ? (w.resolve(ev), false) : true));
    };
    this.closed = new Promise((resolve) => ws.addEventListener("close", (e) => resolve(e)));
  }

  /**
   * Opens /events at the client's base with its session cookie (and extra headers, e.g. Origin);
   * a base and a cookie alone do for an in-process app served on a port.
   */
  static async open(
    api: Pick<ApiClient, "base" | "cookieHeader">,
    headers: Record<string, string> = {},
  ): Promise<EventSocket> {
    const url = api.base.replace(/^http/, "ws") + "/events";
    const ws = new WebSocket(url, {
      headers: { ...(api.cookieHeader ? { cookie: api.cookieHeader } : {}), ...headers },
    } as any);
    const socket = new EventSocket(ws);
    await new Promise((resolve, reject) => {
      ws.onopen = resolve;
      ws.onerror = reject;
    });
    return socket;
  }

  /** Resolves with the first event (already received or future) that passes `test`. */
  waitFor(test: (e: any) => boolean, timeoutMs = 15_000): Promise<any> {
    const seen = this.events.find(test);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(
          new Error(
            `no matching event within ${timeoutMs} ms; last events:\n` +
              this.events.slice(-10).map((e) => JSON.stringify(e)).join("\n"),
          ),
        );
      }, timeoutMs);
      this.#waiters.push({
        test,
        resolve: (e) => {
          clearTimeout(timer);
          resolve(e);
        },
      });
    });
  }

  /** Sends a request with a fresh id and resolves with the answer carrying that id. */
  request(body: Record<string, unknown>): Promise<any> {
    const id = this.#nextId++;
    this.ws.send(JSON.stringify({ id, ...body }));
    return this.waitFor((e) => e.id === id);
  }

  /** How the socket closed, if it did within `ms`. */
  async closedWithin(ms: number): Promise<CloseEvent | undefined> {
    let timer = 0;
    const closed = await Promise.race([
      this.closed,
      new Promise<undefined>((resolve) => timer = setTimeout(resolve, ms)),
    ]);
    clearTimeout(timer);
    return closed;
  }

  /** Closes the socket. */
  async close(): Promise<void> {
    if (this.ws.readyState < 2) this.ws.close();
    await this.closed;
  }
}

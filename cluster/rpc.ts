/**
 * Calls between nodes: a node asks the node that runs a user to act on its IRC connections (send,
 * connect, ...) and waits for the answer. Requests and answers are messages on each node's own
 * channel (`parley_rpc_<node>`); a DomainError travels back as itself, so the edge answers a
 * forwarded call exactly as a local one.
 */
import { DomainError, type ErrorKind } from "../lib/errors.ts";
import { log } from "../lib/log.ts";
import type { PgChannel } from "./channel.ts";

/** How long a forwarded call may take (a wanted connect waits up to 10 s on the owner). */
const CALL_TIMEOUT_MS = 20_000;

/** The owner asked no longer runs the user: resolve the owner again and retry. */
export class MovedError extends Error {}

interface Request {
  id: number;
  from: string;
  method: string;
  args: unknown[];
}

interface Answer {
  id: number;
  result?: unknown;
  error?: { kind: ErrorKind | "moved" | "internal"; message: string; path?: string };
}

/** A method another node may call; it throws MovedError when this node does not run the user. */
type Handler = (...args: never[]) => Promise<unknown>;

/** This node's end of the calls. */
export class Rpc {
  #channel: PgChannel;
  #node: string;
  #handlers: Record<string, Handler>;
  #next = 1;
  #waiting = new Map<
    number,
    { resolve: (a: Answer) => void; timer: ReturnType<typeof setTimeout> }
  >();
  #unlisten?: () => Promise<void>;

  constructor(channel: PgChannel, node: string, handlers: Record<string, Handler>) {
    this.#channel = channel;
    this.#node = node;
    this.#handlers = handlers;
  }

  static channelOf(node: string): string {
    return `parley_rpc_${node}`;
  }

  async start(): Promise<void> {
    this.#unlisten = await this.#channel.listen(Rpc.channelOf(this.#node), (m) => {
      const msg = m as Request | Answer;
      if ("method" in msg) this.#serve(msg);
      else {
        const w = this.#waiting.get(msg.id);
        if (!w) return;
        clearTimeout(w.timer);
        this.#waiting.delete(msg.id);
        w.resolve(msg);
      }
    });
  }

  async #serve(req: Request): Promise<void> {
    let answer: Answer;
    try {
      const fn = this.#handlers[req.method];
      if (!fn) throw new Error(`no such cluster method ${req.method}`);
      answer = {
        id: req.id,
        result: await (fn as (...a: unknown[]) => Promise<unknown>)(...req.args),
      };
    } catch (err) {
      answer = {
        id: req.id,
        error: err instanceof DomainError
          ? { kind: err.kind, message: err.message, path: err.path }
          : err instanceof MovedError
          ? { kind: "moved", message: err.message }
          : { kind: "internal", message: String(err) },
      };
      if (!(err instanceof DomainError) && !(err instanceof MovedError)) {
        log.error("cluster call failed", { method: req.method, error: err });
      }
    }
    await this.#channel.send(Rpc.channelOf(req.from), answer).catch((err) =>
      log.warn("cluster: answer not sent", { error: String(err) })
    );
  }

  /** Calls `method` on `node`; rejects as the method did there, or after the timeout. */
  async call(node: string, method: string, args: unknown[]): Promise<unknown> {
    const id = this.#next++;
    const answer = new Promise<Answer>((resolve) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(id);
        resolve({
          id,
          error: {
            kind: "upstream",
            message: "The Parley node running this connection did not answer.",
          },
        });
      }, CALL_TIMEOUT_MS);
      this.#waiting.set(id, { resolve, timer });
    });
    await this.#channel.send(Rpc.channelOf(node), { id, from: this.#node, method, args });
    const a = await answer;
    if (!a.error) return a.result;
    if (a.error.kind === "moved") throw new MovedError(a.error.message);
    if (a.error.kind === "internal") throw new Error(`on node ${node}: ${a.error.message}`);
    throw new DomainError(a.error.kind, a.error.message, a.error.path);
  }

  async stop(): Promise<void> {
    await this.#unlisten?.().catch(() => {});
    for (const [id, w] of this.#waiting) {
      clearTimeout(w.timer);
      w.resolve({ id, error: { kind: "upstream", message: "Parley is shutting down." } });
    }
    this.#waiting.clear();
  }
}

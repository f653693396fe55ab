/** One connection's incoming events, run one after the other so they are stored in order. */
import { log } from "../../../lib/log.ts";
import { Backlog } from "./backlog.ts";

/** Runs `fn` after everything queued before it for the same connection, so order is kept. */
export type Serial = ((fn: () => Promise<void>) => void) & {
  /** Resolves once everything queued so far has run (before the store closes). */
  drained(): Promise<void>;
  /** Steps queued and not yet finished. */
  pending(): number;
  /** Lines handed over and not yet recorded: the steps, and what the steps hold (chat.ts). */
  backlog: Backlog;
};

/** A serial runner; a failing step is logged and does not stop the ones after it. */
export function serial(label: string): Serial {
  let chain = Promise.resolve();
  let pending = 0;
  const backlog = new Backlog();
  const done = () => {
    pending--;
    backlog.done();
  };
  const run = (fn: () => Promise<void>) => {
    pending++;
    backlog.add();
    chain = chain.then(fn).catch((err) => log.error("irc event failed", { label, error: err }))
      .then(done);
  };
  return Object.assign(run, { drained: () => chain, pending: () => pending, backlog });
}

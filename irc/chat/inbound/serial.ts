/** One connection's incoming events, run one after the other so they are stored in order. */
import { log } from "../../../lib/log.ts";
import { Backlog } from "./backlog.ts";

/** Runs `fn` after everything queued before it for the same connection, so order is kept. */
export type Serial = ((fn: () => Promise<void>) => void) & {
  /** Resolves once everything queued so far has run (before the store closes). */
  drained(): Promise<void>;
  /** Lines handed over and not yet recorded: the steps, and what the steps hold (chat.ts). */
  backlog: Backlog;
};

/** A serial runner; a failing step is logged and does not stop the ones after it. */
export function serial(label: string): Serial {
  let chain = Promise.resolve();
  const backlog = new Backlog();
  const done = () => backlog.done();
  const run = (fn: () => Promise<void>) => {
    backlog.add();
    chain = chain.then(fn).catch((err) => log.error("irc event failed", { label, error: err }))
      .then(done);
  };
  return Object.assign(run, { drained: () => chain, backlog });
}

/**
 * Message retention: how long messages are kept (PARLEY_MESSAGE_RETENTION, else the admin
 * setting), and the background pass that deletes older ones through the backend's retention
 * capability, a small batch at a time with a pause between batches, so writes never wait long.
 */
import type { Config } from "../config.ts";
import { log } from "../lib/log.ts";
import { retentionDays } from "../protocol/retention.ts";
import { nowMicros } from "../lib/time.ts";
import type { MessageRetention } from "./message_types.ts";
import type { ServerSettings } from "./settings.ts";
import type { Store } from "./mod.ts";

const DAY_MICROS = 86_400_000_000;

/** The days messages are kept (0: all of them): the variable when set, else the setting. */
export function retentionOf(
  config: Pick<Config, "messageRetentionDays">,
  settings: Pick<ServerSettings, "message_retention">,
): number {
  return config.messageRetentionDays ?? retentionDays(settings.message_retention) ?? 0;
}

/** How a pass runs (the daemon's defaults; tests and the benchmark choose their own). */
interface PruneOptions {
  /** Rows per batch (one transaction). */
  batch?: number;
  /** Milliseconds between batches: the writer's turns come in between. */
  pauseMs?: number;
  /** Stops the pass between two batches. */
  signal?: AbortSignal;
  /** Called after each batch with the rows it deleted (the benchmark's progress). */
  progress?: (deleted: number) => void;
}

/** Rows per batch: a few milliseconds of one transaction on either backend. */
export const PRUNE_BATCH = 500;
/** Pause between batches. */
export const PRUNE_PAUSE_MS = 25;

/**
 * Deletes every message older than `before` (µs), oldest first, in batches. Resolves with how
 * many went, or null when another node of the cluster is pruning (it will have done it).
 */
export async function pruneBefore(
  retention: MessageRetention,
  before: number,
  opts: PruneOptions = {},
): Promise<number | null> {
  const batch = opts.batch ?? PRUNE_BATCH;
  const pauseMs = opts.pauseMs ?? PRUNE_PAUSE_MS;
  let total = 0;
  const pass = async () => {
    while (!opts.signal?.aborted) {
      const n = await retention.pruneBatch(before, batch);
      total += n;
      opts.progress?.(n);
      if (n < batch) break;
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  };
  if (!retention.exclusive) {
    await pass();
    return total;
  }
  return await retention.exclusive(pass) ? total : null;
}

/** The background pruner of a daemon. */
interface RetentionRunner {
  /** Runs a pass now (after the one under way, if any); resolves with what it deleted. */
  runNow(): Promise<number | null>;
  /** Stops the timer and the pass under way (between two batches). */
  stop(): Promise<void>;
}

/** How often the daemon prunes, and how long after start it first does. */
const PRUNE_EVERY_MS = 3_600_000;
const FIRST_PRUNE_MS = 60_000;

/**
 * Starts pruning `store` every PRUNE_EVERY_MS while retention is on. The duration is read again
 * at each pass, so an admin's change takes effect at the next one.
 */
export function startRetention(
  store: Store,
  config: Pick<Config, "messageRetentionDays">,
  opts: PruneOptions & { everyMs?: number; firstMs?: number } = {},
): RetentionRunner {
  const abort = new AbortController();
  let running: Promise<number | null> = Promise.resolve(0);
  const pass = async (): Promise<number | null> => {
    const retention = store.messages.retention;
    if (!retention || abort.signal.aborted) return 0;
    const days = retentionOf(config, await store.settings.current());
    if (!days) return 0;
    const started = performance.now();
    const before = nowMicros() - days * DAY_MICROS;
    const deleted = await pruneBefore(retention, before, { ...opts, signal: abort.signal });
    if (deleted) {
      log.info("retention: old messages deleted", {
        deleted,
        days,
        ms: Math.round(performance.now() - started),
      });
    }
    return deleted;
  };
  const runNow = () => {
    running = running.catch(() => 0).then(pass);
    return running;
  };
  const tick = () =>
    void runNow().catch((err) => log.warn("retention pass failed", { error: String(err) }));
  const first = setTimeout(() => {
    tick();
    interval = setInterval(tick, opts.everyMs ?? PRUNE_EVERY_MS);
  }, opts.firstMs ?? FIRST_PRUNE_MS);
  let interval: ReturnType<typeof setInterval> | undefined;
  return {
    runNow,
    async stop() {
      abort.abort();
      clearTimeout(first);
      clearInterval(interval);
      await running.catch(() => {}); // why: its caller (tick or runNow's) already got this error
    },
  };
}

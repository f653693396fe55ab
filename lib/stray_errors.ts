/**
 * Errors no code caught: a promise rejected with no handler, an exception thrown from a timer or
 * an event's callback. Uncaught, either ends the process.
 *
 * The daemon turns on a last net (`catchStrayErrors`): each is logged with its stack and counted,
 * and the process goes on. Ending it would drop every user's IRC connections and web sessions for
 * one fault in one of them; each part catches what it must survive, so what reaches the net is a
 * bug, and the log says where. Bounded: a fault that fires per IRC line logs ten lines a minute,
 * then one line with how many more there were.
 *
 * A library's own fault that is known to be harmless, and that no caller can catch, is declared
 * with `tolerate` by the module that uses the library: it is logged as a warning saying what it
 * is, in every process (the command-line tools too), and not counted.
 */
import { log } from "./log.ts";

/** Lines logged per window; the rest are counted and said at the window's end. */
const LOGGED_PER_WINDOW = 10;
const WINDOW_MS = 60_000;

/** A rejection nobody handled, or an exception nobody caught. */
type StrayKind = "rejection" | "exception";

/** Errors the net caught since the process started (`GET /metrics`); tolerated ones not counted. */
export const strayErrors = { count: 0 };

/** A known harmless fault: what to log for `error` when it is one, else undefined. */
type Tolerated = (error: unknown) => string | undefined;

const tolerated: Record<StrayKind, Tolerated[]> = { rejection: [], exception: [] };
let netOn = false;
let listening = false;
let windowLength = WINDOW_MS;
let windowStart = -Infinity;
let logged = 0;
let unlogged = 0;

function sayUnlogged(): void {
  if (unlogged) log.error("more uncaught errors, not logged one by one", { count: unlogged });
  unlogged = 0;
}

/** Whether the window has room for one more line; else the error is counted to be said later. */
function roomToLog(): boolean {
  const now = performance.now();
  if (now - windowStart >= windowLength) {
    windowStart = now;
    logged = 0;
  }
  if (logged < LOGGED_PER_WINDOW) {
    logged++;
    return true;
  }
  if (!unlogged++) {
    const timer = setTimeout(sayUnlogged, windowStart + windowLength - now);
    Deno.unrefTimer(timer); // a count to say never keeps the process running
  }
  return false;
}

/** Handles one stray error; false leaves it to the runtime, which ends the process. */
function caught(kind: StrayKind, error: unknown): boolean {
  for (const known of tolerated[kind]) {
    const what = known(error);
    if (what === undefined) continue;
    if (roomToLog()) log.warn(what, { error: String(error) });
    return true;
  }
  if (!netOn) return false;
  strayErrors.count++;
  if (roomToLog()) log.error("uncaught error; Parley goes on", { kind, error });
  return true;
}

function listen(): void {
  if (listening) return;
  listening = true;
  globalThis.addEventListener("unhandledrejection", (e) => {
    if (caught("rejection", e.reason)) e.preventDefault();
  });
  globalThis.addEventListener("error", (e) => {
    if (caught("exception", e.error ?? e.message)) e.preventDefault();
  });
}

/**
 * Turns the net on for this process (its main thread); calling it again does nothing.
 * `windowMs` is the length of the logging window (a test shortens it).
 */
export function catchStrayErrors(windowMs = WINDOW_MS): void {
  netOn = true;
  windowLength = windowMs;
  listen();
}

/** Declares a known harmless fault of a library: `match` says what it is, else undefined. */
export function tolerate(kind: StrayKind, match: Tolerated): void {
  tolerated[kind].push(match);
  listen();
}

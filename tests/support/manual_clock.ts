import type { Clock } from "../../lib/clock.ts";

/**
 * A clock moved by hand: timers fire in time order as `advance` passes them, so each check says
 * what happens at a given moment whatever the machine's load (real timers on two busy cores ran
 * late enough to fail these checks).
 */
export class ManualClock implements Clock {
  #now = 0;
  #next = 1;
  #timers = new Map<number, { at: number; fn: () => void }>();

  now(): number {
    return this.#now;
  }

  after(fn: () => void, ms: number): number {
    const id = this.#next++;
    this.#timers.set(id, { at: this.#now + Math.max(0, ms), fn });
    return id;
  }

  cancel(id: unknown): void {
    if (typeof id === "number") this.#timers.delete(id);
  }

  /** Moves time on by `ms`, firing every timer due on the way, earliest first. */
  advance(ms: number): void {
    const end = this.#now + ms;
    for (;;) {
      let due: [number, { at: number; fn: () => void }] | undefined;
      for (const entry of this.#timers) {
        if (entry[1].at <= end && (!due || entry[1].at < due[1].at)) due = entry;
      }
      if (!due) break;
      this.#timers.delete(due[0]);
      this.#now = due[1].at;
      due[1].fn();
    }
    this.#now = end;
  }
}

/**
 * The database's own failures, as a caller is told them: nothing in the request was wrong, and
 * trying again later may work. Each backend says which of its errors are these
 * (`StoreBackend.failure`); the edge answers them with 503.
 */
import { DomainError } from "../lib/errors.ts";

/** A failure of the database itself, and which: what may wait it out asks (store/full_disk.ts). */
class StoreFailure extends DomainError {
  constructor(readonly failure: "disk full" | "away", message: string) {
    super("unavailable", message);
  }
}

/** The disk under the database refused a write; the write was undone whole. */
export const diskFull = () =>
  new StoreFailure("disk full", "The server's disk is full: nothing was saved. Try again later.");

/** The database did not answer (stopped, restarting, out of connections). */
export const databaseAway = () =>
  new StoreFailure("away", "The database is not answering. Try again in a moment.");

/** Whether `err` is a backend's word for a write its disk refused (`diskFull`). */
export const isDiskFull = (err: unknown): boolean =>
  err instanceof StoreFailure && err.failure === "disk full";

/**
 * The database's own failures, as a caller is told them: nothing in the request was wrong, and
 * trying again later may work. Each backend says which of its errors are these
 * (`StoreBackend.failure`); the edge answers them with 503.
 */
import { DomainError } from "../lib/errors.ts";

/** The disk under the database refused a write; the write was undone whole. */
export const diskFull = () =>
  new DomainError("unavailable", "The server's disk is full: nothing was saved. Try again later.");

/** The database did not answer (stopped, restarting, out of connections). */
export const databaseAway = () =>
  new DomainError("unavailable", "The database is not answering. Try again in a moment.");

/** The API's error body and the exception that carries it. */
import { DomainError, type ErrorKind } from "../lib/errors.ts";

/** One entry of the error body: a message and a JSON pointer to the bad input. */
export interface ErrorItem {
  message: string;
  path: string;
}

/** An error the API answers with `{"errors": [...]}` and the given status. */
export class ApiError extends Error {
  readonly errors: ErrorItem[];
  constructor(readonly status: number, message: string, path = "/", more: ErrorItem[] = []) {
    super(message);
    this.errors = [{ message, path }, ...more];
  }
}

/** 400 for a field; `path` is a JSON pointer such as `/body/email`. */
export const badRequest = (message: string, path = "/") => new ApiError(400, message, path);
/** 404 for anything unknown or not the caller's. */
export const notFound = (message = "Not found.") => new ApiError(404, message);
/** 403 for a logged-in caller without the right. */
export const forbidden = (message = "Only an admin may do that.") => new ApiError(403, message);
/** 401 for a caller without a session. */
export const unauthorized = (message = "Need to log in first.") => new ApiError(401, message);

/** Builds the error body. */
export function errorBody(errors: ErrorItem[]): { errors: ErrorItem[] } {
  return { errors };
}

const STATUS: Record<ErrorKind, number> = {
  invalid: 400,
  not_found: 404,
  forbidden: 403,
  conflict: 409,
  unavailable: 503,
  too_large: 413,
  upstream: 424,
};

/** The API error for a lower layer's DomainError (the edge's one mapping), else undefined. */
export function fromDomain(err: unknown): ApiError | undefined {
  if (err instanceof DomainError) return new ApiError(STATUS[err.kind], err.message, err.path);
  return undefined;
}

/**
 * The requests a client sends on `/events`, declared once as zod schemas: the server reads frames
 * with them and protocol/events.ts takes the request types from them (a type-only import, so the web
 * client's bundle carries no zod).
 */
import { z } from "zod";

/** The client's own id for a request; the answer carries it back. */
export const RequestId = z.union([z.string(), z.number()]);
export type RequestId = z.output<typeof RequestId>;

/** An id that is neither a string nor a number is read as none (the server gives one). */
const OptionalId = RequestId.optional().catch(undefined);

/** Convos's word for every field a send request gets wrong. */
const INVALID = "Invalid input.";

/** A keepalive; Convos's client sends `{}`, which counts as one. */
const PingRequest = z.object({
  method: z.literal("ping").optional(),
  id: OptionalId,
});

/** Asks for the user with connections and conversations. */
const LoadRequest = z.object({
  method: z.literal("load"),
  id: OptionalId,
});

/** Text or a command, typed in a conversation ("" = the server conversation). */
export const SendRequest = z.object({
  method: z.literal("send"),
  id: OptionalId,
  connection_id: z.string(INVALID),
  conversation_id: z.string(INVALID).default(""),
  message: z.string(INVALID).refine((m) => m.trim() !== "", INVALID),
});

/**
 * Whether the page is looked at: `false` once it has been out of view a while, `true` when it is
 * back (automatic away counts only pages looked at). A socket starts as looked at.
 */
export const PresenceRequest = z.object({
  method: z.literal("presence"),
  id: OptionalId,
  here: z.boolean(INVALID),
});

/**
 * What every frame is read as first: a JSON object whose `id` (kept when it is a string or a
 * number) and `method` (a string, at most 64 characters kept) say what to answer; anything else
 * in them is read as absent, as Convos does.
 */
export const RequestHead = z.looseObject({
  id: OptionalId,
  method: z.string().transform((m) => m.slice(0, 64)).optional().catch(undefined),
});

/**
 * Each request method's schema.
 *
 * @internal test seam
 */
export const REQUESTS = {
  ping: PingRequest,
  load: LoadRequest,
  send: SendRequest,
  presence: PresenceRequest,
};

/** Every request a client sends. */
export type ClientRequest =
  | z.output<typeof PingRequest>
  | z.output<typeof LoadRequest>
  | z.output<typeof SendRequest>
  | z.output<typeof PresenceRequest>;

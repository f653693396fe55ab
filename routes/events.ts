/**
 * `GET /events`: the live WebSocket of the web client. Pushes the user's events from the bus and
 * answers `ping`, `load` and `send` requests. The protocol is written down in docs/events.md.
 */
import { Hono } from "hono";
import { z } from "zod";
import { upgradeWebSocket } from "hono/deno";
import type { WSContext } from "hono/ws";
import type { AppDeps, AppEnv } from "../http/env.ts";
import { ApiError, type ErrorItem, fromDomain } from "../http/errors.ts";
import { isCrossSite } from "../http/client.ts";
import { markUsed, SUSPENDED } from "../http/session.ts";
import { log } from "../lib/log.ts";
import type { UserRecord } from "../store/users.ts";
import { userJson } from "./user_json.ts";
import type {
  AnswerTo,
  BusEvent,
  BusMessageEvent,
  RequestId,
  ServerFrame,
  UnknownMethodFrame,
} from "../protocol/events.ts";
import { PresenceRequest, RequestHead, SendRequest } from "../protocol/event_requests.ts";

/** Close code for a refused socket (policy violation). */
const POLICY_VIOLATION = 1008;
/** Close code when the server shuts down. */
const GOING_AWAY = 1001;
/**
 * Close code for a client too far behind: it reconnects and catches up (docs/events.md).
 *
 * @internal test seam
 */
export const TRY_AGAIN_LATER = 1013;
/**
 * Bytes that may wait unsent on one socket. A client that stops reading (a stalled network, a
 * frozen tab) would otherwise make Parley hold every event for it in memory.
 *
 * @internal test seam
 */
export const MAX_BUFFERED = 4 * 1024 * 1024;

/**
 * Requests one socket may have being answered at once. Each may hold a database query or a line
 * waiting behind flood control; past this a request is answered with an error at once, and a ping
 * with its pong (without the session check), so that a busy client still knows it is connected.
 *
 * @internal test seam
 */
export const MAX_ANSWERING = 50;

/**
 * Open `/events` sockets one user may have (over every node): far more than tabs and devices, few
 * enough that a script opening sockets in a loop cannot make every event of the user's fan out to
 * thousands. Past it a new socket is closed with 1013 before its handshake, and the web client
 * tries again later, as after a restart.
 *
 * @internal test seam
 */
export const MAX_SOCKETS_PER_USER = 100;

/**
 * The longest frame read, in characters: a typed message with room to spare (longer text is sent
 * as a file). The runtime still takes a frame of up to 64 MiB before Parley sees it; a longer one
 * than this is not parsed (which would hold it several times over), and its socket is closed with
 * 1009 (message too big).
 *
 * @internal test seam
 */
export const MAX_FRAME_CHARS = 1024 * 1024;
/** Close code for a frame longer than MAX_FRAME_CHARS. */
const MESSAGE_TOO_BIG = 1009;

/** The answer to a frame that is not a JSON object (it has no id to answer with). */
const INVALID_JSON: ServerFrame = {
  event: "error",
  errors: [{ message: "Invalid JSON.", path: "/" }],
};

/** A request as it arrives: a JSON object, its fields not yet checked. */
type Request = Record<string, unknown>;

/** Every answer to a request. */
type Answer = AnswerTo[keyof AnswerTo] | UnknownMethodFrame;

/**
 * What a request that threw is answered: domain errors as the HTTP edge maps them, and so the
 * database's own failure (told to the operator too); anything else is logged as a fault.
 */
function failure(deps: AppDeps, user: UserRecord, thrown: unknown): ErrorItem[] {
  const failed = deps.store.backend.failure(thrown);
  const err = fromDomain(thrown) ?? fromDomain(failed) ?? thrown;
  if (failed) {
    log.warn("events request refused: the database failed", { uid: user.id, error: thrown });
  } else if (!(err instanceof ApiError)) {
    log.error("events request failed", { uid: user.id, error: err });
  }
  return errorsOf(err);
}

/** The error items of what `failure` mapped, as the socket words them. */
function errorsOf(err: unknown): ErrorItem[] {
  if (err instanceof ApiError) {
    // REST paths point into the body; on the socket the request object is the root.
    return err.errors.map((e) => ({
      // Convos's wording for an unknown connection on the socket.
      message: e.message === "No such connection." ? "Connection not found." : e.message,
      path: e.path.replace(/^\/body(?=\/|$)/, "") || "/",
    }));
  }
  return [{ message: "Internal server error.", path: "/" }];
}

/** A request's first wrong field, as the socket words it (the request object is the root). */
function firstIssue(error: z.ZodError): ErrorItem[] {
  const issue = error.issues[0];
  return [{ message: issue.message, path: `/${issue.path.join("/")}` }];
}

/** A frame must be a JSON object (not null, an array or a scalar). */
const FrameObject = z.record(z.string(), z.unknown());

/** Ids given to requests that carry none, so that every answer names its request. */
let lastId = 0;

/**
 * A request's answer when it cannot be answered: a send's as any failed send, others named after
 * their method (Convos's way), carrying the request's `id` and `method`.
 */
function unanswered(req: Request | undefined, errors: ErrorItem[]): Answer {
  const { id = String(++lastId), method } = RequestHead.parse(req ?? {});
  if (method === "send") {
    const where = {
      connection_id: req?.connection_id,
      conversation_id: req?.conversation_id ?? "",
    };
    return { event: "sent", id, method, ...where, errors };
  }
  return { event: method ?? "error", id, ...(method ? { method } : {}), errors };
}

/**
 * Answers one request from the client; the answer carries the request's `id` and `method`.
 * `setHere` marks this socket's page as looked at or not (`presence`).
 */
function answer(
  deps: AppDeps,
  user: UserRecord,
  req: Request,
  setHere: (here: boolean) => void = () => {},
): Promise<Answer> {
  const head = RequestHead.parse(req);
  return answerMethod(deps, user, req, head.id ?? String(++lastId), head.method, setHere);
}

async function answerMethod(
  deps: AppDeps,
  user: UserRecord,
  req: Request,
  id: RequestId,
  method: string | undefined,
  setHere: (here: boolean) => void,
): Promise<Answer> {
  switch (method) {
    case "presence": {
      const parsed = PresenceRequest.safeParse(req);
      if (!parsed.success) {
        return { event: "presence", id, method, errors: firstIssue(parsed.error) };
      }
      setHere(parsed.data.here);
      return { event: "presence", id, method, here: parsed.data.here };
    }
    // Convos's client sends `{}` as its keepalive: a frame without a method is a ping.
    case undefined:
    case "ping":
      return { event: "pong", id, ...(method ? { method } : {}), ts: new Date().toISOString() };
    case "load": {
      const fresh = (await deps.store.users.byId(user.id)) ?? user;
      return {
        event: "load",
        id,
        method,
        user: await userJson(deps, fresh, { connections: true, conversations: true }),
      };
    }
    case "send": {
      const where = {
        connection_id: req.connection_id,
        conversation_id: req.conversation_id ?? "",
      };
      const parsed = SendRequest.safeParse(req);
      if (!parsed.success) {
        // Convos's words for a request that is not a send.
        return { event: "sent", id, method: "send", ...where, errors: firstIssue(parsed.error) };
      }
      const send = parsed.data;
      try {
        const result = await deps.irc.send(
          user.id,
          send.connection_id,
          send.conversation_id,
          send.message,
        );
        return {
          event: "sent",
          id,
          method: "send",
          connection_id: send.connection_id,
          conversation_id: send.conversation_id,
          message: send.message,
          // What the commands return (irc/chat/commands.ts) is declared once, as SendResult.
          ...result,
        };
      } catch (thrown) {
        // irc/chat/commands.ts throws domain errors.
        return { event: "sent", id, method: "send", ...where, errors: failure(deps, user, thrown) };
      }
    }
    default:
      // As Convos: the answer is an event named after the method.
      return {
        event: method,
        id,
        method,
        errors: [{ message: "Unknown method: use ping, load, send or presence.", path: "/method" }],
      };
  }
}

/** The /events route. */
export function eventRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get(
    "/events",
    upgradeWebSocket((c) => {
      const user = c.get("user");
      const sessionHash = c.get("sessionHash");
      const refusal = !user
        ? c.get("suspendedLogin") ? SUSPENDED : "Need to log in first."
        : isCrossSite(c, deps.config)
        ? "Cross-site WebSocket connections are not allowed."
        : undefined;
      let unsubscribe: (() => void) | undefined;
      /** This socket's listener on the bus (what `presence` marks). */
      let listener: ((ev: BusEvent) => void) | undefined;
      const setHere = (here: boolean) => {
        if (listener && user) deps.bus.setHere(user.id, listener, here);
      };
      let checker: ReturnType<typeof setInterval> | undefined;
      let answering = 0;
      // A socket lives only as long as its session: logout, a password change, a suspension or the
      // user's deletion ends the session, and the socket closes when told (SESSIONS_ENDED) or at
      // the next check (a session that expired, or one removed where no bus reaches: the shell).
      // While it is open, its session is in use.
      const sessionAlive = async () => {
        const s = sessionHash ? await deps.store.sessions.get(sessionHash) : undefined;
        if (!s || s.expires <= Date.now()) return false;
        // Recording the use is not worth a refused frame (a full disk refuses the write).
        await markUsed(deps, sessionHash!, s.expires).catch((err) =>
          log.debug("events: session use not recorded", { error: String(err) })
        );
        return true;
      };
      const endIfGone = async (ws: WSContext) => {
        if (await sessionAlive()) return true;
        send(ws, { event: "error", errors: [{ message: "The session has ended.", path: "/" }] });
        ws.close(POLICY_VIOLATION, "The session has ended.");
        return false;
      };
      const stop = () => {
        clearInterval(checker);
        unsubscribe?.();
        unsubscribe = undefined;
      };
      const send = (ws: WSContext, data: ServerFrame | UnknownMethodFrame) => {
        if (ws.readyState !== 1) return;
        if (((ws.raw as WebSocket | undefined)?.bufferedAmount ?? 0) > MAX_BUFFERED) {
          // Stop queueing at once: the close frame itself waits behind what the client never read.
          stop();
          log.info("events socket too far behind; closed", { uid: user?.id });
          ws.close(TRY_AGAIN_LATER, "Too far behind: reconnect to catch up.");
          return;
        }
        ws.send(JSON.stringify(data));
      };
      return {
        onOpen(_ev, ws) {
          if (refusal || !user) {
            send(ws, { event: "handshake", errors: [{ message: refusal ?? "", path: "/" }] });
            ws.close(POLICY_VIOLATION, refusal);
            return;
          }
          if (deps.bus.listenerCount(user.id) >= MAX_SOCKETS_PER_USER) {
            log.info("events socket refused: too many open", { uid: user.id });
            ws.close(TRY_AGAIN_LATER, "Too many open sockets: close some tabs.");
            return;
          }
          send(ws, { event: "handshake", uid: String(user.id) });
          const check = () =>
            void endIfGone(ws).catch((err) =>
              log.debug("events: session check failed; checked again later", {
                uid: user?.id,
                error: String(err),
              })
            );
          listener = (ev) => {
            if (ev.event === "sessions_ended") return check();
            // A sender's origin token and a line's first target (protocol/events.ts
            // BusMessageEvent) are the server's only.
            if (ev.event === "message" && ("origin" in ev || "to" in ev)) {
              const { origin: _origin, to: _to, ...shown } = ev as BusMessageEvent;
              send(ws, shown);
            } else send(ws, ev);
            // A clean "going away" close, so that clients reconnect quietly after a restart.
            if (ev.event === "shutdown") ws.close(GOING_AWAY, "Parley is shutting down.");
          };
          unsubscribe = deps.bus.subscribe(user.id, listener, sessionHash);
          checker = setInterval(check, deps.config.ircTiming.sessionCheck);
        },
        async onMessage(ev, ws) {
          if (!user || refusal) return;
          const size = typeof ev.data === "string"
            ? ev.data.length
            : ev.data instanceof Blob
            ? ev.data.size
            : ev.data.byteLength;
          if (size > MAX_FRAME_CHARS) {
            const message = "A frame is at most 1 MiB: send long text as a file.";
            send(ws, { event: "error", errors: [{ message, path: "/" }] });
            stop();
            ws.close(MESSAGE_TOO_BIG, "Frame too large.");
            return;
          }
          let req: Request | undefined;
          try {
            req = FrameObject.parse(JSON.parse(String(ev.data)));
          } catch { /* why: answered below, once the session is known to be alive */ }
          if (answering >= MAX_ANSWERING) {
            const { method } = RequestHead.parse(req ?? {});
            if (!req) {
              send(ws, INVALID_JSON);
            } else if (method === undefined || method === "ping") {
              send(ws, await answer(deps, user, req));
            } else {
              const message = "Too many requests at once: wait for their answers.";
              send(ws, unanswered(req, [{ message, path: "/" }]));
            }
            return;
          }
          answering++;
          // Every request is answered: a store that fails (a database not answering) gives an
          // error answer; an exception out of this handler would end the process.
          try {
            if (!(await endIfGone(ws))) return;
            if (!req) {
              send(ws, INVALID_JSON);
              return;
            }
            send(ws, await answer(deps, user, req, setHere));
          } catch (thrown) {
            send(ws, unanswered(req, failure(deps, user, thrown)));
          } finally {
            answering--;
          }
        },
        onClose() {
          stop();
        },
      };
    }),
  );
  app.get(
    "/events",
    (c) => c.json({ errors: [{ message: "Expected a WebSocket.", path: "/" }] }, 400),
  );

  return app;
}

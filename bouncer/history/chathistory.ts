/**
 * `CHATHISTORY LATEST|BEFORE|AFTER|AROUND|BETWEEN target ref [ref] limit` and `CHATHISTORY
 * TARGETS ref ref limit`, answered from the store: oldest first, bounds excluded, at most the
 * limit, in a `chathistory` (or `draft/chathistory-targets`) batch, empty when nothing matches;
 * a FAIL line for a request that cannot be answered.
 */
import { ircLine } from "../../irc/protocol/message.ts";
import { log } from "../../lib/log.ts";
import type { HistoryLine, LineRange } from "../../store/history_types.ts";
import { historyLine, inBatch, ircTime } from "./lines.ts";
import { batchId } from "../batch_id.ts";
import {
  CHATHISTORY_LIMIT,
  type HistoryLines,
  type HistoryParts,
  type HistoryScope,
} from "./mod.ts";
import { echo, isTargetWord, parseLimit, parseRef, type Ref } from "./refs.ts";
import { conversationOf, lineTarget } from "./target.ts";
import { repliesOf } from "./replies.ts";

/** Thrown to answer with a FAIL line. */
class Fail extends Error {
  constructor(readonly code: string, readonly words: string[], readonly text: string) {
    super(text);
  }
}

const fail = (code: string, words: string[], text: string) => new Fail(code, words, text);

/** Times of the store beyond every stored line, as range bounds. */
const NONE_BEFORE = -1;
const NONE_AFTER = Number.MAX_SAFE_INTEGER;

/** How many words each subcommand takes after its name. */
const ARITY: Record<string, number> = {
  LATEST: 3,
  BEFORE: 3,
  AFTER: 3,
  AROUND: 3,
  BETWEEN: 4,
  TARGETS: 3,
};

/** Answers one CHATHISTORY request. */
export async function chathistory(
  parts: HistoryParts,
  scope: HistoryScope,
  params: string[],
  opts: { batch: boolean; eventPlayback: boolean },
): Promise<HistoryLines> {
  const sub = (params[0] ?? "").toUpperCase();
  try {
    if (!(sub in ARITY)) throw fail("INVALID_PARAMS", [echo(params[0])], "Unknown subcommand");
    if (params.length !== ARITY[sub] + 1) {
      throw fail("INVALID_PARAMS", [sub], `${sub} takes ${ARITY[sub]} parameters`);
    }
    if (sub === "TARGETS") return await targets(parts, scope, params.slice(1), opts);
    return await lines(parts, scope, sub, params.slice(1), opts);
  } catch (err) {
    if (err instanceof Fail) {
      return [`FAIL CHATHISTORY ${err.code} ${[...err.words, `:${err.text}`].join(" ")}`];
    }
    log.warn("chathistory failed", { error: String(err) });
    return [`FAIL CHATHISTORY MESSAGE_ERROR ${sub || "*"} :Messages could not be retrieved`];
  }
}

/** A reference word read, or the FAIL it deserves. */
function ref(sub: string, w: string, star = false): Ref {
  const r = parseRef(w, star);
  if (r === "reftype") throw fail("INVALID_MSGREFTYPE", [sub, echo(w)], "Unknown reference type");
  if (r === "invalid") throw fail("INVALID_PARAMS", [sub, echo(w)], "Invalid message reference");
  return r;
}

/** The microseconds a reference's millisecond spans. */
const low = (ms: number) => ms * 1000;
const high = (ms: number) => ms * 1000 + 999;

async function lines(
  parts: HistoryParts,
  scope: HistoryScope,
  sub: string,
  words: string[],
  opts: { batch: boolean; eventPlayback: boolean },
): Promise<HistoryLines> {
  const [target, first] = words;
  if (!isTargetWord(target)) throw fail("INVALID_TARGET", [sub, echo(target)], "Invalid target");
  const a = ref(sub, first, sub === "LATEST");
  const b = sub === "BETWEEN" ? ref(sub, words[2]) : undefined;
  const limit = parseLimit(words.at(-1)!, CHATHISTORY_LIMIT);
  if (limit === undefined) throw fail("INVALID_PARAMS", [sub, echo(words.at(-1))], "Invalid limit");

  const conv = await conversationOf(parts, scope, target);
  for (const r of [a, b]) {
    if (r?.kind !== "msgid") continue;
    // A msgid names one stored line of this conversation, or nothing.
    const found = conv && r.conversation === conv.id &&
      (await parts.history.lines(conv.id, {
          after: low(r.ms) - 1,
          before: high(r.ms) + 1,
          limit: 1,
          newest: false,
          events: true,
        })).length > 0;
    if (!found) throw fail("MESSAGE_ERROR", [sub, echo(target)], "Unknown msgid");
  }
  const batch = opts.batch ? batchId() : undefined;
  const name = conv ? lineTarget(conv, scope).name : target;
  if (!conv) return inBatch(batch, "chathistory", [name], []); // nothing was ever said there
  const events = opts.eventPlayback;
  const range = (r: Omit<LineRange, "events">) => parts.history.lines(conv.id, { ...r, events });
  let got: HistoryLine[];
  const at = a.kind === "latest" ? 0 : a.ms;
  switch (sub) {
    case "LATEST":
      got = await range({
        after: a.kind === "latest" ? NONE_BEFORE : high(at),
        before: NONE_AFTER,
        limit,
        newest: true,
      });
      break;
    case "BEFORE":
      got = await range({ after: NONE_BEFORE, before: low(at), limit, newest: true });
      break;
    case "AFTER":
      got = await range({ after: high(at), before: NONE_AFTER, limit, newest: false });
      break;
    case "AROUND": {
      // Half before it; the line it names (when there is one) and the rest from it on.
      const older = Math.floor(limit / 2);
      const before = older
        ? await range({ after: NONE_BEFORE, before: low(at), limit: older, newest: true })
        : [];
      const after = await range({
        after: low(at) - 1,
        before: NONE_AFTER,
        limit: limit - older,
        newest: false,
      });
      got = [...before, ...after];
      break;
    }
    default: {
      // BETWEEN: from the first reference towards the second, whichever way that is.
      const end = (b as Exclude<Ref, { kind: "latest" }>).ms;
      if (at === end) got = [];
      else if (at < end) {
        got = await range({ after: high(at), before: low(end), limit, newest: false });
      } else got = await range({ after: high(end), before: low(at), limit, newest: true });
    }
  }
  const t = lineTarget(conv, scope);
  const replies = await repliesOf(parts.history, got);
  const body = got.map((l) => historyLine(l, t, batch, replies)).filter((l): l is string => !!l);
  return inBatch(batch, "chathistory", [t.name], body);
}

async function targets(
  parts: HistoryParts,
  scope: HistoryScope,
  words: string[],
  opts: { batch: boolean; eventPlayback: boolean },
): Promise<HistoryLines> {
  const [a, b] = [ref("TARGETS", words[0]), ref("TARGETS", words[1])];
  if (a.kind !== "timestamp" || b.kind !== "timestamp") {
    throw fail("INVALID_PARAMS", ["TARGETS"], "TARGETS takes two timestamps");
  }
  const limit = parseLimit(words[2], CHATHISTORY_LIMIT);
  if (limit === undefined) {
    throw fail("INVALID_PARAMS", ["TARGETS", echo(words[2])], "Invalid limit");
  }
  const forward = a.ms <= b.ms;
  const [lo, hi] = forward ? [a.ms, b.ms] : [b.ms, a.ms];
  const found = lo === hi ? [] : await parts.history.targets(scope.connection.id, {
    after: high(lo),
    before: low(hi),
    limit,
    newest: !forward,
    events: opts.eventPlayback,
  });
  const batch = opts.batch ? batchId() : undefined;
  const tag = batch ? `@batch=${batch} ` : "";
  const body = found.map((x) =>
    `${tag}${ircLine("CHATHISTORY", "TARGETS", echoName(x.name), ircTime(x.latest))}`
  );
  return inBatch(batch, "draft/chathistory-targets", [], body);
}

/** A stored name as one word. */
const echoName = (name: string) => name.replace(/[\s\0:,]/g, "").slice(0, 200) || "*";

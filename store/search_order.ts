/**
 * The order of search results across conversations: newest first by the messages' own times (a
 * replayed or imported line is stored after newer ones), the later stored first at one instant.
 * The searches find candidates in storage order, which is cheap to walk; these say when enough
 * have been read and cut the page so that `before` (a time) walks on without gaps or repeats.
 */
import { formatMicros } from "../protocol/time.ts";
import type { MessagePage } from "../protocol/messages.ts";
import { type Row, toJson } from "./rows.ts";

/** `rows` newest first by time, then by id. */
export function byTime<R extends Row>(rows: R[]): R[] {
  return rows.sort((a, b) => b.ts - a.ts || b.id - a.id);
}

/**
 * The time every row of a page of `limit` is at or after, once `rows` (candidates, any order)
 * hold more than `limit`; undefined before. A row not read yet belongs in the page only if it is
 * at or after this time: when none is, the candidates are enough.
 */
export function pageFloor(rows: Row[], limit: number): number | undefined {
  if (rows.length <= limit) return undefined;
  return byTime([...rows])[limit].ts;
}

/**
 * The page of `sorted` (byTime, holding every row at or after pageFloor; `complete` when it holds
 * every match): `limit` rows, `end` when nothing older is left, else `before`. A page never ends
 * inside one instant (`before` would skip the rest of it): it stops before it, or, when more than
 * `limit` rows share the newest instant, holds all of them.
 */
export function timePage(sorted: Row[], limit: number, complete: boolean): MessagePage {
  let n = sorted.length;
  if (n > limit) {
    const next = sorted[limit].ts;
    n = limit;
    while (n > 0 && sorted[n - 1].ts === next) n--;
    if (n === 0) {
      n = limit;
      while (n < sorted.length && sorted[n].ts === next) n++;
    }
  }
  const rows = sorted.slice(0, n);
  const end = (complete && n === sorted.length) || !rows.length;
  return {
    messages: rows.map(toJson),
    end,
    ...(end ? {} : { before: formatMicros(rows[n - 1].ts) }),
  };
}

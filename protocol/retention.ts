/**
 * Message retention as people write it: a number of days, weeks or years (`365d`, `12w`, `1y`),
 * or `0` (and empty) to keep everything. Shared by the configuration and the admin setting.
 */

/** The written forms; the unit is required, so `30` is not read as seconds or minutes. */
const RETENTION_FORM = /^\s*(?:0|(\d{1,5})\s*([dwy]))\s*$/i;

/** Longest retention there is a point in naming: a hundred years. */
const MAX_RETENTION_DAYS = 36_500;

const DAYS: Record<string, number> = { d: 1, w: 7, y: 365 };

/** The days a retention keeps (0: everything), or undefined when `text` is not one. */
export function retentionDays(text: string): number | undefined {
  if (text.trim() === "") return 0;
  const m = RETENTION_FORM.exec(text);
  if (!m) return undefined;
  if (!m[1]) return 0;
  const days = Number(m[1]) * DAYS[m[2].toLowerCase()];
  return days >= 1 && days <= MAX_RETENTION_DAYS ? days : undefined;
}

/** The message for a retention that cannot be read (the admin route and the variable). */
export const RETENTION_ERROR =
  "Message retention must be a number of days, weeks or years such as 365d, 12w or 1y (at most 100y), or 0 to keep everything.";

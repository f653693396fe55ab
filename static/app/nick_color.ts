/** A stable colour per nick, readable on both light and dark backgrounds. */

/** A hue (0-359) derived from the nick, case-insensitively. */
export function nickHue(nick: string): number {
  let h = 2166136261;
  for (const ch of nick.toLowerCase()) {
    h ^= ch.codePointAt(0)!;
    h = Math.imul(h, 16777619);
  }
  return (h >>> 0) % 360;
}

/** A CSS colour for the nick; lightness comes from the theme's `--nick-l` variable. */
export function nickColor(nick: string): string {
  return `hsl(${nickHue(nick)} 65% var(--nick-l, 40%))`;
}

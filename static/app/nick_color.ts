/** A stable colour per nick, readable on both light and dark backgrounds. */

/** A hash of the nick, case-insensitively (FNV-1a). */
function hash(nick: string): number {
  let h = 2166136261;
  for (const ch of nick.toLowerCase()) {
    h ^= ch.codePointAt(0)!;
    h = Math.imul(h, 16777619);
  }
  return h >>> 0;
}

/** How many colours there are: 16 hues, each in a lighter and a darker shade. */
export const NICK_COLOURS = 32;

/** A hue (0-359) derived from the nick: one of 16 hues 22.5 degrees apart. */
export function nickHue(nick: string): number {
  return (hash(nick) % 16) * 22.5;
}

/** Which of the NICK_COLOURS the nick gets. */
export function nickColourIndex(nick: string): number {
  return hash(nick) % NICK_COLOURS;
}

/**
 * A CSS colour for the nick. Hues alone are too close to tell apart (a smooth hash gives many
 * near-equal ones), so the palette spaces 16 hues evenly and gives each two shades; lightness
 * comes from the theme's `--nick-l` variable so both themes stay readable.
 */
export function nickColor(nick: string): string {
  const i = nickColourIndex(nick);
  const hue = (i % 16) * 22.5;
  const shade = i < 16 ? "- 7%" : "+ 5%";
  const sat = i < 16 ? 70 : 55;
  return `hsl(${hue} ${sat}% calc(var(--nick-l, 40%) ${shade}))`;
}

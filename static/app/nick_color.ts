/** A stable colour per nick, readable on both light and dark backgrounds. */
import { fromHsl, parseHex, readable, type Rgb, type Theme, toHex } from "./contrast.ts";

/** A hash of the nick, case-insensitively (FNV-1a). */
function hash(nick: string): number {
  let h = 2166136261;
  for (const ch of nick.toLowerCase()) {
    h ^= ch.codePointAt(0)!;
    h = Math.imul(h, 16777619);
  }
  return h >>> 0;
}

/**
 * How many colours there are: 16 hues, each in a lighter and a darker shade.
 *
 * @internal test seam
 */
export const NICK_COLOURS = 32;

/** Which of the NICK_COLOURS the nick gets. */
function nickColourIndex(nick: string): number {
  return hash(nick) % NICK_COLOURS;
}

/**
 * The nick colour `i` in `theme`: its hue and shade, then made readable on that theme.
 *
 * @internal test seam
 */
export function nickRgb(i: number, theme: Theme): Rgb {
  const hue = (i % 16) * 22.5;
  const sat = i < 16 ? 0.7 : 0.55;
  // The lighter shade and the darker one around the theme's base lightness.
  const l = (theme === "light" ? 0.38 : 0.7) + (i < 16 ? -0.07 : 0.05);
  return readable(parseHex(toHex(fromHsl(hue, sat, l))), theme);
}

const cache: string[] = [];

/**
 * A CSS colour for the nick. Hues alone are too close to tell apart (a smooth hash gives many
 * near-equal ones), so the palette spaces 16 hues evenly and gives each two shades; each is
 * made readable (4.5:1) on the light and the dark theme, and light-dark() picks the one in use.
 */
export function nickColor(nick: string): string {
  const i = nickColourIndex(nick);
  return cache[i] ??= `light-dark(${toHex(nickRgb(i, "light"))}, ${toHex(nickRgb(i, "dark"))})`;
}

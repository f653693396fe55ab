/**
 * Text colours made readable on the theme they are drawn on: WCAG's contrast ratio, and a
 * colour moved in lightness only (its hue and saturation kept, so it stays recognisable) until
 * it reaches 4.5:1 against every surface a line of text sits on in that theme.
 */

export type Rgb = [number, number, number];
export type Theme = "light" | "dark";

/**
 * WCAG AA for normal text.
 *
 * @internal test seam
 */
export const MIN_CONTRAST = 4.5;

export function parseHex(hex: string): Rgb {
  const h = hex.replace("#", "");
  return [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16)) as Rgb;
}

export function toHex(c: Rgb): string {
  return "#" + c.map((v) => Math.round(v).toString(16).padStart(2, "0")).join("");
}

/** A translucent colour laid over an opaque one. */
function over(top: Rgb, alpha: number, base: Rgb): Rgb {
  return top.map((v, i) => v * alpha + base[i] * (1 - alpha)) as Rgb;
}

function luminance(c: Rgb): number {
  const [r, g, b] = c.map((v) => {
    const s = v / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/**
 * WCAG's contrast ratio of two colours, 1 to 21.
 *
 * @internal test seam
 */
export function contrast(a: Rgb, b: Rgb): number {
  const la = luminance(a), lb = luminance(b);
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

function toHsl([r, g, b]: Rgb): [number, number, number] {
  r /= 255, g /= 255, b /= 255;
  const max = Math.max(r, g, b), min = Math.min(r, g, b);
  const l = (max + min) / 2;
  if (max === min) return [0, 0, l];
  const d = max - min;
  const s = l > 0.5 ? d / (2 - max - min) : d / (max + min);
  const h = max === r
    ? (g - b) / d + (g < b ? 6 : 0)
    : max === g
    ? (b - r) / d + 2
    : (r - g) / d + 4;
  return [h * 60, s, l];
}

export function fromHsl(h: number, s: number, l: number): Rgb {
  const k = (n: number) => (n + h / 30) % 12;
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => l - a * Math.max(-1, Math.min(k(n) - 3, 9 - k(n), 1));
  return [f(0) * 255, f(8) * 255, f(4) * 255];
}

/**
 * Every surface text is drawn on, per theme (app.css): the page, raised panels, the sidebar,
 * and the tints laid over the page (hover, a highlight, the user's own lines, the current row).
 */
const LIGHT_BG = parseHex("#f7f7f5"), DARK_BG = parseHex("#16181d");
/** @internal test seam */
export const SURFACES: Record<Theme, Rgb[]> = {
  light: [
    LIGHT_BG,
    parseHex("#ffffff"),
    parseHex("#eeeeeb"),
    over([0, 0, 0], 0.05, parseHex("#eeeeeb")),
    over([255, 196, 0], 0.16, LIGHT_BG),
    over([0, 0, 0], 0.05, over([255, 196, 0], 0.16, LIGHT_BG)),
    over([59, 91, 219], 0.12, parseHex("#eeeeeb")),
    over([0, 0, 0], 0.05, over([59, 91, 219], 0.07, LIGHT_BG)),
  ],
  dark: [
    DARK_BG,
    parseHex("#1e2128"),
    parseHex("#111317"),
    over([255, 255, 255], 0.06, parseHex("#1e2128")),
    over([255, 196, 0], 0.12, DARK_BG),
    over([255, 255, 255], 0.06, over([255, 196, 0], 0.12, DARK_BG)),
    over([116, 143, 252], 0.18, parseHex("#1e2128")),
    over([255, 255, 255], 0.06, over([116, 143, 252], 0.1, DARK_BG)),
  ],
};

/** The lowest contrast of `c` against the theme's surfaces. */
function worstContrast(c: Rgb, theme: Theme): number {
  return Math.min(...SURFACES[theme].map((bg) => contrast(c, bg)));
}

/**
 * `c` if it is readable in `theme`, else the nearest colour of the same hue and saturation
 * that is: darker on the light theme, lighter on the dark one.
 */
export function readable(c: Rgb, theme: Theme): Rgb {
  if (worstContrast(c, theme) >= MIN_CONTRAST) return c;
  const [h, s, l0] = toHsl(c);
  const step = theme === "light" ? -0.01 : 0.01;
  for (let l = l0; l >= 0 && l <= 1; l += step) {
    const out = fromHsl(h, s, l);
    // Rounded as it will be written, so the written colour is the one that passed.
    const written = parseHex(toHex(out));
    if (worstContrast(written, theme) >= MIN_CONTRAST) return written;
  }
  return theme === "light" ? [0, 0, 0] : [255, 255, 255];
}

/** The readable lightness nearest the page for a hue and saturation: the most a colour can have. */
function limit(h: number, s: number, theme: Theme): number {
  const ok = (l: number) => worstContrast(parseHex(toHex(fromHsl(h, s, l))), theme) >= MIN_CONTRAST;
  let l = theme === "light" ? 1 : 0;
  while (l >= 0 && l <= 1 && !ok(l)) l += theme === "light" ? -0.005 : 0.005;
  return Math.min(1, Math.max(0, l));
}

/**
 * A palette colour made readable in `theme` while told apart from its neighbours of the same hue
 * (mIRC's red and dark red, blue and navy): lightnesses past the readable limit are not all set to
 * it, but a part of the readable range next to the limit is squeezed to hold them all, in their order.
 */
function scaled(c: Rgb, theme: Theme): Rgb {
  const [h, s, l] = toHsl(c);
  const lim = limit(h, s, theme);
  let out: number;
  if (theme === "light") {
    const knee = lim * 0.8;
    out = l <= knee ? l : knee + (l - knee) * (lim - knee) / (1 - knee);
  } else {
    const knee = lim + (1 - lim) * 0.5;
    out = l >= knee ? l : lim + l * (knee - lim) / knee;
  }
  return readable(parseHex(toHex(fromHsl(h, s, out))), theme);
}

/** A CSS colour that is `hex` made readable in each theme, chosen by the page's color-scheme. */
export function themed(hex: string, palette = false): string {
  const c = parseHex(hex);
  const f = palette ? scaled : readable;
  return `light-dark(${toHex(f(c, "light"))}, ${toHex(f(c, "dark"))})`;
}

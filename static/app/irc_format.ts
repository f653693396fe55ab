/** Parses IRC formatting codes into styled text runs; pure, so it is rendered without innerHTML. */
import { themed } from "./contrast.ts";

/** One run of text with the styles that apply to it. */
export interface Run {
  text: string;
  bold?: boolean;
  italic?: boolean;
  underline?: boolean;
  strike?: boolean;
  mono?: boolean;
  reverse?: boolean;
  /** Foreground colour: an mIRC colour number 0-98 or a `#rrggbb` hex colour. */
  fg?: number | string;
  bg?: number | string;
}

type Style = Omit<Run, "text">;

const BOLD = "\x02", ITALIC = "\x1d", UNDERLINE = "\x1f", STRIKE = "\x1e", MONO = "\x11";
const COLOR = "\x03", HEX = "\x04", REVERSE = "\x16", RESET = "\x0f";

/**
 * The 16 standard mIRC colours (codes 16-98 are mapped by the renderer's palette too).
 *
 * @internal test seam
 */
export const PALETTE = [
  "#ffffff",
  "#000000",
  "#00007f",
  "#009300",
  "#ff0000",
  "#7f0000",
  "#9c009c",
  "#fc7f00",
  "#ffff00",
  "#00fc00",
  "#009393",
  "#00ffff",
  "#0000fc",
  "#ff00ff",
  "#7f7f7f",
  "#d2d2d2",
];

/** A CSS colour for an mIRC colour number or hex string, or undefined for "default". */
export function cssColor(c: number | string | undefined): string | undefined {
  if (c === undefined) return undefined;
  if (typeof c === "string") return c;
  return c >= 0 && c < PALETTE.length ? PALETTE[c] : undefined;
}

const readableCache = new Map<number | string, string>();

/**
 * The colour for text drawn on the page itself (no background colour of its own): the mIRC or
 * hex colour made readable on each theme (IRC blue on the dark theme, white on the light one),
 * keeping its hue. A foreground given with its own background keeps its colour (cssColor).
 */
export function textColor(c: number | string | undefined): string | undefined {
  const css = cssColor(c);
  if (css === undefined || !/^#[0-9a-f]{6}$/i.test(css)) return css;
  let out = readableCache.get(c!);
  if (out === undefined) {
    // Hex colours are free-form: the cache stays bounded whatever a channel sends.
    if (readableCache.size > 512) readableCache.clear();
    readableCache.set(c!, out = themed(css, typeof c === "number"));
  }
  return out;
}

/** Splits `input` into runs; control characters never reach the output text. */
export function parseFormatting(input: string): Run[] {
  const runs: Run[] = [];
  let style: Style = {};
  let text = "";
  const flush = () => {
    if (text) runs.push({ text, ...style });
    text = "";
  };
  const toggle = (key: "bold" | "italic" | "underline" | "strike" | "mono" | "reverse") => {
    flush();
    style = { ...style };
    if (style[key]) delete style[key];
    else style[key] = true;
  };
  for (let i = 0; i < input.length; i++) {
    const ch = input[i];
    switch (ch) {
      case BOLD:
        toggle("bold");
        break;
      case ITALIC:
        toggle("italic");
        break;
      case UNDERLINE:
        toggle("underline");
        break;
      case STRIKE:
        toggle("strike");
        break;
      case MONO:
        toggle("mono");
        break;
      case REVERSE:
        toggle("reverse");
        break;
      case RESET:
        flush();
        style = {};
        break;
      case COLOR: {
        flush();
        style = { ...style };
        const m = /^(\d{1,2})?(?:,(\d{1,2}))?/.exec(input.slice(i + 1))!;
        const fg = m[1];
        const bg = fg !== undefined ? m[2] : undefined;
        if (fg === undefined) {
          delete style.fg;
          delete style.bg;
          // "\x03,5" without a foreground is not a colour: the comma stays text.
          i += 0;
        } else {
          style.fg = Number(fg);
          if (bg !== undefined) style.bg = Number(bg);
          i += fg.length + (bg !== undefined ? bg.length + 1 : 0);
        }
        break;
      }
      case HEX: {
        flush();
        style = { ...style };
        const m = /^([0-9a-fA-F]{6})?(?:,([0-9a-fA-F]{6}))?/.exec(input.slice(i + 1))!;
        if (m[1] === undefined) {
          delete style.fg;
          delete style.bg;
        } else {
          style.fg = "#" + m[1].toLowerCase();
          if (m[2] !== undefined) style.bg = "#" + m[2].toLowerCase();
          i += m[0].length;
        }
        break;
      }
      default: {
        const code = ch.charCodeAt(0);
        // Other C0 controls (bell, etc.) are dropped; tabs become spaces.
        if (code === 9) text += " ";
        else if (code >= 32 || code === 10) text += ch;
      }
    }
  }
  flush();
  return runs;
}

/** The text without any formatting codes (for search, notifications and titles). */
export function stripFormatting(input: string): string {
  return parseFormatting(input).map((r) => r.text).join("");
}

/** A piece of plain text: either text or a link. */
interface Piece {
  text: string;
  href?: string;
}

const URL_RE = /\bhttps?:\/\/[^\s<>"'`]+/gi;

/** Splits text into plain pieces and http(s) links; trailing punctuation stays outside links. */
export function linkify(text: string): Piece[] {
  const out: Piece[] = [];
  let last = 0;
  for (const m of text.matchAll(URL_RE)) {
    let url = m[0];
    // Drop trailing punctuation, and a closing bracket that has no opening one in the URL.
    while (/[.,;:!?)\]}]$/.test(url)) {
      const end = url[url.length - 1];
      const open = end === ")" ? "(" : end === "]" ? "[" : end === "}" ? "{" : "";
      if (open && url.split(open).length > url.split(end).length - 1) break;
      url = url.slice(0, -1);
    }
    const start = m.index!;
    if (start > last) out.push({ text: text.slice(last, start) });
    out.push({ text: url, href: url });
    last = start + url.length;
  }
  if (last < text.length) out.push({ text: text.slice(last) });
  return out;
}

/** Every link in a message, in order, without duplicates. */
export function findLinks(input: string): string[] {
  const links = linkify(stripFormatting(input)).filter((p) => p.href).map((p) => p.href!);
  return [...new Set(links)];
}

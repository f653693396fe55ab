/** Renders IRC-formatted text as styled spans and links: never as HTML. */
import { nickColor } from "../nick_color.ts";
import { cssColor, linkify, parseFormatting, type Run, textColor } from "../irc_format.ts";

function runStyle(r: Run): Record<string, string> | undefined {
  const s: Record<string, string> = {};
  // Text on the page's own background is made readable on the theme; on a colour it names, not.
  let fg = r.bg === undefined && !r.reverse ? textColor(r.fg) : cssColor(r.fg), bg = cssColor(r.bg);
  if (r.reverse) [fg, bg] = [bg ?? "var(--bg)", fg ?? "var(--fg)"];
  if (fg) s.color = fg;
  if (bg) s.backgroundColor = bg;
  return fg || bg ? s : undefined;
}

function runClass(r: Run): string | undefined {
  const c = [
    r.bold && "b",
    r.italic && "i",
    r.underline && "u",
    r.strike && "s",
    r.mono && "m",
  ].filter(Boolean).join(" ");
  return c || undefined;
}

// Words that may be nicks: letters, digits and the special characters RFC 2812 allows.
const WORD = /([\p{L}\p{N}_\-\[\]\\`^{}|]{2,})/u;

/** Plain text with the nicks it mentions in their colour. */
function withNicks(text: string, nicks: Set<string> | undefined) {
  if (!nicks?.size) return text;
  const parts = text.split(WORD);
  if (parts.length === 1) return text;
  return parts.map((w, i) =>
    i % 2 && nicks.has(w.toLowerCase())
      ? <span key={i} class="mention-nick" style={{ color: nickColor(w) }}>{w}</span>
      : w
  );
}

/** The message text with formatting, clickable links and coloured mentions of known `nicks`. */
export function MessageText(p: { text: string; nicks?: Set<string> }) {
  return (
    <>
      {parseFormatting(p.text).map((run, i) => {
        const pieces = linkify(run.text).map((piece, j) =>
          piece.href
            ? (
              <a key={j} href={piece.href} target="_blank" rel="noopener noreferrer nofollow">
                {piece.text}
              </a>
            )
            : withNicks(piece.text, p.nicks)
        );
        const cls = runClass(run), style = runStyle(run);
        return cls || style ? <span key={i} class={cls} style={style}>{pieces}</span> : pieces;
      })}
    </>
  );
}

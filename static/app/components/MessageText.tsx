/** Renders IRC-formatted text as styled spans and links: never as HTML. */
import { cssColor, linkify, parseFormatting, type Run } from "../irc_format.ts";

function runStyle(r: Run): Record<string, string> | undefined {
  const s: Record<string, string> = {};
  let fg = cssColor(r.fg), bg = cssColor(r.bg);
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

/** The message text with formatting and clickable links. */
export function MessageText(p: { text: string }) {
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
            : piece.text
        );
        const cls = runClass(run), style = runStyle(run);
        return cls || style ? <span key={i} class={cls} style={style}>{pieces}</span> : pieces;
      })}
    </>
  );
}

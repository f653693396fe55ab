/**
 * The capabilities Parley offers an attached client, and one client's negotiation: `CAP LS 302`
 * (values, several lines when long), REQ (all or nothing), LIST, END. A client gets only the tags
 * and lines of what it asked for (relay.ts filters by `Caps.has`).
 */

/** A capability and its value in `CAP LS 302`. */
interface Offer {
  name: string;
  value?: string;
}

/** Everything offered, in the order CAP LS lists it. */
export const OFFERED: readonly Offer[] = [
  { name: "sasl", value: "PLAIN" },
  { name: "server-time" },
  { name: "message-tags" },
  { name: "batch" },
  { name: "echo-message" },
  { name: "labeled-response" },
  { name: "cap-notify" },
  { name: "draft/chathistory" },
  { name: "draft/event-playback" },
  { name: "draft/read-marker" },
  { name: "away-notify" },
  { name: "account-notify" },
  { name: "extended-join" },
  { name: "multi-prefix" },
  { name: "setname" },
  { name: "invite-notify" },
  { name: "chghost" },
  { name: "soju.im/bouncer-networks" },
  { name: "soju.im/bouncer-networks-notify" },
  { name: "soju.im/search" },
  { name: "soju.im/webpush" },
];

const NAMES = new Set(OFFERED.map((o) => o.name));

/** At most this many bytes of capabilities per `CAP LS` line (a line is 512 with its prefix). */
const LS_LINE_BYTES = 380;

/** One client's negotiated capabilities. */
export class Caps {
  #on = new Set<string>();
  /** The CAP version the client announced (302 gives values and cap-notify). */
  version = 0;
  /** Negotiation began and has not ended: registration waits for CAP END. */
  negotiating = false;

  has(name: string): boolean {
    return this.#on.has(name);
  }

  list(): string[] {
    return [...this.#on];
  }

  /** The capabilities another node negotiated with a client it hands over. */
  restore(names: string[], version: number): void {
    this.version = version;
    for (const name of names) if (NAMES.has(name) || name === "cap-notify") this.#on.add(name);
  }

  /**
   * The `CAP * LS` parameter lists: several when they do not fit one line (all but the last are
   * sent with `*` before them, as CAP LS 302 says).
   */
  ls(version: number): string[][] {
    if (version > this.version) this.version = version;
    if (this.version >= 302) this.#on.add("cap-notify"); // implied by 302
    const words = OFFERED.map((o) =>
      this.version >= 302 && o.value ? `${o.name}=${o.value}` : o.name
    );
    const lines: string[][] = [];
    let cur: string[] = [];
    for (const w of words) {
      if (cur.length && [...cur, w].join(" ").length > LS_LINE_BYTES) {
        lines.push(cur);
        cur = [];
      }
      cur.push(w);
    }
    lines.push(cur);
    return lines;
  }

  /**
   * Applies a REQ: every named capability known (and `-name` to turn one off), else none of them.
   * Returns whether it was acknowledged.
   */
  request(text: string): boolean {
    const words = text.split(" ").filter(Boolean);
    if (!words.length || words.length > OFFERED.length * 2) return false;
    const ok = words.every((w) => NAMES.has(w.replace(/^-/, "")));
    if (!ok) return false;
    for (const w of words) {
      if (w.startsWith("-")) this.#on.delete(w.slice(1));
      else this.#on.add(w);
    }
    return true;
  }
}

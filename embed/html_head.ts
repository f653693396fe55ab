/**
 * Reads what a page says about itself from its `<head>`, with htmlparser2's streaming tokenizer.
 *
 * Why the tokenizer alone: it is a state machine that looks at each character a bounded number
 * of times (an entity's look-ahead is at most the longest entity name), so its work grows linearly
 * with the input, and it decodes character references itself. htmlparser2's `Parser`, the tree
 * builder on top of it, is not used: it keeps the open elements in an array that it shifts and
 * searches on every tag, which is quadratic (256 KB of unclosed `<i>` took 2.7 s). The callbacks
 * here keep no element stack and copy only the few values they need, each capped, so one write
 * costs time in proportion to its length; the caller bounds the input (256 KB, embed/embed.ts).
 */
import { Tokenizer, type TokenizerCallbacks } from "htmlparser2";

/**
 * Bounds of what one page may cost, whatever it holds.
 *
 * @internal test seam
 */
export const HEAD_LIMITS = {
  /** Tokenizer events (tags, attributes, texts, comments, entities); past this the head is over. */
  tokens: 20_000,
  /** Characters kept of one attribute value or of the title. */
  valueChars: 8192,
  /** Attributes kept of one `<meta>` or `<link>`. */
  attributes: 32,
};

/** What a page's head holds, raw (decoded but not cleaned up or resolved). */
export interface HeadData {
  /** `<meta property|name="key" content="...">`: the first content of each key, keys lower case. */
  meta: Map<string, string>;
  /** The first `<title>`'s text. */
  title?: string;
  /** The `href` of the first `<link rel="alternate" type="application/json+oembed">`. */
  oembed?: string;
  /** From `<meta charset>` or `<meta http-equiv="content-type" content="...; charset=...">`. */
  charset?: string;
}

/** The charset named in a Content-Type value, if any. */
export function charsetOfType(contentType: string): string | undefined {
  return /charset\s*=\s*["']?([\w.:-]+)/i.exec(contentType)?.[1];
}

/** Tag names longer than this are none of the few this reader cares about. */
const NAME_CHARS = 32;

/** Feeds text to the tokenizer piece by piece and collects the head's data until the head ends. */
export class HeadReader {
  readonly data: HeadData = { meta: new Map() };
  /** Tokenizer events seen: the work done, bounded by HEAD_LIMITS.tokens. */
  tokens = 0;
  /** Characters written. */
  chars = 0;
  #done = false;
  #tokenizer: Tokenizer;
  // The pieces written that a pending token may still point into (the tokenizer reports ranges
  // of the whole stream); `#first` is the first still needed, `#firstAt` its stream offset.
  #pieces: string[] = [];
  #first = 0;
  #firstAt = 0;
  #tag = "";
  #attrs: Map<string, string> | undefined;
  #attrName = "";
  #attrValue = "";
  #inTitle = false;

  constructor() {
    this.#tokenizer = new Tokenizer({ decodeEntities: true }, this.#callbacks());
  }

  /** `</head>` or `<body>` was seen (or the token bound reached): nothing more is needed. */
  get done(): boolean {
    return this.#done;
  }

  /** Reads a piece of the page; true once the head is over. */
  write(text: string): boolean {
    if (this.#done || !text) return this.#done;
    this.chars += text.length;
    this.#pieces.push(text);
    this.#tokenizer.write(text);
    return this.#done;
  }

  /** The end of the input; returns what was found. */
  end(): HeadData {
    if (!this.#done) {
      this.#tokenizer.end();
      this.#finish();
    }
    return this.data;
  }

  #finish(): void {
    this.#done = true;
    this.#inTitle = false;
    this.#attrs = undefined;
    this.#tokenizer.pause();
    this.#pieces = [];
  }

  /** Counts one event; false (and the head ends) past the bound. */
  #count(): boolean {
    if (this.#done) return false;
    if (this.tokens >= HEAD_LIMITS.tokens) {
      this.#finish();
      return false;
    }
    this.tokens++;
    return true;
  }

  /** The text from stream offset `start` to `end`, at most `max` characters of it. */
  #slice(start: number, end: number, max: number): string {
    end = Math.min(end, start + max);
    if (end <= start) return "";
    while (start - this.#firstAt >= this.#pieces[this.#first].length) {
      this.#firstAt += this.#pieces[this.#first].length;
      this.#pieces[this.#first++] = "";
    }
    let out = "";
    for (let i = this.#first, at = this.#firstAt; at < end; at += this.#pieces[i++].length) {
      out += this.#pieces[i].slice(Math.max(0, start - at), end - at);
    }
    return out;
  }

  /** Appends the stream's `start..end` to a value, within the value cap. */
  #append(value: string, start: number, end: number): string {
    return value + this.#slice(start, end, HEAD_LIMITS.valueChars - value.length);
  }

  #name(start: number, end: number): string {
    return end - start <= NAME_CHARS ? this.#slice(start, end, NAME_CHARS).toLowerCase() : "";
  }

  #openTag(name: string): void {
    this.#tag = name;
    this.#attrName = this.#attrValue = "";
    this.#attrs = name === "meta" || name === "link" ? new Map() : undefined;
    if (name === "body") this.#finish();
  }

  /** The end of an opening tag: its attributes are complete. */
  #tagEnd(): void {
    const attrs = this.#attrs;
    this.#attrs = undefined;
    if (this.#tag === "title" && this.data.title === undefined) {
      this.data.title = "";
      this.#inTitle = true;
    } else if (attrs && this.#tag === "meta") this.#meta(attrs);
    else if (attrs && this.#tag === "link") this.#link(attrs);
    this.#tag = "";
  }

  #meta(attrs: Map<string, string>): void {
    const key = (attrs.get("property") ?? attrs.get("name") ?? "").toLowerCase();
    const content = attrs.get("content");
    if (key && content !== undefined && !this.data.meta.has(key)) this.data.meta.set(key, content);
    const charset = attrs.get("charset") ??
      ((attrs.get("http-equiv") ?? "").toLowerCase() === "content-type"
        ? charsetOfType(content ?? "")
        : undefined);
    if (charset && !this.data.charset) this.data.charset = charset.trim();
  }

  #link(attrs: Map<string, string>): void {
    const rel = (attrs.get("rel") ?? "").toLowerCase().split(/[\t\n\f\r ]+/);
    if (
      this.data.oembed === undefined && rel.includes("alternate") &&
      (attrs.get("type") ?? "").trim().toLowerCase() === "application/json+oembed" &&
      attrs.has("href")
    ) {
      this.data.oembed = attrs.get("href");
    }
  }

  #callbacks(): TokenizerCallbacks {
    return {
      onopentagname: (start, end) => {
        if (this.#count()) this.#openTag(this.#name(start, end));
      },
      onopentagend: () => {
        if (this.#count()) this.#tagEnd();
      },
      onselfclosingtag: () => {
        if (this.#count()) this.#tagEnd();
      },
      onclosetag: (start, end) => {
        if (!this.#count()) return;
        const name = this.#name(start, end);
        if (name === "head") this.#finish();
        else if (name === "title") this.#inTitle = false;
      },
      onattribname: (start, end) => {
        if (!this.#count() || !this.#attrs) return;
        this.#attrName = this.#attrs.size < HEAD_LIMITS.attributes ? this.#name(start, end) : "";
        this.#attrValue = "";
      },
      onattribdata: (start, end) => {
        if (this.#count() && this.#attrs && this.#attrName) {
          this.#attrValue = this.#append(this.#attrValue, start, end);
        }
      },
      onattribentity: (cp) => {
        if (
          this.#count() && this.#attrs && this.#attrName &&
          this.#attrValue.length < HEAD_LIMITS.valueChars
        ) {
          this.#attrValue += String.fromCodePoint(cp);
        }
      },
      onattribend: () => {
        if (!this.#count() || !this.#attrs) return;
        if (this.#attrName && !this.#attrs.has(this.#attrName)) {
          this.#attrs.set(this.#attrName, this.#attrValue);
        }
        this.#attrName = this.#attrValue = "";
      },
      ontext: (start, end) => {
        if (this.#count() && this.#inTitle) {
          this.data.title = this.#append(this.data.title ?? "", start, end);
        }
      },
      ontextentity: (cp) => {
        const title = this.data.title ?? "";
        if (this.#count() && this.#inTitle && title.length < HEAD_LIMITS.valueChars) {
          this.data.title = title + String.fromCodePoint(cp);
        }
      },
      oncomment: () => void this.#count(),
      oncdata: () => void this.#count(),
      ondeclaration: () => void this.#count(),
      onprocessinginstruction: () => void this.#count(),
      onend: () => {},
    };
  }
}

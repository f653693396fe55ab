/**
 * Hostile web pages for the link preview tests and bench, served by a real HTTP server on
 * 127.0.0.1. `/whole/NAME` sends a page complete with its length; `/open/NAME` sends it in 16 KB
 * pieces, one per task, and then holds the connection open without ending it, as a page that
 * trickles forever would: a client that wants the end of the body never gets an answer.
 */
const K = 1024;

/** The hostile pages; each starts with a title that a preview can still show. */
export const HOSTILE_PAGES: Record<string, string> = {
  /** 400 KB of comment openers: quadratic for a lazy comment pattern. */
  comments: "<title>Comments</title>" + "<!--".repeat(100 * K),
  /** A script that never closes, full of tag starts. */
  script: "<title>Script</title><script>" + "x<".repeat(200 * K),
  /** 10,000 `<meta` that never end (20,000 tokens: the bound of one head). */
  metas: "<title>Metas</title>" + "<meta ".repeat(10_000),
  /** One attribute of 200 KB, then the head ends. */
  attribute: `<title>Attribute</title><meta property="og:description" content="${
    "x".repeat(200 * K)
  }"></head>`,
  /** 400 KB of unclosed inline elements: quadratic for a parser that keeps an element stack. */
  elements: "<title>Elements</title>" + "<i>".repeat(136 * K),
  /** A script that never closes, within 256 KB: only the end of the body or the time limit ends it. */
  unfinished: "<title>Unfinished</title><script>" + "x".repeat(100 * K),
  /** A proper head, then a body that never ends. */
  head: "<head><title>Head</title><meta property='og:description' content='Only the head'></head>" +
    "<body>" + "<p>text</p>".repeat(10 * K),
};

/** A running hostile site. */
export interface HostileSite {
  /** The URL of a page: `whole` or `open` mode. */
  url(mode: "whole" | "open", name: string): string;
  /** Pages in `open` mode whose reader went away before the server ended them. */
  readonly abandoned: string[];
  close(): Promise<void>;
}

/** Serves HOSTILE_PAGES on 127.0.0.1 (a free port). */
export function serveHostile(): HostileSite {
  const abandoned: string[] = [];
  const stop = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: stop.signal, onListen() {} },
    (req) => {
      const [, mode, name] = new URL(req.url).pathname.split("/");
      const page = HOSTILE_PAGES[name];
      if (!page) return new Response("missing", { status: 404 });
      const headers = { "content-type": "text/html" };
      if (mode === "whole") return new Response(page, { headers });
      const bytes = new TextEncoder().encode(page);
      let at = 0;
      let gone!: () => void;
      const held = new Promise<void>((r) => (gone = r));
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          // One piece per task, so the client reads the page as many pieces.
          await new Promise((r) => setTimeout(r, 0));
          if (at < bytes.length) controller.enqueue(bytes.subarray(at, at += 16 * K));
          // Everything sent: hold the connection until the client goes away.
          else await held;
        },
        cancel() {
          abandoned.push(name);
          gone();
        },
      });
      return new Response(body, { headers });
    },
  );
  const base = `http://127.0.0.1:${server.addr.port}`;
  return {
    url: (mode, name) => `${base}/${mode}/${name}`,
    abandoned,
    async close() {
      stop.abort();
      await server.finished;
    },
  };
}

/** A running page of another site. */
export interface AttackPage {
  /** The page's URL on 127.0.0.1. */
  url: string;
  close(): Promise<void>;
}

/**
 * Serves one HTML page at `/` on 127.0.0.1 (a free port, so another origin than Parley's): the
 * page of another site that a victim's browser opens, for the CSRF tests.
 */
export function serveAttackPage(html: string): AttackPage {
  const stop = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: stop.signal, onListen() {} },
    () => new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } }),
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}/`,
    async close() {
      stop.abort();
      await server.finished;
    },
  };
}

/**
 * Hostile pages from a real local HTTP server: each gets a preview read from its head alone, the
 * socket is closed as soon as the head is read, and the parse keeps pace with the socket instead
 * of blocking the event loop at the end. Work is bounded by counts, never by a clock.
 */
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { poll } from "../../support/poll.ts";
import { HOSTILE_PAGES, serveHostile } from "../../support/hostile_pages.ts";
import { EMBED_LIMITS, Embedder } from "../../../embed/embed.ts";
import { HEAD_LIMITS, HeadReader } from "../../../embed/html_head.ts";
import { PageReader } from "../../../embed/page_reader.ts";
import { FetchFailed, safeFetch } from "../../../embed/safe_fetch.ts";

const TITLES: Record<string, string> = {
  comments: "Comments",
  script: "Script",
  metas: "Metas",
  attribute: "Attribute",
  elements: "Elements",
  unfinished: "Unfinished",
  head: "Head",
};

Deno.test("embed: every hostile page gets a preview from its head", async (t) => {
  const site = serveHostile();
  try {
    for (const name of Object.keys(HOSTILE_PAGES)) {
      await t.step(`${name}, sent whole`, async () => {
        const info = await new Embedder(true).embed(new URL(site.url("whole", name)));
        assertEquals([info.type, info.title], ["link", TITLES[name]]);
        assertStringIncludes(info.html, `<strong>${TITLES[name]}</strong>`);
      });
    }
    // Past 256 KB or the head's end nothing more is read: a page that never ends still answers.
    for (const name of ["comments", "script", "metas", "attribute", "elements", "head"]) {
      await t.step(`${name}, held open after it`, async () => {
        const info = await new Embedder(true).embed(new URL(site.url("open", name)));
        assertEquals([info.type, info.title], ["link", TITLES[name]]);
        await poll(`the client to close ${name}`, () => site.abandoned.includes(name));
      });
    }
    await t.step("the 200 KB attribute is kept to the description's size", async () => {
      const info = await new Embedder(true).embed(new URL(site.url("whole", "attribute")));
      assertEquals(info.description, "x".repeat(999) + "…");
    });
    await t.step("the head's end is found, and nothing after it is read", async () => {
      const info = await new Embedder(true).embed(new URL(site.url("open", "head")));
      assertEquals(info.description, "Only the head");
    });
    await t.step("a page that trickles forever within 256 KB meets the time limit", async () => {
      const embedder = new Embedder(true, { timeoutMs: 300 });
      try {
        await embedder.embed(new URL(site.url("open", "unfinished")));
        throw new Error("expected a rejection");
      } catch (err) {
        assert(err instanceof FetchFailed, String(err));
      }
    });
  } finally {
    await site.close();
  }
});

Deno.test("embed: a page is parsed piece by piece while the event loop keeps running", async () => {
  const site = serveHostile();
  let ticks = 0;
  const timer = setInterval(() => ticks++, 0);
  try {
    const reader = new PageReader("text/html");
    const ticksAtPiece: number[] = [];
    let bytes = 0;
    const res = await safeFetch(new URL(site.url("open", "comments")), {
      allowAddress: () => true,
      maxBytes: EMBED_LIMITS.headBytes,
      onBody: (piece) => {
        ticksAtPiece.push(ticks);
        bytes += piece.length;
        return reader.write(piece);
      },
    });
    assert(ticksAtPiece.length > 1, `${ticksAtPiece.length} pieces`);
    assert(ticksAtPiece.at(-1)! > ticksAtPiece[0], "timers ran between the pieces of the parse");
    assertEquals([bytes, res.truncated, res.body.length], [EMBED_LIMITS.headBytes, true, 0]);
    assertEquals(reader.end().title, "Comments");
  } finally {
    clearInterval(timer);
    await site.close();
  }
});

Deno.test("embed: the head reader's work is bounded by counts", () => {
  for (const [name, page] of Object.entries(HOSTILE_PAGES)) {
    const reader = new HeadReader();
    const text = page.slice(0, EMBED_LIMITS.headBytes);
    for (let at = 0; at < text.length && !reader.done; at += 4096) {
      reader.write(text.slice(at, at + 4096));
    }
    const head = reader.end();
    assertEquals(head.title, TITLES[name], name);
    assert(reader.chars <= EMBED_LIMITS.headBytes, name);
    assert(reader.tokens <= HEAD_LIMITS.tokens, `${name}: ${reader.tokens} tokens`);
    for (const value of head.meta.values()) assert(value.length <= HEAD_LIMITS.valueChars, name);
  }
  // 87,000 unclosed elements: the head is over once the token bound is reached.
  const reader = new HeadReader();
  reader.write(HOSTILE_PAGES.elements.slice(0, EMBED_LIMITS.headBytes));
  assert(reader.done);
  assertEquals(reader.tokens, HEAD_LIMITS.tokens);
});

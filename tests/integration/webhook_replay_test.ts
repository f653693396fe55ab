/**
 * A replayed webhook delivery is refused, even with a new delivery id (the id is not signed).
 * In process, through `app.request()`.
 */
import { assertEquals } from "../support/assert.ts";
import { startApp } from "../support/app.ts";
import { botConfigSchema, ensureBot } from "../../irc/bot/bot.ts";
import { githubSignature } from "../../webhook/github.ts";

Deno.test("webhook: a replayed webhook delivery is refused", async () => {
  const a = await startApp();
  try {
    await a.register("admin@example.com");
    const config = botConfigSchema.parse({
      email: "bot@example.com",
      webhooks: {
        github: {
          secret: "webhook secret",
          // Routed nowhere: the replay check comes before delivery, so no IRC is needed.
          routes: [{ repository: "owner/other", events: ["issues"], to: "irc-x/#y" }],
        },
      },
    });
    a.deps.bot = await ensureBot(a.deps, config);
    const body = JSON.stringify({
      action: "opened",
      repository: { full_name: "owner/name" },
      sender: { login: "alice" },
      issue: { number: 1, title: "t", html_url: "https://github.com/owner/name/issues/1" },
    });
    const signature = await githubSignature("webhook secret", new TextEncoder().encode(body));
    const post = (delivery: string) =>
      a.request("/api/webhook/github", {
        method: "POST",
        body,
        headers: {
          "content-type": "application/json",
          "x-github-event": "issues",
          "x-github-delivery": delivery,
          "x-hub-signature-256": signature,
        },
      });
    assertEquals((await post("72d3162e-cc78-11e3-81ab-4c9367dc0958")).status, 200);
    const replay = await post("72d3162e-cc78-11e3-81ab-4c9367dc0958");
    assertEquals(replay.status, 409);
    assertEquals(replay.body.errors[0].path, "/body");
    const newId = await post("00000000-0000-0000-0000-000000000000");
    assertEquals(newId.status, 409, "the delivery id is not signed: a new one does not help");
  } finally {
    await a.close();
  }
});

Deno.test("webhook: answered for the bot while its connections are still being made", async () => {
  const a = await startApp();
  try {
    await a.register("admin@example.com");
    const config = botConfigSchema.parse({
      email: "bot@example.com",
      // Nothing listens on port 9 (discard): the connection is made, never registered.
      connections: [{ url: "irc://127.0.0.1:9?nick=bot", channels: ["#y"] }],
      webhooks: {
        github: {
          secret: "webhook secret",
          routes: [{ repository: "owner/name", events: ["issues"], to: "irc-x/#y" }],
        },
      },
    });
    const body = JSON.stringify({
      action: "opened",
      repository: { full_name: "owner/name" },
      sender: { login: "alice" },
      issue: { number: 2, title: "t", html_url: "https://github.com/owner/name/issues/2" },
    });
    const signature = await githubSignature("webhook secret", new TextEncoder().encode(body));
    // The daemon does not wait for the bot before it serves: a delivery can come while the bot's
    // connection is being created. Asked at that moment, the answer is about the target.
    const connections = a.deps.connections;
    const create = connections.create.bind(connections);
    let during: { status: number; body: { status?: { error: string }[] } } | undefined;
    connections.create = async (...args) => {
      during = await a.request("/api/webhook/github", {
        method: "POST",
        body,
        headers: {
          "content-type": "application/json",
          "x-github-event": "issues",
          "x-hub-signature-256": signature,
        },
      });
      return create(...args);
    };
    await ensureBot(a.deps, config);
    assertEquals(during?.status, 200, JSON.stringify(during?.body));
    assertEquals(during?.body.status?.length, 1);
    assertEquals(a.deps.bot?.user.email, "bot@example.com");
  } finally {
    await a.close();
  }
});

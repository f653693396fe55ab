/** The GitHub webhook end to end: a signed event reaches a raw IRC client through the bot. */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { startServer } from "../support/server.ts";
import { githubSignature } from "../../webhook/github.ts";
import { openStore } from "../../store/mod.ts";

const SECRET = "webhook-secret-0123456789";
const ROOT = new URL("../..", import.meta.url).pathname;

function post(url: string, body: string, headers: Record<string, string>) {
  return fetch(`${url}/api/webhook/github`, {
    method: "POST",
    body,
    headers: { "content-type": "application/json", ...headers },
  });
}

Deno.test("webhook: a signed GitHub issues event is posted by the bot in the routed channel", async (t) => {
  const irc = await startIrcServer();
  const bob = await RawIrcClient.connect(irc.port, "bob");
  await bob.join("#gh");
  const home = await Deno.makeTempDir({ prefix: "parley-test-" });
  await Deno.writeTextFile(
    `${home}/bot.json`,
    JSON.stringify({
      email: "Bot@Example.com",
      connections: [{ url: `irc://127.0.0.1:${irc.port}/?nick=parleybot`, channels: ["#gh"] }],
      webhooks: {
        github: {
          secret: SECRET,
          routes: [{
            repository: "acme/rocket",
            events: ["issues", "push"],
            to: "irc-localhost/#gh",
          }],
        },
      },
    }),
  );
  const server = await startServer({ home, env: { PARLEY_TEST_FAST_IRC: "1" } });
  const plain = await startServer();
  try {
    await t.step("the bot joins its channel as a user with role bot", async () => {
      await bob.waitFor((l) => l.command === "JOIN" && l.nick === "parleybot");
      const store = await openStore(home);
      const bot = await store.users.byEmail("bot@example.com");
      assertEquals(bot?.roles, ["bot"]);
      await store.close();
      const login = await new ApiClient(server.url).post("/api/user/login", {
        email: "bot@example.com",
        password: "!bot:anything at all",
      });
      assert(login.status === 400 || login.status === 401, String(login.status));
    });

    const issue = JSON.stringify({
      action: "opened",
      issue: {
        number: 42,
        title: "Rocket does not launch",
        html_url: "https://github.com/acme/rocket/issues/42",
      },
      repository: { full_name: "acme/rocket" },
      sender: { login: "alice" },
    });

    await t.step("a signed issues event reaches #gh", async () => {
      const sig = await githubSignature(SECRET, new TextEncoder().encode(issue));
      const res = await post(server.url, issue, {
        "x-github-event": "issues",
        "x-hub-signature-256": sig,
      });
      const body = await res.json();
      assertEquals(res.status, 200, JSON.stringify(body));
      const line =
        "[acme/rocket] alice opened issue #42: Rocket does not launch https://github.com/acme/rocket/issues/42";
      assertEquals(body, { delivered: [{ to: "irc-localhost/#gh", message: line }] });
      const got = await bob.waitFor((l) => l.command === "PRIVMSG" && l.nick === "parleybot");
      assertEquals(got.params, ["#gh", line]);
    });

    await t.step("bad or missing signatures are refused with 401", async () => {
      for (
        const sig of [
          undefined,
          "sha256=" + "0".repeat(64),
          await githubSignature("wrong secret!!!!", new TextEncoder().encode(issue)),
        ]
      ) {
        const res = await post(server.url, issue, {
          "x-github-event": "issues",
          ...(sig ? { "x-hub-signature-256": sig } : {}),
        });
        assertEquals(res.status, 401);
        const body = await res.json();
        assert(!JSON.stringify(body).includes(SECRET));
      }
      // A body changed after signing fails too.
      const sig = await githubSignature(SECRET, new TextEncoder().encode(issue));
      const res = await post(server.url, issue.replace("42", "43"), {
        "x-github-event": "issues",
        "x-hub-signature-256": sig,
      });
      assertEquals(res.status, 401);
      await res.body?.cancel();
    });

    await t.step(
      "ping answers 200 and posts nothing; unrouted events deliver nothing",
      async () => {
        const ping = JSON.stringify({
          zen: "Keep it simple.",
          repository: { full_name: "acme/rocket" },
        });
        const res = await post(server.url, ping, {
          "x-github-event": "ping",
          "x-hub-signature-256": await githubSignature(SECRET, new TextEncoder().encode(ping)),
        });
        assertEquals(res.status, 200);
        assertEquals(await res.json(), { delivered: [] });
        const other = issue.replaceAll("acme/rocket", "acme/other");
        const res2 = await post(server.url, other, {
          "x-github-event": "issues",
          "x-hub-signature-256": await githubSignature(SECRET, new TextEncoder().encode(other)),
        });
        assertEquals(await res2.json(), { delivered: [] });
      },
    );

    await t.step("unknown provider 404, no bot 503", async () => {
      const res = await fetch(`${server.url}/api/webhook/gitlab`, { method: "POST", body: "{}" });
      assertEquals(res.status, 404);
      await res.body?.cancel();
      const none = await post(plain.url, issue, { "x-github-event": "issues" });
      assertEquals(none.status, 503);
      const body = await none.json();
      assertEquals(body.errors[0].path, "/");
    });

    await t.step("after a restart the bot reuses its connection and rejoins", async () => {
      const joins = () => bob.lines.filter((l) => l.command === "JOIN" && l.nick === "parleybot");
      const before = joins().length;
      await server.restart();
      await bob.waitFor((l) =>
        l.command === "JOIN" && l.nick === "parleybot" && !joins().slice(0, before).includes(l)
      );
      const store = await openStore(home);
      const bot = (await store.users.byEmail("bot@example.com"))!;
      assertEquals((await store.connections.list(bot.id)).map((c) => c.connectionId), [
        "irc-localhost",
      ]);
      await store.close();
    });

    await t.step("a bad bot.json stops the start with a clear message", async () => {
      const bad = await Deno.makeTempDir({ prefix: "parley-test-" });
      try {
        await Deno.writeTextFile(
          `${bad}/bot.json`,
          JSON.stringify({ email: "bot@example.com", connections: [{ url: "http://nope" }] }),
        );
        const out = await new Deno.Command(Deno.execPath(), {
          args: ["run", "-A", "main.ts", "daemon"],
          cwd: ROOT,
          env: { PARLEY_HOME: bad, PARLEY_LISTEN: "http://127.0.0.1:0", NO_COLOR: "1" },
          stdout: "piped",
          stderr: "piped",
        }).output();
        assertEquals(out.code, 2);
        assertStringIncludes(new TextDecoder().decode(out.stderr), "bot.json: connections.0.url");
      } finally {
        await Deno.remove(bad, { recursive: true });
      }
    });
  } finally {
    await bob.close();
    await server.close();
    await plain.close();
    await irc.close();
  }
});

/**
 * The GitHub webhook end to end: a real daemon with a bot.json, a real ngircd, and a raw IRC
 * client in the routed channel reading what the bot posts.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { ApiClient } from "../support/api.ts";
import { RawIrcClient } from "../support/irc_client.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { startServer } from "../support/server.ts";
import { githubSignature } from "../../webhook/github.ts";

const ROOT = new URL("../..", import.meta.url).pathname;
const SECRET = "webhook secret for tests";

const ISSUE = {
  action: "opened",
  repository: { full_name: "owner/name" },
  sender: { login: "alice" },
  issue: {
    number: 42,
    title: "The bot works",
    html_url: "https://github.com/owner/name/issues/42",
  },
};

async function post(url: string, event: string, body: string, signature?: string) {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "x-github-event": event,
  };
  if (signature !== undefined) headers["x-hub-signature-256"] = signature;
  const res = await fetch(`${url}/api/webhook/github`, { method: "POST", headers, body });
  return { status: res.status, body: await res.json() };
}

Deno.test("webhook: without a bot, and with a bad bot.json", async (t) => {
  const server = await startServer();
  try {
    await t.step("no bot.json is a 503; an unknown provider a 404", async () => {
      const res = await post(server.url, "issues", JSON.stringify(ISSUE), "sha256=00");
      assertEquals(res.status, 503);
      assert(Array.isArray(res.body.errors));
      const other = await fetch(`${server.url}/api/webhook/gitlab`, { method: "POST", body: "{}" });
      assertEquals(other.status, 404);
      await other.body?.cancel();
    });
  } finally {
    await server.close();
  }

  await t.step("a bad bot.json stops the start with a clear message", async () => {
    const home = await Deno.makeTempDir({ prefix: "parley-badbot-" });
    try {
      await Deno.writeTextFile(
        `${home}/bot.json`,
        JSON.stringify({ email: "bot@example.com", connections: [{ url: "http://nope" }] }),
      );
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", "main.ts", "daemon"],
        cwd: ROOT,
        env: { PARLEY_HOME: home, PARLEY_LISTEN: "http://127.0.0.1:0", NO_COLOR: "1" },
        stdout: "piped",
        stderr: "piped",
      }).output();
      assertEquals(out.code, 2);
      assertStringIncludes(new TextDecoder().decode(out.stderr), "connections.0.url");
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  });
});

Deno.test("webhook: a signed GitHub event reaches the routed IRC channel", async (t) => {
  const irc = await startIrcServer();
  const home = await Deno.makeTempDir({ prefix: "parley-bot-" });
  await Deno.writeTextFile(
    `${home}/bot.json`,
    JSON.stringify({
      email: "bot@example.com",
      connections: [{ url: `irc://127.0.0.1:${irc.port}?nick=hookbot`, channels: ["#hooks"] }],
      webhooks: {
        github: {
          secret: SECRET,
          routes: [{
            repository: "owner/name",
            events: ["issues", "push"],
            to: "irc-localhost/#hooks",
          }],
        },
      },
    }),
  );
  const watcher = await RawIrcClient.connect(irc.port, "watcher");
  await watcher.join("#hooks");
  const server = await startServer({ home, env: { PARLEY_TEST_FAST_IRC: "1" } });
  try {
    await t.step("the bot connects and joins its channel", async () => {
      await watcher.waitFor((l) => l.command === "JOIN" && l.nick === "hookbot", 15_000);
    });

    const postIssue = async () => {
      const body = JSON.stringify(ISSUE);
      const sig = await githubSignature(SECRET, new TextEncoder().encode(body));
      return await post(server.url, "issues", body, sig);
    };
    await t.step("a signed issues event is posted in the channel", async () => {
      const res = await postIssue();
      assertEquals(res.status, 200);
      const message =
        "[owner/name] alice opened issue #42: The bot works https://github.com/owner/name/issues/42";
      assertEquals(res.body, {
        // Convos's answer (web-webhook-github.t:42-43), next to Parley's delivered list.
        status: [{ connection_id: "irc-localhost", conversation_id: "#hooks", error: "" }],
        delivered: [{ to: "irc-localhost/#hooks", message }],
      });
      const line = await watcher.waitFor((l) =>
        l.command === "PRIVMSG" && l.nick === "hookbot" && l.params[0] === "#hooks"
      );
      assertEquals(line.params[1], message);
    });

    await t.step("the same event sent again is a 409 and is not posted twice", async () => {
      const replay = await postIssue();
      assertEquals(replay.status, 409);
      assertEquals(replay.body.errors[0].path, "/body");
    });

    await t.step("a bad or missing signature is a 401 and posts nothing", async () => {
      const body = JSON.stringify({ ...ISSUE, issue: { ...ISSUE.issue, title: "forged" } });
      const forged = await post(
        server.url,
        "issues",
        body,
        await githubSignature("wrong secret!", new TextEncoder().encode(body)),
      );
      assertEquals(forged.status, 401);
      const missing = await post(server.url, "issues", body);
      assertEquals(missing.status, 401);
      // A later genuine event arrives, and nothing forged came before it.
      const ok = JSON.stringify({ ...ISSUE, action: "closed" });
      await post(
        server.url,
        "issues",
        ok,
        await githubSignature(SECRET, new TextEncoder().encode(ok)),
      );
      await watcher.waitFor((l) => l.command === "PRIVMSG" && l.params[1].includes("closed issue"));
      assert(!watcher.lines.some((l) => l.params.some((p) => p.includes("forged"))));
      const opened = watcher.lines.filter((l) => l.params[1]?.includes("opened issue #42"));
      assertEquals(opened.length, 1, "the replayed event was not posted");
    });

    await t.step("ping answers 200 without posting; other events post nothing", async () => {
      const body = JSON.stringify({ zen: "Hi", repository: { full_name: "owner/name" } });
      const sig = await githubSignature(SECRET, new TextEncoder().encode(body));
      const ping = await post(server.url, "ping", body, sig);
      assertEquals(ping, { status: 200, body: { status: [], delivered: [] } });
      const star = await post(server.url, "star", body, sig);
      assertEquals(star, { status: 200, body: { status: [], delivered: [] } });
    });

    await t.step(
      "the bot is an ordinary user with role bot that nobody can log in as",
      async () => {
        const admin = new ApiClient(server.url);
        await admin.register("admin@example.com");
        const users = await admin.get("/api/users");
        const bot = users.body.users.find((u: { email: string }) => u.email === "bot@example.com");
        assertEquals(bot.roles, ["bot"]);
        const login = await new ApiClient(server.url).post("/api/user/login", {
          email: "bot@example.com",
          password: "!unusable!",
        });
        assertEquals(login.status, 400);
      },
    );

    await t.step("after a restart the bot rejoins with its one connection", async () => {
      await server.restart();
      await watcher.waitFor(
        (l) =>
          l.command === "JOIN" && l.nick === "hookbot" &&
          watcher.lines.filter((x) => x.command === "JOIN" && x.nick === "hookbot").length === 2,
        15_000,
      );
      const joins = watcher.lines.filter((l) =>
        l.command === "JOIN" && l.nick.startsWith("hookbot")
      );
      assertEquals(joins.map((l) => l.nick), ["hookbot", "hookbot"]);
    });
  } finally {
    await watcher.close();
    await server.close();
    await irc.close();
  }
});

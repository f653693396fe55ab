/** bot.json validation, GitHub signatures and the one-line messages of events. */
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { ConfigError } from "../../../config.ts";
import { parseBotConfig } from "../../../irc/bot/bot.ts";
import {
  formatGithubEvent,
  githubSignature,
  githubTargets,
  oneLine,
  verifyGithubSignature,
} from "../../../webhook/github.ts";

const GOOD = {
  email: "Bot@Example.com",
  connections: [{ url: "irc://irc.example.org?nick=parleybot", channels: ["#dev"] }],
  webhooks: {
    github: {
      secret: "a long enough secret",
      routes: [{ repository: "owner/name", events: ["push", "issues"], to: "irc-example/#dev" }],
    },
  },
};

function configError(data: unknown): string {
  try {
    parseBotConfig(typeof data === "string" ? data : JSON.stringify(data));
  } catch (err) {
    assert(err instanceof ConfigError, String(err));
    return err.message;
  }
  throw new Error("expected a ConfigError");
}

Deno.test("bot.json: a good file, and a clear error for each bad one", () => {
  const cfg = parseBotConfig(JSON.stringify(GOOD));
  assertEquals(cfg.email, "bot@example.com");
  assertEquals(cfg.connections[0].channels, ["#dev"]);
  assertEquals(parseBotConfig('{"email":"b@example.com"}').connections, []);

  assertStringIncludes(configError("{not json"), "not valid JSON");
  assertStringIncludes(configError({ ...GOOD, email: "nope" }), "email");
  assertStringIncludes(
    configError({ ...GOOD, connections: [{ url: "http://x.example" }] }),
    "connections.0.url",
  );
  assertStringIncludes(
    configError({ ...GOOD, connections: [{ url: "irc://h", channels: ["dev"] }] }),
    "connections.0.channels.0",
  );
  const hooks = (github: unknown) => ({ ...GOOD, webhooks: { github } });
  assertStringIncludes(configError(hooks({ secret: "short", routes: [] })), "secret");
  assertStringIncludes(
    configError(
      hooks({
        secret: "long enough!",
        routes: [{ repository: "x", events: ["push"], to: "a/#b" }],
      }),
    ),
    "repository",
  );
  assertStringIncludes(
    configError(
      hooks({
        secret: "long enough!",
        routes: [{ repository: "o/n", events: ["star"], to: "a/#b" }],
      }),
    ),
    "events.0",
  );
  assertStringIncludes(
    configError(
      hooks({
        secret: "long enough!",
        routes: [{ repository: "o/n", events: ["push"], to: "#b" }],
      }),
    ),
    "to",
  );
  assertStringIncludes(configError({ ...GOOD, extra: 1 }), "extra");
});

Deno.test("github: the signature matches GitHub's documented example", async () => {
  // From GitHub's "Validating webhook deliveries" page (also what `openssl dgst -hmac` gives).
  const body = new TextEncoder().encode("Hello, World!");
  assertEquals(
    await githubSignature("It's a Secret to Everybody", body),
    "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17",
  );
});

Deno.test("github: the signature covers the raw bytes", async () => {
  const body = new TextEncoder().encode('{"zen":"Keep it logically awesome."}');
  const sig = await githubSignature("s3cret-s3cret", body);
  assert(/^sha256=[0-9a-f]{64}$/.test(sig), sig);
  assertEquals(await verifyGithubSignature("s3cret-s3cret", body, sig), true);
  assertEquals(await verifyGithubSignature("other-secret", body, sig), false);
  assertEquals(await verifyGithubSignature("s3cret-s3cret", body, undefined), false);
  const changed = new TextEncoder().encode('{"zen":"Keep it logically awesome!"}');
  assertEquals(await verifyGithubSignature("s3cret-s3cret", changed, sig), false);
});

Deno.test("github: one readable line per event, nothing that breaks IRC", () => {
  const repository = { full_name: "owner/name" };
  const sender = { login: "alice" };
  assertEquals(
    formatGithubEvent("issues", {
      action: "opened",
      repository,
      sender,
      issue: {
        number: 7,
        title: "Crash\r\nQUIT :bye",
        html_url: "https://github.com/owner/name/issues/7",
      },
    }),
    "[owner/name] alice opened issue #7: Crash QUIT :bye https://github.com/owner/name/issues/7",
  );
  assertEquals(formatGithubEvent("issues", { action: "labeled", repository, sender }), undefined);
  assertEquals(
    formatGithubEvent("push", {
      ref: "refs/heads/main",
      repository,
      sender,
      commits: [{ message: "a" }, { message: "b" }],
      head_commit: { message: "Fix the thing\n\nLong body" },
      compare: "https://github.com/owner/name/compare/1...2",
    }),
    "[owner/name] alice pushed 2 commits to main: Fix the thing https://github.com/owner/name/compare/1...2",
  );
  assertEquals(
    formatGithubEvent("pull_request", {
      action: "closed",
      repository,
      sender,
      pull_request: { number: 3, title: "Add X", merged: true, html_url: "https://g/p/3" },
    }),
    "[owner/name] alice merged pull request #3: Add X https://g/p/3",
  );
  assertEquals(
    formatGithubEvent("release", {
      action: "published",
      repository,
      sender,
      release: { tag_name: "v1.0.0", name: "First", html_url: "https://g/r/1" },
    }),
    "[owner/name] alice published release v1.0.0 (First) https://g/r/1",
  );
  assertEquals(formatGithubEvent("star", { repository, sender }), undefined);
  assertEquals(oneLine("a\u0000b\nc\td"), "a b c d");
  assertEquals(oneLine("x".repeat(300), 10).length, 10);
});

Deno.test("github: routes match repository (any case) and event", () => {
  const bot = { config: parseBotConfig(JSON.stringify(GOOD)), user: {} } as Parameters<
    typeof githubTargets
  >[0];
  assertEquals(githubTargets(bot, "push", "Owner/Name"), ["irc-example/#dev"]);
  assertEquals(githubTargets(bot, "release", "owner/name"), []);
  assertEquals(githubTargets(bot, "push", "owner/other"), []);
});

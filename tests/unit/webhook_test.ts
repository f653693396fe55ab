import { assert, assertEquals, assertThrows } from "../support/assert.ts";
import { formatGithubEvent, githubSignature, verifyGithubSignature } from "../../webhook/github.ts";
import { parseBotConfig } from "../../irc/bot.ts";
import { ConfigError } from "../../config.ts";

const repository = { full_name: "acme/rocket" };
const sender = { login: "alice" };

Deno.test("github: one line per event", () => {
  assertEquals(
    formatGithubEvent("issues", {
      action: "opened",
      issue: {
        number: 7,
        title: "It\r\nbroke",
        html_url: "https://github.com/acme/rocket/issues/7",
      },
      repository,
      sender,
    }),
    "[acme/rocket] alice opened issue #7: It broke https://github.com/acme/rocket/issues/7",
  );
  assertEquals(
    formatGithubEvent("pull_request", {
      action: "closed",
      pull_request: { number: 3, title: "Fix", merged: true, html_url: "https://x/pull/3" },
      repository,
      sender,
    }),
    "[acme/rocket] alice merged pull request #3: Fix https://x/pull/3",
  );
  assertEquals(
    formatGithubEvent("push", {
      ref: "refs/heads/main",
      commits: [{ message: "a" }, { message: "b\n\nbody" }],
      head_commit: { message: "b\n\nbody" },
      compare: "https://x/compare/1...2",
      repository,
      sender,
    }),
    "[acme/rocket] alice pushed 2 commits to main: b https://x/compare/1...2",
  );
  assertEquals(
    formatGithubEvent("release", {
      action: "published",
      release: { tag_name: "v1.0", name: "", html_url: "https://x/releases/v1.0" },
      repository,
      sender,
    }),
    "[acme/rocket] alice published release v1.0 https://x/releases/v1.0",
  );
  assertEquals(formatGithubEvent("star", { repository, sender }), undefined);
  const long = formatGithubEvent("issues", {
    action: "opened",
    issue: { number: 1, title: "x".repeat(1000), html_url: "u" },
    repository,
    sender,
  })!;
  assert(long.length < 300, String(long.length));
});

Deno.test("github: signatures over the raw body", async () => {
  const body = new TextEncoder().encode('{"a":1}');
  const sig = await githubSignature("It's a Secret to Everybody", body);
  assert(/^sha256=[0-9a-f]{64}$/.test(sig));
  assert(await verifyGithubSignature("It's a Secret to Everybody", body, sig));
  assert(!(await verifyGithubSignature("another secret!!", body, sig)));
  assert(!(await verifyGithubSignature("It's a Secret to Everybody", body, undefined)));
  assert(
    !(await verifyGithubSignature(
      "It's a Secret to Everybody",
      new TextEncoder().encode('{"a":2}'),
      sig,
    )),
  );
  // GitHub's documented example.
  assertEquals(
    await githubSignature("It's a Secret to Everybody", new TextEncoder().encode("Hello, World!")),
    "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17",
  );
});

Deno.test("bot.json validation names the bad field", () => {
  const ok = parseBotConfig({
    email: "bot@example.com",
    connections: [{ url: "irc://127.0.0.1:6667/?nick=bot", channels: ["#a"] }],
    webhooks: {
      github: {
        secret: "0123456789abcdef",
        routes: [{ repository: "o/n", events: ["issues"], to: "irc-localhost/#a" }],
      },
    },
  });
  assertEquals(ok.connections[0].channels, ["#a"]);
  const cases: [unknown, string][] = [
    [{}, "email"],
    [{ email: "nope" }, "email"],
    [{ email: "b@x.org", connections: [{ url: "http://x" }] }, "connections.0.url"],
    [{ email: "b@x.org", webhooks: { github: { secret: "short", routes: [] } } }, "secret"],
    [
      {
        email: "b@x.org",
        webhooks: {
          github: {
            secret: "0123456789abcdef",
            routes: [{ repository: "o/n", events: ["fork"], to: "irc-x/#a" }],
          },
        },
      },
      "events",
    ],
    [[], "(top level)"],
  ];
  for (const [data, field] of cases) {
    const err = assertThrows(() => parseBotConfig(data));
    assert(err instanceof ConfigError, String(err));
    assert(err.message.includes(field), `${err.message} should name ${field}`);
  }
});

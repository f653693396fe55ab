/**
 * The whole API surface in process, driven by the API document: who may call each operation
 * (docs/api.md, "Who may call what"), unknown or foreign ids answering 404, and bad input answering
 * 400 with a JSON pointer to the field.
 */
import { assertEquals } from "../support/assert.ts";
import { startApp } from "../support/app.ts";
import { operations } from "../support/openapi.ts";

/** Operations anyone may call (docs/api.md), with a reason when it is not a login form. */
const ANYONE = new Set([
  "loginUser",
  "registerUser",
  "getFile", // file ids are unguessable
  "getDictionary",
  "webhook", // checked by its signature
  "getInstall",
]);

/** Operations only admins may call (docs/api.md). */
const ADMINS = new Set([
  "getSettings",
  "updateSettings",
  "getUsers",
  "inviteUser",
  "saveConnectionProfile",
  "removeConnectionProfile",
]);

/** A concrete path for a template: every parameter filled with something that exists nowhere. */
function concrete(path: string): string {
  return "/api" + path.replace(/\{(\w+)\}/g, (_, name) => {
    if (name === "email") return "nobody@example.com";
    if (name === "conversation_id") return "%23nowhere";
    if (name === "lang") return "en";
    return "nothing";
  });
}

Deno.test("every operation but the public ones answers 401 without a session, before reading input", async () => {
  const a = await startApp();
  try {
    const anon = a.client();
    const checked: string[] = [];
    for (const op of operations()) {
      if (ANYONE.has(op.operationId)) continue;
      // A body that is not even JSON: authentication comes first, so it is never read.
      const res = await anon.request(
        op.method,
        concrete(op.path),
        op.method === "GET" ? undefined : "{",
        {
          "content-type": "application/json",
        },
      );
      assertEquals([res.status, res.body.errors?.[0]?.path], [401, "/"], op.operationId);
      checked.push(op.operationId);
    }
    assertEquals(checked.length, operations().length - ANYONE.size);
  } finally {
    await a.close();
  }
});

Deno.test("admin operations answer 403 to a logged-in user who is not admin", async () => {
  const a = await startApp({ PARLEY_IRC_ALLOW_PRIVATE: "1" });
  try {
    const admin = a.client();
    await admin.register("admin@example.com");
    await admin.post("/api/settings", { open_to_public: true });
    const user = a.client();
    await user.register("user@example.com");
    for (const op of operations().filter((o) => ADMINS.has(o.operationId))) {
      const body = op.method === "GET" ? undefined : { url: "irc://irc.example.org" };
      const res = await user.request(op.method, concrete(op.path), body);
      assertEquals(res.status, 403, op.operationId);
    }
  } finally {
    await a.close();
  }
});

Deno.test("unknown ids answer 404 with the error body", async () => {
  const a = await startApp();
  try {
    const admin = a.client();
    await admin.register("admin@example.com");
    for (
      const [method, path] of [
        ["DELETE", "/api/connection/irc-nothing"],
        ["POST", "/api/connection/irc-nothing"],
        ["GET", "/api/connection/irc-nothing/messages"],
        ["POST", "/api/connection/irc-nothing/read"],
        ["GET", "/api/connection/irc-nothing/conversation/%23nowhere/messages"],
        ["POST", "/api/connection/irc-nothing/conversation/%23nowhere/read"],
        ["DELETE", "/api/connection-profiles/irc-nothing"],
        ["GET", "/api/files/1/AAAAAAAAAAAAAAAAAAAAAA"],
        ["DELETE", "/api/user/nobody@example.com"],
        ["POST", "/api/user/nobody@example.com"],
        ["DELETE", "/api/user/sessions/nothing"],
        ["GET", "/api/i18n/xx"],
      ]
    ) {
      const res = await admin.request(method, path, method === "POST" ? {} : undefined);
      assertEquals(res.status, 404, `${method} ${path}: ${JSON.stringify(res.body)}`);
      assertEquals(typeof res.body.errors[0].message, "string");
    }
  } finally {
    await a.close();
  }
});

Deno.test("bad input answers 400 with a JSON pointer to the field", async () => {
  const a = await startApp();
  try {
    const admin = a.client();
    await admin.register("admin@example.com");
    const cases: [string, string, unknown, string][] = [
      ["POST", "/api/connections", {}, "/body/url"],
      [
        "POST",
        "/api/connections",
        { url: "irc://x", wanted_state: "sleeping" },
        "/body/wanted_state",
      ],
      [
        "POST",
        "/api/connections",
        { url: "irc://x", on_connect_commands: "x" },
        "/body/on_connect_commands",
      ],
      ["POST", "/api/settings", { contact: "a" }, "/body/contact"],
      ["POST", "/api/settings", { max_connections_per_user: 0 }, "/body/max_connections_per_user"],
      [
        "POST",
        "/api/connection-profiles",
        { url: "irc://x", max_message_length: 1 },
        "/body/max_message_length",
      ],
      [
        "POST",
        "/api/user/admin@example.com",
        { highlight_keywords: "x" },
        "/body/highlight_keywords",
      ],
      ["POST", "/api/user/admin@example.com", { roles: ["king"] }, "/body/roles/0"],
      ["POST", "/api/push/settings", { auto_away: "yes" }, "/body/auto_away"],
      ["POST", "/api/push/subscriptions", { endpoint: "http://x", keys: {} }, "/body/endpoint"],
      ["GET", "/api/search?limit=x", undefined, "/query/limit"],
      ["GET", "/api/search?before=yesterday", undefined, "/query/before"],
      ["GET", "/api/notifications?limit=0", undefined, "/query/limit"],
      ["GET", "/api/users?limit=-1", undefined, "/query/limit"],
      ["GET", "/api/files?limit=x", undefined, "/query/limit"],
      ["GET", "/api/embed", undefined, "/query/url"],
      ["GET", "/api/user/logout", undefined, "/query/csrf"],
      ["POST", "/api/user/not-an-email/invite", undefined, "/params/email"],
      ["POST", "/api/settings", "[1]", "/body"],
      ["POST", "/api/settings", "{", "/body"],
    ];
    for (const [method, path, body, pointer] of cases) {
      const res = await admin.request(method, path, body);
      assertEquals(
        [res.status, res.body.errors?.[0]?.path],
        [400, pointer],
        `${method} ${path} ${JSON.stringify(body)}: ${JSON.stringify(res.body)}`,
      );
    }
  } finally {
    await a.close();
  }
});

// deno-lint-ignore-file no-explicit-any -- answers are JSON changed field by field
/**
 * The contract tests' validator (tests/support/openapi.ts) rejects wrong answers: a real answer
 * of the app passes, and each copy of it that breaks the document one way fails with the JSON
 * pointer of what is wrong. The in-process app's clients throw on such an answer.
 */
import { assert, assertEquals, assertRejects, assertStringIncludes } from "../support/assert.ts";
import { checkAgainstDocument, startApp } from "../support/app.ts";
import { responseErrors } from "../support/openapi.ts";

const URL_USER = "http://127.0.0.1:3000/api/user";
const URL_SETTINGS = "http://127.0.0.1:3000/api/settings";
const URL_CONNECTIONS = "http://127.0.0.1:3000/api/connections";

/** A real answer of each operation the cases below change. */
async function realAnswers() {
  const app = await startApp();
  try {
    const api = app.client();
    await api.register("admin@example.com");
    await api.post("/api/connections", { url: "irc://irc.example.com:6667" });
    return {
      user: (await api.get("/api/user?connections=true")).body,
      settings: (await api.get("/api/settings")).body,
      connections: (await api.get("/api/connections")).body,
    };
  } finally {
    await app.close();
  }
}

Deno.test("the document's validator passes real answers and fails each kind of wrong one", async () => {
  const real = await realAnswers();
  assertEquals(responseErrors("GET", URL_USER, 200, real.user), []);
  assertEquals(responseErrors("GET", URL_SETTINGS, 200, real.settings), []);
  assertEquals(responseErrors("GET", URL_CONNECTIONS, 200, real.connections), []);
  assert(real.connections.connections.length === 1, JSON.stringify(real.connections));

  const cases: [string, string, any, RegExp][] = [
    [
      "a field the document lacks",
      URL_USER,
      { ...real.user, secret: 1 },
      /^getUser 200: \/secret: not in the document/,
    ],
    ["a required field missing", URL_USER, { ...real.user, email: undefined }, /\/email: required/],
    ["a wrong type", URL_USER, { ...real.user, unread: "3" }, /\/unread: must be integer/],
    [
      "a date-time that is none",
      URL_USER,
      { ...real.user, registered: "yesterday" },
      /\/registered: must match format "date-time"/,
    ],
    [
      "a value outside an enum",
      URL_USER,
      { ...real.user, roles: ["root"] },
      /\/roles\/0: must be one of/,
    ],
    [
      "a number below its minimum",
      URL_SETTINGS,
      { ...real.settings, max_connections_per_user: 0 },
      /\/max_connections_per_user: must be >= 1/,
    ],
    [
      "a URL that is none, deep in a list",
      URL_CONNECTIONS,
      { connections: [{ ...real.connections.connections[0], url: "not a url" }] },
      /\/connections\/0\/url: must match format "uri"/,
    ],
  ];
  for (const [what, url, body, expected] of cases) {
    const method = "GET";
    const errors = responseErrors(method, url, 200, JSON.parse(JSON.stringify(body)));
    assert(errors.some((e) => expected.test(e)), `${what}: ${JSON.stringify(errors)}`);
  }

  // Error answers have the API's error body and nothing else.
  assertEquals(
    responseErrors("GET", URL_USER, 401, {
      errors: [{ message: "Need to log in first.", path: "/" }],
    }),
    [],
  );
  assert(responseErrors("GET", URL_USER, 401, { error: "Need to log in first." }).length > 0);
  assert(
    responseErrors("GET", URL_USER, 401, { errors: [{ message: "x", path: "/", code: 1 }] })
      .some((e) => /\/errors\/0\/code: not in the document/.test(e)),
  );
  // A success status the operation does not list.
  assert(responseErrors("GET", URL_USER, 201, real.user).some((e) => /not documented/.test(e)));
});

Deno.test("the in-process app's check throws on a wrong answer", async () => {
  await checkAgainstDocument(
    new Request(URL_USER),
    Response.json({ errors: [{ message: "Need to log in first.", path: "/" }] }, { status: 401 }),
  );
  const err = await assertRejects(() =>
    checkAgainstDocument(new Request(URL_USER), Response.json({ unread: 0 }))
  );
  assertStringIncludes(err.message, "/email: required");
});

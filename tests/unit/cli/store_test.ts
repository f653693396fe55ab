/** What `parley store copy` prints of a database URL (cli/store.ts): never its password. */
import { assertEquals } from "../../support/assert.ts";
import { redactUrl } from "../../../cli/store.ts";

Deno.test("redactUrl: the password hidden, the rest kept; what is no URL is not echoed", () => {
  assertEquals(
    redactUrl("postgres://parley:s3cr%40t@db.example:5432/parley?sslmode=require"),
    "postgres://parley:***@db.example:5432/parley?sslmode=require",
  );
  assertEquals(
    redactUrl("postgres://parley@db.example/parley"),
    "postgres://parley@db.example/parley",
  );
  // A URL that does not parse may still hold the password: nothing of it is shown.
  assertEquals(redactUrl("postgres://parley:secret@[bad host/x"), "(not a URL)");
});

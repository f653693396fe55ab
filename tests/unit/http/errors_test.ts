import { assertEquals } from "../../support/assert.ts";
import { denied, DomainError, invalid, missing, upstream } from "../../../lib/errors.ts";
import { fromDomain } from "../../../http/errors.ts";

Deno.test("the HTTP edge maps each domain error kind to its status, message and path", () => {
  const cases = [
    [invalid("The URL is not valid.", "/body/url"), 400, "/body/url"],
    [missing("Connection not found."), 404, "/"],
    [denied("Only an admin may do that."), 403, "/"],
    [new DomainError("conflict", "Already connected.", "/body/url"), 409, "/body/url"],
    [upstream("Connection refused.", "/wanted_state"), 424, "/wanted_state"],
  ] as const;
  for (const [err, status, path] of cases) {
    const api = fromDomain(err)!;
    assertEquals(api.status, status);
    assertEquals(api.errors, [{ message: err.message, path }]);
  }
  assertEquals(fromDomain(new Error("plain")), undefined);
});

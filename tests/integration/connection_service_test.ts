/**
 * The connection service in process (real store in a temporary folder, no daemon, no IRC server):
 * its errors are DomainErrors pointing into the input its caller names, and the manager only
 * supervises what the service stored.
 */
import type { IrcManager } from "../../irc/engine/manager.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { startApp } from "../support/app.ts";
import { DomainError } from "../../lib/errors.ts";

async function refusal(p: Promise<unknown>): Promise<[string, string, string]> {
  const err = await p.then(() => undefined, (e) => e);
  assert(err instanceof DomainError, String(err));
  return [err.kind, err.message, err.path];
}

Deno.test("connection service: errors point into the caller's input, the manager supervises", async () => {
  const a = await startApp();
  try {
    const { connections, store } = a.deps;
    const irc = a.deps.irc as IrcManager; // one machine: the manager itself
    const user = await store.users.create("jane@example.com", "x", []);

    // The caller says where its input sits; the service never assumes an HTTP body.
    for (const [at, path] of [["/", "/url"], ["/body", "/body/url"], ["/params", "/params/url"]]) {
      const [kind, , where] = await refusal(connections.create(user, { url: "http://x" }, at));
      assertEquals([kind, where], ["invalid", path]);
    }
    // An ordinary user's private target is refused before anything is stored.
    const [, message, path] = await refusal(
      connections.create(user, { url: "irc://127.0.0.1?nick=jane" }, "/body"),
    );
    assertEquals([message.length > 0, path], [true, "/body/url"]);
    assertEquals(await store.connections.list(user.id), []);

    // Stored down: supervised but not connecting; its JSON knows the URL's nick already.
    const created = await connections.create(user, {
      url: "irc://irc.example.org?nick=jane",
      wanted_state: "disconnected",
    }, "/body");
    assertEquals(created.info, { authenticated: false, capabilities: {}, nick: "jane" });
    assertEquals([created.state, created.wanted_state], ["disconnected", "disconnected"]);
    const [record] = await store.connections.list(user.id);
    assert(irc.live(record.id), "the manager supervises the stored connection");
    assertEquals(irc.state(record.id), "disconnected");
    assertEquals(await connections.list(user.id), [created]);

    // The per-user count points at the whole input.
    await store.settings.set({ max_connections_per_user: 1 });
    const [, , countPath] = await refusal(
      connections.create(user, { url: "irc://irc.example.net" }, "/body"),
    );
    assertEquals(countPath, "/body");

    assertEquals(
      (await refusal(connections.update(user.id, "irc-nope", {}, "/body"))).slice(0, 2),
      ["not_found", "No such connection."],
    );
    await connections.remove(user.id, created.connection_id);
    assertEquals(irc.live(record.id), undefined);
    assertEquals(await connections.list(user.id), []);
  } finally {
    await a.close();
  }
});

/**
 * The connection service in process (real store in a temporary folder, no daemon, no IRC server):
 * its errors are DomainErrors pointing into the input its caller names, and the manager only
 * supervises what the service stored.
 */
import type { IrcManager } from "../../irc/manager.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { startApp } from "../support/app.ts";
import { DomainError } from "../../lib/errors.ts";
import { publicUrl } from "../../irc/url.ts";
import type { Store } from "../../store/mod.ts";

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

/** The store as the app sees it, counting how often a user's connections are read in full. */
function countingLists(counter: { lists: number }) {
  return (store: Store): Store => ({
    ...store,
    backend: store.backend,
    close: () => store.close(),
    connections: {
      ...store.connections,
      list(userId) {
        counter.lists++;
        return store.connections.list(userId);
      },
    },
  });
}

Deno.test("connection service: creating one never reads all of the user's connections", async () => {
  const counter = { lists: 0 };
  const a = await startApp({}, countingLists(counter));
  try {
    const { connections, store } = a.deps;
    const user = await store.users.create("jane@example.com", "x", []);
    const made: string[] = [];
    for (const nick of ["jane", "jane2", "jane3"]) {
      const url = `irc://irc.example.org?nick=${nick}`;
      made.push(
        (await connections.create(user, { url, wanted_state: "disconnected" }, "/")).connection_id,
      );
    }
    assertEquals(made, ["irc-example", "irc-example-2", "irc-example-3"]);
    assertEquals(counter.lists, 0, "checked and named by index");

    // The same host, port and nick (casefolded as IRC does) is the same connection.
    const dup = connections.create(user, { url: "irc://IRC.example.org:6667?nick=JANE2" }, "/body");
    assertEquals(await refusal(dup), ["invalid", "Connection already exists.", "/body/url"]);
    // A connection stored before targets were kept is found too (its target is filled in).
    await store.connections.create({
      userId: user.id,
      connectionId: "irc-old",
      name: "old",
      url: "irc://irc.old.example",
      onConnectCommands: [],
      wantedState: "disconnected",
      nick: "Jane[1]",
    });
    const old = connections.create(user, { url: "irc://irc.old.example?nick=jane{1}" }, "/body");
    assertEquals(await refusal(old), ["invalid", "Connection already exists.", "/body/url"]);
    assertEquals(await store.connections.untargeted(user.id), []);

    // A nick taken with /nick is the target of a connection whose URL names none.
    const plain = await connections.create(
      user,
      { url: "irc://irc.plain.example", wanted_state: "disconnected" },
      "/",
    );
    const [mine] = await store.connections.byTarget(user.id, "irc.plain.example:6667 jane");
    assertEquals(mine?.connectionId, plain.connection_id);
    await a.deps.irc.send(user.id, plain.connection_id, "", "/nick joe");
    const again = connections.create(user, { url: "irc://irc.plain.example?nick=Joe" }, "/body");
    assertEquals(await refusal(again), ["invalid", "Connection already exists.", "/body/url"]);
    // One whose URL names a nick names the new one: the settings show it, and saving them with
    // another part changed keeps it.
    const named = await connections.create(
      user,
      {
        url: "irc://:secret@irc.named.example?nick=jane&realname=Jane%20Doe",
        wanted_state: "disconnected",
      },
      "/",
    );
    await a.deps.irc.send(user.id, named.connection_id, "", "/nick jane_away");
    const stored = await store.connections.get(user.id, named.connection_id);
    assertEquals(
      publicUrl(stored!.url),
      "irc://irc.named.example?nick=jane_away&realname=Jane%20Doe",
    );
    assertEquals(new URL(stored!.url).password, "secret", "the password stays");
    const [renamed] = await store.connections.byTarget(user.id, "irc.named.example:6667 jane_away");
    assertEquals(renamed?.connectionId, named.connection_id);

    // A URL changed to another's target is refused; one of its own is not.
    const taken = connections.update(user.id, "irc-example-3", {
      url: "irc://irc.example.org?nick=jane",
    }, "/body");
    assertEquals(await refusal(taken), ["invalid", "Connection already exists.", "/body/url"]);
    await connections.update(
      user.id,
      "irc-example-3",
      { url: "irc://irc.example.org?nick=jim" },
      "/body",
    );
    const [jim] = await store.connections.byTarget(user.id, "irc.example.org:6667 jim");
    assertEquals(jim?.connectionId, "irc-example-3");
    assertEquals(counter.lists, 0);
  } finally {
    await a.close();
  }
});

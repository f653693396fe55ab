/**
 * A connection for the inbound handlers' tests (irc/chat/inbound/): alice's stored record in a
 * real store, and what attachInbound and recordMessage read of a live connection over it, with an
 * event emitter standing in for the connection's IRC client.
 */
import type { EventEmitter } from "node:events";
import { ircLower, isChannel } from "../../lib/casefold.ts";
import type { Store } from "../../store/mod.ts";
import { parseMessage } from "../../irc/protocol/message.ts";
import { UpstreamState } from "../../irc/upstream_state.ts";

/** Alice, and her stored connection `irc-localhost` to irc.example.test. */
export async function aliceRecord(store: Store) {
  const user = await store.users.create("alice@example.com", "x", []);
  const record = await store.connections.create({
    userId: user.id,
    connectionId: "irc-localhost",
    name: "localhost",
    url: "irc://irc.example.test?nick=alice",
    onConnectCommands: [],
    wantedState: "connected",
    nick: "alice",
  });
  return { user, record };
}

/**
 * What attachInbound and recordMessage read of a connection, over a stored record; its server
 * state has seen a welcome and the ISUPPORT `tokens` given.
 */
export function fakeConnection(
  record: { id: number; userId: number },
  client: EventEmitter,
  tokens: string[] = [],
) {
  const upstream = new UpstreamState();
  /** The lines Parley's own handlers sent the server (`send`). */
  const sent: string[] = [];
  upstream.see(parseMessage(":irc.example.test 001 alice :Welcome")!);
  if (tokens.length) {
    upstream.see(parseMessage(`:irc.example.test 005 alice ${tokens.join(" ")} :are supported`)!);
  }
  return {
    upstream,
    id: "irc-localhost",
    userId: record.userId,
    record,
    client,
    nick: "alice",
    url: { host: "irc.example.test", nick: "alice" },
    info: {} as Record<string, unknown>,
    state: "connected",
    conversationCapNoticed: false,
    serviceAccounts: new Set(["chanserv", "nickserv"]),
    conversationId: (name: string) => ircLower(name),
    isChannel: (name: string) => isChannel(name),
    isMe: (nick: string | undefined) => !!nick && ircLower(nick) === "alice",
    same: (a: string, b: string) => ircLower(a) === ircLower(b),
    // No regain runs here: every refusal is an answer to someone else's NICK.
    refusesRegain: () => false,
    clientsAttached: () => false,
    sent,
    send: (line: string) => {
      sent.push(line);
      return Promise.resolve();
    },
  };
}

/**
 * An IrcConnection with nothing of Parley behind it, for tests against a small IRC server: a record
 * of its own, and a listener whose sink takes the lines `take` says (none by default, so
 * registration is handed every line). `registered` resolves at the server's welcome.
 */
import { IrcConnection } from "../../irc/engine/connection.ts";
import type { IrcMessage } from "../../irc/protocol/message.ts";
import type { ConnectionRecord } from "../../store/connections.ts";

export function bareConnection(
  url: string,
  opts: { take?: (m: IrcMessage) => boolean; record?: Partial<ConnectionRecord> } = {},
): { conn: IrcConnection; registered: Promise<void> } {
  let welcomed!: () => void;
  const registered = new Promise<void>((r) => (welcomed = r));
  const conn = new IrcConnection({
    id: 1,
    userId: 1,
    connectionId: "irc-test",
    name: "test",
    url,
    onConnectCommands: [],
    wantedState: "connected",
    nick: "",
    certFingerprint: "",
    created: 0,
    ...opts.record,
  }, {
    listener: {
      changed() {},
      attach: () => ({
        take: opts.take ?? (() => false),
        room: () => undefined,
        members: () => Promise.resolve(undefined),
        sees: () => false,
        rejoining() {},
        released() {},
      }),
      registered: () => welcomed(),
      retry() {},
      gone() {},
    },
  });
  return { conn, registered };
}

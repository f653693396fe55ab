/**
 * A registered user whose new connection (nick `parley`) sits in `channel` on `irc`, with a raw
 * client `bob` there too: the set-up of tests that send a daemon lines and read what it stored.
 */
import { ApiClient } from "./api.ts";
import { RawIrcClient } from "./irc_client.ts";

/** The user's API client, the connection's id, and bob, once the daemon is in the channel. */
export async function inChannel(
  serverUrl: string,
  irc: { url: string; port: number },
  email: string,
  channel: string,
): Promise<{ api: ApiClient; cid: string; bob: RawIrcClient }> {
  const api = new ApiClient(serverUrl);
  await api.register(email);
  const created = await api.post("/api/connections", {
    url: `${irc.url}?nick=parley`,
    conversation_id: channel,
  });
  const cid = created.body.connection_id as string;
  const bob = await RawIrcClient.connect(irc.port, "bob");
  try {
    await bob.join(channel);
    // In the channel once its members see the daemon join (the conversation is listed before).
    await bob.waitFor((l) => l.command === "JOIN" && l.nick === "parley");
  } catch (err) {
    await bob.close();
    throw err;
  }
  return { api, cid, bob };
}

/** Joining a channel from the client (a /join, a click on a /list result) and opening it. */
import { navigate } from "./router.ts";
import { socket } from "./session.ts";
import { conversations, key, pendingJoin } from "./state.ts";

/** Opens the channel the server joined, now when it is known, else once it appears. */
export function openJoined(cid: string, channel: string): void {
  const name = channel.toLowerCase();
  if (conversations.value[key(cid, name)]) {
    navigate(`/chat/${encodeURIComponent(cid)}/${encodeURIComponent(name)}`);
  } else Object.assign(pendingJoin, { cid, conv: name });
}

/** Joins `channel` on connection `cid` and opens it; the server's refusal, as a message. */
export async function joinChannel(cid: string, channel: string): Promise<string | undefined> {
  const answer = await socket.request({
    method: "send",
    connection_id: cid,
    conversation_id: "",
    message: `/join ${channel}`,
  });
  if (answer.errors) return answer.errors.map((e) => e.message).join(" ");
  openJoined(cid, answer.conversation_id ?? channel);
}

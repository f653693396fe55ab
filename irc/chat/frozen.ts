/**
 * A Conversation's `frozen` state events: `frozen` says why nothing can be sent there ("" when
 * something can), and Convos's client reads these events to enable or disable a conversation.
 */
import type { EventBus } from "../../lib/bus.ts";
import type { ConversationRecord } from "../../store/conversations.ts";
import { conversationJson } from "../resources.ts";

/** Why nothing can be sent while the connection is not connected. */
export const NOT_CONNECTED = "Not connected.";

/** Publishes a `frozen` state event for each conversation. */
export function publishFrozen(
  bus: EventBus,
  userId: number,
  conversations: ConversationRecord[],
  frozen: string,
): void {
  for (const conv of conversations) {
    bus.publish(userId, {
      event: "state",
      type: "frozen",
      ...conversationJson(conv, frozen),
    });
  }
}

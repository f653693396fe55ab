/**
 * The Conversation resource as Convos has it, and its `frozen` state events: `frozen` says why
 * nothing can be sent there ("" when something can), and Convos's client reads these events to
 * enable or disable a conversation.
 */
import type { EventBus } from "../lib/bus.ts";
import type { ConversationRecord } from "../store/conversations.ts";
import { conversationJson } from "./record.ts";

/** Why nothing can be sent while the connection is not connected. */
export const NOT_CONNECTED = "Not connected.";

/** The Conversation resource with `frozen`, `info` and `notifications`. */
export function conversationResource(conv: ConversationRecord, frozen: string) {
  return { ...conversationJson(conv), frozen, info: {}, notifications: conv.notifications };
}

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
      ...conversationResource(conv, frozen),
    });
  }
}

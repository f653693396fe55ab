/** The `/events` request schemas: what a frame is read as, and where a bad send is wrong first. */
import { assertEquals } from "../../support/assert.ts";
import { RequestHead, SendRequest } from "../../../protocol/event_requests.ts";

Deno.test("event requests: the head keeps a usable id and method, and reads the rest as absent", () => {
  assertEquals(RequestHead.parse({ id: 7, method: "load" }), { id: 7, method: "load" });
  assertEquals(RequestHead.parse({ id: { x: 1 }, method: 5 }), {
    id: undefined,
    method: undefined,
  });
  assertEquals(RequestHead.parse({ method: "m".repeat(100) }).method, "m".repeat(64));
  assertEquals(RequestHead.safeParse([]).success, false);
});

Deno.test("event requests: a send names its first wrong field, in Convos's words", () => {
  const firstPath = (req: unknown) => {
    const parsed = SendRequest.safeParse(req);
    return parsed.success
      ? null
      : [parsed.error.issues[0].path.join("/"), parsed.error.issues[0].message];
  };
  assertEquals(firstPath({ method: "send", message: "hi" }), ["connection_id", "Invalid input."]);
  assertEquals(
    firstPath({ method: "send", connection_id: "c", conversation_id: 1, message: "hi" }),
    [
      "conversation_id",
      "Invalid input.",
    ],
  );
  assertEquals(firstPath({ method: "send", connection_id: "c", message: " " }), [
    "message",
    "Invalid input.",
  ]);
  assertEquals(SendRequest.parse({ method: "send", id: [], connection_id: "c", message: "hi" }), {
    method: "send",
    id: undefined,
    connection_id: "c",
    conversation_id: "",
    message: "hi",
  });
});

/**
 * The request bodies of the API as types, taken from the routes' zod schemas (the input side:
 * what a client sends, before trimming and defaults). The web client imports these with
 * `import type`, so a field renamed or retyped on the server is a type error in the client, and no
 * zod code reaches its bundle. tests/routes/openapi_test.ts holds the same schemas to the document.
 */
import type { z } from "zod";
import type { API } from "./contract/mod.ts";

type Body<K extends keyof typeof API> = (typeof API)[K] extends { body: infer B extends z.ZodType }
  ? z.input<B>
  : never;

/** The body each operation reads, by operationId. */
export interface RequestBodies {
  loginUser: Body<"loginUser">;
  registerUser: Body<"registerUser">;
  updateUser: Body<"updateUser">;
  updateSettings: Body<"updateSettings">;
  saveConnectionProfile: Body<"saveConnectionProfile">;
  createConnection: Body<"createConnection">;
  updateConnection: Body<"updateConnection">;
  sendMessage: Body<"sendMessage">;
  subscribePush: Body<"subscribePush">;
  unsubscribePush: Body<"unsubscribePush">;
  updatePushSettings: Body<"updatePushSettings">;
}

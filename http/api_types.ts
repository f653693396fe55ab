/**
 * The request bodies of the API as types, taken from the routes' zod schemas (the input side:
 * what a client sends, before trimming and defaults). The web client imports these with
 * `import type`, so a field renamed or retyped on the server is a type error in the client, and no
 * zod code reaches its bundle. tests/routes/openapi_test.ts holds the same schemas to the document.
 */
import type { z } from "zod";
import type * as connections from "../routes/connections.ts";
import type * as conversations from "../routes/conversations.ts";
import type * as profiles from "../routes/profiles.ts";
import type * as push from "../routes/push.ts";
import type * as ignores from "../routes/ignores.ts";
import type * as settings from "../routes/settings.ts";
import type * as user from "../routes/user.ts";

/** The body each operation reads, by operationId. */
export interface RequestBodies {
  loginUser: z.input<typeof user.loginBody>;
  registerUser: z.input<typeof user.registerBody>;
  updateUser: z.input<typeof user.updateBody>;
  updateSettings: z.input<typeof settings.settingsBody>;
  saveConnectionProfile: z.input<typeof profiles.profileBody>;
  createConnection: z.input<typeof connections.createBody>;
  updateConnection: z.input<typeof connections.updateBody>;
  sendMessage: z.input<typeof conversations.sendBody>;
  subscribePush: z.input<typeof push.subscribeBody>;
  unsubscribePush: z.input<typeof push.unsubscribeBody>;
  updatePushSettings: z.input<typeof push.settingsBody>;
  addIgnore: z.input<typeof ignores.ignoreBody>;
  removeIgnore: z.input<typeof ignores.ignoreBody>;
}

/** The server: settings, updates, dictionaries, Web Push and webhooks. */
import { z } from "zod";
import { operations } from "../operation.ts";
import * as D from "../definitions.ts";

const b64url = (len: number, what: string) =>
  z.string({ error: `${what} is required.` }).regex(
    new RegExp(`^[\\w-]{${len}}={0,2}$`),
    `${what} must be ${len} base64url characters.`,
  ).transform((s) => s.replace(/=+$/, ""));

// Push services are HTTPS (RFC 8030); the endpoint is the browser's word, so it is bounded.
const endpoint = z.url({ protocol: /^https$/, error: "endpoint must be an https URL." })
  .max(2048, "endpoint is too long.").meta({ description: "The push service's https URL." });

export const SERVER = operations({
  checkForUpdates: {
    method: "get",
    path: "/check-for-updates",
    summary: "Check if a new update is available",
    responses: {
      200: {
        description: "Version information",
        schema: z.object({
          available: z.number().optional(),
          running: z.number().optional(),
        }),
      },
    },
  },
  getSettings: {
    method: "get",
    path: "/settings",
    summary: "Get settings for Convos.",
    tags: ["settings"],
    responses: {
      200: { description: "ServerSettings.", schema: D.ServerSettings },
    },
  },
  updateSettings: {
    method: "post",
    path: "/settings",
    summary: "Update settings for Convos.",
    tags: ["settings"],
    body: D.ServerSettings,
    responses: {
      200: { description: "User profile.", schema: D.ServerSettings },
    },
  },
  getDictionary: {
    method: "get",
    path: "/i18n/{lang}",
    summary: "Retrieve translations.",
    tags: ["i18n"],
    params: z.object({
      lang: z.string(),
    }),
    responses: {
      200: {
        description: "Dictionary.",
        schema: z.object({
          dictionary: z.record(z.string(), z.unknown()),
          available_languages: z.record(
            z.string(),
            z.object({ name: z.string(), language_team: z.string() }),
          ).meta({ description: "Every language by its code." }).optional(),
        }),
      },
    },
  },
  getPush: {
    method: "get",
    path: "/push",
    summary: "Web Push: the server's public key and the caller's state.",
    description: "Parley addition (not in Convos 8.07).",
    tags: ["push"],
    responses: {
      200: {
        description: "Push state.",
        schema: z.object({
          public_key: z.string(),
          subscriptions: z.number().int(),
          auto_away: z.boolean(),
        }),
      },
    },
  },
  subscribePush: {
    method: "post",
    path: "/push/subscriptions",
    summary: "Save this browser's push subscription.",
    description: "Parley addition (not in Convos 8.07).",
    tags: ["push"],
    body: z.object({
      endpoint,
      keys: z.object({
        p256dh: b64url(87, "keys.p256dh"),
        auth: b64url(22, "keys.auth"),
      }, { error: "keys is required." }),
    }),
    responses: {
      201: { description: "Saved.", schema: z.object({}) },
    },
  },
  unsubscribePush: {
    method: "delete",
    path: "/push/subscriptions",
    summary: "Remove a push subscription.",
    description: "Parley addition (not in Convos 8.07).",
    tags: ["push"],
    body: z.object({ endpoint }),
    responses: {
      200: { description: "Removed.", schema: z.object({}) },
    },
  },
  updatePushSettings: {
    method: "post",
    path: "/push/settings",
    summary: "Turn automatic away on or off.",
    description: "Parley addition (not in Convos 8.07).",
    tags: ["push"],
    body: z.object({
      auto_away: z.boolean({ error: "auto_away must be true or false." }),
    }),
    responses: {
      200: {
        description: "The setting.",
        schema: z.object({
          auto_away: z.boolean(),
        }),
      },
    },
  },
  webhook: {
    method: "post",
    path: "/webhook/{provider_name}",
    summary: "Forwards the webhook payload to the Convos bot",
    tags: ["webhook"],
    // Read by its provider's rules, not by a schema.
    body: z.record(z.string(), z.unknown()).meta({ description: "Any webhook payload" }),
    params: z.object({
      provider_name: z.string().meta({ description: "Provider name" }),
    }),
    responses: {
      200: { description: "Webhook response", schema: z.record(z.string(), z.unknown()) },
    },
  },
});

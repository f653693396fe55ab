/**
 * Parameters several operations share (`#/parameters/<key>` in the document). An operation lists
 * one by putting its schema under the parameter's name; the meta `parameter` names the entry.
 */
import { z } from "zod";
import { email, queryTime } from "./fields.ts";
import type { SharedParameter } from "./swagger.ts";

const at = (word: string) => ({
  description: `Find messages ${word} a given ISO 8601 timestamp`,
  format: "date-time",
});

export const after = queryTime.meta({ ...at("after"), parameter: "after" });
export const around = queryTime.meta({ ...at("around"), parameter: "around" });
export const before = queryTime.meta({ ...at("before"), parameter: "before" });

export const connection_id = z.string().meta({
  description: "A unique connection identifier",
  parameter: "connection_id",
});
export const conversation_id = z.string().meta({
  description: "The name of the person or room",
  default: "",
  "x-mojo-placeholder": "#",
  parameter: "conversation_id",
});
export const email_in_path = email.meta({
  description: "User email",
  format: "email",
  "x-mojo-placeholder": "#",
  parameter: "email_in_path",
});
/** Convos's document declares it; no operation uses it. */
const ident = z.string().meta({ description: "User email or server identity" });

/** Every shared parameter, by its key. */
export const SHARED: Record<string, SharedParameter> = {
  after: { in: "query", name: "after", schema: after },
  around: { in: "query", name: "around", schema: around },
  before: { in: "query", name: "before", schema: before },
  connection_id: { in: "path", name: "connection_id", schema: connection_id },
  conversation_id: { in: "path", name: "conversation_id", schema: conversation_id },
  email_in_path: { in: "path", name: "email", schema: email_in_path },
  ident: { in: "path", name: "ident", schema: ident },
};

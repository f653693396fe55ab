/** What a backup holds: the names both `parley backup` and `parley restore` agree on. */
import { VAPID_FILE } from "../push/vapid.ts";

/** The first entry of every backup: what wrote it, and what it leaves out. */
export const MANIFEST = "parley-backup.json";
/**
 * Everything of the data folder a backup holds besides the database and uploads: the secret
 * (sessions, invite links), the bot, and the push keys every browser subscription is tied to.
 */
export const KEPT_FILES = ["secret", "bot.json", VAPID_FILE];
/** Uploaded files, kept as a tree. */
export const FILES_DIR = "files";
/** The database. */
export const DATABASE = "parley.db";

/**
 * The chunk of IRCv3 client tags (client_tags.tsx: typing, replies, reactions), loaded where the
 * server has message-tags; until it is, typing and reactions arriving are not shown live.
 */
import { lazyModule } from "./lazy.tsx";

export const tagsChunk = lazyModule(() => import("./client_tags.tsx"));

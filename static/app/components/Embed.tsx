/**
 * A link preview from `/api/embed`: an inline image or a small card. Remote images come through
 * Parley (`/api/embed/image`), so the browser never contacts the remote site.
 */
import { useEffect, useState } from "preact/hooks";
import { api, query } from "../api.ts";
import { isReservedHost } from "../util.ts";
import { at, BASE } from "../base.ts";

interface EmbedInfo {
  type?: string;
  title?: string;
  description?: string;
  url?: string;
  provider_name?: string;
  thumbnail_url?: string;
}

const cache = new Map<string, Promise<EmbedInfo | null>>();
const IMAGE = /\.(png|jpe?g|gif|webp|avif)(\?.*)?$/i;

/** The address of a remote image as Parley serves it. */
const viaParley = (url: string) => at("/api/embed/image") + query({ url });

function lookup(url: string): Promise<EmbedInfo | null> {
  let p = cache.get(url);
  if (!p) {
    p = api("embed", { query: { url } }).then((r) => r as EmbedInfo, () => null);
    cache.set(url, p);
  }
  return p;
}

/** The preview of `url`, or nothing when the server has none. */
export function Embed(p: { url: string; onLoad?: () => void }) {
  const [info, setInfo] = useState<EmbedInfo | null>(null);
  const sameOrigin = p.url.startsWith(location.origin + BASE + "/");
  // Our own uploads are shown directly: the embed service refuses this server's address anyway.
  const sameOriginImage = sameOrigin &&
    (IMAGE.test(p.url) ||
      /^\/(api\/files|file)\//.test(new URL(p.url).pathname.slice(BASE.length)));
  const [broken, setBroken] = useState(false);
  const [thumbBroken, setThumbBroken] = useState(false);
  useEffect(() => {
    if (sameOrigin || isReservedHost(p.url)) return;
    let live = true;
    lookup(p.url).then((i) => live && setInfo(i));
    return () => {
      live = false;
    };
  }, [p.url]);
  if (broken) return null;
  if (sameOriginImage || (info?.type === "photo" && info.url)) {
    const src = sameOriginImage ? p.url : viaParley(info!.url!);
    return (
      <a class="embed image" href={p.url} target="_blank" rel="noopener noreferrer">
        <img
          src={src}
          alt={info?.title ?? ""}
          loading="lazy"
          onLoad={p.onLoad}
          onError={() => setBroken(true)}
        />
      </a>
    );
  }
  if (!info || (!info.title && !info.description)) return null;
  return (
    <a class="embed card" href={p.url} target="_blank" rel="noopener noreferrer nofollow">
      {info.thumbnail_url && !thumbBroken && (
        <img
          src={viaParley(info.thumbnail_url)}
          alt=""
          loading="lazy"
          onLoad={p.onLoad}
          onError={() => setThumbBroken(true)}
        />
      )}
      <span class="embed-text">
        {info.provider_name && <span class="provider">{info.provider_name}</span>}
        {info.title && <strong>{info.title}</strong>}
        {info.description && <span class="desc">{info.description}</span>}
      </span>
    </a>
  );
}

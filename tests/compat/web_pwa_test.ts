/**
 * Convos 8.07 t/web-pwa.t: nothing to port.
 *
 * LEFT OUT web-pwa.t:6-17, 24-45 (html): the front page's icons, browserconfig and web manifest.
 * LEFT OUT web-pwa.t:19-20 (html): /sw/info belongs to Convos's service worker, outside the API.
 */

/**
 * Convos 8.07 t/web-basic.t: nothing to port.
 *
 * LEFT OUT web-basic.t:17-47 (html): the front page's title, meta tags, noscript text and links.
 * LEFT OUT web-basic.t:51-59 (html): the same page after organization_name and organization_url
 * change, and its hero image.
 */

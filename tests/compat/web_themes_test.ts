/**
 * Convos 8.07 t/web-themes.t: nothing to port.
 *
 * LEFT OUT web-themes.t:13-39 (html): theme stylesheets linked from the page and served from
 * /themes/; Parley's client has its own themes.
 */

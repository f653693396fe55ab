/**
 * Convos 8.07 t/web-cms.t: nothing to port.
 *
 * LEFT OUT web-cms.t:10-131 (html): Convos's CMS (its documentation, blog and custom index pages
 * in .html, .txt and .yaml); Parley serves only its web client and the API.
 */

/**
 * Convos 8.07 t/web-cms-links.t: nothing to port.
 *
 * LEFT OUT web-cms-links.t:12-20 (html): crawls the links of Convos's own website pages (its
 * CMS); Parley has no CMS.
 */

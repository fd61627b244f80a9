/**
 * What the front door's page carries besides its text, shared by the build, which writes the page,
 * and the server, which sends the page with a Content-Security-Policy allowing exactly these.
 *
 * The page shows the address it was reached on, filled in by its one script from
 * `location.origin`: the browser knows the scheme and host it used (a TLS proxy's in front, too);
 * the server does not (the Host header is the client's to write, and behind a proxy the scheme is
 * not the server's), and the page is precomputed like every body.
 */
import { createHash } from 'node:crypto';

/** The page's only styling, inline so there is nothing more to fetch. */
export const FRONT_DOOR_STYLE =
  'body{font-family:sans-serif;max-width:70em;margin:2em auto;padding:0 1em}' +
  'td{vertical-align:top;padding:.2em .5em}' +
  'pre{margin:0 0 .6em;background:#f4f4f4;padding:.3em;overflow-x:auto}';

/** Each `data-origin` element becomes this page's origin followed by the attribute's path. */
export const FRONT_DOOR_SCRIPT =
  "for(const e of document.querySelectorAll('[data-origin]'))e.textContent=location.origin+e.dataset.origin";

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/** The page may run its script and apply its style, and nothing else: no fetch, frame, form or other source. */
export const FRONT_DOOR_CSP =
  `default-src 'none'; script-src ${sha256(FRONT_DOOR_SCRIPT)}; style-src ${sha256(FRONT_DOOR_STYLE)}; ` +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

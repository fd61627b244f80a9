/**
 * The front door: what `/` and `/api/v2` answer. A small index of the service made from the
 * route table and the snapshot (build id, data date), as JSON, or as a plain HTML page with a
 * curl example per route for a browser. Written by the build like any other body. It needs no
 * key, so it names no model or provider of the data: a slug in a curl line is a shell
 * variable the reader sets from a list their key may read.
 */
import { ROUTES, type Route } from '../../src/shared/routes.ts';
import type { BuildContext } from './route-builder.ts';
import { FRONT_DOOR_SCRIPT, FRONT_DOOR_STYLE } from '../../src/shared/front-door-page.ts';

export const SERVICE_NAME = 'Benchmark Data API';

export interface FrontDoor {
  service: string;
  description: string;
  snapshot: { build_id: string; data_as_of: string; intelligence_index_version: number };
  links: { openapi: string; healthz: string; readyz: string };
  routes: {
    method: string;
    path: string;
    summary: string;
    tiers: string[];
    query: string[];
    served: boolean;
    example: string;
  }[];
}

/** The shell variable a curl line puts where the route's slug goes. */
const SLUG_VARIABLES: Record<NonNullable<Route['slugOf']>, string> = { Model: '$MODEL', Provider: '$PROVIDER' };

/** What the curl lines' variables stand for, said once on the page and in the JSON. */
function curlVariables(operational: string): string {
  return `In the curl lines, API is this server's API root (e.g. http://127.0.0.1:8080/api/v2, as in the README), BASE the server itself (e.g. http://127.0.0.1:8080, for ${operational}), KEY your key, MODEL a model's slug (from /api/v2/language/models/free) and PROVIDER a provider's slug (from /api/v2/language/providers).`;
}

/** Where the API's own routes are; the curl lines call it $API, as the README does. */
const API_ROOT = '/api/v2';

/** A curl line for one route. */
function curlExample(route: Route): string {
  const path = route.slugOf ? route.path.replace('{slug}', SLUG_VARIABLES[route.slugOf]) : route.path;
  const url = path.startsWith(`${API_ROOT}/`) ? `$API${path.slice(API_ROOT.length)}` : `$BASE${path}`;
  if (route.method === 'POST') {
    const headers = '-H "x-api-key: $KEY" -H "content-type: application/json"';
    return `curl -s -X POST ${headers} --data @examples/critpt-batch.json "${url}"`;
  }
  return route.public ? `curl -s "${url}"` : `curl -s -H "x-api-key: $KEY" "${url}"`;
}

/** The server options the front door depends on: a route a server does not serve is not listed. */
export interface FrontDoorOptions {
  /** Whether the server serves /metrics (--metrics): without it, /metrics answers 404 and is not listed. */
  metrics: boolean;
}

export function frontDoor(ctx: BuildContext, served: ReadonlySet<string>, options: FrontDoorOptions): FrontDoor {
  const listed = ROUTES.filter((r) => !r.id.startsWith('index') && (options.metrics || r.answer !== 'metrics'));
  const operational = listed.filter((r) => r.public && !r.path.startsWith(API_ROOT)).map((r) => r.path);
  const operationalList = `${operational.slice(0, -1).join(', ')} and ${operational.at(-1)}`;
  return {
    service: SERVICE_NAME,
    description:
      'Read-only JSON API for model benchmark, pricing and performance data. ' +
      'Send your key in the x-api-key header; the OpenAPI document describes every route. ' +
      curlVariables(operationalList),
    snapshot: {
      build_id: ctx.buildId ?? '',
      data_as_of: new Date(ctx.asOf).toISOString(),
      intelligence_index_version: ctx.intelligenceIndexVersion,
    },
    links: { openapi: '/api/v2/openapi.json', healthz: '/healthz', readyz: '/readyz' },
    routes: listed.map((r) => ({
      method: r.method,
      path: r.path,
      summary: r.summary,
      tiers: r.public ? [] : [...r.tiers],
      query: Object.keys(r.query),
      served: r.public || r.answer === 'critpt' || served.has(r.id),
      example: curlExample(r),
    })),
  };
}

const VIEWPORT = '<meta name="viewport" content="width=device-width, initial-scale=1">';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The same index as a page a person reads: nothing to fetch, and one script, which fills in the
 * address the page was reached on (src/shared/front-door-page.ts says why there).
 */
export function frontDoorHtml(door: FrontDoor): string {
  const e = escapeHtml;
  const rows = door.routes
    .map((r) => {
      const unserved = r.served ? '' : ' <em>(no data in this snapshot: 501)</em>';
      const cells = [
        `<code>${e(r.method)} ${e(r.path)}</code>${unserved}`,
        e(r.summary),
        e(r.tiers.join(', ') || 'no key'),
        e(r.query.join(', ') || '-'),
      ];
      return `<tr><td>${cells.join('</td><td>')}</td></tr>\n<tr><td colspan="4"><pre>${e(r.example)}</pre></td></tr>`;
    })
    .join('\n');
  const links = [
    `<a href="${e(door.links.openapi)}">OpenAPI document</a>`,
    `<a href="${e(door.links.healthz)}">/healthz</a>`,
    `<a href="${e(door.links.readyz)}">/readyz</a>`,
  ].join(' &middot; ');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">${VIEWPORT}<title>${e(door.service)}</title>
<style>${FRONT_DOOR_STYLE}</style>
</head><body>
<h1>${e(door.service)}</h1>
<p>${e(door.description)}</p>
<p>This server is at <code data-origin="">http://HOST:PORT</code>. For the curl lines:</p>
<pre>API=<span data-origin="${API_ROOT}">http://HOST:PORT${API_ROOT}</span>
BASE=<span data-origin="">http://HOST:PORT</span>
KEY=your-key</pre>
<p>Snapshot <code>${e(door.snapshot.build_id)}</code>, data as of ${e(door.snapshot.data_as_of)}.
${links}</p>
<table>
<tr><th>Route</th><th>What</th><th>Tiers</th><th>Query</th></tr>
${rows}
</table>
<script>${FRONT_DOOR_SCRIPT}</script>
</body></html>
`;
}

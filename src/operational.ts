/**
 * The routes that need no key, carry no tier and are never counted, by their answer kind:
 * liveness, readiness, metrics, the front door, and the public precomputed bodies (the OpenAPI
 * document). They reveal nothing that needs a key.
 */
import type { Bodies } from './bodies.ts';
import { answerBody, answerNotModified, answerPlain, JSON_BODY, type BodyType, type Exchange } from './exchange.ts';
import { HttpError } from './http/error.ts';
import type { ConnectionStats } from './http/connection-caps.ts';
import type { Metrics } from './http/metrics.ts';
import { acceptedEncodings, etagMatches, matchesAny, prefersHtml } from './http/negotiate.ts';
import type { Plan } from './http/request-plans.ts';
import { JSON_TYPE } from './http/respond.ts';
import { whenReady, type Eventually } from './lib/eventually.ts';
import { entryName, PUBLIC_BODY_TIER, type AnswerKind } from './shared/routes.ts';
import type { Body, Snapshot } from './snapshot/snapshot.ts';
import type { VerificationStatus } from './snapshot/verifier.ts';
import type { PullStatus } from './pull/puller.ts';
import { FRONT_DOOR_CSP } from './shared/front-door-page.ts';
import { MANIFEST_FORMAT } from './shared/manifest.ts';
import { VERSION } from './shared/version.ts';

/** What /readyz says of the program, ready or not: its version and the snapshot format it reads. */
const RUNNING = { version: VERSION, snapshot_format: MANIFEST_FORMAT } as const;

export interface OperationalParts {
  bodies: Bodies;
  /** Why the server is not ready; empty when all is well. */
  readiness: () => string[];
  /** What an operator should fix though the server is ready (a Redis keeping nothing on disk): listed, never a 503. */
  warnings: () => string[];
  /** How far the check of the served build's checksums has got. */
  verification: () => VerificationStatus;
  metrics?: Metrics;
  /** Connections open, their caps and the descriptor limit they come from. */
  connections?: () => ConnectionStats;
  /** The origin builds are pulled from (--snapshot-from), and the release served. */
  origin?: () => PullStatus;
}

type OperationalAnswer = (exchange: Exchange, plan: Plan) => Eventually<void>;

const HTML_BODY: BodyType = {
  contentType: 'text/html; charset=utf-8',
  vary: 'Accept-Encoding, Accept',
  extra: ['Content-Security-Policy', FRONT_DOOR_CSP],
};
const JSON_BY_ACCEPT: BodyType = { ...JSON_BODY, vary: 'Accept-Encoding, Accept' };

/** A precomputed public body: 304 when the client's copy is current, else 200. */
function answerPublic(exchange: Exchange, body: Body, type: BodyType = JSON_BODY): void {
  if (etagMatches(exchange.req.headers['if-none-match'], body.etag)) return answerNotModified(exchange, body, type);
  answerBody(exchange, body, type);
}

/**
 * The front door's body for this server: the one listing /metrics when it serves metrics. A build
 * made before the front door had that variant has the other only, which it then serves.
 */
function frontDoorName(plan: Plan, format: string, metrics: boolean, snapshot: Snapshot): string {
  const plain = entryName(plan.route, PUBLIC_BODY_TIER, { format });
  if (!metrics) return plain;
  const withMetrics = entryName(plan.route, PUBLIC_BODY_TIER, { format, metrics: true });
  return snapshot.entry(plan.route.id, withMetrics) ? withMetrics : plain;
}

/** The answer of every public route, by the route table's answer kind. */
/** /readyz's `connections`: what is open against the caps, so an operator sees a cap before clients meet it. */
function connectionsShown(stats: ConnectionStats): Record<string, number> {
  return {
    open: stats.open,
    cap: stats.cap,
    per_client_cap: stats.perClientCap,
    descriptor_limit: stats.descriptorLimit,
  };
}

/** /readyz's `origin`: where builds come from, the release served and when the origin was last asked. */
function originShown(status: PullStatus): Record<string, string | number | null> {
  return {
    url: status.origin,
    release: status.version,
    expires: status.expires,
    last_poll: status.lastPoll,
    last_pull: status.lastPull,
    pulls: status.pulls,
    failed_pulls: status.failedPulls,
  };
}

export function operationalAnswers({
  bodies,
  readiness,
  warnings,
  verification,
  metrics,
  connections,
  origin,
}: OperationalParts): Partial<Record<AnswerKind, OperationalAnswer>> {
  return {
    health: (exchange) => answerPlain(exchange, JSON_TYPE, '{"status":"ok"}'),

    ready: (exchange) => {
      const reasons = readiness();
      const { state, indexesChecked, indexes, bytesChecked, bytes } = verification();
      const checked = { state, indexes_checked: indexesChecked, indexes, bytes_checked: bytesChecked, bytes };
      const warned = warnings();
      const open = {
        ...(connections && { connections: connectionsShown(connections()) }),
        ...(origin && { origin: originShown(origin()) }),
      };
      if (reasons.length > 0)
        throw new HttpError(503, 'Not ready', {
          details: {
            reason: reasons.join('; '),
            reasons,
            ...RUNNING,
            verification: checked,
            warnings: warned,
            ...open,
          },
        });
      answerPlain(
        exchange,
        JSON_TYPE,
        JSON.stringify({
          status: 'ready',
          ...RUNNING,
          snapshot: exchange.snapshot.buildId,
          verification: checked,
          warnings: warned,
          ...open,
        }),
      );
    },

    metrics: (exchange) => {
      if (!metrics)
        throw new HttpError(404, 'Metrics are off; start the server with --metrics', {
          details: { option: '--metrics' },
        });
      answerPlain(exchange, 'text/plain; version=0.0.4; charset=utf-8', metrics.render());
    },

    // The OpenAPI document.
    snapshot: (exchange, plan) => {
      const encodings = acceptedEncodings(exchange.req.headers['accept-encoding']);
      // `*` is met by any current body: its tag is in the index, so the body is never read.
      const etag = matchesAny(exchange.req.headers['if-none-match'])
        ? bodies.knownTag(exchange.snapshot, plan, PUBLIC_BODY_TIER, encodings)
        : undefined;
      if (etag) return answerNotModified(exchange, { etag });
      return whenReady(bodies.precomputed(exchange.snapshot, plan, PUBLIC_BODY_TIER, encodings), (body) =>
        answerPublic(exchange, body),
      );
    },

    // A browser (Accept: text/html first) gets the page unless `format` says otherwise.
    'front-door': (exchange, plan) => {
      const { req, snapshot } = exchange;
      const params = plan.values();
      const encodings = acceptedEncodings(req.headers['accept-encoding']);
      const html = /(^|&)format=/.test(plan.query) ? params.format === 'html' : prefersHtml(req.headers.accept);
      const name = frontDoorName(plan, html ? 'html' : 'json', metrics !== undefined, snapshot);
      const etag = matchesAny(req.headers['if-none-match'])
        ? bodies.knownTag(snapshot, plan, PUBLIC_BODY_TIER, encodings, name)
        : undefined;
      if (etag) return answerNotModified(exchange, { etag }, html ? HTML_BODY : JSON_BY_ACCEPT);
      return whenReady(bodies.precomputed(snapshot, plan, PUBLIC_BODY_TIER, encodings, name), (body) =>
        answerPublic(exchange, body, html ? HTML_BODY : JSON_BY_ACCEPT),
      );
    },
  };
}

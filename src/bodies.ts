/**
 * Which body answers a request, in the encoding chosen: a precomputed body from the snapshot's
 * index, the empty page past a list's last, a measurements answer assembled from fragments, or
 * the changes between builds and a model's history joined from the history's parts. Never a
 * file path from the request: only entry names and spans of the manifest. 404 for an unknown
 * slug or build, 403 for a provider the key has no grant for, 501 for a known route the snapshot
 * does not serve.
 */
import { HttpError } from './http/error.ts';
import type { Plan } from './http/request-plans.ts';
import type { Eventually } from './lib/eventually.ts';
import type { Clock } from './lib/clock.ts';
import type { KeyRecord } from './state/key-record.ts';
import { admitProvider } from './policy.ts';
import { etagOf, historyOf, storedPart, type Encoding, type HistoryParts } from './shared/manifest.ts';
import { changesEnvelope, changesPage, changesShape, modelHistoryEnvelope } from './shared/changes-page.ts';
import { measurementsStartDay } from './shared/measurements.ts';
import { entryName, isPrecomputed, type Route, type Tier } from './shared/routes.ts';
import type { Body, Snapshot } from './snapshot/snapshot.ts';
import type { BodyReader } from './snapshot/reader.ts';

export class Bodies {
  constructor(
    private readonly reader: BodyReader,
    private readonly clock: Clock,
  ) {}

  /** The body answering a keyed data request: precomputed for the key's tier, measurements, changes or a history. */
  forKey(snapshot: Snapshot, plan: Plan, key: KeyRecord, encodings: readonly Encoding[]): Eventually<Body> {
    const { answer } = plan.route;
    if (answer === 'fragments') return this.measurements(snapshot, plan, key, encodings[0]);
    if (answer === 'changes') return this.changes(snapshot, plan, key.tier, encodings[0]);
    if (answer === 'history') return this.modelHistory(snapshot, plan, key.tier, encodings[0]);
    return this.precomputed(snapshot, plan, key.tier, encodings);
  }

  /**
   * The precomputed body answering this request (the plan's entry for `tier`, unless `name` says
   * another), in the first of `encodings` (best first) whose stored bytes pass their checksum.
   */
  precomputed(
    snapshot: Snapshot,
    plan: Plan,
    tier: Tier,
    encodings: readonly Encoding[],
    name = plan.entryName(tier),
  ): Eventually<Body> {
    const { route, slug } = plan;
    ensureServed(snapshot, route);
    const entry = snapshot.entry(route.id, name);
    if (entry) return this.reader.body(snapshot, entry, encodings);
    if (route.slugOf) throw new HttpError(404, `${route.slugOf} not found: ${slug}`, { details: { slug } });
    if (route.paginated) {
      const params = plan.values();
      const empty = snapshot.emptyPage(entryName(route, tier, { ...params, page: '*' }));
      if (empty) return this.reader.assembled(Buffer.from(`${empty.before}${params.page}${empty.after}`), encodings[0]);
    }
    throw new Error(`snapshot ${snapshot.buildId} lacks ${name}`);
  }

  /**
   * The ETag the precomputed body answering this request would have, from the index alone (no
   * read, no inflating), for `If-None-Match: *`; undefined when only the body itself can say
   * (an empty page past the last, a measurements answer) or when there is none (the 404s and
   * 501 come from reading it). The first acceptable encoding is the one a 200 sends unless its
   * stored bytes fail their checksum, and for `*` any variant's tag will do.
   */
  knownTag(
    snapshot: Snapshot,
    plan: Plan,
    tier: Tier,
    encodings: readonly Encoding[],
    name?: string,
  ): string | undefined {
    if (!isPrecomputed(plan.route) || !snapshot.serves(plan.route.id)) return undefined;
    const entry = snapshot.entry(plan.route.id, name ?? plan.entryName(tier));
    return entry ? etagOf(entry[0], encodings[0]) : undefined;
  }

  /**
   * The builds after `since` (without it, every build the history holds), a page of them, joined
   * from the stored changes of the key's list: the Free list, or the Pro list of the prompt type.
   * A `since` the history does not hold is a 404 naming the oldest it does.
   */
  private changes(snapshot: Snapshot, plan: Plan, tier: Tier, encoding: Encoding): Eventually<Body> {
    const history = servedHistory(snapshot, plan.route);
    const {
      since,
      prompt_type: promptType,
      page,
    } = plan.values() as { since?: string; prompt_type: string; page: number };
    const answer = changesPage(history, since, page);
    if (!answer)
      throw new HttpError(404, `Build not found: ${since}`, {
        details: { since, oldest_build_id: history.before ?? history.builds[0] ?? null },
      });
    const section = changesShape(tier, promptType);
    const texts = answer.positions.map((at) => ({
      part: history.changes[at]!,
      section,
      what: storedPart.changes(history.builds[at]!),
    }));
    return this.reader.joined(
      snapshot,
      plan.entryName(tier),
      texts,
      changesEnvelope(tier, answer.pagination),
      encoding,
    );
  }

  /** A model's history in the Pro list of the prompt type: 404 for a slug the history does not hold. */
  private modelHistory(snapshot: Snapshot, plan: Plan, tier: Tier, encoding: Encoding): Eventually<Body> {
    const { route, slug } = plan;
    const { models } = servedHistory(snapshot, route);
    const section = plan.values().prompt_type as string;
    const part = Object.hasOwn(models, slug!) ? models[slug!] : undefined;
    if (!part?.sections[section]) throw new HttpError(404, `Model not found: ${slug}`, { details: { slug } });
    const texts = [{ part, section, what: storedPart.modelHistory(slug!) }];
    return this.reader.joined(snapshot, plan.entryName(tier), texts, modelHistoryEnvelope(tier), encoding);
  }

  /**
   * Raw measurements since `start_date`: by default, and at the earliest, one month before the
   * request (by the server's clock). The provider must exist (404) and the key must hold a grant
   * for it (403).
   */
  private measurements(snapshot: Snapshot, plan: Plan, key: KeyRecord, encoding: Encoding): Eventually<Body> {
    const { route, slug } = plan;
    ensureServed(snapshot, route);
    const name = plan.entryName(key.tier);
    if (!snapshot.fragment(name)) throw new HttpError(404, `Provider not found: ${slug}`, { details: { slug } });
    admitProvider(route, key, slug!);
    const startDay = measurementsStartDay(plan.values().start_date as string | undefined, this.clock.now());
    return this.reader.measurements(snapshot, name, startDay, encoding);
  }
}

/** The history the route is joined from: 501 without one this server reads (a build of older code). */
function servedHistory(snapshot: Snapshot, route: Route): HistoryParts {
  const history = historyOf(snapshot.manifest);
  ensureServed(snapshot, route, snapshot.serves(route.id) && history !== null);
  return history!;
}

/** A route of the table that the current snapshot does not answer is known but not served: 501. */
function ensureServed(snapshot: Snapshot, route: Route, served = snapshot.serves(route.id)): void {
  if (!served)
    throw new HttpError(
      501,
      `${route.method} ${route.path} is not served yet: the current snapshot has no data for it`,
      { details: { route: route.id } },
    );
}

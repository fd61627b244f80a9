/**
 * Which body answers a request, in the encoding chosen: a precomputed body from the snapshot's
 * index, the empty page past a list's last, a measurements answer assembled from fragments, or
 * the changes between builds joined from the history's parts. Never a file path from the request:
 * only entry names and spans of the manifest. 404 for an unknown slug or build, 403 for a provider
 * the key has no grant for, 501 for a known route the snapshot does not serve.
 */
import { HttpError } from './http/error.ts';
import type { Plan } from './http/request-plans.ts';
import type { Eventually } from './lib/eventually.ts';
import type { Clock } from './lib/clock.ts';
import type { KeyRecord } from './state/key-record.ts';
import { admitProvider } from './policy.ts';
import { etagOf, storedPart, type Encoding } from './shared/manifest.ts';
import { changesEnvelope, changesPage, changesShape } from './shared/changes-page.ts';
import { measurementsStartDay } from './shared/measurements.ts';
import { entryName, isPrecomputed, type Route, type Tier } from './shared/routes.ts';
import type { Body, Snapshot } from './snapshot/snapshot.ts';
import type { BodyReader } from './snapshot/reader.ts';

export class Bodies {
  constructor(
    private readonly reader: BodyReader,
    private readonly clock: Clock,
  ) {}

  /** The body answering a keyed data request: precomputed for the key's tier, measurements, or changes. */
  forKey(snapshot: Snapshot, plan: Plan, key: KeyRecord, encodings: readonly Encoding[]): Eventually<Body> {
    const { answer } = plan.route;
    if (answer === 'fragments') return this.measurements(snapshot, plan, key, encodings[0]);
    if (answer === 'changes') return this.changes(snapshot, plan, key.tier, encodings[0]);
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
    ensureServed(snapshot, plan.route);
    const history = snapshot.manifest.changes_parts!;
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
    const shape = changesShape(tier, promptType);
    const parts = answer.positions.map((at) => ({
      span: history.parts[shape]![at]!,
      what: storedPart.changes(shape, history.builds[at]!),
    }));
    return this.reader.joined(
      snapshot,
      plan.entryName(tier),
      parts,
      changesEnvelope(tier, answer.pagination),
      encoding,
    );
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

/** A route of the table that the current snapshot does not answer is known but not served: 501. */
function ensureServed(snapshot: Snapshot, route: Route): void {
  if (!snapshot.serves(route.id))
    throw new HttpError(
      501,
      `${route.method} ${route.path} is not served yet: the current snapshot has no data for it`,
      { details: { route: route.id } },
    );
}

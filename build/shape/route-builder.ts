/**
 * What a route builder is given and gives: the build context every builder reads, and the
 * builder's own shape. Types only, shared by the body enumeration and the OpenAPI examples.
 */
import type { PromptType, Tier } from '../../src/shared/routes.ts';
import type { SeriesColumns } from '../columns.ts';
import type { ModelView } from '../derive/language.ts';
import type { ArenaOptions } from '../derive/media.ts';
import type { MeasurementBlob } from './measurements.ts';
import type { ProviderView } from '../derive/providers.ts';
import type { Dataset } from '../types.ts';

export interface BuildContext {
  dataset: Dataset;
  models: ModelView[];
  providers: ProviderView[];
  /** Records by endpoint id, then prompt type, sorted by time. */
  records: Map<string, Map<PromptType, SeriesColumns>>;
  /** End of every window (ms). */
  asOf: number;
  intelligenceIndexVersion: number;
  pageSize: number;
  arenaOptions: ArenaOptions;
  /** The build being written (the front door names it); absent outside a build. */
  buildId?: string;
}

export type Params = Record<string, string | number | boolean>;

/** How one route's data is made. List routes give items (the build pages them); others give data. */
export interface RouteBuilder {
  /** False when the data for this route is absent (the route is then not built: 501). */
  available?: (ctx: BuildContext) => boolean;
  /** Top-level fields before `pagination` and `data`; by default just `tier`. */
  head?: (ctx: BuildContext, tier: Tier, params: Params) => Record<string, unknown>;
  items?: (ctx: BuildContext, tier: Tier, params: Params) => unknown[];
  slugs?: (ctx: BuildContext) => string[];
  data?: (ctx: BuildContext, tier: Tier, params: Params, slug: string) => unknown;
  /** A body that is not an envelope (the OpenAPI document, the front door); a string is written as it is. */
  body?: (ctx: BuildContext, params: Params) => unknown;
  /** Request-time routes: the serialised records the server slices. */
  fragments?: (ctx: BuildContext, params: Params, slug: string) => MeasurementBlob;
}

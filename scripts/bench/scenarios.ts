/** The comparison's scenarios (the pages loaded on each server) and the table's row of one. */
import type { Row } from './results.ts';
import { roundRatio, type Summary } from './rounds.ts';
import type { Stage } from './stage.ts';

export interface Scenario {
  name: string;
  key: string;
  /** Paths on our server. */
  ours: string[];
  /** Paths of the same bodies on nginx (and the floor). */
  nginx: string[];
  /** The list scenario also loads our server on Redis in the same rounds, and is the counting cost's page. */
  isList: boolean;
}

export const LIST_PATH = '/api/v2/language/models?page=1';
export const COUNTING_OFF = 'Pro list page (br), counting off';
export const ON_REDIS = 'Pro list page (br), on Redis';

/** The Pro list page, every detail page, the /free page and one provider's measurements, each in brotli. */
export function scenariosOf(stage: Stage, measurementsPath: string): Scenario[] {
  const { commercial, free } = stage.keys;
  return [
    { name: 'Pro list page (br)', key: commercial, ours: [LIST_PATH], nginx: ['/list.json'], isList: true },
    {
      name: `detail, ${stage.slugs.length} slugs (br)`,
      key: commercial,
      ours: stage.slugs.map((s) => `/api/v2/language/models/${s}`),
      nginx: stage.slugs.map((s) => `/detail/${s}.json`),
      isList: false,
    },
    {
      name: '/free page (br)',
      key: free,
      ours: ['/api/v2/language/models/free'],
      nginx: ['/free.json'],
      isList: false,
    },
    {
      name: 'measurements (br)',
      key: commercial,
      ours: [measurementsPath],
      nginx: ['/measurements.json'],
      isList: false,
    },
  ];
}

export function rowOf(
  scenario: string,
  connections: number,
  ours: Summary,
  nginx: Summary | null,
  floor: Summary | null,
  before: Summary | null = null,
): Row {
  return {
    scenario,
    connections,
    ours,
    nginx,
    floor,
    before,
    rpsRatio: roundRatio(ours, nginx, 'rps'),
    p99Ratio: roundRatio(ours, nginx, 'p99Ms'),
    oursOfFloor: roundRatio(ours, floor, 'rps'),
    p99OfFloor: roundRatio(ours, floor, 'p99Ms'),
  };
}

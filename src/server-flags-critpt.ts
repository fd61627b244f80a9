/**
 * The server's flags for the CritPt route (grading upstream, timeouts, upload budgets, concurrency,
 * contact), in the form of src/shared/flag-table.ts: a part of src/server-flags.ts's table, in its
 * place there.
 */
import { asText, flagRow, integerFrom, type FlagTable } from './shared/flag-table.ts';
import { httpUrl } from './server-flag-parsers.ts';

export const CRITPT_FLAGS = {
  'critpt-upstream': flagRow<string | null>({
    value: 'URL',
    env: 'CRITPT_UPSTREAM',
    default: null,
    parse: httpUrl,
    help: 'the CritPt grading service',
  }),
  'critpt-timeout': {
    value: 'S',
    env: 'CRITPT_TIMEOUT',
    default: 30 * 60,
    parse: integerFrom(1, 24 * 3600),
    help: 'seconds a grading may take',
  },
  'critpt-max-body-mb': {
    value: 'N',
    env: 'CRITPT_MAX_BODY_MB',
    default: 16,
    parse: integerFrom(1, 1024),
    help: 'largest grading request, in MiB (413 past it)',
  },
  // Four largest bodies on the server, two for one user: a few hundred MB at most, parsing included.
  'critpt-upload-budget-mb': {
    value: 'N',
    env: 'CRITPT_UPLOAD_BUDGET_MB',
    default: 64,
    parse: integerFrom(1, 65536),
    help:
      'MiB of grading request bodies held in memory at once on the whole server; past it, 503 with `Retry-After` ' +
      '(see [Upload budgets](#upload-budgets))',
  },
  'critpt-user-upload-mb': {
    value: 'N',
    env: 'CRITPT_USER_UPLOAD_MB',
    default: 32,
    parse: integerFrom(1, 65536),
    help:
      'the same for one user (every key of the user counts together, as for the CritPt quota); each budget must be ' +
      'at least `--critpt-max-body-mb`',
  },
  'critpt-upload-min-rate': {
    value: 'N',
    env: 'CRITPT_UPLOAD_MIN_RATE',
    default: 1,
    parse: integerFrom(0, 1024 * 1024),
    help: 'KiB a second a grading request body must average once the grace has passed (408 below it); 0: no minimum',
  },
  'critpt-upload-grace': {
    value: 'S',
    env: 'CRITPT_UPLOAD_GRACE',
    default: 10,
    parse: integerFrom(1, 3600),
    help: 'seconds a grading request body may arrive at any pace',
  },
  'critpt-concurrency': {
    value: 'N',
    env: 'CRITPT_CONCURRENCY',
    default: 2,
    parse: integerFrom(1, 64),
    help: 'gradings forwarded at once; the rest wait in order',
  },
  'critpt-contact': {
    value: 'EMAIL',
    env: 'CRITPT_CONTACT',
    default: 'the operator of this server',
    parse: asText,
    help: 'where approval is requested (in the 403)',
  },
} satisfies FlagTable;

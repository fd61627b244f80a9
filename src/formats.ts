/**
 * The formats of what the server and the keys command write, as `--version` and /readyz say them
 * (CHANGELOG.md lists, for each version, the formats it reads too). The build writes only the
 * snapshot's (build/main.ts says that one).
 */
import { ADMIN_TOKENS_FORMAT } from './keys/admin-tokens.ts';
import { KEYS_FORMAT } from './keys/file-format.ts';
import { COUNTS_FORMAT } from './quota/counts-file.ts';
import { MANIFEST_FORMAT } from './shared/manifest.ts';

export const FORMATS = {
  snapshot: MANIFEST_FORMAT,
  keys_file: KEYS_FORMAT,
  admin_tokens: ADMIN_TOKENS_FORMAT,
  quota_counts: COUNTS_FORMAT,
} as const;

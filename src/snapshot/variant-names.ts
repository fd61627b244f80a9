/**
 * The names a body's variant goes by: its key in the body cache (content hash and encoding) and
 * its ETag. Made once a content hash rather than once a request: made per request they were two
 * new strings each time, which the cache's Map then had to flatten and hash before it could find
 * the body (bench/analysis.md, "A shorter path").
 */
import { RecentMap } from '../lib/recent-map.ts';
import { etagOf, type Encoding } from '../shared/manifest.ts';

export interface VariantName {
  /** The variant's key in the body cache. */
  key: string;
  etag: string;
}

/** Content hashes whose names are kept, per generation (two generations): far more than the hot bodies. */
const HASHES = 4096;

const namesOf = (hash: string, encoding: Encoding): VariantName => ({
  key: `${hash}.${encoding}`,
  etag: etagOf(hash, encoding),
});

export class VariantNames {
  private readonly byHash = new RecentMap<string, Record<Encoding, VariantName>>(HASHES);

  of(hash: string, encoding: Encoding): VariantName {
    let names = this.byHash.get(hash);
    if (names === undefined) {
      names = { br: namesOf(hash, 'br'), gzip: namesOf(hash, 'gzip'), identity: namesOf(hash, 'identity') };
      this.byHash.set(hash, names);
    }
    return names[encoding];
  }
}

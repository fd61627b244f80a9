/**
 * A build's history into its pack (build/history/stored.ts says what each part holds): the texts
 * first, for the build to hold the answers joined from them to their schemas, then the parts,
 * then, once the pack is finished, the manifest's `history`.
 */
import { brotliDecompressSync } from 'node:zlib';
import { HISTORY_FORMAT, type CheckedSpan, type HistoryParts, type SectionedPart } from '../../src/shared/manifest.ts';
import { CHANGES_PAGE_SIZE, type HistoryTexts } from './changes-parts.ts';
import { changesTexts, modelTexts, stateBytes, type NextHistory } from './stored.ts';
import type { Sectioned } from './sectioned.ts';

/** A part written; its span is known once the pack is finished. */
interface Written {
  span: CheckedSpan | null;
}

/** What of the pack writer (build/pack/pack.ts) the history needs. */
export interface PartWriter {
  /** Bytes to store brotli-compressed; they may move to a compressor thread. */
  addFragment(bytes: Buffer, stored: 'br'): Promise<Written>;
  /** Bytes stored as they are: a part already compressed. */
  addCompressed(bytes: Buffer): Promise<Written>;
}

/** Every text the history's answers are joined from: the changes carried on (decompressed), its own, each model's. */
export function historyTexts(next: NextHistory): HistoryTexts {
  const carried = next.carried.map(({ compressed, sections }) => ({
    bytes: brotliDecompressSync(compressed),
    sections,
  }));
  return { changes: [...carried, changesTexts(next.record)], models: modelTexts(next.history.models) };
}

/**
 * Write the history's parts: its state, the changes of the builds it carries on as they were
 * stored, this build's changes, each model's history. Returns the manifest's `history`, to be
 * called once the pack is finished. The texts' bytes may move to compressor threads: the
 * answers joined from them must be checked before.
 */
export async function writeHistory(
  writer: PartWriter,
  next: NextHistory,
  texts: HistoryTexts,
): Promise<() => HistoryParts> {
  const withSections = async (written: Promise<Written>, { sections }: Pick<Sectioned, 'sections'>) => {
    const handle = await written;
    return () => ({ span: handle.span!, sections }) satisfies SectionedPart;
  };
  const state = await writer.addFragment(stateBytes(next.history), 'br');
  const changes: (() => SectionedPart)[] = [];
  for (const carried of next.carried)
    changes.push(await withSections(writer.addCompressed(carried.compressed), carried));
  const own = texts.changes.at(-1)!;
  changes.push(await withSections(writer.addFragment(own.bytes, 'br'), own));
  const models: [string, () => SectionedPart][] = [];
  for (const [slug, text] of texts.models)
    models.push([slug, await withSections(writer.addFragment(text.bytes, 'br'), text)]);
  return () => ({
    format: HISTORY_FORMAT,
    state: state.span!,
    builds: next.history.builds.map((entry) => entry.build_id),
    before: next.history.before,
    page_size: CHANGES_PAGE_SIZE,
    changes: changes.map((part) => part()),
    models: Object.fromEntries(models.map(([slug, part]) => [slug, part()])),
  });
}

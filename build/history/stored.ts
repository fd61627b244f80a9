/**
 * The history as a build stores it (src/shared/manifest.ts, HistoryParts), each part
 * brotli-compressed in the pack with its checksum in the manifest:
 * - its state: the builds it remembers and the last build's lists;
 * - per build, its changes in every list shape, one part: written once, by that build, and
 *   copied on by later builds as the bytes stored;
 * - per model, its history in every Pro list, one part.
 * A build reads them back from the build it continues, every part only when its bytes pass
 * their checksum. Texts that are alike share a part because they compress far better together:
 * at 30 daily builds of the sample, a build's changes take 126 KB where seven parts, one per list
 * shape, took 195 KB, and the model histories 2.1 MB where a part per model and prompt type took
 * 4.0 MB (data/README.md, "What changed between builds").
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import {
  checksumOf,
  HISTORY_FORMAT,
  historyOf,
  PACK_FILE,
  storedPart,
  type CheckedSpan,
  type Manifest,
} from '../../src/shared/manifest.ts';
import { PROMPT_TYPES, type PromptType } from '../../src/shared/routes.ts';
import type { BuildContext } from '../shape/route-builder.ts';
import { changesItem } from './changes-parts.ts';
import { extendHistory, servedStates, SHAPES, type BuildRecord, type History } from './history.ts';
import type { ModelHistories, ModelHistory } from './model-history.ts';
import { sectioned, sectionText, type Sectioned } from './sectioned.ts';

/** The history's state as stored: everything but the model histories, which have parts of their own. */
type StoredState = Omit<History, 'models'>;

/** A build's changes as its stored part holds them: its compressed bytes, and each shape's text in them. */
export interface StoredChanges {
  compressed: Buffer;
  sections: Sectioned['sections'];
}

/** The history a build continues, and the stored changes of each build it remembers (as `history.builds`). */
export interface Continued {
  history: History;
  changes: StoredChanges[];
}

export function stateBytes({ models: _, ...state }: History): Buffer {
  return Buffer.from(JSON.stringify(state satisfies StoredState));
}

/** One build's changes: one text per list shape, each an item of the changes answer's `data`. */
export function changesTexts(record: BuildRecord): Sectioned {
  return sectioned(SHAPES.map((shape) => [shape, JSON.stringify(changesItem(record, shape))]));
}

/**
 * Each model's part, by its last slug: the `data` of its history answer for each prompt type it
 * has a history in. Where two models' last slugs are the same (one went, and another later took
 * its slug), the one listed last has it.
 */
export function modelTexts(models: ModelHistories): Map<string, Sectioned> {
  const byId = new Map<string, [PromptType, ModelHistory][]>();
  for (const type of PROMPT_TYPES)
    for (const [id, model] of models[type]) byId.set(id, [...(byId.get(id) ?? []), [type, model]]);
  const bySlug = new Map<string, Sectioned>();
  for (const histories of byId.values()) {
    const slug = histories.at(-1)![1].slug;
    bySlug.delete(slug);
    bySlug.set(slug, sectioned(histories.map(([type, model]) => [type, JSON.stringify(model)])));
  }
  return bySlug;
}

/** Reads parts of one build's pack, each checked against its checksum. */
class PartReader {
  private readonly fd: number;

  constructor(
    dir: string,
    private readonly buildId: string,
  ) {
    this.fd = openSync(join(dir, PACK_FILE), 'r');
  }

  compressed([offset, length, sum]: CheckedSpan, what: string): Buffer {
    const stored = Buffer.alloc(length);
    if (readSync(this.fd, stored, 0, length, offset) !== length || checksumOf(stored) !== sum)
      throw new Error(`the ${what} in build ${this.buildId} fails its checksum`);
    return stored;
  }

  text(span: CheckedSpan, what: string): Buffer {
    return brotliDecompressSync(this.compressed(span, what));
  }

  close(): void {
    closeSync(this.fd);
  }
}

/**
 * The history the build in `dir` carries; null when it carries none (a build made before
 * histories were). Throws, saying why, when it cannot be read: a part whose bytes fail their
 * checksum, or a history format this build does not know.
 */
export function readStoredHistory(dir: string, manifest: Manifest): Continued | null {
  if (!manifest.history) return null;
  const parts = historyOf(manifest);
  if (!parts) throw new Error(`the history of build ${manifest.build_id} is of another format than ${HISTORY_FORMAT}`);
  const reader = new PartReader(dir, manifest.build_id);
  try {
    const state = JSON.parse(reader.text(parts.state, storedPart.history()).toString('utf8')) as StoredState;
    const models = Object.fromEntries(PROMPT_TYPES.map((type) => [type, new Map()])) as ModelHistories;
    for (const [slug, part] of Object.entries(parts.models)) {
      const text = reader.text(part.span, storedPart.modelHistory(slug));
      for (const [type, section] of Object.entries(part.sections)) {
        const model = JSON.parse(sectionText(text, section)) as ModelHistory;
        models[type as PromptType].set(model.id, model);
      }
    }
    const changes = parts.changes.map(({ span, sections }, i) => ({
      compressed: reader.compressed(span, storedPart.changes(parts.builds[i]!)),
      sections,
    }));
    return { history: { ...state, models }, changes };
  } finally {
    reader.close();
  }
}

/**
 * The history the next build continues: the current build's, or null when there is none or it
 * cannot be read, which the log says (a new history then starts at the next build).
 */
export function continuedHistory(
  current: { dir: string; manifest: Manifest } | null,
  log: (line: string) => void,
): Continued | null {
  if (!current) return null;
  try {
    const continued = readStoredHistory(current.dir, current.manifest);
    if (!continued) log(`build ${current.manifest.build_id} carries no history of changes: one starts at this build`);
    return continued;
  } catch (error) {
    log(`warning: ${(error as Error).message}: a new history of changes starts at this build`);
    return null;
  }
}

/** What a build stores of its history: the history, its own record, and the changes of the earlier builds it keeps. */
export interface NextHistory {
  history: History;
  record: BuildRecord;
  carried: StoredChanges[];
}

/**
 * The history the build of `ctx` carries: the current build's history continued (continuedHistory)
 * with the lists `ctx` shapes, the oldest forgotten past `retention` builds. A build writes it;
 * `--check` says what its record would be.
 */
export function nextHistory(
  current: { dir: string; manifest: Manifest } | null,
  ctx: BuildContext & { buildId: string },
  retention: number,
  log: (line: string) => void,
): NextHistory {
  const continued = continuedHistory(current, log);
  const build = { buildId: ctx.buildId, asOf: new Date(ctx.asOf), states: servedStates(ctx) };
  const { history, record, forgotten } = extendHistory(continued?.history ?? null, build, retention);
  return { history, record, carried: continued?.changes.slice(forgotten) ?? [] };
}

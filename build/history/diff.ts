/**
 * What changed between two states of one list shape (the Free list, or the Pro list of one prompt
 * type): models added and removed, and every field that changed, named by its dotted path in the
 * list item. Objects are walked; any other value (a number, a string, null, an array) is one
 * field, compared by its JSON. Pure: the build's history and its tests both call it.
 */

/** A list item as a build served it. */
export type Item = Record<string, unknown> & { id: string; slug: string; name: string };

export interface ModelRef {
  id: string;
  slug: string;
  name: string;
}

export interface FieldChange {
  field: string;
  from: unknown;
  to: unknown;
}

export interface ChangedModel extends ModelRef {
  changes: FieldChange[];
}

/** One shape's changes from one build to the next; `added` holds whole items (a state is replayed from them). */
export interface ShapeChanges {
  added: Item[];
  removed: ModelRef[];
  changed: ChangedModel[];
}

export const refOf = ({ id, slug, name }: ModelRef): ModelRef => ({ id, slug, name });

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The fields that differ between two items of one model, in the newer item's key order (fields it
 * no longer has last): where both sides are objects they are walked, else the value at that path
 * is one field (an object that became null is one change, not one per field it had). A side that
 * lacks the field has null there: the list shapes have fixed fields (each body is checked
 * against its schema), so only a nullable object or value goes or comes.
 */
export function fieldChanges(before: unknown, after: unknown, path = '', into: FieldChange[] = []): FieldChange[] {
  if (isObject(before) && isObject(after)) {
    for (const key of Object.keys(after)) fieldChanges(before[key], after[key], path ? `${path}.${key}` : key, into);
    for (const key of Object.keys(before))
      if (!(key in after)) fieldChanges(before[key], undefined, path ? `${path}.${key}` : key, into);
  } else if (JSON.stringify(before ?? null) !== JSON.stringify(after ?? null)) {
    into.push({ field: path, from: before ?? null, to: after ?? null });
  }
  return into;
}

/**
 * The changes from `before` to `after` (each in list order): added and changed in `after`'s order,
 * removed in `before`'s.
 */
export function diffShape(before: readonly Item[], after: readonly Item[]): ShapeChanges {
  const previous = new Map(before.map((item) => [item.id, item]));
  const ids = new Set(after.map((item) => item.id));
  const added: Item[] = [];
  const changed: ChangedModel[] = [];
  for (const item of after) {
    const was = previous.get(item.id);
    if (!was) added.push(item);
    else {
      const changes = fieldChanges(was, item);
      if (changes.length) changed.push({ ...refOf(item), changes });
    }
  }
  return { added, removed: before.filter((item) => !ids.has(item.id)).map(refOf), changed };
}

/** Set a dotted path in an item (objects on the way made as needed). */
function setField(item: Record<string, unknown>, field: string, value: unknown): void {
  const keys = field.split('.');
  let at = item;
  for (const key of keys.slice(0, -1)) {
    if (!isObject(at[key])) at[key] = {};
    at = at[key] as Record<string, unknown>;
  }
  at[keys[keys.length - 1]!] = structuredClone(value);
}

/**
 * `before` with `changes` applied (what a client of `GET /api/v2/changes` does, and what the
 * tests hold the diff to): what `after` was, item for item, in `after`'s order. The
 * newer build's order is that of its list: models kept keep their place relative to each other,
 * and added ones are placed where `order` (the newer list's ids) puts them.
 */
export function applyShape(before: readonly Item[], changes: ShapeChanges, order: readonly string[]): Item[] {
  const removed = new Set(changes.removed.map((ref) => ref.id));
  const byId = new Map<string, Item>();
  for (const item of before) if (!removed.has(item.id)) byId.set(item.id, item);
  for (const item of changes.added) byId.set(item.id, item);
  for (const { id, changes: fields } of changes.changed) {
    const item = structuredClone(byId.get(id)!) as Item;
    for (const { field, to } of fields) setField(item, field, to);
    byId.set(id, item);
  }
  return order.map((id) => byId.get(id)!);
}

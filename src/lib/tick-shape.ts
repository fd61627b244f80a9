/**
 * One object of the shape of node's `process.nextTick` entries, kept alive for the life of the
 * process, so that V8 never forgets that shape's hidden class.
 *
 * Why: node makes each tick entry with an object literal whose first keys are computed
 * (`{ [async_id_symbol]: ..., [trigger_async_id_symbol]: ..., callback, args }`, in
 * lib/internal/process/task_queues.js), and node:http and its streams schedule several such ticks
 * a request. V8 answers such a literal's keys fast only while the literal's feedback names one
 * hidden class; it holds that class weakly. When the server has sat idle after full collections
 * have run (V8's memory reducer runs three when allocation stops, and our heap has had some at
 * start-up), no tick entry is alive and the class is collected; the next entry is made on a new
 * class, the feedback no longer matches, V8 marks it megamorphic for good, and from then on every
 * tick entry is built by the runtime (`Runtime_DefineKeyedOwnPropertyInLiteral`,
 * `JSObject::MigrateToMap`). Measured on the list page at c=16, after 110 s idle with those
 * collections: those two functions took 1.6 to 1.9 µs a request in the server without this object
 * and 0.01 µs with it; user CPU a request 46 to 56 µs against 40 to 48, 12,012 to 13,442 rps
 * against 13,227 to 14,844, in three alternations (bench/analysis.md). The bench's floor, with a
 * heap of a few MB, ran no full collection in 3 minutes idle; our servers idle between the bench's
 * scenarios, and met this there.
 *
 * The symbols are node's own, read off an AsyncResource, which carries the same two. With a
 * node whose tick entries look otherwise, the object is made on a class of its own and does
 * nothing (test/unit/src/lib/tick-shape.test.ts compares it with a real tick entry).
 */
import { AsyncResource } from 'node:async_hooks';

let held: object | undefined;

/** The object kept (undefined when this node's AsyncResource has not the two symbols). */
export function tickShaped(): object | undefined {
  const resource = new AsyncResource('tick-shape', { requireManualDestroy: true });
  const symbols = Object.getOwnPropertySymbols(resource);
  const asyncId = symbols.find((s) => s.description === 'async_id_symbol');
  const triggerId = symbols.find((s) => s.description === 'trigger_async_id_symbol');
  if (!asyncId || !triggerId) return undefined;
  const ids = resource as unknown as Record<symbol, number>;
  // The keys in the order of node's literal, and ids as node stores them (its own numbers), so
  // V8 follows the tick entries' own transitions to their class and changes none of its fields.
  return { [asyncId]: ids[asyncId], [triggerId]: ids[triggerId], callback: () => {}, args: undefined };
}

/** Keep a tick-shaped object for the life of the process (once). */
export function keepTickShape(): void {
  held ??= tickShaped();
}

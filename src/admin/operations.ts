/**
 * The admin API's operations, as a table: method, path, what the body must be, and what it does.
 * The listener (listener.ts) matches a request to a row and calls it; the key-management page
 * (page.ts) calls the same rows in-process; the OpenAPI document (openapi.ts) is made from them.
 * Every change goes through the keys command's own changes (src/keys/changes.ts) on the same
 * store, so the command and the API always agree, and is written to the audit trail.
 *
 * A change is applied whole or not at all (each is one change of the store). Changes that HTTP
 * calls idempotent (PUT, DELETE) answer 200 with the record as it stands when it already is as
 * asked, change nothing and write no audit entry.
 */
import { checkBody } from './input.ts';
import type { AdminAnswer, AdminCall, AdminContext, Operation } from './operation.ts';
import {
  createKey,
  grantProvider,
  regenerateKey,
  revokeKey,
  setCritpt,
  setExpiry,
  setName,
  setQuota,
  ungrantProvider,
} from './change-operations.ts';
import { getKey, listAudit, listKeys, listUsage } from './read-operations.ts';
import { usageHistory } from './history-operation.ts';

export type { AdminAnswer, AdminCall, AdminContext, Caller, Operation } from './operation.ts';

/** In the order the OpenAPI document lists them. */
export const OPERATIONS: readonly Operation[] = [
  listKeys,
  createKey,
  getKey,
  revokeKey,
  regenerateKey,
  setName,
  setExpiry,
  grantProvider,
  ungrantProvider,
  setCritpt,
  setQuota,
  listUsage,
  usageHistory,
  listAudit,
];

/** Check a call's body against its operation, then run it. */
export function runOperation(
  operation: Operation,
  context: AdminContext,
  call: Omit<AdminCall, 'body'> & { body: unknown },
): Promise<AdminAnswer> {
  const body = operation.body ? checkBody(operation.body, call.body) : {};
  return operation.run(context, { ...call, body });
}

export function operationById(id: string): Operation {
  const operation = OPERATIONS.find((o) => o.id === id);
  if (!operation) throw new Error(`no admin operation ${id}`);
  return operation;
}

/**
 * Checking a CritPt grading request: JSON only (its body is read by src/http/read-body.ts), the
 * contract's request schema (ajv), and the whole public problem set, each problem exactly once.
 */
import type { IncomingMessage } from 'node:http';
import { ajvOnUse, compiledOnUse, TRUSTED_SCHEMAS } from '../shared/ajv.ts';
import { HttpError } from '../http/error.ts';
import { checkJsonLimits, type JsonLimits } from '../http/json-limits.ts';
import { critptRequestSchema } from '../shared/critpt-schema.ts';

interface Submission {
  problem_id: string;
}

/** Compiled on the first post, not at start. */
const requestValidator = compiledOnUse(ajvOnUse({ ...TRUSTED_SCHEMAS, allErrors: false }), critptRequestSchema);

function validateShape(body: unknown): void {
  const validator = requestValidator();
  if (validator(body)) return;
  const error = validator.errors![0];
  const params = error.params as Record<string, unknown>;
  const where =
    error.keyword === 'required'
      ? `${error.instancePath}/${String(params.missingProperty)}`
      : error.keyword === 'additionalProperties'
        ? `${error.instancePath}/${String(params.additionalProperty)}`
        : error.instancePath || '/';
  const what =
    error.keyword === 'required'
      ? 'is required'
      : error.keyword === 'additionalProperties'
        ? 'is not a known field'
        : error.message;
  throw new HttpError(400, `Invalid request body: ${where} ${what}`, { details: { field: where } });
}

/** Every problem of the set exactly once: name what is unknown, repeated or missing. */
export function checkProblemSet(submissions: readonly Submission[], problemSet: readonly string[]): void {
  const known = new Set(problemSet);
  const seen = new Set<string>();
  const unknown: string[] = [];
  const duplicated: string[] = [];
  for (const { problem_id: id } of submissions) {
    if (!known.has(id)) unknown.push(id);
    else if (seen.has(id)) duplicated.push(id);
    seen.add(id);
  }
  const missing = problemSet.filter((id) => !seen.has(id));
  if (unknown.length === 0 && duplicated.length === 0 && missing.length === 0) return;
  const parts = [
    unknown.length ? `unknown problem ids: ${unknown.join(', ')}` : '',
    duplicated.length ? `duplicated problem ids: ${[...new Set(duplicated)].join(', ')}` : '',
    missing.length
      ? `missing ${missing.length} of ${problemSet.length} problems: ` +
        `${missing.slice(0, 10).join(', ')}${missing.length > 10 ? ', ...' : ''}`
      : '',
  ].filter(Boolean);
  throw new HttpError(400, `A batch must hold every problem of the public set exactly once; ${parts.join('; ')}`, {
    details: { unknown, duplicated: [...new Set(duplicated)], missing },
  });
}

/** 415 unless the body is declared JSON: checked before a byte of it is reserved or read. */
export function checkJsonType(req: IncomingMessage): void {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json')
    throw new HttpError(415, 'Content-Type must be application/json', { details: { content_type: type || null } });
}

/**
 * A whole batch of the public set (70 problems, each with its code, config and conversation)
 * needs a few thousand values nested a few levels deep; these bounds leave room to spare.
 */
export const BATCH_LIMITS: JsonLimits = { depth: 64, values: 250_000 };

/** Parse and check a grading request against the schema and the problem set. */
export function parseGradingRequest(raw: Buffer, problemSet: readonly string[]): void {
  checkJsonLimits(raw, BATCH_LIMITS);
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch (error) {
    throw new HttpError(400, `Invalid request body: not JSON (${(error as Error).message})`, {
      details: { field: 'body' },
    });
  }
  validateShape(body);
  checkProblemSet((body as { submissions: Submission[] }).submissions, problemSet);
}

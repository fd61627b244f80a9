/**
 * Holding answers to the original service's OpenAPI document, the contract real clients are
 * generated from: the body against the schema the document gives for that path, method and
 * status, and every header it lists for that status present (integers where it says integer).
 *
 * The document is read from the shared reference folder beside the checkout; where it is absent
 * the tests that need it say so and skip.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { ValidateFunction } from 'ajv';
import { createAjv } from '../../src/shared/ajv.ts';
import type { Reply } from './http.ts';

export const ORIGINAL_OPENAPI = new URL('../../../shared/reference/original-openapi.json', import.meta.url).pathname;

export function originalDocument(): Record<string, any> | null {
  return existsSync(ORIGINAL_OPENAPI) ? (JSON.parse(readFileSync(ORIGINAL_OPENAPI, 'utf8')) as Record<string, any>) : null;
}

/** One answer held to the document; `problems` is empty when it conforms. */
export interface Checked {
  label: string;
  /** `METHOD /path/template` */
  operation: string;
  status: number;
  problems: string[];
  /** The document gives no answer for this status on this path (the contract may: see `undocumented`). */
  undocumented: boolean;
}

const pointerSegment = (s: string) => s.replaceAll('~', '~0').replaceAll('/', '~1');

export class ContractChecker {
  private readonly ajv = createAjv({ strict: false, validateFormats: false, allErrors: false });
  private readonly validators = new Map<string, ValidateFunction>();
  readonly checked: Checked[] = [];

  constructor(private readonly doc: Record<string, any>) {
    this.ajv.addSchema({ ...doc, $id: 'original' });
  }

  /** The response object the document gives for a status, `$ref`s into components resolved. */
  private responseOf(path: string, method: string, status: number): { pointer: string; response: Record<string, any> } | null {
    const responses = this.doc.paths[path]?.[method.toLowerCase()]?.responses;
    if (!responses?.[status]) return null;
    let pointer = `/paths/${pointerSegment(path)}/${method.toLowerCase()}/responses/${status}`;
    let response = responses[status];
    while (typeof response.$ref === 'string') {
      pointer = response.$ref.slice(1);
      response = response.$ref
        .slice(2)
        .split('/')
        .reduce((node: any, key: string) => node[key.replaceAll('~1', '/').replaceAll('~0', '~')], this.doc);
    }
    return { pointer, response };
  }

  private validator(pointer: string): ValidateFunction {
    let validate = this.validators.get(pointer);
    if (!validate) this.validators.set(pointer, (validate = this.ajv.compile({ $ref: `original#${pointer}` })));
    return validate;
  }

  /**
   * Check one answer to a request on the document's path template. Answers with a status the
   * document does not give for that path are held to its `ErrorResponse` and marked undocumented.
   * `dateHeaders` names integer headers the contract overrides with a date (CritPt's reset).
   */
  check(label: string, path: string, method: string, reply: Reply, dateHeaders: readonly string[] = []): Checked {
    const problems: string[] = [];
    if (!this.doc.paths[path]) problems.push(`path ${path} is not in the document`);
    const found = this.responseOf(path, method, reply.status);
    let body: unknown;
    try {
      body = method === 'HEAD' ? undefined : reply.json();
    } catch {
      problems.push(`body is not JSON: ${reply.text.slice(0, 80)}`);
    }
    if (body !== undefined) {
      const pointer = found ? `${found.pointer}/content/application~1json/schema` : '/components/schemas/ErrorResponse';
      if (!found && reply.status < 400) problems.push(`status ${reply.status} is not documented and is no error`);
      const validate = this.validator(pointer);
      if (!validate(body)) problems.push(...(validate.errors ?? []).slice(0, 3).map((e) => `${e.instancePath || '/'} ${e.message}`));
    }
    for (const [name, header] of Object.entries<Record<string, any>>(found?.response.headers ?? {})) {
      const value = reply.headers[name.toLowerCase()];
      if (value === undefined) {
        problems.push(`header ${name} is missing`);
        continue;
      }
      const schema = header.$ref ? this.doc.components.headers[header.$ref.split('/').pop()].schema : header.schema;
      if (schema?.type === 'integer' && !dateHeaders.includes(name) && !/^-?\d+$/.test(String(value))) problems.push(`header ${name} is not an integer: ${value}`);
      if (schema?.enum && !schema.enum.includes(value)) problems.push(`header ${name} is not one of ${schema.enum.join(', ')}: ${value}`);
    }
    const checked = { label, operation: `${method} ${path}`, status: reply.status, problems, undocumented: found === null };
    this.checked.push(checked);
    return checked;
  }

  failures(): Checked[] {
    return this.checked.filter((c) => c.problems.length > 0);
  }

  /** `status METHOD path` of every answer whose status the document does not give, once each. */
  undocumented(): string[] {
    return [...new Set(this.checked.filter((c) => c.undocumented).map((c) => `${c.status} ${c.operation}`))].sort();
  }
}

/**
 * The official MCP client (`@modelcontextprotocol/sdk`: `Client` + `StreamableHTTPClientTransport`) run
 * against a server, to prove that a real client, not only our own reading of the spec, can use `POST /mcp`.
 *
 * The SDK is not a dependency of the project: it is installed by npm, at the version pinned below, into a
 * folder under os.tmpdir() that no file of the repository names, and the client is a script written next
 * to it, run as a node process of its own. So nothing from npm enters the repository, package.json or the
 * lockfile, and the SDK's many dependencies (express, hono, zod, ajv...) never load into a test process.
 *
 * Use it at the top level of a test file, so that a machine without the npm registry skips, not fails:
 *
 *   const sdk = await mcpSdkClient();
 *   if (!sdk.available) {
 *     s.skip('the SDK client lists and calls the tools (skipped: no SDK)', () => {});
 *     console.log(`skipped: ${sdk.reason}`);
 *   } else s('the SDK client lists and calls the tools', async () => {
 *     const report = await sdk.run({ url, headers: { 'x-api-key': key }, calls: [{ name: 'x', arguments: {} }] });
 *     assert.ok(report.connect.ok, JSON.stringify(report.connect));
 *   });
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HANG_GUARD_MS } from './wait.ts';

/** The SDK version the client runs: pinned, so that a new release cannot change what a test sees. */
export const MCP_SDK_VERSION = '1.32.2';

/** How long the npm install may take: a hang guard for a registry that does not answer, not a bound. */
const INSTALL_GUARD_MS = 300_000;

/** An error as the client saw it: an McpError's JSON-RPC `code` and `data`, an HTTP status as `code`. */
export interface McpSdkError {
  name: string;
  message: string;
  code?: number | string;
  data?: unknown;
}

/** One step of the run: what the SDK returned (after its own schema checks), or what it threw. */
export type McpSdkStep<T> = { ok: true; result: T } | { ok: false; error: McpSdkError };

/** One HTTP request the transport made, and the answer's head. */
export interface McpSdkExchange {
  method: string;
  /** The JSON-RPC method of a POST body (or `response` for a reply the client sent). */
  rpc?: string;
  /** The headers the SDK sets itself (accept, content-type, mcp-protocol-version, mcp-session-id). */
  requestHeaders: Record<string, string>;
  status?: number;
  contentType?: string | null;
  /** The transport failed before an answer (connection refused...). */
  fetchError?: string;
}

export interface McpSdkCall {
  name: string;
  arguments?: Record<string, unknown>;
}

export interface McpSdkRunOptions {
  /** The MCP endpoint, e.g. http://127.0.0.1:PORT/mcp. */
  url: string;
  /** Sent on every request, e.g. `{ 'x-api-key': key }`. */
  headers?: Record<string, string>;
  /** tools/call requests, in order, after tools/list. */
  calls?: McpSdkCall[];
  /** The URIs to read; every listed resource's unless given (then they are read even when not listed). */
  reads?: string[];
  /** The hang guard for the whole run. */
  timeoutMs?: number;
}

export interface McpSdkReport {
  sdkVersion: string;
  /** initialize + notifications/initialized, as Client.connect does them. */
  connect: McpSdkStep<{
    protocolVersion: string | undefined;
    serverInfo: unknown;
    capabilities: unknown;
    instructions: string | undefined;
  }>;
  /** The steps after connect; absent when connect failed. */
  ping?: McpSdkStep<unknown>;
  /** Every page of tools/list, followed through nextCursor. */
  tools?: McpSdkStep<{ tools: any[]; pages: number }>;
  /** Client.callTool's outcome for each call: it checks structuredContent against the tool's outputSchema. */
  calls: (McpSdkCall & McpSdkStep<any>)[];
  resources?: McpSdkStep<{ resources: any[]; pages: number }>;
  reads: ({ uri: string } & McpSdkStep<any>)[];
  /** What the client reported on its own (Client.onerror): e.g. a GET /mcp answered other than SSE or 405. */
  errors: McpSdkError[];
  /** Every HTTP request in order: a GET after notifications/initialized is the SDK looking for an SSE stream. */
  http: McpSdkExchange[];
}

export type McpSdk =
  | { available: true; version: string; dir: string; run(options: McpSdkRunOptions): Promise<McpSdkReport> }
  | { available: false; reason: string };

/**
 * The client script. It is plain JavaScript read by a node process in the SDK's folder (so its imports
 * resolve there); the options come on stdin, the report goes to stdout as one JSON document.
 */
const CLIENT_SCRIPT = String.raw`
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { readFileSync } from 'node:fs';

const options = JSON.parse(readFileSync(0, 'utf8'));
const sdkVersion = JSON.parse(
  readFileSync(new URL('./node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url), 'utf8'),
).version;

const errorOf = (e) => {
  const out = { name: e?.name ?? typeof e, message: e instanceof Error ? e.message : String(e) };
  if (e?.code !== undefined) out.code = e.code;
  if (e?.data !== undefined) out.data = e.data;
  return out;
};
const step = async (fn) => {
  try {
    return { ok: true, result: await fn() };
  } catch (e) {
    return { ok: false, error: errorOf(e) };
  }
};

// The transport's own fetch, wrapped to record every exchange: what the SDK sends and how it was answered.
const http = [];
const SDK_HEADERS = ['accept', 'content-type', 'mcp-protocol-version', 'mcp-session-id', 'last-event-id'];
const recordingFetch = async (url, init = {}) => {
  const headers = new Headers(init.headers);
  const exchange = { method: init.method ?? 'GET', requestHeaders: {} };
  for (const name of SDK_HEADERS) if (headers.has(name)) exchange.requestHeaders[name] = headers.get(name);
  if (typeof init.body === 'string') {
    try {
      const body = JSON.parse(init.body);
      exchange.rpc = Array.isArray(body) ? 'batch' : (body.method ?? 'response');
    } catch {}
  }
  http.push(exchange);
  try {
    const response = await fetch(url, init);
    exchange.status = response.status;
    exchange.contentType = response.headers.get('content-type');
    return response;
  } catch (e) {
    exchange.fetchError = e instanceof Error ? e.message + (e.cause ? ' (' + e.cause + ')' : '') : String(e);
    throw e;
  }
};

const errors = [];
const client = new Client({ name: 'bda-mcp-sdk-test', version: sdkVersion });
client.onerror = (e) => errors.push(errorOf(e));
const transport = new StreamableHTTPClientTransport(new URL(options.url), {
  requestInit: { headers: options.headers ?? {} },
  fetch: recordingFetch,
});

// Follows nextCursor; a cursor seen twice would loop forever, so it stops the listing with an error.
const paged = async (list, key) => {
  const items = [];
  const seen = new Set();
  let cursor;
  let pages = 0;
  do {
    const page = await list(cursor === undefined ? undefined : { cursor });
    pages += 1;
    items.push(...page[key]);
    cursor = page.nextCursor;
    if (cursor !== undefined && seen.has(cursor)) throw new Error('nextCursor repeats: ' + cursor);
    if (cursor !== undefined) seen.add(cursor);
  } while (cursor !== undefined);
  return { [key]: items, pages };
};

// Keys in the order of the run, for a person reading a printed report.
const report = { sdkVersion, connect: undefined, ping: undefined, tools: undefined, calls: [] };
Object.assign(report, { resources: undefined, reads: [], errors, http });
report.connect = await step(async () => {
  await client.connect(transport);
  return {
    protocolVersion: transport.protocolVersion,
    serverInfo: client.getServerVersion(),
    capabilities: client.getServerCapabilities(),
    instructions: client.getInstructions(),
  };
});
if (report.connect.ok) {
  report.ping = await step(() => client.ping());
  report.tools = await step(async () => {
    const listed = await paged((params) => client.listTools(params), 'tools');
    // listTools keeps the outputSchema validators of its last page only: give callTool every page's tools, so
    // that each call's structuredContent is checked as a client that lists all tools at once would check it.
    if (listed.pages > 1 && typeof client.cacheToolMetadata === 'function') client.cacheToolMetadata(listed.tools);
    return listed;
  });
  for (const call of options.calls ?? []) {
    report.calls.push({ ...call, ...(await step(() => client.callTool(call))) });
  }
  report.resources = await step(() => paged((params) => client.listResources(params), 'resources'));
  const uris = options.reads ?? (report.resources.ok ? report.resources.result.resources.map((r) => r.uri) : []);
  for (const uri of uris) report.reads.push({ uri, ...(await step(() => client.readResource({ uri }))) });
}
await client.close().catch((e) => errors.push(errorOf(e)));
process.stdout.write(JSON.stringify(report) + '\n');
`;

let installing: Promise<McpSdk> | null = null;

/**
 * The SDK at MCP_SDK_VERSION, installed once: a second call (in this process, or concurrently) gets the
 * same promise, and a later process of the run finds the folder complete. When npm cannot install it
 * (no registry), `available` is false and `reason` says why, for a `skipped: ` line.
 */
export function mcpSdkClient(): Promise<McpSdk> {
  return (installing ??= install());
}

async function install(): Promise<McpSdk> {
  const dir = join(tmpdir(), `bda-mcp-sdk-${MCP_SDK_VERSION}`);
  if (!installedAt(dir)) {
    // npm installs into a folder of its own, renamed into place when complete: another test process of the
    // run doing the same at the same time cannot see a half-installed SDK, and whichever rename wins is used.
    const staging = mkdtempSync(`${dir}.staging-`);
    try {
      // A package.json of its own: without one, npm would look up for a project and install there.
      writeFileSync(join(staging, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
      const npm = await runNpm(staging);
      if (!installedAt(staging)) {
        return {
          available: false,
          reason: `npm could not install @modelcontextprotocol/sdk@${MCP_SDK_VERSION}: ${npm}`,
        };
      }
      if (existsSync(dir) && !installedAt(dir)) rmSync(dir, { recursive: true, force: true });
      try {
        renameSync(staging, dir);
      } catch (e) {
        if (!installedAt(dir)) throw e; // not another process's complete install: a real failure
      }
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
  }
  const script = writeScript(dir);
  return { available: true, version: MCP_SDK_VERSION, dir, run: (options) => runClient(dir, script, options) };
}

function installedAt(dir: string): boolean {
  try {
    const pkg = join(dir, 'node_modules/@modelcontextprotocol/sdk/package.json');
    return (JSON.parse(readFileSync(pkg, 'utf8')) as { version: string }).version === MCP_SDK_VERSION;
  } catch {
    return false;
  }
}

/** `npm install` in `dir`; why it failed (its status and first error lines) on one line, else ''. */
function runNpm(dir: string): Promise<string> {
  // --ignore-scripts: nothing in the SDK needs an install script, and nothing from npm should run here.
  // One retry after 2 s, not npm's default two after 10 s and more: offline, the skip comes in a few seconds.
  const args = ['install', `@modelcontextprotocol/sdk@${MCP_SDK_VERSION}`, '--save-exact', '--ignore-scripts'];
  args.push('--no-audit', '--no-fund', '--loglevel=error', '--prefix', dir);
  args.push('--fetch-retries=1', '--fetch-retry-mintimeout=2000', '--fetch-retry-maxtimeout=5000');
  return new Promise((resolve) => {
    const child = spawn('npm', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    // npm says what went wrong first; the rest is stack frames and a log's path.
    const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(0, 8000));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let stuck = false;
    const guard = setTimeout(() => {
      stuck = true;
      child.kill('SIGKILL');
    }, INSTALL_GUARD_MS);
    child.on('error', (e) => {
      clearTimeout(guard);
      resolve(`npm did not start (${e.message})`);
    });
    child.on('close', (code, signal) => {
      clearTimeout(guard);
      if (code === 0) return resolve('');
      // One line for the `skipped: ` line: npm's error lines without their prefix, stack frames left out.
      const said = output
        .split('\n')
        .map((line) => line.replace(/^npm (error|ERR!)\s*/, '').trim())
        .filter((line) => line !== '' && !line.startsWith('at '))
        .slice(0, 4)
        .join('; ');
      const ended = stuck
        ? `did not finish in ${INSTALL_GUARD_MS / 1000} s`
        : `exited with ${signal ?? `status ${code}`}`;
      resolve(`npm ${ended}: ${said || '(no output)'}`);
    });
  });
}

/**
 * The client script in the SDK's folder, named by its content's hash: a folder left by an older version
 * of this helper gets the current script, and processes writing it at once write the same bytes.
 */
function writeScript(dir: string): string {
  const hash = createHash('sha256').update(CLIENT_SCRIPT).digest('hex').slice(0, 12);
  const script = join(dir, `client-${hash}.mjs`);
  if (!existsSync(script)) {
    // Through a rename, so that a process starting the script never reads it half-written.
    const partial = `${script}.${process.pid}.tmp`;
    writeFileSync(partial, CLIENT_SCRIPT);
    renameSync(partial, script);
  }
  return script;
}

function runClient(dir: string, script: string, options: McpSdkRunOptions): Promise<McpSdkReport> {
  // A hang guard (a run takes well under a second), not a bound.
  const timeoutMs = options.timeoutMs ?? HANG_GUARD_MS;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    const guard = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the MCP SDK client ran over ${timeoutMs} ms against ${options.url}; stderr:\n${stderr}`));
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(guard);
      reject(new Error(`the MCP SDK client did not start: ${e.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(guard);
      try {
        resolve(JSON.parse(stdout) as McpSdkReport);
      } catch {
        reject(
          new Error(
            `the MCP SDK client exited (${signal ?? `status ${code}`}) without its report:\n${stdout}${stderr}`,
          ),
        );
      }
    });
    child.stdin.end(JSON.stringify(options));
  });
}

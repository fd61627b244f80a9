/**
 * A real headless chromium for a test, driven over the Chrome DevTools Protocol on
 * `--remote-debugging-pipe` (it reads commands on its fd 3 and writes on its fd 4, each message
 * JSON ended by a NUL byte), with Node's built-ins only: no puppeteer to install or to keep in
 * step with Debian's chromium. One page, in a fresh profile removed in `close`. Every command and
 * every wait has a guard (30 s unless told) that rejects saying what it waited for, and everything
 * pending rejects with chromium's last stderr lines if it exits, so a test fails, never hangs.
 * When the binary is missing the suites say they skipped (apt-get install chromium; .ci/run
 * installs it).
 */
import { spawn } from 'node:child_process';
import { accessSync, constants, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import type { Test } from 'uvu';
import { START_GUARD_MS } from './process.ts';

/** The chromium on PATH (Debian's `chromium`, or `chromium-browser` elsewhere); null when none. */
export const CHROMIUM: string | null =
  ['chromium', 'chromium-browser'].flatMap((name) => (process.env.PATH ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, name))).find(executable) ?? null;

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Register a suite's tests as skipped, saying why (scripts/test.ts prints the reason). */
export function skipWithoutChromium(s: Test, names: readonly string[]): void {
  for (const name of names) s.skip(`${name} (skipped: chromium is not installed)`, () => {});
  console.log('skipped: chromium is not installed (apt-get install chromium; .ci/run installs it)');
}

/** What Network.getCookies says of a cookie (the fields a test checks). */
export interface Cookie {
  name: string;
  value: string;
  domain: string;
  path: string;
  expires: number;
  httpOnly: boolean;
  secure: boolean;
  session: boolean;
  sameSite?: 'Strict' | 'Lax' | 'None';
}

export interface Browser {
  /** Open `url`, wait for its load event; the HTTP status of the document (after redirects). */
  goto(url: string): Promise<number>;
  /** An expression's value in the page (awaited if a promise); a page exception rejects. */
  evaluate<T>(expression: string): Promise<T>;
  /** Set an input's, textarea's or select's value, with the input and change events a person's typing fires. */
  fill(selector: string, value: string): Promise<void>;
  /** Tick or untick a checkbox (or radio), with its input and change events. */
  check(selector: string, checked: boolean): Promise<void>;
  /** A real mouse click at the element's centre (scrolled into view), as a person's. */
  click(selector: string): Promise<void>;
  /** click, for a submit button or link: waits for the next document's load; its HTTP status. */
  clickAndWait(selector: string): Promise<number>;
  /** innerText of the first match; rejects naming the selector when nothing matches. */
  text(selector: string): Promise<string>;
  exists(selector: string): Promise<boolean>;
  /** A PNG of the whole page (not only the viewport) written to `path`. */
  screenshot(path: string): Promise<void>;
  /** The cookies chromium would send to the current URL, HttpOnly ones included. */
  cookies(): Promise<Cookie[]>;
  close(): Promise<void>;
}

export interface LaunchOptions {
  width?: number;
  height?: number;
  /** A phone: 390x844 unless told, device scale 2, mobile layout (the meta viewport applies). */
  mobile?: boolean;
  /** How long a command or a page load may take before it is called stuck: a hang guard, not a performance bound. */
  timeoutMs?: number;
}

type Message = { id?: number; method?: string; params?: any; result?: any; error?: { message: string }; sessionId?: string };
type Waiter = { test: (m: Message) => boolean; resolve: (m: Message) => void; reject: (e: Error) => void };

export async function launchBrowser(options: LaunchOptions = {}): Promise<Browser> {
  if (CHROMIUM === null) throw new Error('chromium is not installed (apt-get install chromium)');
  // The tests' own hang guard (a start takes a second; a busy machine may make that many times longer): no test passes or fails on how fast the browser is.
  const timeoutMs = options.timeoutMs ?? START_GUARD_MS;
  const profile = mkdtempSync(join(tmpdir(), 'bda-chromium-'));
  // --no-sandbox: the tests run as root, where chromium's sandbox refuses to start. A container's /dev/shm is
  // often 64 MB, too small for chromium's shared memory: --disable-dev-shm-usage puts it in /tmp.
  const args = ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--remote-debugging-pipe',
    `--user-data-dir=${profile}`, '--no-first-run', '--no-default-browser-check', '--disable-extensions',
    '--disable-background-networking', '--disable-sync', '--mute-audio', '--hide-scrollbars', 'about:blank'];
  const child = spawn(CHROMIUM, args, { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] });
  const toChromium = child.stdio[3] as Writable;
  const fromChromium = child.stdio[4] as Readable;
  // Only the tail of stderr, for the error messages: chromium can be chatty.
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  // A write after chromium died is reported by the exit below; without a listener it would crash the test.
  toChromium.on('error', () => {});
  fromChromium.on('error', () => {});

  let failure: Error | null = null;
  let nextId = 1;
  const pending = new Map<number, Waiter>();
  const waiters = new Set<Waiter>();
  const fail = (error: Error) => {
    failure ??= error;
    for (const w of [...pending.values(), ...waiters]) w.reject(failure);
    pending.clear();
    waiters.clear();
  };
  child.on('error', (e) => fail(new Error(`chromium could not start: ${e.message}`)));
  child.on('exit', (code, signal) => fail(new Error(`chromium exited (${signal ?? `code ${code}`}); its stderr ended:\n${stderr.trim()}`)));
  // A test that dies without close must not leave chromium or its profile behind.
  // Its helpers may still be writing there for a moment after the kill: rmSync retries (synchronously, as 'exit' needs).
  const removeProfile = () => rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
  const onExit = () => { child.kill('SIGKILL'); removeProfile(); };
  process.on('exit', onExit);
  // Nor keep the test process alive: what is awaited holds a guard timer, which does.
  for (const handle of [child, toChromium, fromChromium, child.stderr!]) (handle as unknown as { unref(): void }).unref();

  // The status of the main frame's latest document: redirects are not responses here, so the final one's.
  let session: string | undefined;
  let mainFrame = '';
  let documentStatus: number | null = null;
  const observe = (m: Message) => {
    if (m.method === 'Network.responseReceived' && m.sessionId === session && m.params.type === 'Document' && m.params.frameId === mainFrame) documentStatus = m.params.response.status;
  };

  // A read may end in the middle of a message, or hold several: split on NUL, keep the rest.
  let partial: Buffer[] = [];
  fromChromium.on('data', (chunk: Buffer) => {
    let start = 0;
    for (let nul = chunk.indexOf(0); nul !== -1; start = nul + 1, nul = chunk.indexOf(0, start)) {
      const message = JSON.parse(Buffer.concat([...partial, chunk.subarray(start, nul)]).toString('utf8')) as Message;
      partial = [];
      if (message.id !== undefined) {
        const w = pending.get(message.id);
        pending.delete(message.id);
        if (message.error) w?.reject(new Error(`chromium: ${message.error.message}`));
        else w?.resolve(message);
      } else {
        observe(message);
        for (const w of [...waiters]) if (w.test(message)) { waiters.delete(w); w.resolve(message); }
      }
    }
    if (start < chunk.length) partial.push(chunk.subarray(start));
  });

  /** A promise for a waiter, rejected saying what it waited for if not settled within the guard. */
  function guard<T>(what: string, register: (w: Waiter) => void, unregister: (w: Waiter) => void): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (failure) return reject(failure);
      const timer = setTimeout(() => { unregister(w); reject(new Error(`chromium: ${what} timed out after ${timeoutMs} ms`)); }, timeoutMs);
      const w: Waiter = { test: () => false, resolve: (m) => { clearTimeout(timer); resolve(m as T); }, reject: (e) => { clearTimeout(timer); reject(e); } };
      register(w);
    });
  }
  function send(method: string, params: object = {}, sessionId?: string): Promise<any> {
    const id = nextId++;
    const answer = guard<Message>(method, (w) => pending.set(id, w), () => pending.delete(id));
    if (!failure) toChromium.write(JSON.stringify({ id, method, params, sessionId }) + '\0');
    return answer.then((m) => m.result);
  }
  /** Wait for an event of the page's session, registered now (before the command that causes it). */
  function waitFor(method: string, test: (params: any) => boolean): { done: Promise<unknown>; cancel: () => void } {
    let waiter: Waiter | undefined;
    const done = guard(`waiting for ${method}`, (w) => {
      waiter = w;
      w.test = (m) => m.method === method && m.sessionId === session && test(m.params);
      waiters.add(w);
    }, (w) => waiters.delete(w));
    done.catch(() => {}); // a wait abandoned by cancel (its command failed) must not be an unhandled rejection
    return { done, cancel: () => { if (waiter) { waiters.delete(waiter); waiter.resolve({}); } } };
  }

  const pageCommand = (method: string, params: object = {}) => send(method, params, session);
  try {
    // The page chromium opened on about:blank (it may take a moment to appear); flatten lets its
    // commands share this pipe, told apart by sessionId.
    let page: { targetId: string } | undefined;
    for (const start = Date.now(); !(page = (await send('Target.getTargets')).targetInfos.find((t: { type: string }) => t.type === 'page')); ) {
      if (Date.now() - start > timeoutMs) throw new Error('chromium: no page target appeared');
      await new Promise((r) => setTimeout(r, 50));
    }
    session = (await send('Target.attachToTarget', { targetId: page.targetId, flatten: true })).sessionId as string;
    await pageCommand('Page.enable');
    await pageCommand('Network.enable');
    mainFrame = (await pageCommand('Page.getFrameTree')).frameTree.frame.id;
    const [width, height] = options.mobile ? [options.width ?? 390, options.height ?? 844] : [options.width ?? 1280, options.height ?? 900];
    await pageCommand('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: options.mobile ? 2 : 1, mobile: !!options.mobile });
  } catch (error) {
    process.off('exit', onExit);
    onExit();
    throw error;
  }

  /** Run `act`, then wait for a load event of a new document (about:blank's own load, or a same-page jump, does not count). */
  async function navigation(act: () => Promise<void>): Promise<number> {
    documentStatus = null;
    const load = waitFor('Page.loadEventFired', () => documentStatus !== null);
    try {
      await act();
      await load.done;
    } finally {
      load.cancel();
    }
    return documentStatus!;
  }

  async function evaluate<T>(expression: string): Promise<T> {
    const { result, exceptionDetails } = await pageCommand('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true });
    // The description is the error's stack; its frames are in the page's throwaway script, no use to a reader.
    if (exceptionDetails) throw new Error(`in the page: ${(exceptionDetails.exception?.description ?? exceptionDetails.text).split('\n    at ')[0]}`);
    return result.value as T;
  }
  /** Run `body` with `el`, the first match of `selector`, failing with the selector when there is none. */
  const onElement = <T>(selector: string, body: string, arg?: unknown) =>
    evaluate<T>(`((selector, arg) => { const el = document.querySelector(selector);
      if (!el) throw new Error('nothing matches ' + selector); ${body} })(${JSON.stringify(selector)}, ${JSON.stringify(arg ?? null)})`);
  const changed = "el.dispatchEvent(new Event('input', { bubbles: true })); el.dispatchEvent(new Event('change', { bubbles: true }));";

  async function click(selector: string): Promise<void> {
    // Centre of the visible box, after scrolling it into view; the element there must be it (or inside it), or a person could not click it.
    const { x, y } = await onElement<{ x: number; y: number }>(selector, `el.scrollIntoView({ block: 'center', inline: 'center' });
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) throw new Error(selector + ' is not visible');
      const x = r.left + r.width / 2, y = r.top + r.height / 2, hit = document.elementFromPoint(x, y);
      if (!hit || !(el === hit || el.contains(hit))) throw new Error(selector + ' is covered by ' + (hit ? hit.outerHTML.slice(0, 80) : 'nothing'));
      return { x, y };`);
    await pageCommand('Input.dispatchMouseEvent', { type: 'mouseMoved', x, y });
    await pageCommand('Input.dispatchMouseEvent', { type: 'mousePressed', x, y, button: 'left', buttons: 1, clickCount: 1 });
    await pageCommand('Input.dispatchMouseEvent', { type: 'mouseReleased', x, y, button: 'left', buttons: 0, clickCount: 1 });
  }

  return {
    goto: (url) => navigation(async () => {
      const { errorText } = await pageCommand('Page.navigate', { url });
      if (errorText) throw new Error(`chromium could not open ${url}: ${errorText}`);
    }),
    evaluate,
    // A select given a value none of its options has would be left with no option chosen: put it back, and say so.
    fill: (selector, value) => onElement(selector, `el.focus(); const before = el.value; el.value = arg;
      if (el.value !== arg) { el.value = before; throw new Error(selector + ' cannot take the value ' + arg); } ${changed}`, value),
    check: (selector, checked) => onElement(selector, `if (el.type !== 'checkbox' && el.type !== 'radio') throw new Error(selector + ' is not a checkbox');
      if (el.checked !== arg) { el.checked = arg; ${changed} }`, checked),
    click,
    clickAndWait: (selector) => navigation(() => click(selector)),
    text: (selector) => onElement(selector, 'return el.innerText;'),
    exists: (selector) => evaluate(`document.querySelector(${JSON.stringify(selector)}) !== null`),
    async screenshot(path) {
      // The document's whole scroll size; captureBeyondViewport renders past the viewport instead of repeating it.
      const size = await evaluate<{ width: number; height: number }>('({ width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight })');
      const { data } = await pageCommand('Page.captureScreenshot', { format: 'png', captureBeyondViewport: true, clip: { x: 0, y: 0, ...size, scale: 1 } });
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, Buffer.from(data, 'base64'));
    },
    cookies: async () => (await pageCommand('Network.getCookies', { urls: [await evaluate<string>('location.href')] })).cookies,
    async close() {
      process.off('exit', onExit);
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        send('Browser.close').catch(() => {}); // it exits before it answers
        fail(new Error('chromium: this browser was closed')); // what a command still waiting, or a later one, says
        const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(killer);
      }
      removeProfile();
    },
  };
}

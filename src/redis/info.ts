/** Redis's `INFO` answer, read by the health probe (src/redis/health.ts) and the persistence check (src/redis/persistence.ts). */

/** `INFO` text (`# Section` headers, `field:value` lines) as fields. */
export function parseInfo(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    if (line === '' || line.startsWith('#')) continue;
    const colon = line.indexOf(':');
    if (colon > 0) fields.set(line.slice(0, colon), line.slice(colon + 1));
  }
  return fields;
}

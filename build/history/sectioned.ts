/**
 * Several texts stored as one part (src/shared/manifest.ts, SectionedPart): their bytes one after
 * the other, and where each is, in bytes (names and slugs need not be ASCII).
 */
export interface Sectioned {
  bytes: Buffer;
  sections: Record<string, [number, number]>;
}

export function sectioned(texts: Iterable<[string, string]>): Sectioned {
  const pieces: Buffer[] = [];
  const sections: Record<string, [number, number]> = {};
  let offset = 0;
  for (const [name, text] of texts) {
    const bytes = Buffer.from(text);
    sections[name] = [offset, bytes.length];
    pieces.push(bytes);
    offset += bytes.length;
  }
  return { bytes: Buffer.concat(pieces), sections };
}

/** One section's text. */
export function sectionText(bytes: Buffer, [offset, length]: [number, number]): string {
  return bytes.toString('utf8', offset, offset + length);
}

/** Splitting a list into pages, and the body of any page past the last. */

export interface PageInfo {
  page: number;
  page_size: number;
  total_pages: number;
  has_more: boolean;
}

export function paginate<T>(items: readonly T[], pageSize: number): { pagination: PageInfo; items: T[] }[] {
  const totalPages = Math.ceil(items.length / pageSize);
  return Array.from({ length: totalPages }, (_, i) => ({
    pagination: { page: i + 1, page_size: pageSize, total_pages: totalPages, has_more: i + 1 < totalPages },
    items: items.slice(i * pageSize, (i + 1) * pageSize),
  }));
}

/** A marker page number, split out of the serialised empty page. */
const PAGE_MARKER = -1;

export function emptyPageTemplate(
  envelope: Record<string, unknown>,
  pageSize: number,
  totalPages: number,
): { before: string; after: string } {
  const body = {
    ...envelope,
    pagination: { page: PAGE_MARKER, page_size: pageSize, total_pages: totalPages, has_more: false },
    data: [],
  };
  const [before, after] = JSON.stringify(body).split(`{"page":${PAGE_MARKER},`);
  return { before: `${before}{"page":`, after: `,${after}` };
}

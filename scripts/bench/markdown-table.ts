/** One row of a markdown table, for BENCHMARKS.md's generated sections. */
export const tableRow = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;

/** Entry point of the server process (bundled into dist/server.mjs). */
import { sizeCollector } from './lib/heap.ts';

// Before the server's modules run and allocate: see heap.ts. The bundle evaluates a module
// imported this way only when the import runs.
sizeCollector();
const { main } = await import('./main.ts');
await main(process.argv.slice(2), process.env);

/** Entry point of the server process (bundled into dist/server.mjs). */
import { main } from './main.ts';

await main(process.argv.slice(2), process.env);

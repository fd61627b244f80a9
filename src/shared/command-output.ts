/**
 * Where a command writes, so a test can run it in-process and read what it said: `out` is what a
 * script captures (a key, JSON, a summary), `err` the notes and the errors.
 */
export interface CommandOutput {
  out: (text: string) => void;
  err: (text: string) => void;
}

/** A command's output on the console, as a process prints it. */
export const CONSOLE_OUTPUT: CommandOutput = { out: (text) => console.log(text), err: (text) => console.error(text) };

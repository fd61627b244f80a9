/** What a failed call says went wrong: the errno code names it (ENOENT, EACCES), the message when there is none. */
export function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
}

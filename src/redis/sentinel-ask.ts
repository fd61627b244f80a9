/**
 * Questions to one sentinel (or any Redis) on a connection of their own: logged in first when
 * credentials are given, every command in one write, the connection closed once the last reply
 * came. A deadline covers the whole exchange, so a sentinel that hangs costs one deadline and
 * holds nothing open.
 */
import type { Endpoint, SentinelAuth } from './address.ts';
import { openSocket, readReplies, type RedisTls } from './connection.ts';
import { encodeCommand, RespError, RespParser, type Reply } from './resp.ts';

export type Command = readonly (string | number)[];

/** `AUTH [USERNAME] PASSWORD`, the first command of a connection to a sentinel that asks for one. */
export function authCommand(auth: SentinelAuth): Command {
  return auth.username === null ? ['AUTH', auth.password] : ['AUTH', auth.username, auth.password];
}

/**
 * The replies to `commands`, in order (an error reply is a RespError among them); rejects when
 * the connection fails, the login is refused, or the replies are not all in after `timeoutMs`.
 */
export function ask(node: Endpoint, tls: RedisTls | null, auth: SentinelAuth | null, commands: readonly Command[], timeoutMs: number): Promise<Reply[]> {
  const sent = auth ? [authCommand(auth), ...commands] : commands;
  return new Promise((resolve, reject) => {
    const replies: Reply[] = [];
    // After an answer these settle nothing: a promise settles once.
    const socket = openSocket(node, tls, timeoutMs, {
      ready: () => socket.write(sent.map(encodeCommand).join('')),
      down: (reason) => {
        clearTimeout(timer);
        reject(new Error(reason === 'connection closed' ? 'connection closed before an answer' : reason));
      },
    });
    const timer = setTimeout(() => socket.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    const parser = new RespParser((reply) => {
      replies.push(reply);
      if (replies.length < sent.length) return;
      clearTimeout(timer);
      const login = auth ? replies.shift() : undefined;
      if (login instanceof RespError) reject(new Error(`login refused: ${login.message}`));
      else resolve(replies);
      socket.destroy();
    });
    readReplies(socket, parser);
  });
}

/** One command on a connection of its own, without credentials: its reply. */
export async function askOnce(node: Endpoint, tls: RedisTls | null, args: Command, timeoutMs: number): Promise<Reply> {
  const [reply] = await ask(node, tls, null, [args], timeoutMs);
  return reply;
}

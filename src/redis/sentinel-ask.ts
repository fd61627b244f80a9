/**
 * Questions to one sentinel (or any Redis) on a connection of their own: logged in first when
 * credentials are given, every command in one write, the connection closed once the last reply
 * came. Connecting and answering have a deadline each, so a sentinel that hangs costs at most
 * two and holds nothing open.
 */
import { afterIo } from '../lib/after-io.ts';
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
 * the connection fails or takes longer than `timeoutMs`, the login is refused, or the replies
 * are not all in `timeoutMs` after the questions left.
 */
export function ask(
  node: Endpoint,
  tls: RedisTls | null,
  auth: SentinelAuth | null,
  commands: readonly Command[],
  timeoutMs: number,
): Promise<Reply[]> {
  const sent = auth ? [authCommand(auth), ...commands] : commands;
  return new Promise((resolve, reject) => {
    const replies: Reply[] = [];
    let timer: NodeJS.Timeout | undefined;
    // After an answer these settle nothing: a promise settles once. Connecting has a deadline of
    // its own (openSocket's); the answer's runs from when the questions leave.
    const socket = openSocket(node, tls, timeoutMs, {
      ready: () => {
        socket.write(sent.map(encodeCommand).join(''));
        timer = setTimeout(
          () => afterIo(() => socket.destroy(new Error(`no answer within ${timeoutMs} ms`))),
          timeoutMs,
        );
      },
      down: (reason) => {
        clearTimeout(timer);
        reject(new Error(reason === 'connection closed' ? 'connection closed before an answer' : reason));
      },
    });
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

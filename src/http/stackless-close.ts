/**
 * A connection closed with pipelined requests still unanswered (a client that never reads, cut
 * by the send timeout or the waiting budget) makes node:http destroy each of them with an
 * `aborted` error, and node's stream destroy formats every such error's stack at once. No one
 * reads them (nothing listens for those requests' errors), yet at 1,000 connections of 46
 * waiting requests that was 46,000 stacks, about 0.75 s of the server's CPU in one burst, while
 * /healthz waited (a CPU profile of `scripts/bench/descriptors.ts --pipeline 1000`). So the
 * errors made while node:http closes a connection carry no stack.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Run `attach` (node:http's own connection listener, which adds its close handler) between two
 * close listeners of ours: stack traces are off from just before node's close handler to just
 * after it.
 */
export function stacklessClose(socket: Socket, attach: () => void): void {
  let saved = Error.stackTraceLimit;
  socket.once('close', () => {
    saved = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
  });
  try {
    attach();
  } finally {
    socket.once('close', () => (Error.stackTraceLimit = saved));
  }
}

/**
 * Take node:http's own connection listener out of `server`: the returned function hands it a
 * connection, with the errors made while node:http closes it stackless (above).
 */
export function takeNodeConnectionListener(server: Server): (socket: Socket) => void {
  const nodeListeners = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  return (socket) =>
    stacklessClose(socket, () => {
      for (const listener of nodeListeners) listener.call(server, socket);
    });
}

/**
 * A sentinel that says what it is told: for the tests and the failover bench, the stale or lying
 * sentinel a real set cannot be made into (one cut off with an old primary by a partition, or
 * one that lies). It answers PING, AUTH, `SENTINEL GET-MASTER-ADDR-BY-NAME` and `SENTINEL
 * MASTER` (flags `master`, the config-epoch it is told) for its one master name, takes
 * SUBSCRIBE and never publishes; anything else is an error reply. What it says may be changed
 * while it runs.
 */
import { createServer, type Socket } from 'node:net';
import type { Endpoint } from '../src/redis/address.ts';
import { encodeCommand, RespParser, type Reply } from '../src/redis/resp.ts';

export interface FakeSentinelSays {
  masterName: string;
  primary: Endpoint;
  epoch: number;
}

export interface FakeSentinel {
  port: number;
  /** What it answers from now on. */
  says: FakeSentinelSays;
  close(): Promise<void>;
}

function answer(says: FakeSentinelSays, command: string[]): string {
  const [name = '', sub = '', master = ''] = command.map((word, i) => (i < 2 ? word.toUpperCase() : word));
  if (name === 'PING') return '+PONG\r\n';
  if (name === 'AUTH') return '+OK\r\n';
  if (name === 'SUBSCRIBE')
    return command
      .slice(1)
      .map((channel, i) => `*3\r\n$9\r\nsubscribe\r\n$${Buffer.byteLength(channel)}\r\n${channel}\r\n:${i + 1}\r\n`)
      .join('');
  if (name !== 'SENTINEL' || master !== says.masterName) return `-ERR No such master with that name\r\n`;
  const { host, port } = says.primary;
  if (sub === 'GET-MASTER-ADDR-BY-NAME') return encodeCommand([host, String(port)]);
  if (sub === 'MASTER')
    return encodeCommand([
      'name',
      master,
      'ip',
      host,
      'port',
      String(port),
      'flags',
      'master',
      'config-epoch',
      String(says.epoch),
      'quorum',
      '2',
    ]);
  return `-ERR unknown sentinel subcommand\r\n`;
}

export function startFakeSentinel(says: FakeSentinelSays): Promise<FakeSentinel> {
  const sockets = new Set<Socket>();
  const fake = { says } as FakeSentinel;
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    // Commands are arrays of bulk strings: the reply parser reads them as well.
    const parser = new RespParser((command: Reply) => {
      socket.write(Array.isArray(command) ? answer(fake.says, command.map(String)) : '-ERR expected a command\r\n');
    });
    socket.on('data', (chunk: Buffer) => {
      try {
        parser.push(chunk);
      } catch {
        socket.destroy();
      }
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      fake.port = (server.address() as { port: number }).port;
      fake.close = () =>
        new Promise((done) => {
          for (const socket of sockets) socket.destroy();
          server.close(() => done());
        });
      resolve(fake);
    });
  });
}

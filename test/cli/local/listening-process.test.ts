import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { listensOn } from '../../../cli/local/listening-process.ts';

describe('listensOn', () => {
  it('tells the process listening on a port from one that is not', async () => {
    const server = createServer().listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as { port: number }).port;
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 10000)']);
    try {
      expect(listensOn(process.pid, port)).toBe(true);
      expect(listensOn(other.pid as number, port)).toBe(false);
    } finally {
      other.kill();
      server.close();
    }
  });

  it('says false for a port nobody listens on, and null for a process it cannot see', async () => {
    const server = createServer().listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as { port: number }).port;
    server.close();
    await once(server, 'close');

    expect(listensOn(process.pid, port)).toBe(false);
    expect(listensOn(2 ** 22 + 7, port)).toBeNull();
  });
});

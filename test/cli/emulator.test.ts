import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { postQuery } from '../factories/emulator-requests.ts';

const LAUNCHER = fileURLToPath(new URL('../../bin/credit-screen.mjs', import.meta.url));

describe('credit-screen emulator', () => {
  it('serves spec-shaped reports on the port it prints and stops cleanly on Ctrl-C with its stats', async () => {
    const child = spawn(process.execPath, [LAUNCHER, 'emulator', '--port', '0', '--token', 'cli-token'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      output += text;
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no URL printed: ${output}`)), 15_000);
        child.stdout.on('data', () => {
          const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
          if (match) {
            clearTimeout(timer);
            resolve(match[1] as string);
          }
        });
      });
      const ok = await postQuery(
        url,
        'ap-bureau-a',
        { document: '519.540.222-12', link: 'ap-bureau-a' },
        'cli-token',
      );
      expect(ok.status).toBe(200);
      expect(ok.body.status).toBe('sucesso');
      const refused = await postQuery(
        url,
        'ap-bureau-a',
        { document: '51954022212' },
        'credit-screen-dev-token',
      );
      expect(refused.body).toEqual({ status: 'error', message: 'Token inválido!' });
    } finally {
      child.kill('SIGINT');
    }
    const [code] = await once(child, 'close');
    expect(code).toBe(0);
    expect(output).toMatch(/stopped; \{"requests":2,"charged":1/);
  });
});

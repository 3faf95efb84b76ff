import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customerListCsv, distinctDocuments } from '../factories/customer-lists.ts';
import { ScriptedServer } from '../factories/scripted-server.ts';
import { caseFolder, expectOneLineRefusal, runInProcess, treeOf } from './harness.ts';

// The hostile-input corpus, round four (issue #37): `--webhook-header` values that would forge a second header
// (CR LF in the value), contradict the request's own framing (Content-Length, Transfer-Encoding, Host), or are not
// headers at all. Each is refused in one line before anything starts (nothing bought), naming the header and
// never repeating its value: a webhook's header is most often the receiver's key. A header that is fine never
// reaches what a run prints or keeps about a delivery either.

/** Stands for the receiver's key: must never be printed. */
const SECRET = 's3cr3t-9f2c';

let folder: string;
let receiver: ScriptedServer;
beforeAll(async () => {
  folder = await caseFolder('webhook-headers');
  await writeFile(
    join(folder, 'lista.csv'),
    customerListCsv(distinctDocuments(2, 'hostile webhook headers')),
  );
  receiver = await ScriptedServer.start({ status: 400, body: 'no' });
});
afterAll(async () => {
  await receiver?.close();
});

const screen = (header: string, more: string[] = []) => [
  'screen',
  'lista.csv',
  '--no-state',
  '--webhook',
  'http://127.0.0.1:9/hooks',
  '--webhook-header',
  header,
  ...more,
];
const webhookTest = (header: string) => [
  'webhook',
  'test',
  'http://127.0.0.1:9/hooks',
  '--webhook-header',
  header,
];

describe('--webhook-header values that are not one header, refused before anything starts', () => {
  it.each([
    [
      'a CR LF that would add a header',
      screen(`X-A: ${SECRET}\r\nX-Injected: evil`),
      /--webhook-header X-A: its value holds a line break/,
    ],
    [
      'a bare LF',
      screen(`X-Api-Key: ${SECRET}\nX-Injected: evil`),
      /--webhook-header X-Api-Key: its value holds a line break/,
    ],
    [
      'a NUL',
      screen(`X-Api-Key: ${SECRET}\u0000evil`),
      /--webhook-header X-Api-Key: its value holds a line break \(CR, LF\) or NUL/,
    ],
    [
      'a trailing CR LF',
      screen(`X-Api-Key: ${SECRET}\r\n`),
      /--webhook-header X-Api-Key: its value holds a line break/,
    ],
    [
      'an escape character',
      screen(`X-Api-Key: ${SECRET}\u001b[2J`),
      /--webhook-header X-Api-Key: its value holds a control character/,
    ],
    [
      'a character beyond Latin-1',
      screen(`X-Api-Key: ${SECRET}€`),
      /--webhook-header X-Api-Key: its value holds a character beyond Latin-1/,
    ],
    [
      'a second Content-Length',
      screen('Content-Length: 0'),
      /--webhook-header Content-Length: the HTTP client sets this header itself/,
    ],
    [
      'a Transfer-Encoding',
      screen('transfer-encoding: chunked'),
      /--webhook-header transfer-encoding: the HTTP client sets this header itself/,
    ],
    [
      'a Host',
      screen('Host: evil.example'),
      /--webhook-header Host: the HTTP client sets this header itself/,
    ],
    ['a Connection', screen('Connection: close'), /--webhook-header Connection: .*hop-by-hop/],
    ['no colon: the key alone', screen(SECRET), /--webhook-header must be "Name: value"/],
    [
      'a name that is not a token',
      screen(`X Api Key: ${SECRET}`),
      /--webhook-header a header name must be letters, digits/,
    ],
    ['a name with a line break', screen(`X-A\r\nX-B: ${SECRET}`), /--webhook-header a header name must be/],
    [
      'the same name twice',
      screen(`X-Api-Key: ${SECRET}`, ['--webhook-header', `x-api-key: ${SECRET}`]),
      /--webhook-header x-api-key: given twice/,
    ],
    [
      'a CR LF to webhook test',
      webhookTest(`X-A: ${SECRET}\r\nX-Injected: evil`),
      /--webhook-header X-A: its value holds a line break/,
    ],
    [
      'a Content-Length to webhook test',
      webhookTest('Content-Length: 5'),
      /--webhook-header Content-Length: the HTTP client sets/,
    ],
  ])('%s', async (_label, args, refusal) => {
    const before = await treeOf(folder);

    const result = await runInProcess(args, folder);

    expectOneLineRefusal(result, refusal);
    expect(result.stderr).not.toContain(SECRET);
    expect(result.stderr).not.toContain('evil');
    expect(await treeOf(folder)).toEqual(before);
  });
});

describe('a header that is fine, on an event the receiver refuses', () => {
  it('is sent, and is in nothing webhook test prints about the undelivered events', async () => {
    const result = await runInProcess(
      [
        'webhook',
        'test',
        receiver.url,
        '--webhook-header',
        `X-Api-Key: ${SECRET}`,
        '--webhook-events',
        'BatchCompleted',
        '--json',
      ],
      folder,
    );

    expect(result.code, result.stderr).toBe(1);
    expect(receiver.requests.at(-1)?.headers['x-api-key']).toBe(SECRET);
    // The entries are those a run appends to undelivered-events.jsonl.
    const { undelivered } = JSON.parse(result.stdout) as { undelivered: unknown[] };
    expect(undelivered).toHaveLength(1);
    expect(`${result.stdout}${result.stderr}`).not.toContain(SECRET);
  });
});

import { createHmac } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SAMPLE_FILES } from '../../scripts/generate-samples.ts';
import { customerListCsv, distinctDocuments } from '../factories/customer-lists.ts';
import { parseSummary, writeCsv } from '../factories/pipeline.ts';
import { runCli } from '../factories/run-cli.ts';

describe('credit-screen screen', () => {
  it('screens the Excel sample end to end on this machine and leaves the results and the emulator stats', async () => {
    const out = await mkdtemp(join(tmpdir(), 'credit-screen-cli-'));
    const result = await runCli(
      ['screen', SAMPLE_FILES.excel, '--excel', '--out', out, '--rate-limit', '200', '--lang', 'en'],
      { cwd: out },
    );
    expect(result.stderr).not.toContain('Error');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/completed in .* s \(bureau A\)/);
    expect(result.stdout).toMatch(/screened\s+290/);
    const manifest = JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8'));
    const stats = JSON.parse(await readFile(join(out, 'emulator-stats.json'), 'utf8'));
    const summary = parseSummary(await readFile(join(out, 'summary.csv'), 'utf8'));
    expect(manifest.counts).toEqual({
      rows: 311,
      screened: 290,
      cached: 0,
      duplicate: 5,
      invalid_document: 16,
      failed: 0,
      cancelled: 0,
      not_queried: 0,
    });
    expect(summary).toHaveLength(311);
    expect(stats.charged).toBe(290);
    // The stats beside the results key documents by a salted hash (the salt is in the file): one charge each.
    const hash = (document: string) =>
      createHmac('sha256', stats.documentHash.salt).update(document).digest('hex');
    const screened = summary
      .filter((line) => line.status === 'screened')
      .map((line) => line.document as string);
    expect(stats.chargesByDocument).toEqual(
      Object.fromEntries(screened.map((document) => [hash(document), 1])),
    );
    expect(JSON.stringify(stats)).not.toContain(screened[0] as string);
    expect((await readFile(join(out, 'reports.jsonl'), 'utf8')).trim().split('\n')).toHaveLength(290);
    // The page people read, in the language asked for, and where it is.
    expect(result.stdout).toContain(`report: ${join(out, 'report.html')}`);
    const page = await readFile(join(out, 'report.html'), 'utf8');
    expect(page).toContain('<html lang="en">');
    expect(page).toMatch(/data-figure="status:screened" data-value="290"/);
  }, 120_000);

  it('exits non-zero with one clear line when the bureau rejects the token, after at most a couple of requests', async () => {
    const out = await mkdtemp(join(tmpdir(), 'credit-screen-cli-'));
    // Sixty documents: enough that one request per row would show, few enough that settling them stays quick.
    const file = await writeCsv('list.csv', customerListCsv(distinctDocuments(60, 'cli token')));
    const result = await runCli(['screen', file, '--token', 'wrong', '--out', out], { cwd: out });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/credit-screen: the bureau rejected the token/);
    const stats = JSON.parse(await readFile(join(out, 'emulator-stats.json'), 'utf8'));
    expect(stats.requests).toBeLessThanOrEqual(2);
    expect(JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8')).status).toBe('token_rejected');
    expect(await readFile(join(out, 'report.html'), 'utf8')).toContain('Token recusado pelo birô');
  }, 120_000);

  it('refuses to call a real gateway without --live', async () => {
    const result = await runCli(['screen', SAMPLE_FILES.standard, '--base-url', 'https://gateway.invalid']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(
      'credit-screen: --base-url calls a real bureau gateway and spends real credits: add --live to confirm',
    );
  });

  it('exits non-zero with one clear line for an unusable file', async () => {
    const result = await runCli(['screen', '/no/such/file.csv']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('cannot read /no/such/file.csv: no such file');
  }, 60_000);
});

describe('credit-screen screen on Ctrl-C', () => {
  it('stops everything it started and exits 130 with one line', async () => {
    const { spawn } = await import('node:child_process');
    const { connect } = await import('node:net');
    const launcher = new URL('../../bin/credit-screen.mjs', import.meta.url).pathname;
    const child = spawn(
      process.execPath,
      [
        launcher,
        'screen',
        SAMPLE_FILES.standard,
        '--emulator-latency',
        '300',
        '--rate-limit',
        '5',
        '--no-state',
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        cwd: tmpdir(),
      },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
    });
    // Interrupt once the stack is up and screening has started.
    await expect.poll(() => /progress: [1-9]/.test(stderr), { timeout: 60_000, interval: 200 }).toBe(true);
    const ports = [...stderr.matchAll(/http:\/\/127\.0\.0\.1:(\d+)/g)].map((match) => Number(match[1]));
    expect(ports.length).toBeGreaterThanOrEqual(3);
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(130);
    expect(stderr).toContain('credit-screen: interrupted; everything started was stopped');
    const listening = (port: number) =>
      new Promise<boolean>((resolve) => {
        const socket = connect(port, '127.0.0.1');
        socket.once('connect', () => {
          socket.destroy();
          resolve(true);
        });
        socket.once('error', () => resolve(false));
      });
    for (const port of ports) expect(await listening(port)).toBe(false);
  }, 120_000);
});

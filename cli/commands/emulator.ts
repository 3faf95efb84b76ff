import type { Command } from 'commander';
import { ServiceEmulator } from '../../emulator/service-emulator.ts';
import { addTableAction } from '../option-parsers.ts';
import type { CommandOptions } from '../option-types.ts';

async function runEmulator(options: CommandOptions<'emulator'>): Promise<void> {
  const emulator = await ServiceEmulator.start({
    port: options.port,
    host: options.host,
    token: options.token,
    latencyMs: options.latency,
    errorRate: options.errorRate,
    rateLimitPerSecond: options.rateLimit ?? null,
    hangRate: options.hangRate,
    ai: { jobStepMs: options.jobStepMs },
    epoch: options.epoch,
  });
  const faults = [
    options.latency > 0 && `latency ~${options.latency} ms`,
    options.errorRate > 0 && `error rate ${options.errorRate}`,
    options.rateLimit !== undefined && `rate limit ${options.rateLimit} req/s`,
    options.hangRate > 0 && `hang rate ${options.hangRate}`,
  ].filter(Boolean);
  process.stdout.write(
    [
      `bureau emulator listening on ${emulator.url}`,
      `  token:     ${options.token}`,
      `  endpoints: POST /api/ap-bureau-a, POST /api/ap-bureau-b-premium; GET /__stats, POST /__reset`,
      `  AI:        GET /ai, /ai/agents/…, /ai-studio/… (in memory; jobs queued → running → done in ${2 * options.jobStepMs} ms)`,
      `  epoch:     ${options.epoch} (reports change a little from one epoch to the next)`,
      `  faults:    ${faults.length > 0 ? faults.join(', ') : 'none'}`,
      `  try:       curl -s -X POST ${emulator.url}/api/ap-bureau-a -H 'Authorization: Bearer ${options.token}' \\`,
      `               -H 'Content-Type: application/json' -d '{"document":"51954022212","link":"ap-bureau-a"}'`,
      '',
    ].join('\n'),
  );
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await emulator.close();
  process.stdout.write(`stopped; ${JSON.stringify(emulator.stats())}\n`);
}

export function registerEmulatorCommand(program: Command): void {
  addTableAction(
    program
      .command('emulator')
      .description('Run the local bureau emulator (credit-report API with fault injection)'),
    'emulator',
    async (options) => runEmulator(options),
  );
}

import type { SQSEvent } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createFinaliseHandler } from '../../../lambdas/finalise/finalise-handler.ts';
import { CreditReportClient, RejectedError, ServiceTransport } from '../../../service-client/index.ts';
import { createLambdaLogger } from '../../../src/adapters/aws/powertools-logger.ts';
import {
  CreditReportGateway,
  type CreditReportSource,
} from '../../../src/adapters/bureau/credit-report-gateway.ts';
import { MemoryLogger } from '../../../src/adapters/memory/memory-logger.ts';
import type { BatchStore } from '../../../src/domain/ports/index.ts';
import { normaliseCreditReport } from '../../../src/domain/report/index.ts';
import { bureauResponse, creditSection } from '../../factories/bureau-responses.ts';
import { startTestPipeline, type TestPipeline, writeCsv } from '../../factories/pipeline.ts';

// The documents and personal values of the scenario: none may reach a log line as written.
const PERSON = '519.540.222-12';
const REFUSED = '012.345.678-90';
const SOMEBODY_ELSE = '111.444.777-35';
const PERSONAL_VALUES = [
  '51954022212',
  PERSON,
  '01234567890',
  REFUSED,
  '11144477735',
  SOMEBODY_ELSE,
  '11222333000181',
  'Maria Souza',
  'Ana Souza',
  '31/02/1990',
  '(11) 98765-4321',
  'ana.souza@example.com',
  'Rua das Flores',
];

function expectNoPersonalValue(lines: readonly string[]): void {
  expect(lines.length).toBeGreaterThan(0);
  for (const line of lines) {
    for (const value of PERSONAL_VALUES) expect(line).not.toContain(value);
  }
}

/** A registration section that makes the normaliser quote what it could not read. */
function hostileRegistration(registration: Record<string, unknown>): void {
  registration.cpf = SOMEBODY_ELSE;
  registration.dataNascimento = '31/02/1990';
  registration.nomeMae = { nome: 'Maria Souza' };
  registration.telefone = ['(11) 98765-4321'];
  registration.email = ['ana.souza@example.com'];
  registration.endereco = 42;
  registration.bairro = { rua: 'Rua das Flores' };
}

/** Every line Powertools writes while a test runs (warnings and errors go to stderr, as console's do). */
function captureOutput(): string[] {
  const lines: string[] = [];
  for (const stream of [process.stdout, process.stderr]) {
    vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
  }
  return lines;
}

describe('createLambdaLogger (Powertools with the masking formatter)', () => {
  let lines: string[];
  beforeEach(() => {
    lines = captureOutput();
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('writes the normaliser warnings of a hostile registration without a document or personal value', () => {
    const response = bureauResponse('bureau-a-person');
    hostileRegistration(creditSection(response).dadosCadastrais as Record<string, unknown>);
    const report = normaliseCreditReport(response, {
      bureau: 'a',
      document: '51954022212',
      fetchedAt: '2026-01-02T03:04:05.000Z',
    });
    // The scenario must really quote personal values, or this test proves nothing.
    expect(report.warnings.join('\n')).toContain(SOMEBODY_ELSE);
    expect(report.warnings.join('\n')).toContain('Maria Souza');

    createLambdaLogger('test').warn('report normalised with warnings', { row: 1, warnings: report.warnings });
    expectNoPersonalValue(lines);
    const entry = JSON.parse(lines[0] as string);
    expect(entry).toMatchObject({
      level: 'WARN',
      message: 'report normalised with warnings',
      service: 'test',
    });
    expect(entry.warnings).toContain('dadosCadastrais.cpf: "***.444.777-**" is not the queried document');
  });

  it('masks documents and hides personal fields in the message, in nested details and in errors', () => {
    const logger = createLambdaLogger('test');
    logger.error(`unexpected failure for ${PERSON}`, {
      error: new RejectedError(
        `query for ${REFUSED} refused`,
        422,
        `Documento 01234567890 inválido`,
      ).toJSON(),
      cause: new Error(`ValidationException on key REPORT#a#11222333000181`),
      report: { subject: { name: 'Ana Souza', motherName: 'Maria Souza' }, document: 51954022212 },
    });
    expectNoPersonalValue(lines);
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      message: 'unexpected failure for ***.540.222-**',
      report: { subject: '[redacted]', document: '***.540.222-**' },
    });
  });

  it("keeps the local runner's memory logger to the same rule", () => {
    const logger = new MemoryLogger();
    logger.warn(`row of ${PERSON}`, { nomeMae: 'Maria Souza', error: String(new Error(REFUSED)) });
    expectNoPersonalValue(logger.entries.map((entry) => JSON.stringify(entry)));
  });
});

describe('the worker, ingest and finaliser error paths, logged through the Lambda logger', () => {
  let test: TestPipeline;
  let lines: string[];
  beforeAll(async () => {
    test = await startTestPipeline({
      logger: createLambdaLogger('test'),
      bureau: (emulator) => {
        const real = new CreditReportClient(
          new ServiceTransport({ baseUrl: emulator.url, token: emulator.token }),
        );
        // The client's own error, as the real adapter translates it for the worker.
        const hostile: CreditReportSource = {
          fetchReport: async (bureau, document, options) => {
            if (document === '01234567890') {
              throw new RejectedError(
                `query for ${REFUSED} refused`,
                422,
                `Documento ${document} não encontrado`,
              );
            }
            const response = await real.fetchReport(bureau, document, options);
            const body = structuredClone(response.body) as Record<string, unknown>;
            hostileRegistration(creditSection(body).dadosCadastrais as Record<string, unknown>);
            return { ...response, body };
          },
        };
        return new CreditReportGateway(hostile);
      },
    });
  }, 60_000);
  afterAll(async () => {
    await test?.stop();
  });
  beforeEach(() => {
    lines = captureOutput();
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('logs a screened row with warnings and a refused query without a document or personal value', async () => {
    const outcome = await test.pipeline.submit(
      await writeCsv('list.csv', `cpf\n${PERSON}\n${REFUSED}\n`),
      'a',
    );
    await test.pipeline.waitForCompletion(outcome.batchId, { pollMs: 100 });
    vi.restoreAllMocks();
    const logged = lines.join('');
    expect(logged).toContain('report normalised with warnings');
    expect(logged).toContain('bureau rejected the query');
    expectNoPersonalValue(lines);
  });

  it('logs a refused file without the personal values its first row showed', async () => {
    const file = await writeCsv('people.csv', 'Ana Souza;31/02/1990;ana.souza@example.com\n');
    const outcome = await test.pipeline.submit(file, 'a');
    await test.pipeline.waitForCompletion(outcome.batchId, { pollMs: 100 });
    vi.restoreAllMocks();
    expect(lines.join('')).toContain('file rejected');
    expectNoPersonalValue(lines);
  });

  it('logs a failed finalisation without the document its error quoted', async () => {
    const store = {
      getBatch: async () => {
        throw new Error(
          'ValidationException: conditional check failed on REPORT#a#11222333000181, row 519.540.222-12',
        );
      },
    } as unknown as BatchStore;
    const finalise = createFinaliseHandler({
      ...test.pipeline.adapters,
      batchRecords: store,
      events: test.pipeline.events,
      logger: createLambdaLogger('test'),
    });
    const event = {
      Records: [{ messageId: 'm1', body: JSON.stringify({ version: 1, batchId: 'b1' }) }],
    } as unknown as SQSEvent;
    expect(await finalise(event)).toEqual({ batchItemFailures: [{ itemIdentifier: 'm1' }] });
    vi.restoreAllMocks();
    expect(lines.join('')).toContain('finalisation failed; retried');
    expectNoPersonalValue(lines);
  });
});

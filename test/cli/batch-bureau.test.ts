import { afterEach, describe, expect, it } from 'vitest';
import { resumableNow } from '../../cli/batch-bureau.ts';
import { CliError } from '../../cli/cli-error.ts';
import { BUILT_IN_EMULATOR_ENDPOINT } from '../../emulator/service-emulator.ts';
import { batchRecord } from '../factories/batch-records.ts';

const GATEWAY = 'https://gateway.example';
const emulatorBatch = batchRecord({ batchId: 'emulator-batch', bureauEndpoint: BUILT_IN_EMULATOR_ENDPOINT });
const unrecordedBatch = batchRecord({ batchId: 'unrecorded-batch', bureauEndpoint: null });
const gatewayBatch = batchRecord({ batchId: 'gateway-batch', bureauEndpoint: GATEWAY });

const token = process.env.BUREAU_TOKEN;
afterEach(() => {
  if (token === undefined) delete process.env.BUREAU_TOKEN;
  else process.env.BUREAU_TOKEN = token;
});

const ids = (batches: readonly { batchId: string }[]) => batches.map((batch) => batch.batchId);

describe('resumableNow: what one resume takes further', () => {
  it('takes every batch of one bureau, and says nothing is left', () => {
    const { resume, later } = resumableNow([gatewayBatch]);

    expect(ids(resume)).toEqual(['gateway-batch']);
    expect(later).toBeNull();
  });

  it('without a token, the emulator’s batches (those stored before endpoints included), the gateway’s later', () => {
    delete process.env.BUREAU_TOKEN;

    const { resume, later } = resumableNow([emulatorBatch, gatewayBatch, unrecordedBatch]);

    expect(ids(resume)).toEqual(['emulator-batch', 'unrecorded-batch']);
    expect(later).toBe(
      `1 batch started against ${GATEWAY} left for later: resume them with BUREAU_TOKEN set to its token`,
    );
  });

  it('with a token, the gateway’s batches, the emulator’s later', () => {
    process.env.BUREAU_TOKEN = 'a token';

    const { resume, later } = resumableNow([emulatorBatch, gatewayBatch]);

    expect(ids(resume)).toEqual(['gateway-batch']);
    expect(later).toBe(
      `1 batch started against ${BUILT_IN_EMULATOR_ENDPOINT} left for later: resume them without BUREAU_TOKEN`,
    );
  });

  it('refuses, in one line, a token that two gateways could not tell apart', () => {
    process.env.BUREAU_TOKEN = 'a token';
    const other = batchRecord({ batchId: 'other-gateway', bureauEndpoint: 'https://other.example' });

    expect(() => resumableNow([gatewayBatch, other, emulatorBatch])).toThrow(CliError);
    expect(() => resumableNow([gatewayBatch, other])).toThrow(/one BUREAU_TOKEN cannot tell them apart/);
  });
});

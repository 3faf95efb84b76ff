import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { buildSamples, SAMPLE_FILES } from '../scripts/generate-samples.ts';

describe('committed samples', () => {
  it('are exactly what scripts/generate-samples.ts makes (run `npm run samples` after changing it)', async () => {
    const samples = buildSamples();
    expect((await readFile(SAMPLE_FILES.standard)).equals(samples.standard)).toBe(true);
    expect((await readFile(SAMPLE_FILES.excel)).equals(samples.excel)).toBe(true);
  });
});

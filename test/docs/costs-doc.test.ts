import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AWS_PRICES } from '../../bench/costs/aws-prices.ts';
import { renderCostsDoc } from '../../bench/costs/cost-report.ts';
import { MEASURED_USAGE_PATH, type MeasuredUsage } from '../../bench/costs/usage.ts';

describe('docs/costs.md', () => {
  it('is what the committed measurement and prices give (npm run costs rewrites it)', () => {
    const usage = JSON.parse(readFileSync(MEASURED_USAGE_PATH, 'utf8')) as MeasuredUsage;

    expect(readFileSync('docs/costs.md', 'utf8')).toBe(renderCostsDoc(usage, AWS_PRICES));
  });
});

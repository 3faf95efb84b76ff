/**
 * Writes docs/costs.md from the measured usage and the list prices: `npm run costs`. test/docs/costs-doc.test.ts
 * fails while the committed page differs from what this writes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { AWS_PRICES } from '../bench/costs/aws-prices.ts';
import { renderCostsDoc } from '../bench/costs/cost-report.ts';
import { MEASURED_USAGE_PATH, type MeasuredUsage } from '../bench/costs/usage.ts';

const usage = JSON.parse(readFileSync(MEASURED_USAGE_PATH, 'utf8')) as MeasuredUsage;
writeFileSync('docs/costs.md', renderCostsDoc(usage, AWS_PRICES));
process.stdout.write('wrote docs/costs.md\n');

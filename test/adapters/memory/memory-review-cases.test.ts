import { MemoryReviewCases } from '../../../src/adapters/memory/memory-review-cases.ts';
import { describeReviewCasesContract } from '../review-cases-contract.ts';

describeReviewCasesContract('MemoryReviewCases', async () => new MemoryReviewCases());

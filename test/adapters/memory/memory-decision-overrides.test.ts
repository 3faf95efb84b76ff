import { MemoryDecisionOverrides } from '../../../src/adapters/memory/memory-decision-overrides.ts';
import { describeDecisionOverridesContract } from '../decision-overrides-contract.ts';

describeDecisionOverridesContract('MemoryDecisionOverrides', async () => new MemoryDecisionOverrides());

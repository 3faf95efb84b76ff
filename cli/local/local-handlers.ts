/** The local pipeline's adapters and the finaliser's dependencies, built from the settings as the functions build theirs. */

import { createPipelineAdapters, type PipelineAdapters } from '../../lambdas/shared/pipeline-adapters.ts';
import { zenCreditPolicyLoader } from '../../src/adapters/decision/zen-credit-policy.ts';
import type { FinaliseDependencies } from '../../src/application/finalise/finalise-batch.ts';
import type { PipelineSettings } from '../../src/contract/index.ts';
import type { LocalServices } from './local-services.ts';
import { memoryEngineAdapters } from './memory-engine.ts';

/** The finaliser's dependencies, as the finalise function's handler builds them from the same settings. */
export function finaliseDependencies(
  base: Omit<FinaliseDependencies, 'changeThresholds' | 'changeAlerts' | 'reportLanguage' | 'policyLoader'>,
  settings: PipelineSettings,
): FinaliseDependencies {
  return {
    ...base,
    changeThresholds: { scorePoints: settings.scoreChangePoints },
    changeAlerts: { changeKinds: settings.alertChangeKinds, worstChanges: settings.alertWorstChanges },
    reportLanguage: settings.reportLanguage,
    partRows: settings.finalisePartRows,
    policyLoader: zenCreditPolicyLoader,
  };
}
/** The adapters on the stack's engine: the DynamoDB ones, as in AWS, or the memory engine's (no Java). */
export const adaptersOn = (stack: LocalServices, settings: PipelineSettings): PipelineAdapters =>
  stack.engine === 'memory'
    ? memoryEngineAdapters(stack.clients, stack.resources, settings)
    : createPipelineAdapters(stack.clients, stack.resources, settings);

export * from './batch-identity.ts';
export * from './batch-model.ts';
export * from './charge-state.ts';
export * from './delivery-lane.ts';
export * from './retry-policy.ts';
export * from './state-machines.ts';
export * from './stuck-rows.ts';
export * from './work-message.ts';

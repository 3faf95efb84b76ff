/**
 * The shared contract: what the CDK construct, the Lambda code and the local runner must agree on, one file per
 * concept. Plain data and pure functions: no CDK, no AWS SDK.
 */

export * from './alert-events.ts';
export * from './bureaus.ts';
export * from './claims.ts';
export * from './console-case-schemas.ts';
export * from './console-roles.ts';
export * from './console-routes.ts';
export * from './console-schemas.ts';
export * from './console-upload-schemas.ts';
export * from './environment-variables.ts';
export * from './event-sources.ts';
export * from './events.ts';
export * from './functions.ts';
export * from './log-alerts.ts';
export * from './manifest.ts';
export * from './policies.ts';
export * from './portfolio-schedules.ts';
export * from './queues.ts';
export * from './s3-layout.ts';
export * from './settings.ts';
export * from './source-name.ts';
export * from './table-keys.ts';
export * from './webhooks.ts';

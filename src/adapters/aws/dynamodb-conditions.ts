import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';

/**
 * Whether a write was refused because its condition did not hold. By class, and by name too: an error that crossed
 * a proxy or another copy of the SDK is not an instance of this copy's class, and must not pass for a fault.
 */
export const isConditionFailure = (error: unknown): error is ConditionalCheckFailedException =>
  error instanceof ConditionalCheckFailedException ||
  (error as { name?: string } | undefined)?.name === 'ConditionalCheckFailedException';

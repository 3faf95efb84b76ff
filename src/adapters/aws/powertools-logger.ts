import { LogFormatter, LogItem, Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import type { LogAttributes, UnformattedAttributes } from '@aws-lambda-powertools/logger/types';
import { redactForLog } from '../../domain/documents/index.ts';
import type { Logger } from '../../domain/ports/index.ts';

/**
 * Powertools' standard JSON record, with every message and attribute passed through {@link redactForLog} first:
 * whatever a use case logs (a normalisation warning quoting a registration field, an error message with a document
 * in it), no document leaves unmasked and no personal field leaves at all. The keys are Powertools' own.
 */
class MaskingLogFormatter extends LogFormatter {
  override formatAttributes(attributes: UnformattedAttributes, additional: LogAttributes): LogItem {
    const context = attributes.lambdaContext;
    const base: LogAttributes = {
      level: attributes.logLevel,
      message: redactForLog(attributes.message) as string,
      timestamp: this.formatTimestamp(attributes.timestamp),
      service: attributes.serviceName,
      cold_start: context?.coldStart,
      function_arn: context?.invokedFunctionArn,
      function_memory_size: context?.memoryLimitInMB,
      function_name: context?.functionName,
      function_request_id: context?.awsRequestId,
      sampling_rate: attributes.sampleRateValue,
      xray_trace_id: attributes.xRayTraceId,
    };
    return new LogItem({ attributes: base }).addAttributes(redactForLog(additional) as LogAttributes);
  }
}

/** Structured JSON logs in Lambda (Powertools), masked by construction ({@link MaskingLogFormatter}). */
export function createLambdaLogger(serviceName = 'credit-screen'): Logger {
  const logger = new PowertoolsLogger({ serviceName, logFormatter: new MaskingLogFormatter() });
  return {
    debug: (message, details) => logger.debug(message, details ?? {}),
    info: (message, details) => logger.info(message, details ?? {}),
    warn: (message, details) => logger.warn(message, details ?? {}),
    error: (message, details) => logger.error(message, details ?? {}),
  };
}

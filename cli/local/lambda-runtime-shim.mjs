// A stand-in for Lambda's Node.js runtime, run in its own process from the folder of a bundled function: it imports
// the handler named by _HANDLER once (the init phase) and then runs one invocation at a time sent by the parent over
// IPC, with a Lambda-like context. Only node: modules here, so the bundle resolves nothing but what it carries.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const describe = (error) =>
  error instanceof Error
    ? { name: error.name, message: error.message, stack: error.stack }
    : { name: 'Error', message: String(error) };

const [file, exportName] = (process.env._HANDLER ?? '').split('.');
const base = join(process.cwd(), file ?? '');
const path = ['.mjs', '.js', '.cjs']
  .map((extension) => base + extension)
  .find((candidate) => existsSync(candidate));
const initStarted = performance.now();
let handler;
try {
  if (path === undefined) throw new Error(`no ${file}.mjs, .js or .cjs in ${process.cwd()}`);
  handler = (await import(pathToFileURL(path).href))[exportName ?? ''];
  if (typeof handler !== 'function') throw new Error(`${path} exports no function ${exportName}`);
} catch (error) {
  process.send({ type: 'init-error', error: describe(error) }, () => process.exit(1));
}

if (handler !== undefined) {
  process.on('message', async (invocation) => {
    const functionName = process.env.AWS_LAMBDA_FUNCTION_NAME;
    const context = {
      functionName,
      functionVersion: '$LATEST',
      invokedFunctionArn: invocation.functionArn,
      memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
      awsRequestId: invocation.requestId,
      logGroupName: process.env.AWS_LAMBDA_LOG_GROUP_NAME,
      logStreamName: process.env.AWS_LAMBDA_LOG_STREAM_NAME,
      callbackWaitsForEmptyEventLoop: true,
      getRemainingTimeInMillis: () => Math.max(0, invocation.deadline - Date.now()),
    };
    try {
      const result = await handler(invocation.event, context);
      process.send({ type: 'result', id: invocation.id, result: result ?? null });
    } catch (error) {
      process.send({ type: 'error', id: invocation.id, error: describe(error) });
    }
  });
  process.send({ type: 'ready', initMs: performance.now() - initStarted });
}

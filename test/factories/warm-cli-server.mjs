// A credit-screen process that stays up between commands, for the tests (see warm-cli.ts). It loads the command line
// once, as bin/credit-screen.mjs does, then runs each command it is sent, one at a time: in the folder the test gave,
// its stdout and stderr captured, its exit code returned. Loading tsx and the command modules cost about 3 s of CPU
// on every start of the launcher, most of a short command's CPU. Its environment is the one it started with: what a
// module reads once (colours, whether Java is there) stays as it was read.
import { register } from 'tsx/esm/api';

// As the launcher does (bin/credit-screen.mjs): the AWS SDK's Node 20 warning is said once in the README.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
register();
const { main, COMMAND_MODULES } = await import('../../cli/main.ts');
await Promise.all(COMMAND_MODULES.map((module) => module.load()));

/** Captures what `stream` is given until the returned function is called, which restores it and returns the text. */
function capture(stream) {
  const write = stream.write;
  let text = '';
  stream.write = (chunk, encoding, callback) => {
    text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    const done = typeof encoding === 'function' ? encoding : callback;
    if (typeof done === 'function') process.nextTick(done);
    return true;
  };
  return () => {
    stream.write = write;
    return text;
  };
}

async function run({ args, cwd }) {
  const home = process.cwd();
  process.chdir(cwd);
  const stdout = capture(process.stdout);
  const stderr = capture(process.stderr);
  let code;
  try {
    code = await main([process.execPath, 'credit-screen', ...args]);
  } catch (error) {
    // What Node prints of an error nothing caught, and its exit code.
    process.stderr.write(`${error?.stack ?? String(error)}\n`);
    code = 1;
  }
  // What the command left to write in this turn of the event loop is still its output.
  await new Promise((resolve) => setImmediate(resolve));
  const result = { code, stdout: stdout(), stderr: stderr() };
  process.chdir(home);
  return result;
}

let queue = Promise.resolve();
process.on('message', (request) => {
  queue = queue.then(async () => process.send({ id: request.id, ...(await run(request)) }));
});
process.on('disconnect', () => process.exit(0));
process.send({ ready: true });

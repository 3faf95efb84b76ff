// A credit-screen process that stays up between commands, for the tests (see warm-cli.ts). It loads the command line
// once, as bin/credit-screen.mjs does, then runs each command it is sent, one at a time: in the folder the test gave,
// its stdout and stderr captured, its exit code returned. Loading tsx and the command modules cost about 3 s of CPU
// on every start of the launcher, most of a short command's CPU. Its environment is the one it started with: what a
// module reads once (colours, whether Java is there) stays as it was read.
import { StringDecoder } from 'node:string_decoder';
import { register } from 'tsx/esm/api';

// As the launcher does (bin/credit-screen.mjs): the AWS SDK's Node 20 warning is said once in the README.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
register();
const { main, COMMAND_MODULES } = await import('../../cli/main.ts');
await Promise.all(COMMAND_MODULES.map((module) => module.load()));

/** Captures what `stream` is given until the returned function is called, which restores it and returns the text. */
function capture(stream) {
  const write = stream.write;
  // One decoder for the whole command: a character split across two writes is still one character.
  const decoder = new StringDecoder('utf8');
  let text = '';
  stream.write = (chunk, encoding, callback) => {
    text +=
      typeof chunk === 'string'
        ? decoder.write(Buffer.from(chunk, typeof encoding === 'string' ? encoding : 'utf8'))
        : decoder.write(Buffer.from(chunk));
    const done = typeof encoding === 'function' ? encoding : callback;
    if (typeof done === 'function') process.nextTick(done);
    return true;
  };
  return () => {
    stream.write = write;
    return text + decoder.end();
  };
}

/** An error no one caught while a command ran: Node would print it and exit 1, so the command fails with it. */
let uncaught = null;
const keepUncaught = (error) => {
  uncaught ??= error;
};
process.on('unhandledRejection', keepUncaught);
process.on('uncaughtException', keepUncaught);

async function run({ args, cwd }) {
  const home = process.cwd();
  const stdout = capture(process.stdout);
  const stderr = capture(process.stderr);
  let code;
  try {
    process.chdir(cwd);
    code = await main([process.execPath, 'credit-screen', ...args]);
    // What the command left to write in this turn of the event loop is still its output.
    await new Promise((resolve) => setImmediate(resolve));
  } catch (error) {
    keepUncaught(error);
  } finally {
    process.chdir(home);
  }
  if (uncaught !== null) {
    // What Node prints of an error nothing caught, and its exit code.
    process.stderr.write(`${uncaught?.stack ?? String(uncaught)}\n`);
    code = 1;
  }
  return { code, stdout: stdout(), stderr: stderr() };
}

let queue = Promise.resolve();
process.on('message', (request) => {
  queue = queue.then(async () => {
    const result = await run(request);
    // After an uncaught error the process's state cannot be trusted: it retires, and the next command gets a new one.
    process.send({ id: request.id, ...result, retiring: uncaught !== null });
    if (uncaught !== null) process.disconnect();
  });
});
process.on('disconnect', () => process.exit(0));
process.send({ ready: true });

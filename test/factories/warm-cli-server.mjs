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
// Commands on a state folder leave its DynamoDB Local running for the next command on it (a Java start is about
// 2 CPU-seconds; most of the suite's were on a folder the command before had just left): see kept-dynamodb-local.ts.
const { keepDynamoDbLocalBetweenRuns, stopKeptDynamoDbLocals } = await import(
  '../../cli/local/kept-dynamodb-local.ts'
);
keepDynamoDbLocalBetweenRuns(true);

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
/** Whether a command is running, its result not yet sent. */
let running = false;
const keepUncaught = (error) => {
  if (running) {
    uncaught ??= error;
    return;
  }
  // Late work of a command already answered: blaming the next command would fail an unrelated test. It is said
  // here (the worker's output) and the process ends; the next command starts a new one.
  process.stderr.write(
    `warm credit-screen: uncaught after its command ended: ${error?.stack ?? String(error)}\n`,
  );
  process.exit(1);
};
process.on('unhandledRejection', keepUncaught);
process.on('uncaughtException', keepUncaught);

/** How many of each kind of resource keep this process alive (timers, sockets, servers, child processes). */
function aliveResources() {
  const counts = new Map();
  for (const kind of process.getActiveResourcesInfo()) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return counts;
}

/** What keeps the process alive now and did not before the command, as `Timeout ×2`; empty when nothing. */
function leftAlive(before) {
  return [...aliveResources()]
    .filter(([kind, count]) => count > (before.get(kind) ?? 0))
    .map(([kind, count]) => `${kind} ×${count - (before.get(kind) ?? 0)}`);
}

// A command's launcher lets Node exit on its own (process.exitCode), so what the command leaves running keeps a
// user's terminal waiting. What is closing as it returns (a socket, a child reaped) gets this long to go.
const LEFT_ALIVE_GRACE_MS = 2000;

/** Waits until the command has left nothing alive, or the grace is over; returns what is still alive then. */
async function settled(before) {
  const deadline = Date.now() + LEFT_ALIVE_GRACE_MS;
  for (;;) {
    const left = leftAlive(before);
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function run({ args, cwd }) {
  const before = aliveResources();
  const home = process.cwd();
  const stdout = capture(process.stdout);
  const stderr = capture(process.stderr);
  let code;
  try {
    process.chdir(cwd);
    code = await main([process.execPath, 'credit-screen', ...args]);
    // What the command left to write in this turn of the event loop is still its output.
    await new Promise((resolve) => setImmediate(resolve));
    const left = await settled(before);
    if (left.length > 0) {
      keepUncaught(
        new Error(`the command returned but left running: ${left.join(', ')} (its process would not exit)`),
      );
    }
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
    running = true;
    const result = await run(request);
    // After an uncaught error the process's state cannot be trusted: it retires, and the next command gets a new one.
    process.send({ id: request.id, ...result, retiring: uncaught !== null });
    running = false;
    if (uncaught !== null) process.disconnect();
  });
});
// The kept servers are stopped the ordinary way (their watchdogs would stop them too, with less grace).
process.on('disconnect', () => stopKeptDynamoDbLocals().finally(() => process.exit(0)));
process.send({ ready: true });

#!/usr/bin/env node
// Launcher of the credit-screen command line. The project is TypeScript run through tsx, so `npx credit-screen`
// works right after `npm install`, with no build step to remember.
import { register } from 'tsx/esm/api';

// The AWS SDK warns on every command under Node 20 that its 2027 releases will need Node 22: said once in the
// README, not on each run. Set the variable to "false" to see it again.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
register();
const { main } = await import('../tools/cli/main.ts');
process.exitCode = await main(process.argv);

#!/usr/bin/env node
// Launcher of the credit-screen command line. The project is TypeScript run through tsx, so `npx credit-screen`
// works right after `npm install`, with no build step to remember.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../cli/main.ts');
process.exitCode = await main(process.argv);

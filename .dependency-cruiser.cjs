// The import rules of docs/architecture.md, checked in `npm test` (`npm run architecture`). Each rule names the layer it
// protects; a violation prints the offending import and the rule's comment.
/** @type {import('dependency-cruiser').IConfiguration} */

const AWS_SDK = '^node_modules/(@aws-sdk|@smithy|@aws-lambda-powertools|aws-cdk-lib|constructs|cdk-nag)/';
const PRODUCTION = '^(src|service-client|lib|lambdas|cli|emulator|bin|web)/';
// Lambda's event types come from @types/aws-lambda, imported as `aws-lambda` (type-only, no such runtime package).
const LAMBDA_EVENT_TYPES = '^aws-lambda$';

/** A layer may import only its own folder and the folders listed. */
const onlyInto = (name, comment, from, allowed) => ({
  name,
  comment,
  severity: 'error',
  from: { path: from },
  to: {
    pathNot: [from, ...allowed, '^node_modules/', 'package\\.json$', LAMBDA_EVENT_TYPES],
    dependencyTypesNot: ['core'],
  },
});

module.exports = {
  forbidden: [
    onlyInto(
      'domain-is-innermost',
      'The domain holds pure rules: it imports nothing from the layers around it.',
      '^src/domain/',
      [],
    ),
    onlyInto(
      'contract-reads-only-the-domain',
      'The shared contract (settings, S3 layout, table keys, messages, manifest) may name domain types, nothing outward.',
      '^src/contract/',
      ['^src/domain/'],
    ),
    onlyInto(
      'application-reads-domain-and-contract',
      'Use cases reach the outside world through ports in src/domain/ports, never through an adapter or a client.',
      '^src/application/',
      ['^src/domain/', '^src/contract/'],
    ),
    onlyInto(
      'api-drives-the-use-cases',
      "The console's HTTP API (one for Node and Lambda) calls use cases with the contract's schemas; it names " +
        'its own ports (who is signed in) and never reaches an adapter, a composition root or a tool.',
      '^src/api/',
      ['^src/domain/', '^src/contract/', '^src/application/'],
    ),
    onlyInto(
      'web-reads-only-the-console-contract',
      "The console's pages run in a browser: they call the API by the contract's routes and read its types, " +
        'nothing of the pipeline itself.',
      '^web/',
      ['^src/contract/console-(routes|roles|schemas)\\.ts$'],
    ),
    onlyInto(
      'adapters-implement-ports',
      'Adapters implement domain ports; they never call a use case, a composition root or a tool.',
      '^src/adapters/',
      ['^src/domain/', '^src/contract/', '^service-client/'],
    ),
    onlyInto(
      'composition-wires-the-source',
      'A composition root wires use cases to adapters; it never reaches into tools or the construct.',
      '^lambdas/',
      ['^src/', '^service-client/'],
    ),
    onlyInto(
      'construct-reads-only-the-contract',
      'The CDK construct deploys what the contract describes; it imports no Lambda code, domain rule or SDK client, ' +
        'but the policy engine, with which it compiles the policies it ships so a broken one fails at synth.',
      '^lib/',
      ['^src/contract/', '^src/adapters/decision/zen-credit-policy\\.ts$'],
    ),
    onlyInto(
      'cli-drives-the-core',
      'The command line and its local runner run the core and the same composition roots as Lambda (lambdas/), ' +
        'against the emulator; they never import the construct (they read what it synthesized, in cdk.out).',
      '^cli/',
      ['^src/', '^lambdas/', '^emulator/', '^service-client/'],
    ),
    onlyInto(
      'cli-launcher-starts-the-cli',
      'The launcher only starts the command line.',
      '^bin/credit-screen\\.mjs$',
      ['^cli/main\\.ts$'],
    ),
    onlyInto('cdk-app-reads-the-construct', 'The CDK app only builds the stack.', '^bin/app\\.ts$', [
      '^lib/',
    ]),
    onlyInto(
      'service-client-stands-alone',
      'The published client is its own package: it depends on nothing of the pipeline.',
      '^service-client/',
      [],
    ),
    onlyInto(
      'emulator-shares-nothing',
      'The emulator keeps its own copies, so the emulator and the code it tests cannot share a bug.',
      '^emulator/',
      [],
    ),
    {
      name: 'no-sdk-in-the-core',
      comment: 'Domain and use cases are plain TypeScript: no AWS SDK, Powertools or CDK.',
      severity: 'error',
      from: { path: '^src/(domain|application|contract)/' },
      to: { path: AWS_SDK },
    },
    {
      name: 'no-test-code-in-production',
      comment: 'Test doubles and factories live under test/; production folders never import them.',
      severity: 'error',
      from: { path: PRODUCTION },
      to: { path: '^(test|bench)/' },
    },
    {
      name: 'lambda-code-never-imports-tools',
      comment: 'Lambda code is bundled and deployed; the CLI, local runner and emulator are not.',
      severity: 'error',
      from: { path: '^(src|lambdas|service-client)/' },
      to: { path: '^(cli|emulator)/' },
    },
    {
      name: 'no-cycles',
      comment: 'A cycle between modules makes their load order and their layering undefined.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-unresolvable-imports',
      comment: 'An import that resolves to nothing fails at run time.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true, pathNot: LAMBDA_EVENT_TYPES },
    },
    {
      name: 'declared-dependencies-only',
      comment:
        'Production code imports only packages listed in package.json dependencies (devDependencies are not installed in production).',
      severity: 'error',
      from: {
        path: '^(src|lambdas|service-client|cli|emulator|bin/credit-screen)',
        pathNot: '^bin/app\\.ts$',
      },
      to: { dependencyTypes: ['npm-dev', 'npm-no-pkg', 'npm-unknown'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // swc parses no JSX here: the pages' .tsx files are checked by test/web/web-imports.test.ts instead.
    exclude: { path: ['^(node_modules|cdk\\.out|test-output|web/dist)/', '\\.tsx$'] },
    // TypeScript 7 has no JavaScript API for dependency-cruiser to parse with; swc parses the sources instead.
    parser: 'swc',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.mjs', '.js', '.json'],
    },
  },
};

import { SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse } from 'aws-lambda';
import { BundledFunction } from '../../cli/local/bundled-function.ts';
import type { BundledFunctionDefinition, CloudAssembly } from '../../cli/local/cloud-assembly.ts';
import { LocalServices } from '../../cli/local/local-services.ts';
import { SqsEventSource } from '../../cli/local/sqs-event-source.ts';
import type { StrictModeOptions } from '../../cli/local/strict-aws-proxy.ts';
import { ServiceEmulator } from '../../emulator/service-emulator.ts';
import { DEFAULT_SETTINGS, type PipelineSettings, validateSettings } from '../../src/contract/index.ts';
import { FakeScheduler } from '../factories/fake-scheduler.ts';
import { sharedDynamoDb } from '../factories/shared-dynamodb.ts';
import { FakeAwsServices } from './fake-aws-services.ts';
import type { ServiceInvocation } from './iam-evaluation.ts';
import { RecordingProxy } from './recording-proxy.ts';
import { ACCOUNT, REGION, TemplateResolver } from './template-resolver.ts';

// The local services accept any signature; these keep the SDK from looking for real credentials. The access key is
// the local services' own: DynamoDB Local keeps one database per access key.
const CREDENTIALS = {
  AWS_ACCESS_KEY_ID: 'local',
  AWS_SECRET_ACCESS_KEY: 'local',
  AWS_SESSION_TOKEN: 'local',
};

/** A function of the stack, running from its bundle, with the endpoint that records its calls. */
export interface DeployedFunction {
  readonly definition: BundledFunctionDefinition;
  readonly process: BundledFunction;
  readonly proxy: RecordingProxy;
  /** The template's environment, resolved to the local resources (what the process runs with). */
  readonly environment: Readonly<Record<string, string>>;
}

/** An `AWS::Lambda::EventSourceMapping` of the template, driven by the local SQS event source. */
export interface DeployedEventSource {
  readonly functionLogicalId: string;
  readonly queueLogicalId: string;
  readonly source: SqsEventSource;
}

const env = (definition: BundledFunctionDefinition) =>
  ((definition.properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ??
    {}) as Record<string, unknown>;

const refOf = (value: unknown): string | undefined =>
  value !== null && typeof value === 'object' && 'Ref' in value ? String(value.Ref) : undefined;

const getAttOf = (value: unknown): string | undefined =>
  value !== null && typeof value === 'object' && 'Fn::GetAtt' in value
    ? String((value['Fn::GetAtt'] as string[])[0])
    : undefined;

/**
 * Which logical ids play the local services' resources, found the way the functions find them: the environment's
 * references (table, bucket, queues, secret) and the queues' redrive policies (their dead-letter queues).
 */
function localNames(assembly: CloudAssembly, stack: LocalServices): Map<string, string> {
  const names = new Map<string, string>();
  const { resources } = stack;
  const queueName = (url: string) => url.split('/').pop() ?? '';
  for (const definition of assembly.functions) {
    const variables = env(definition);
    const pairs: [unknown, string][] = [
      [variables.TABLE_NAME, resources.tableName],
      [variables.BUCKET_NAME, resources.bucketName],
      [variables.WORK_QUEUE_URL, queueName(resources.workQueueUrl)],
      [variables.FINALISE_QUEUE_URL, queueName(resources.finaliseQueueUrl)],
      [variables.DISPATCH_QUEUE_URL, queueName(resources.dispatchQueueUrl)],
    ];
    for (const [value, name] of pairs) {
      const logicalId = refOf(value);
      if (logicalId) names.set(logicalId, name);
    }
  }
  const deadLetterNames = new Map([
    [queueName(resources.workQueueUrl), queueName(resources.workDeadLetterQueueUrl)],
    [queueName(resources.finaliseQueueUrl), queueName(resources.finaliseDeadLetterQueueUrl)],
    [queueName(resources.dispatchQueueUrl), queueName(resources.dispatchDeadLetterQueueUrl)],
  ]);
  for (const [logicalId, name] of [...names]) {
    const redrive = assembly.template.Resources[logicalId]?.Properties?.RedrivePolicy as
      | { deadLetterTargetArn?: unknown }
      | undefined;
    const deadLetterId = getAttOf(redrive?.deadLetterTargetArn);
    const deadLetterName = deadLetterNames.get(name);
    if (deadLetterId && deadLetterName) names.set(deadLetterId, deadLetterName);
  }
  return names;
}

/** Settings the template gives the functions (every function carries the same PIPELINE_SETTINGS). */
function templateSettings(assembly: CloudAssembly): PipelineSettings {
  const [first] = assembly.functions;
  const json = first ? env(first).PIPELINE_SETTINGS : undefined;
  if (typeof json !== 'string') throw new Error('the template gives the functions no PIPELINE_SETTINGS');
  return validateSettings({ ...DEFAULT_SETTINGS, ...(JSON.parse(json) as Partial<PipelineSettings>) });
}

/**
 * The synthesized stack run offline: the local services (DynamoDB Local, fauxqs) with the template's settings, the
 * bureau emulator, fakes of Secrets Manager, EventBridge and Scheduler, and every bundled function in its own
 * processes behind its own recording endpoint, with the template's environment resolved to these resources.
 * The only values changed from the template are BUREAU_BASE_URL, which points at the emulator, and the settings a
 * test gives (see {@link DeployedStack.start}).
 */
export class DeployedStack {
  readonly functions = new Map<string, DeployedFunction>();
  readonly eventSources: DeployedEventSource[] = [];
  readonly output: string[] = [];

  private constructor(
    readonly assembly: CloudAssembly,
    readonly settings: PipelineSettings,
    readonly stack: LocalServices,
    readonly emulator: ServiceEmulator,
    readonly fakes: FakeAwsServices,
    readonly scheduler: FakeScheduler,
    readonly names: Map<string, string>,
    /** The settings a test gave, merged into every function's PIPELINE_SETTINGS. */
    readonly settingsGiven: Partial<PipelineSettings> = {},
  ) {}

  /**
   * With `strict`, the local services' strict endpoint sits behind every function's recording endpoint (recording
   * proxy → strict proxy → emulators), so the bundled functions meet DynamoDB's conflicts and AWS faults.
   */
  static async start(
    assembly: CloudAssembly,
    options: {
      emulatorRandom?: () => number;
      strict?: StrictModeOptions;
      /**
       * Settings as a deployment whose construct is given them: they reach the functions only in PIPELINE_SETTINGS
       * (test/lib/construct-props.test.ts), so they are merged into it, and the stack runs with them.
       */
      settings?: Partial<PipelineSettings>;
    } = {},
  ) {
    const settings = validateSettings({ ...templateSettings(assembly), ...options.settings });
    const emulator = await ServiceEmulator.start({ random: options.emulatorRandom });
    const fakes = await FakeAwsServices.start();
    const scheduler = await FakeScheduler.start();
    const stack = await LocalServices.start(settings, {
      strict: options.strict,
      sharedDynamoDb: sharedDynamoDb(),
    });
    const deployed = new DeployedStack(
      assembly,
      settings,
      stack,
      emulator,
      fakes,
      scheduler,
      localNames(assembly, stack),
      options.settings,
    );
    try {
      await deployed.#startFunctions();
      deployed.#createEventSources();
    } catch (error) {
      await deployed.stop();
      throw error;
    }
    return deployed;
  }

  /** A resolver of the template as a function behind `origin` sees it (queue URLs on its endpoint). */
  resolver(origin = 'https://sqs.us-east-1.amazonaws.com'): TemplateResolver {
    // fauxqs's URLs have a host WHATWG URL cannot parse (sqs.us-east-1.127.0.0.1:port): take the path as text.
    const queuePath = this.stack.resources.workQueueUrl
      .replace(/^https?:\/\/[^/]+/, '')
      .replace(/[^/]+$/, '');
    return new TemplateResolver(this.assembly.template, {
      byLogicalId: this.names,
      queueUrl: (name) => `${origin}${queuePath}${name}`,
    });
  }

  /** Invocations made as AWS services would (S3 notifications, Scheduler), for the IAM evaluation. */
  readonly serviceInvocations: ServiceInvocation[] = [];

  /** Invokes a function as `invoker` (a service principal, or the logical id of the role a service assumes). */
  async invokeAs(
    invoker: string,
    context: Readonly<Record<string, string>>,
    name: string,
    event: unknown,
  ): Promise<unknown> {
    const deployed = this.function(name);
    const functionArn = this.resolver().resolveString({
      'Fn::GetAtt': [deployed.definition.logicalId, 'Arn'],
    });
    this.serviceInvocations.push({ invoker, functionArn, context });
    return deployed.process.invoke(event);
  }

  /** Delivers a bucket notification to a function, as S3 invokes it. */
  notifyFromBucket(name: string, event: unknown): Promise<unknown> {
    const bucketArn = `arn:aws:s3:::${this.stack.resources.bucketName}`;
    return this.invokeAs(
      's3.amazonaws.com',
      { 'aws:SourceArn': bucketArn, 'aws:SourceAccount': ACCOUNT },
      name,
      event,
    );
  }

  /** The function whose logical id starts with `Pipeline<name>` (e.g. `Worker`). */
  function(name: string): DeployedFunction {
    for (const [logicalId, deployed] of this.functions)
      if (new RegExp(`^Pipeline${name}[0-9A-F]{8}$`).test(logicalId)) return deployed;
    throw new Error(`no bundled function ${name}`);
  }

  async #startFunctions(): Promise<void> {
    // In strict mode these are the strict endpoint's: the recording endpoints chain to it.
    const { endpoints } = this.stack;
    const queueOrigin = /^https?:\/\/[^/]+/.exec(this.stack.resources.workQueueUrl)?.[0] ?? '';
    for (const definition of this.assembly.functions) {
      const proxy = await RecordingProxy.start(
        definition.logicalId,
        {
          dynamodb: endpoints.dynamodb,
          s3: endpoints.s3AndSqs,
          sqs: endpoints.s3AndSqs,
          secretsmanager: this.fakes.url,
          events: this.fakes.url,
          scheduler: this.scheduler.url,
        },
        {
          upstreamQueueUrl: (url) => url.replace(/^https?:\/\/[^/]+/, queueOrigin),
        },
      );
      const resolver = this.resolver(proxy.url);
      const environment = Object.fromEntries(
        Object.entries(env(definition)).map(([name, value]) => [name, resolver.resolveString(value)]),
      );
      environment.BUREAU_BASE_URL = this.emulator.url;
      if (environment.PIPELINE_SETTINGS !== undefined)
        environment.PIPELINE_SETTINGS = JSON.stringify({
          ...(JSON.parse(environment.PIPELINE_SETTINGS) as object),
          ...this.settingsGiven,
        });
      const secretId = environment.BUREAU_TOKEN_SECRET_ID;
      if (secretId) this.fakes.secrets.set(secretId, JSON.stringify({ token: this.emulator.token }));
      // What Secrets Manager generates for the audit key when the stack is created (64 letters and digits).
      const auditKeyId = environment.AUDIT_KEY_SECRET_ID;
      if (auditKeyId) this.fakes.secrets.set(auditKeyId, 'deployed0audit0key0'.repeat(4));
      const functionProcess = new BundledFunction({
        assetDirectory: definition.assetDirectory,
        functionName: definition.logicalId,
        functionArn: resolver.resolveString({ 'Fn::GetAtt': [definition.logicalId, 'Arn'] }),
        handler: definition.handler,
        memorySize: definition.memorySize,
        timeoutSeconds: definition.timeoutSeconds,
        maxInstances: this.#concurrencyOf(definition.logicalId),
        environment: {
          ...environment,
          ...CREDENTIALS,
          AWS_REGION: REGION,
          AWS_DEFAULT_REGION: REGION,
          ...Object.fromEntries(
            ['DYNAMODB', 'S3', 'SQS', 'SECRETS_MANAGER', 'EVENTBRIDGE', 'SCHEDULER'].map((service) => [
              `AWS_ENDPOINT_URL_${service}`,
              proxy.url,
            ]),
          ),
        },
        onOutput: (line) => this.output.push(`${definition.logicalId}: ${line}`),
      });
      this.functions.set(definition.logicalId, { definition, process: functionProcess, proxy, environment });
    }
  }

  #mappings() {
    return Object.values(this.assembly.template.Resources)
      .filter((resource) => resource.Type === 'AWS::Lambda::EventSourceMapping')
      .map((resource) => resource.Properties ?? {});
  }

  /** Lambda runs as many instances as the event source's MaximumConcurrency; one otherwise (enough offline). */
  #concurrencyOf(functionLogicalId: string): number {
    const mapping = this.#mappings().find(
      (properties) => refOf(properties.FunctionName) === functionLogicalId,
    );
    return Number(
      (mapping?.ScalingConfig as { MaximumConcurrency?: number } | undefined)?.MaximumConcurrency ?? 1,
    );
  }

  #createEventSources(): void {
    for (const properties of this.#mappings()) {
      const functionLogicalId = refOf(properties.FunctionName);
      const queueLogicalId = getAttOf(properties.EventSourceArn);
      const deployed = functionLogicalId ? this.functions.get(functionLogicalId) : undefined;
      if (!deployed || !queueLogicalId)
        throw new Error(`an event source mapping of an unknown function or queue`);
      const queueUrl = this.resolver(deployed.proxy.url).resolveString({ Ref: queueLogicalId });
      if (!(properties.FunctionResponseTypes as string[] | undefined)?.includes('ReportBatchItemFailures'))
        throw new Error(`the event source of ${functionLogicalId} does not report batch item failures`);
      // Lambda polls with the function's role: its calls go through the function's endpoint and count as its own.
      const sqs = new SQSClient({
        endpoint: deployed.proxy.url,
        region: REGION,
        credentials: { accessKeyId: CREDENTIALS.AWS_ACCESS_KEY_ID, secretAccessKey: 'local' },
      });
      const source = new SqsEventSource({
        sqs,
        queueUrl,
        batchSize: Number(properties.BatchSize ?? 10),
        batchingWindowSeconds: Number(properties.MaximumBatchingWindowInSeconds ?? 0),
        maxConcurrency: this.#concurrencyOf(functionLogicalId ?? ''),
        functionTimeoutSeconds: deployed.definition.timeoutSeconds,
        handler: async (event) => (await deployed.process.invoke(event)) as SQSBatchResponse | undefined,
        onInvocationError: (error) =>
          this.output.push(`${functionLogicalId}: invocation failed: ${String(error)}`),
      });
      this.eventSources.push({ functionLogicalId: functionLogicalId ?? '', queueLogicalId, source });
    }
  }

  /** Starts polling the queues of the given functions (all by default), as their event source mappings do. */
  startEventSources(...functionNames: string[]): void {
    for (const { functionLogicalId, source } of this.eventSources) {
      const wanted =
        functionNames.length === 0 ||
        functionNames.some((name) => new RegExp(`^Pipeline${name}[0-9A-F]{8}$`).test(functionLogicalId));
      if (wanted) source.start();
    }
  }

  /** Stops polling the queues of the given functions, as a disabled event source mapping does. */
  async stopEventSources(...functionNames: string[]): Promise<void> {
    const named = ({ functionLogicalId }: { functionLogicalId: string }) =>
      functionNames.some((name) => new RegExp(`^Pipeline${name}[0-9A-F]{8}$`).test(functionLogicalId));
    await Promise.all(this.eventSources.filter(named).map(({ source }) => source.stop()));
  }

  async stop(): Promise<void> {
    await Promise.all(this.eventSources.map(({ source }) => source.stop()));
    await Promise.all([...this.functions.values()].map(({ process }) => process.stop()));
    await Promise.all([...this.functions.values()].map(({ proxy }) => proxy.close()));
    await this.stack.stop();
    await Promise.all([this.emulator.close(), this.fakes.close(), this.scheduler.close()]);
  }
}

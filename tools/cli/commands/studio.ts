import { writeFile } from 'node:fs/promises';
import { type Command, InvalidArgumentError, Option } from 'commander';
import yoctoSpinner from 'yocto-spinner';
import {
  ARTIFACT_TYPES,
  type ArtifactType,
  GENERATION_OPERATIONS,
  type GenerationOperation,
  type JsonObject,
  type ServiceClient,
  type ServiceReply,
} from '../../../service-client/index.ts';
import { CliError } from '../cli-error.ts';
import { nonNegativeNumber } from '../option-parsers.ts';
import {
  asServiceCliError,
  type ConnectionOptions,
  connect,
  printReply,
  withConnectionOptions,
} from '../service-connection.ts';

type Action = (client: ServiceClient, options: ConnectionOptions) => Promise<ServiceReply | undefined>;

/** Runs one studio operation: connect, call, print; service and validation errors become one line. */
function run(command: Command, action: Action): Promise<void> {
  const options = command.optsWithGlobals<ConnectionOptions>();
  return (async () => {
    try {
      const reply = await action(connect(options), options);
      if (reply !== undefined) printReply(reply, options);
    } catch (error) {
      throw asServiceCliError(error);
    }
  })();
}

function jsonObject(value: string): JsonObject {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new InvalidArgumentError('must be a JSON object, e.g. \'{"theme":"dark"}\'');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new InvalidArgumentError('must be a JSON object');
  return parsed as JsonObject;
}

function version(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a whole number');
  return Number(value);
}

interface ProjectFields {
  readonly type?: ArtifactType;
  readonly name?: string;
  readonly description?: string;
  readonly options?: JsonObject;
}

function projectBody(fields: ProjectFields): JsonObject {
  return {
    ...(fields.type === undefined ? {} : { artifact_type: fields.type }),
    ...(fields.name === undefined ? {} : { name: fields.name }),
    ...(fields.description === undefined ? {} : { description: fields.description }),
    ...(fields.options === undefined ? {} : { options: fields.options }),
  };
}

interface GenerateOptions {
  readonly prompt: string;
  readonly operation?: GenerationOperation;
  readonly wait: boolean;
  readonly waitTimeout: number;
}

/** Starts a generation and, unless `--no-wait`, follows its job with a spinner; Ctrl-C cancels the job. */
async function generate(
  client: ServiceClient,
  projectId: string,
  generateOptions: GenerateOptions,
): Promise<ServiceReply | undefined> {
  const request = {
    prompt: generateOptions.prompt,
    ...(generateOptions.operation ? { operation: generateOptions.operation } : {}),
  };
  if (!generateOptions.wait) return client.studio.generate(projectId, request);

  const controller = new AbortController();
  const interrupt = () =>
    controller.abort(new CliError('interrupted; the generation job was cancelled', 130));
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  // The spinner must not exit the process on Ctrl-C itself: the job has to be cancelled first.
  const spinner = yoctoSpinner({
    text: 'starting generation',
    stream: process.stderr,
    handleSignals: false,
  }).start();
  const started = Date.now();
  try {
    const { job } = await client.studio.generateAndWait(projectId, request, {
      signal: controller.signal,
      timeoutMs: generateOptions.waitTimeout * 1000,
      onPoll: (snapshot) => {
        // Without a terminal each change of text is a new line, so only state changes are shown there.
        const text = `job ${snapshot.id}: ${snapshot.state ?? 'pending'}`;
        if (!process.stderr.isTTY && spinner.text.startsWith(text)) return;
        spinner.text = `${text} (${((Date.now() - started) / 1000).toFixed(1)} s)`;
      },
    });
    spinner.success(
      `job ${job.id}: ${job.state ?? 'done'} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    return { httpStatus: 200, body: job.body };
  } catch (error) {
    spinner.error(error instanceof Error ? error.message : String(error));
    throw error;
  } finally {
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', interrupt);
  }
}

export function registerStudioCommand(program: Command): void {
  const studio = withConnectionOptions(
    program.command('studio').description('AI Studio: projects, generation, versions and export'),
  );
  const typeOption = new Option('--type <artifact_type>', 'artifact type').choices(ARTIFACT_TYPES);
  const optionsOption = new Option('--options <json>', 'free-form options, as a JSON object').argParser(
    jsonObject,
  );

  studio
    .command('catalog')
    .description('Show the AI Studio catalogue')
    .action((_options, command: Command) => run(command, (client) => client.studio.catalog()));

  const projects = studio.command('projects').description('List, create, show, update and delete projects');
  projects
    .command('list')
    .action((_options, command: Command) => run(command, (client) => client.studio.listProjects()));
  projects
    .command('create')
    .addOption(typeOption.makeOptionMandatory())
    .option('--name <name>', 'at most 160 characters')
    .option('--description <text>', 'at most 3000 characters')
    .addOption(optionsOption)
    .action((fields: ProjectFields & { type: ArtifactType }, command: Command) =>
      run(command, (client) =>
        client.studio.createProject({ ...projectBody(fields), artifact_type: fields.type }),
      ),
    );
  projects
    .command('show <id>')
    .action((id: string, _options, command: Command) =>
      run(command, (client) => client.studio.getProject(id)),
    );
  projects
    .command('update <id>')
    .option('--name <name>', 'at most 160 characters')
    .option('--description <text>', 'at most 3000 characters')
    .addOption(optionsOption)
    .action((id: string, fields: ProjectFields, command: Command) =>
      run(command, (client) => client.studio.updateProject(id, projectBody(fields))),
    );
  projects
    .command('delete <id>')
    .action((id: string, _options, command: Command) =>
      run(command, (client) => client.studio.deleteProject(id)),
    );

  studio
    .command('generate <projectId>')
    .description('Generate content; follows the job with a spinner unless --no-wait (Ctrl-C cancels the job)')
    .requiredOption('--prompt <text>', 'what to generate')
    .addOption(new Option('--operation <operation>', 'create or update').choices(GENERATION_OPERATIONS))
    .option('--no-wait', 'print the accepted job and return at once')
    .option(
      '--wait-timeout <seconds>',
      'stop waiting after this long',
      nonNegativeNumber('--wait-timeout'),
      600,
    )
    .action((projectId: string, generateOptions: GenerateOptions, command: Command) =>
      run(command, (client) => generate(client, projectId, generateOptions)),
    );

  const messages = studio.command('messages').description("A project's change requests");
  messages
    .command('list <projectId>')
    .action((id: string, _options, command: Command) =>
      run(command, (client) => client.studio.listMessages(id)),
    );
  messages
    .command('post <projectId>')
    .option('--content <text>', 'the message')
    .option('--prompt <text>', 'a prompt for the change')
    .addOption(optionsOption)
    .action(
      (id: string, fields: { content?: string; prompt?: string; options?: JsonObject }, command: Command) =>
        run(command, (client) => client.studio.postMessage(id, fields)),
    );

  const versions = studio.command('versions').description("A project's versions");
  versions
    .command('list <projectId>')
    .action((id: string, _options, command: Command) =>
      run(command, (client) => client.studio.listVersions(id)),
    );
  versions
    .command('show')
    .argument('<projectId>')
    .argument('<version>', 'version number', version)
    .action((id: string, number: number, _options, command: Command) =>
      run(command, (client) => client.studio.getVersion(id, number)),
    );
  studio
    .command('restore')
    .description('Restore a version: its content becomes the newest version')
    .argument('<projectId>')
    .argument('<version>', 'version number', version)
    .action((id: string, number: number, _options, command: Command) =>
      run(command, (client) => client.studio.restoreVersion(id, number)),
    );
  studio
    .command('export')
    .description('Export a version (to a file with --out)')
    .argument('<projectId>')
    .argument('<version>', 'version number', version)
    .option('--out <file>', 'write the export to this file instead of printing it')
    .action((id: string, number: number, exportOptions: { out?: string }, command: Command) =>
      run(command, async (client) => {
        const reply = await client.studio.exportVersion(id, number);
        if (exportOptions.out === undefined) return reply;
        await writeFile(exportOptions.out, `${JSON.stringify(reply.body, null, 2)}\n`);
        process.stderr.write(`exported version ${number} of ${id} to ${exportOptions.out}\n`);
        return undefined;
      }),
    );

  const jobs = studio.command('jobs').description('Generation jobs');
  jobs
    .command('show <jobId>')
    .action((id: string, _options, command: Command) => run(command, (client) => client.studio.getJob(id)));
  jobs
    .command('cancel <jobId>')
    .action((id: string, _options, command: Command) =>
      run(command, (client) => client.studio.cancelJob(id)),
    );
}

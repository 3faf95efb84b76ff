import { type Command, InvalidArgumentError } from 'commander';
import yoctoSpinner from 'yocto-spinner';
import type { JsonObject, ServiceClient, ServiceReply } from '../../service-client/index.ts';
import { abortOnInterrupt } from '../interruption.ts';
import { checkNamedFile, type NamedFile, writeNamedFile } from '../named-file.ts';
import { addTableAction } from '../option-parsers.ts';
import type { CommandOptions } from '../option-types.ts';
import {
  asServiceCliError,
  type ConnectionOptions,
  connect,
  printReply,
  withConnectionOptions,
} from '../service-connection.ts';
import { printable } from '../terminal-text.ts';

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

function version(value: string): number {
  if (!(/^\d+$/.test(value) && Number.isSafeInteger(Number(value))))
    throw new InvalidArgumentError('must be a whole number');
  return Number(value);
}

/** A project's fields as `projects create` and `projects update` take them (`--type` for a creation only). */
type ProjectFields = Partial<CommandOptions<'studio projects create'>>;

function projectBody(fields: ProjectFields): JsonObject {
  return {
    ...(fields.type === undefined ? {} : { artifact_type: fields.type }),
    ...(fields.name === undefined ? {} : { name: fields.name }),
    ...(fields.description === undefined ? {} : { description: fields.description }),
    ...(fields.options === undefined ? {} : { options: fields.options }),
  };
}

/** Starts a generation and, unless `--no-wait`, follows its job with a spinner; Ctrl-C cancels the job. */
async function generate(
  client: ServiceClient,
  projectId: string,
  generateOptions: CommandOptions<'studio generate'>,
): Promise<ServiceReply | undefined> {
  const request = {
    prompt: generateOptions.prompt,
    ...(generateOptions.operation ? { operation: generateOptions.operation } : {}),
  };
  if (!generateOptions.wait) return client.studio.generate(projectId, request);

  const interruption = abortOnInterrupt('interrupted; the generation job was cancelled', [
    'SIGINT',
    'SIGTERM',
  ]);
  // The spinner must not exit the process on Ctrl-C itself: the job has to be cancelled first.
  const spinner = yoctoSpinner({
    text: 'starting generation',
    stream: process.stderr,
    handleSignals: false,
  }).start();
  const started = Date.now();
  try {
    const { job } = await client.studio.generateAndWait(projectId, request, {
      signal: interruption.signal,
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
    // The error is the command's one line (main.ts): the spinner goes without a line of its own.
    spinner.stop();
    throw error;
  } finally {
    interruption.release();
  }
}

/** `studio projects list|create|show|update|delete`. */
function registerProjectCommands(studio: Command): void {
  const projects = studio.command('projects').description('List, create, show, update and delete projects');
  projects
    .command('list')
    .action((_options, command: Command) => run(command, (client) => client.studio.listProjects()));
  addTableAction(projects.command('create'), 'studio projects create', (fields, command: Command) =>
    run(command, (client) =>
      client.studio.createProject({ ...projectBody(fields), artifact_type: fields.type }),
    ),
  );
  projects
    .command('show <id>')
    .action((id: string, _options, command: Command) =>
      run(command, (client) => client.studio.getProject(id)),
    );
  addTableAction(
    projects.command('update <id>'),
    'studio projects update',
    (fields, id: string, command: Command) =>
      run(command, (client) => client.studio.updateProject(id, projectBody(fields))),
  );
  projects
    .command('delete <id>')
    .action((id: string, _options, command: Command) =>
      run(command, (client) => client.studio.deleteProject(id)),
    );
}

/** `studio generate <projectId>`: starts a generation and follows its job. */
function registerGenerateCommand(studio: Command): void {
  addTableAction(
    studio
      .command('generate <projectId>')
      .description(
        'Generate content; follows the job with a spinner unless --no-wait (Ctrl-C cancels the job)',
      ),
    'studio generate',
    (generateOptions, projectId: string, command: Command) =>
      run(command, (client) => generate(client, projectId, generateOptions)),
  );
}

/** `studio messages list|post`: a project's change requests. */
function registerMessageCommands(studio: Command): void {
  const messages = studio.command('messages').description("A project's change requests");
  messages
    .command('list <projectId>')
    .action((id: string, _options, command: Command) =>
      run(command, (client) => client.studio.listMessages(id)),
    );
  addTableAction(
    messages.command('post <projectId>'),
    'studio messages post',
    (fields, id: string, command: Command) => run(command, (client) => client.studio.postMessage(id, fields)),
  );
}

/** Writes an export to the `--out` file instead of printing it (see {@link writeNamedFile}). */
async function exportToFile(
  reply: ServiceReply,
  file: NamedFile,
  id: string,
  number: number,
): Promise<undefined> {
  await writeNamedFile(file, `${JSON.stringify(reply.body, null, 2)}\n`);
  process.stderr.write(`exported version ${number} of ${id} to ${printable(file.path)}\n`);
  return undefined;
}

/** `studio versions list|show`, `studio restore` and `studio export`: a project's versions. */
function registerVersionCommands(studio: Command): void {
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
  addTableAction(
    studio
      .command('export')
      .description('Export a version (to a file with --out)')
      .argument('<projectId>')
      .argument('<version>', 'version number', version),
    'studio export',
    async (exportOptions, id: string, number: number, command: Command) => {
      const { out, force = false } = exportOptions;
      const file = out === undefined ? null : { option: '--out', path: out, force };
      if (file !== null) await checkNamedFile(file);
      return run(command, async (client) => {
        const reply = await client.studio.exportVersion(id, number);
        if (file === null) return reply;
        return exportToFile(reply, file, id, number);
      });
    },
  );
}

/** `studio jobs show|cancel`: generation jobs. */
function registerJobCommands(studio: Command): void {
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

/** Registers `studio` and its subcommands: catalogue, projects, generation, messages, versions and jobs. */
export function registerStudioCommand(program: Command): void {
  const studio = withConnectionOptions(
    program.command('studio').description('AI Studio: projects, generation, versions and export'),
  );
  studio
    .command('catalog')
    .description('Show the AI Studio catalogue')
    .action((_options, command: Command) => run(command, (client) => client.studio.catalog()));
  registerProjectCommands(studio);
  registerGenerateCommand(studio);
  registerMessageCommands(studio);
  registerVersionCommands(studio);
  registerJobCommands(studio);
}

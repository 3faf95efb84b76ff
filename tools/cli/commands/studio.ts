import { open, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import yoctoSpinner from 'yocto-spinner';
import type {
  ArtifactType,
  GenerationOperation,
  JsonObject,
  ServiceClient,
  ServiceReply,
} from '../../../service-client/index.ts';
import { fileErrorReason, PRIVATE_FILE_MODE, writePrivateFile } from '../../local/private-files.ts';
import { CliError } from '../cli-error.ts';
import { abortOnInterrupt } from '../interruption.ts';
import { addTableOptions } from '../option-parsers.ts';
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
  addTableOptions(projects.command('create'), 'studio projects create').action(
    (fields: ProjectFields & { type: ArtifactType }, command: Command) =>
      run(command, (client) =>
        client.studio.createProject({ ...projectBody(fields), artifact_type: fields.type }),
      ),
  );
  projects
    .command('show <id>')
    .action((id: string, _options, command: Command) =>
      run(command, (client) => client.studio.getProject(id)),
    );
  addTableOptions(projects.command('update <id>'), 'studio projects update').action(
    (id: string, fields: ProjectFields, command: Command) =>
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
  addTableOptions(
    studio
      .command('generate <projectId>')
      .description(
        'Generate content; follows the job with a spinner unless --no-wait (Ctrl-C cancels the job)',
      ),
    'studio generate',
  ).action((projectId: string, generateOptions: GenerateOptions, command: Command) =>
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
  addTableOptions(messages.command('post <projectId>'), 'studio messages post').action(
    (id: string, fields: { content?: string; prompt?: string; options?: JsonObject }, command: Command) =>
      run(command, (client) => client.studio.postMessage(id, fields)),
  );
}

interface ExportOptions {
  readonly out?: string;
  /** Replace `out` when it exists. */
  readonly force?: boolean;
}

/** Why an export cannot be written to `file`, said before anything is asked of the service. */
async function checkExportFile(file: string, force: boolean): Promise<void> {
  const where = `--out ${printable(file)}`;
  const info = await stat(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw new CliError(`${where}: ${fileErrorReason(error)}`);
  });
  if (info?.isDirectory()) throw new CliError(`${where}: is a folder; name the file to write`);
  if (info !== null && !info.isFile()) throw new CliError(`${where}: not a regular file`);
  if (info !== null && !force) throw new CliError(`${where}: already exists (--force replaces it)`);
  const folder = await stat(dirname(resolve(file))).catch(() => null);
  if (!folder?.isDirectory()) throw new CliError(`${where}: no such folder ${printable(dirname(file))}`);
}

/**
 * Writes an export to `file` instead of printing it, readable by its owner only: a new file, or with `force` an
 * existing one replaced (and made private).
 */
async function exportToFile(
  reply: ServiceReply,
  file: string,
  id: string,
  number: number,
  force: boolean,
): Promise<undefined> {
  const text = `${JSON.stringify(reply.body, null, 2)}\n`;
  try {
    if (force) await writePrivateFile(file, text);
    else {
      // `wx`: a file that appeared since the check is not replaced either.
      const handle = await open(file, 'wx', PRIVATE_FILE_MODE);
      try {
        await handle.chmod(PRIVATE_FILE_MODE);
        await handle.writeFile(text);
      } finally {
        await handle.close();
      }
    }
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === 'EEXIST'
        ? 'already exists (--force replaces it)'
        : fileErrorReason(error);
    throw new CliError(`--out ${printable(file)}: ${reason}`);
  }
  process.stderr.write(`exported version ${number} of ${id} to ${printable(file)}\n`);
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
  addTableOptions(
    studio
      .command('export')
      .description('Export a version (to a file with --out)')
      .argument('<projectId>')
      .argument('<version>', 'version number', version),
    'studio export',
  ).action(async (id: string, number: number, exportOptions: ExportOptions, command: Command) => {
    const { out, force = false } = exportOptions;
    if (out !== undefined) await checkExportFile(out, force);
    return run(command, async (client) => {
      const reply = await client.studio.exportVersion(id, number);
      if (out === undefined) return reply;
      return exportToFile(reply, out, id, number, force);
    });
  });
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

import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A CloudFormation resource as `cdk synth` writes it. */
export interface TemplateResource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
  readonly Metadata?: Record<string, unknown>;
}

export interface Template {
  readonly Resources: Record<string, TemplateResource>;
}

/** A function of the template whose code is a bundle in `cdk.out`. */
export interface BundledFunctionDefinition {
  readonly logicalId: string;
  /** Folder of the bundle (`cdk.out/asset.<hash>`). */
  readonly assetDirectory: string;
  readonly handler: string;
  readonly memorySize: number;
  readonly timeoutSeconds: number;
  readonly properties: Record<string, unknown>;
}

class CloudAssemblyError extends Error {
  override readonly name = 'CloudAssemblyError';
}

/** The synthesized stack: its template and the functions bundled from this project (CDK's own have no asset). */
export interface CloudAssembly {
  readonly directory: string;
  readonly template: Template;
  readonly functions: readonly BundledFunctionDefinition[];
}

/** Reads the one stack of a `cdk.out` folder (what `npm run synth` writes). */
export function readCloudAssembly(directory: string, stackName = 'CreditScreen'): CloudAssembly {
  let template: Template;
  try {
    template = JSON.parse(readFileSync(join(directory, `${stackName}.template.json`), 'utf8')) as Template;
  } catch (error) {
    throw new CloudAssemblyError(
      `no synthesized template in ${directory} (run npm run synth): ${(error as Error).message}`,
    );
  }
  const functions: BundledFunctionDefinition[] = [];
  for (const [logicalId, resource] of Object.entries(template.Resources)) {
    const asset = resource.Metadata?.['aws:asset:path'];
    if (resource.Type !== 'AWS::Lambda::Function' || typeof asset !== 'string') continue;
    const properties = resource.Properties ?? {};
    functions.push({
      logicalId,
      assetDirectory: join(directory, asset),
      handler: String(properties.Handler ?? 'index.handler'),
      // CloudFormation's defaults when the template leaves them out.
      memorySize: Number(properties.MemorySize ?? 128),
      timeoutSeconds: Number(properties.Timeout ?? 3),
      properties,
    });
  }
  return { directory, template, functions };
}

/**
 * What the emulated AI Studio accepts in request bodies, written from the service interface and kept apart from
 * the client's own rules, so that a rule both get wrong the same way cannot pass unseen. Bodies accept extra
 * properties, so the schemas are loose.
 */
import { z } from 'zod';

/** The artifact kinds a project can be created for. */
export const ARTIFACT_TYPES = [
  'website',
  'image',
  'chart',
  'spreadsheet',
  'slides',
  'workflow',
  'audio',
  'carousel',
  'document',
  'auto',
] as const;

/** A text of at most `limit` characters, counted as JSON Schema's maxLength counts them: code points. */
const textOfAtMost = (limit: number) =>
  z.string().refine((text) => [...text].length <= limit, { message: `must be at most ${limit} characters` });

const projectName = textOfAtMost(160);
const projectDescription = textOfAtMost(3000);
const options = z.record(z.string(), z.unknown());

export const createProjectRequest = z.looseObject({
  artifact_type: z.enum(ARTIFACT_TYPES),
  name: projectName.optional(),
  description: projectDescription.optional(),
  options: options.optional(),
});

export const updateProjectRequest = z.looseObject({
  // Not an update field; one sent anyway must still name a known kind, or the project would hold an unknown one.
  artifact_type: z.enum(ARTIFACT_TYPES).optional(),
  name: projectName.optional(),
  description: projectDescription.optional(),
  options: options.optional(),
});

export const generateRequest = z.looseObject({
  // ASSUMPTION: the interface only says the prompt is required; a blank one is refused as if missing.
  prompt: z.string().refine((text) => text.trim() !== '', { message: 'must not be blank' }),
  operation: z.enum(['create', 'update']).optional(),
  options: options.optional(),
});

export const projectMessageRequest = z.looseObject({
  content: z.string().optional(),
  prompt: z.string().optional(),
  options: options.optional(),
});

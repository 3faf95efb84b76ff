import { z } from 'zod';

/**
 * What the specification fixes about AI Studio requests, shared by the client (which refuses a bad request
 * before sending it) and the emulator (which enforces the same limits server-side).
 */

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
export type ArtifactType = (typeof ARTIFACT_TYPES)[number];

export const GENERATION_OPERATIONS = ['create', 'update'] as const;
export type GenerationOperation = (typeof GENERATION_OPERATIONS)[number];

export const MAX_PROJECT_NAME_CHARACTERS = 160;
export const MAX_PROJECT_DESCRIPTION_CHARACTERS = 3000;

/** Length in characters (code points), as JSON Schema's maxLength counts, not UTF-16 units. */
function characterCount(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

const atMost = (limit: number) =>
  z
    .string()
    .refine((text) => characterCount(text) <= limit, { message: `must be at most ${limit} characters` });

const freeForm = z.record(z.string(), z.unknown());

// Project bodies accept extra properties, so the schemas are loose: unknown fields pass through untouched.
export const createProjectSchema = z.looseObject({
  artifact_type: z.enum(ARTIFACT_TYPES),
  name: atMost(MAX_PROJECT_NAME_CHARACTERS).optional(),
  description: atMost(MAX_PROJECT_DESCRIPTION_CHARACTERS).optional(),
  options: freeForm.optional(),
});

export const updateProjectSchema = z.looseObject({
  // Not part of the update body, but if a caller sends it anyway it must still be one of the ten kinds.
  artifact_type: z.enum(ARTIFACT_TYPES).optional(),
  name: atMost(MAX_PROJECT_NAME_CHARACTERS).optional(),
  description: atMost(MAX_PROJECT_DESCRIPTION_CHARACTERS).optional(),
  options: freeForm.optional(),
});

export const generateSchema = z.looseObject({
  // Required; a blank prompt is refused too, since it would start a generation that can only waste credits.
  prompt: z.string().refine((text) => text.trim() !== '', { message: 'must not be blank' }),
  operation: z.enum(GENERATION_OPERATIONS).optional(),
  options: freeForm.optional(),
});

export const projectMessageSchema = z.looseObject({
  content: z.string().optional(),
  prompt: z.string().optional(),
  options: freeForm.optional(),
});

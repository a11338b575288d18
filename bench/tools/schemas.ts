/**
 * The zod schemas of the catalogue's tools and questions, made once at module
 * scope (as a user would write them) and shared by every server that takes
 * zod: the Tessera and the official SDK servers validate exactly the same
 * shapes.
 */

import * as z from 'zod';
import { FILLER_LIMIT_DESCRIPTION, FILLER_QUERY_DESCRIPTION } from './catalog.js';

export const EchoInput = z.object({ text: z.string() });
export const ConfirmInput = z.object({ item: z.string() });
export const ApproveAnswer = z.object({ approve: z.boolean() });
export const WizardInput = z.object({ order: z.string() });
export const NameAnswer = z.object({ name: z.string() });
export const ColorAnswer = z.object({ color: z.string() });
export const FillerInput = z.object({
  query: z.string().describe(FILLER_QUERY_DESCRIPTION),
  limit: z.number().int().optional().describe(FILLER_LIMIT_DESCRIPTION),
});
/** The large-payload tool's input (payloads.ts). */
export const LengthInput = z.object({ data: z.string() });
/** The task tool's input (tasks.ts). */
export const TaskInput = z.object({ job: z.string() });

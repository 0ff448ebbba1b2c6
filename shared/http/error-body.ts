import * as z from 'zod';
import { Detail } from './errors';

/**
 * The spec's error body, `{"detail": "<string>"}`, as a route declares a refusal of its own: one
 * schema for every function (the document shows it as `#/components/schemas/ErrorBody`).
 */
export const ErrorBody = z.object({ detail: z.string() });

/** A declared refusal: when it happens, and the exact string it answers. */
export const errorResponse = (description: string, detail: string) => ({
  description,
  schema: ErrorBody,
  example: { detail },
});

/** The declared 404 of a route that reads one `resource` by id (`Contact not found`). */
export const unknownIdResponse = (
  resource: string,
  description = "No such id in this tenant (unknown, deleted, or another tenant's)",
) => errorResponse(description, Detail.resourceNotFound(resource));

import type { ZodType } from 'zod';

/**
 * How each function describes its routes for the OpenAPI document: `functions/<name>/openapi.ts`
 * exports `routes: RouteDoc[]` built from the SAME zod schemas its handlers validate with.
 * The generator adds security, required scopes (from the scope table) and the standard
 * 401/403/422 errors, so a RouteDoc only states what is particular to the route.
 */
export interface RouteDoc {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** OpenAPI style: `/api/v1/tickets/{ticket_id}` (the Hono route is `/api/v1/tickets/:ticket_id`) */
  path: string;
  summary: string;
  description?: string;
  tags: string[];
  params?: ZodType;
  query?: ZodType;
  body?: ZodType;
  /** success (and route-specific error) responses by status */
  responses: Record<number, { description: string; schema?: ZodType; example?: unknown }>;
}

export const defineRoutes = (routes: RouteDoc[]): RouteDoc[] => routes;

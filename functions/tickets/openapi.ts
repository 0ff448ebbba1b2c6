import { z } from 'zod';
import { defineRoutes } from '../../shared/http/openapi';
import {
  CreateReplyBody,
  CreateTicketBody,
  ListRepliesQuery,
  ListTicketsQuery,
  ReplyList,
  Ticket,
  TicketIdParam,
  TicketList,
  TicketReply,
  UpdateTicketBody,
} from './schemas';

const Detail = z.object({ detail: z.string() });
const notFound = {
  description: 'Unknown ticket, or a ticket of another tenant',
  schema: Detail,
  example: { detail: 'Ticket not found' },
};

export const routes = defineRoutes([
  {
    method: 'get',
    path: '/api/v1/tickets',
    summary: 'List tickets',
    description:
      'Newest first (created_at, then id) unless sort=updated_at (oldest change first, then id: for incremental mirroring with updated_since, which is inclusive). status, priority and type take one value or a comma list. created_after is inclusive, created_before exclusive.',
    tags: ['Tickets'],
    query: ListTicketsQuery,
    responses: { 200: { description: 'A page of tickets', schema: TicketList } },
  },
  {
    method: 'post',
    path: '/api/v1/tickets',
    summary: 'Create a ticket',
    description: 'Emits ticket.created. Initial status new (default), open, pending or on_hold.',
    tags: ['Tickets'],
    body: CreateTicketBody,
    responses: { 201: { description: 'The created ticket', schema: Ticket } },
  },
  {
    method: 'get',
    path: '/api/v1/tickets/{ticket_id}',
    summary: 'Get a ticket',
    tags: ['Tickets'],
    params: TicketIdParam,
    responses: { 200: { description: 'The ticket', schema: Ticket }, 404: notFound },
  },
  {
    method: 'patch',
    path: '/api/v1/tickets/{ticket_id}',
    summary: 'Update a ticket',
    description:
      'Emits ticket.updated with {field: {from, to}} changes, plus ticket.resolved when the status crosses into resolved/closed. A PATCH that changes nothing emits nothing. Status moves follow the transition table (409 otherwise).',
    tags: ['Tickets'],
    params: TicketIdParam,
    body: UpdateTicketBody,
    responses: {
      200: { description: 'The updated ticket', schema: Ticket },
      404: notFound,
      409: {
        description: 'Status transition not allowed',
        schema: Detail,
        example: { detail: 'Invalid status transition: closed -> open' },
      },
    },
  },
  {
    method: 'post',
    path: '/api/v1/tickets/{ticket_id}/replies',
    summary: 'Reply to a ticket',
    description: 'Emits ticket.replied. Closed tickets take no replies (409).',
    tags: ['Tickets'],
    params: TicketIdParam,
    body: CreateReplyBody,
    responses: {
      201: { description: 'The reply', schema: TicketReply },
      404: notFound,
      409: { description: 'The ticket is closed', schema: Detail, example: { detail: 'Ticket is closed' } },
    },
  },
  {
    method: 'get',
    path: '/api/v1/tickets/{ticket_id}/replies',
    summary: "List a ticket's replies",
    description: 'Oldest first.',
    tags: ['Tickets'],
    params: TicketIdParam,
    query: ListRepliesQuery,
    responses: { 200: { description: 'A page of replies', schema: ReplyList }, 404: notFound },
  },
]);

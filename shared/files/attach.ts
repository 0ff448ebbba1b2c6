import type { Executor } from '../db/schema';
import { validationError } from '../http/errors';
import { type AttachmentRow, attachTo, type OwnerType } from './records';
import { attachmentView } from './view';

/**
 * Sends `ids` with a reply or message (`itemId`): each must be a file of the same ticket or
 * conversation not yet sent with anything; any other is a 422 at `["body", "attachment_ids", i]`
 * (thrown inside the caller's transaction, so the reply is not written either).
 */
export async function attachOrRefuse(
  trx: Executor,
  tenantId: string,
  owner: { type: OwnerType; id: string },
  ids: readonly string[] | undefined,
  itemId: string,
) {
  const unique = [...new Set(ids ?? [])];
  const { rows, refused } = await attachTo(trx, tenantId, owner, unique, itemId);
  if (refused.length > 0)
    throw validationError(
      refused.map((id) => ({
        loc: ['body', 'attachment_ids', (ids ?? []).indexOf(id)],
        msg: `Attachment ${id} is not a file of this ${owner.type} waiting to be sent`,
        type: 'value_error',
      })),
    );
  return rows.map(attachmentView);
}

export const viewsOf = (rows: readonly AttachmentRow[] | undefined) => (rows ?? []).map(attachmentView);

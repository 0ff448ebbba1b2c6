-- A rotation revokes a key and creates its successor under the same name; `rotated_from` names the
-- key a row replaced, so a listing can link the two instead of showing two rows of one name. Keys
-- rotated before this column existed get it from the audit log, which recorded `replaced_by`.
ALTER TABLE api_keys ADD COLUMN rotated_from text;
UPDATE api_keys k SET rotated_from = a.target_id
  FROM audit_log a
  WHERE a.action = 'api_key.rotated' AND a.tenant_id = k.tenant_id AND a.metadata->>'replaced_by' = k.id;

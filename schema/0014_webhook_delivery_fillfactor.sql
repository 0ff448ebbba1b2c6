-- A delivery row is updated twice by its first attempt: the claim (claimed_until, claim_token) and
-- the outcome. The claim changes no indexed column, so when the row's page has room Postgres writes
-- the new version as a heap-only tuple and touches none of the table's five indexes. At the default
-- fillfactor (100) a page filled by a fan-out has no room: about 4% of updates were heap-only under
-- `npm run bench:webhooks`; with 30% of each page kept free, about a quarter are.
ALTER TABLE webhook_deliveries SET (fillfactor = 70);

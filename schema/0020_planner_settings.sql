-- The planner's settings for this workload: many small reads through tenant-first indexes, and a
-- few exact counts of combined filters, on SSD-class storage (Neon's included). Set on the database
-- (and on this session, which a pool may keep), so every connection starts with them.
--
-- random_page_cost 1.1: the default 4 prices an index read four times a sequential one, as on
--   spinning disks; with it the planner counted a combined filter of one tenant by scanning every
--   tenant's rows (308 ms) instead of the tenant-first index (127 ms).
-- jit off: compiling a plan costs 10 ms and more, about as much as the statements it would speed up
--   take here.
-- parallel_setup_cost 10000: a tenant's range filter (`created_after`) is often estimated at far
--   more rows than it holds (the dates of every tenant overlap), and launching workers for it cost
--   5-20 ms where the read itself takes 0.3 ms; only large scans are worth the workers.
DO $$
BEGIN
  EXECUTE format('ALTER DATABASE %I SET random_page_cost = 1.1', current_database());
  EXECUTE format('ALTER DATABASE %I SET jit = off', current_database());
  EXECUTE format('ALTER DATABASE %I SET parallel_setup_cost = 10000', current_database());
END $$;
SET random_page_cost = 1.1;
SET jit = off;
SET parallel_setup_cost = 10000;

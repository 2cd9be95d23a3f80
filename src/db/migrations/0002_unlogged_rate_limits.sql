-- Rate-limit counters are ephemeral: an unlogged table skips the write-ahead log, so counting a
-- request costs no disk flush. After a crash PostgreSQL empties it, which only resets the windows.
ALTER TABLE "rate_limits" SET UNLOGGED;

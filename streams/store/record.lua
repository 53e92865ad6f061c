-- Prizecheck: store a record outside an append (a playoff child's stub, a parent settled by its child).
-- See docs/storage.md. KEYS: the same eight keys as ingest.lua; only seq, record and state/versions/causes
-- are touched.
-- ARGV[1] record   msgpack record
-- ARGV[2] writes   the write count the caller read the record at ('' : not fenced)
-- ARGV[3] cause    '' or "<match> <seq>" (a finished record: a version, see write.lua)
-- ARGV[4] absent   '1': only if the match has no record yet
-- ARGV[5] channel, ARGV[6] channel_all, ARGV[7] match (the live update carries the match's head)
-- ARGV[8] expect, ARGV[9] expect_ck, ARGV[10] ck: as in append_run.lua
-- Returns {written (1, 0 or -1: tampered), writes, what}.

if ARGV[4] == '1' and redis.call('EXISTS', KEYS[4]) == 1 then
  return {0, writes_now(), ''}
end
if fenced(ARGV[2]) then
  return {0, writes_now(), ''}
end
local differs = tampered(ARGV[8], ARGV[9])
if differs then
  return {-1, writes_now(), differs}
end
local writes = write_record(ARGV[1], '', ARGV[3], ARGV[10])
local head = redis.call('GET', KEYS[2]) or '0'
local update = '{"match":"' .. ARGV[7] .. '","seq":' .. head .. '}'
redis.call('PUBLISH', ARGV[5], update)
redis.call('PUBLISH', ARGV[6], update)
return {1, writes, ''}

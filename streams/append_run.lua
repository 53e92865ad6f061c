-- Prizecheck: append a run of consecutive events to a match's archive, atomically with the match's read
-- models after the last of them (the batch path of the ingest core). See docs/storage.md.
-- Every key belongs to one match and shares its {match} hash tag (one cluster slot).
--
-- KEYS: the same five keys as ingest.lua (events, seq, board, record, pending).
-- ARGV[1] prev           the head the caller built its state on (fencing: another writer moved it?)
-- ARGV[2] n              how many events follow
-- ARGV[3 .. 2+2n]        seq_1, event_1, seq_2, event_2, ...: seq_i must be prev + i (no gap in a run)
-- ARGV[3+2n]             board after the last event
-- ARGV[4+2n]             record after the last event
-- ARGV[5+2n]             payload: the live update (carries the last seq), published once
-- ARGV[6+2n]             per-match live channel
-- ARGV[7+2n]             global live channel
-- Returns {status, head, appended}: status applied | stale | gap. Nothing is written unless every check
-- passes (all checks come before the first write).

local head = tonumber(redis.call('GET', KEYS[2]) or '0')
local n = tonumber(ARGV[2])
if tonumber(ARGV[1]) ~= head then
  return {'stale', head, 0}
end
for i = 1, n do
  if tonumber(ARGV[1 + 2 * i]) ~= head + i then
    return {'gap', head, 0}
  end
end
local pending = redis.call('EXISTS', KEYS[5]) == 1
for i = 1, n do
  local seq = ARGV[1 + 2 * i]
  redis.call('XADD', KEYS[1], seq .. '-0', 'e', ARGV[2 + 2 * i])
  if pending then redis.call('HDEL', KEYS[5], seq) end
end
local base = 2 + 2 * n
redis.call('SET', KEYS[2], ARGV[1 + 2 * n])
redis.call('SET', KEYS[3], ARGV[base + 1])
redis.call('SET', KEYS[4], ARGV[base + 2])
redis.call('PUBLISH', ARGV[base + 4], ARGV[base + 3])
redis.call('PUBLISH', ARGV[base + 5], ARGV[base + 3])
return {'applied', head + n, n}

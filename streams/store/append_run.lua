-- Prizecheck: append a run of consecutive events to a match's archive, atomically with the match's read
-- models after the last of them (the batch path of the ingest core). See docs/storage.md.
-- Every key belongs to one match and shares its {match} hash tag (one cluster slot).
--
-- KEYS: the same five keys as ingest.lua (events, seq, board, record, pending).
-- ARGV[1] prev           the head the caller built its state on (fencing: another writer moved it?)
-- ARGV[2] first          the seq of the first event; the run's seqs are first, first + 1, ...
-- ARGV[3] lengths        the events' byte lengths, comma-separated (one argument whatever the run's size:
--                        the client packs a few arguments instead of two per event)
-- ARGV[4] events         the events' canonical msgpack bytes, concatenated
-- ARGV[5] board          board after the last event
-- ARGV[6] record         record after the last event
-- ARGV[7] payload        the live update (carries the last seq), published once
-- ARGV[8] channel        per-match live channel
-- ARGV[9] channel_all    global live channel
-- Returns the new head (an integer) when applied; {'stale', head} when prev is not the head, {'gap', head}
-- when first is not head + 1. Nothing is written unless both checks pass (they come before any write).

local head = tonumber(redis.call('GET', KEYS[2]) or '0')
if tonumber(ARGV[1]) ~= head then
  return {'stale', head}
end
local seq = tonumber(ARGV[2])
if seq ~= head + 1 then
  return {'gap', head}
end
local pending = redis.call('EXISTS', KEYS[5]) == 1
local blob = ARGV[4]
local pos = 1
for len in string.gmatch(ARGV[3], '%d+') do
  local n = tonumber(len)
  local id = string.format('%d', seq)
  redis.call('XADD', KEYS[1], id .. '-0', 'e', string.sub(blob, pos, pos + n - 1))
  if pending then redis.call('HDEL', KEYS[5], id) end
  pos = pos + n
  seq = seq + 1
end
local last = string.format('%d', seq - 1)
redis.call('SET', KEYS[2], last)
redis.call('SET', KEYS[3], ARGV[5])
redis.call('SET', KEYS[4], ARGV[6])
redis.call('PUBLISH', ARGV[8], ARGV[7])
redis.call('PUBLISH', ARGV[9], ARGV[7])
return seq - 1

-- Prizecheck: append a run of consecutive events to a match's archive, atomically with the match's read
-- models after the last of them (the batch path of the ingest core). See docs/storage.md.
-- Every key belongs to one match and shares its {match} hash tag (one cluster slot).
--
-- KEYS: the same eight keys as ingest.lua (events, seq, board, record, pending, state, versions, causes).
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
-- ARGV[10] writes        the record's write count the caller built on ('' : not fenced)
-- ARGV[11] chain         the archive's chain head after the last event (hex)
-- ARGV[12] cause         '' while the game is in progress, else "<match> <seq>" (a version, see write.lua)
-- ARGV[13] allow_gap     '1' when the engine was told about a gap before the first event (first > head)
-- ARGV[14] expect        what the caller believes is stored: "<record> <board> <versions>" (write.lua's
--                        tampered(); '' : not compared)
-- ARGV[15] expect_ck     the stored checkpoint the caller built on ('' : none, '-' : not compared)
-- ARGV[16] ck            the signed checkpoint after this run ('' : none)
-- Returns {status, head, writes, what}: applied (head = the last seq); stale when prev is not the head or
-- the record was written meanwhile (fenced); tampered when the stored record, board, checkpoint or
-- version list is not the caller's (what names it); gap when first is not head + 1 (nor past it, with
-- allow_gap). Nothing is written unless every check passes (they come before any write).

local head = tonumber(redis.call('GET', KEYS[2]) or '0')
if tonumber(ARGV[1]) ~= head or fenced(ARGV[10]) then
  return {'stale', head, writes_now(), ''}
end
local differs = tampered(ARGV[14], ARGV[15])
if differs then
  return {'tampered', head, writes_now(), differs}
end
local seq = tonumber(ARGV[2])
if seq ~= head + 1 and not (ARGV[13] == '1' and seq > head) then
  return {'gap', head, writes_now(), ''}
end
local pending = redis.call('EXISTS', KEYS[5]) == 1
local blob = ARGV[4]
local pos = 1
local at = arrival()
local late = kept_late()
for len in string.gmatch(ARGV[3], '%d+') do
  local n = tonumber(len)
  local id = string.format('%d', seq)
  redis.call('XADD', KEYS[1], id .. '-0', 'e', string.sub(blob, pos, pos + n - 1), 't', at)
  if pending then redis.call('HDEL', KEYS[5], id) end
  pos = pos + n
  seq = seq + 1
end
local last = string.format('%d', seq - 1)
keep_extent(late, 0, last .. '-0')
redis.call('SET', KEYS[2], last)
redis.call('SET', KEYS[3], ARGV[5])
local writes = write_record(ARGV[6], ARGV[11], ARGV[12], ARGV[16])
redis.call('PUBLISH', ARGV[8], ARGV[7])
redis.call('PUBLISH', ARGV[9], ARGV[7])
return {'applied', seq - 1, writes, ''}

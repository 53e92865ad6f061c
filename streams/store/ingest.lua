-- Prizecheck: append one event to a match's archive, atomically with the match's new read models.
-- See docs/storage.md. Every key belongs to one match and shares its {match} hash tag (one cluster slot).
--
-- KEYS[1] pc:{m}:events  stream, the archive; entry id "<seq>-0" for an event in order,
--                        "<head>-<n>" (n >= 1) for a conflicting or late event archived after the head
-- KEYS[2] pc:{m}:seq     string, the head: the highest seq appended in order (absent = 0)
-- KEYS[3] pc:{m}:board   string, msgpack of the public board view
-- KEYS[4] pc:{m}:record  string, msgpack of the record
-- KEYS[5] pc:{m}:pending hash seq -> bytes: events waiting behind a gap (the entry leaves when appended)
-- KEYS[6..8] state, versions, causes: see write.lua (prepended)
-- ARGV[1] mode           "append" (a new seq) or "conflict" (archive an event reusing a seq or filling a
--                        gap that was already reported; its finding is in ARGV[7])
-- ARGV[2] seq            the event's seq (decimal)
-- ARGV[3] prev           the head the caller built its state on (fencing: another writer moved it?)
-- ARGV[4] allow_gap      "1" when the engine was told about a gap (seq > head + 1 is then allowed)
-- ARGV[5] event          the event's canonical msgpack bytes
-- ARGV[6] board          msgpack board after the event
-- ARGV[7] record         msgpack record after the event
-- ARGV[8] payload        the live update published after the write
-- ARGV[9] channel        per-match live channel
-- ARGV[10] channel_all   global live channel
-- ARGV[11] writes        the record's write count the caller built on ('' : not fenced)
-- ARGV[12] chain         the archive's chain head after this event (hex)
-- ARGV[13] cause         '' while the game is in progress, else "<match> <seq>" (a version, see write.lua)
-- ARGV[14] expect, ARGV[15] expect_ck, ARGV[16] ck: as in append_run.lua (the checkpoint it built on, the
--                        new one)
-- Returns {status, head, archived, writes, what}: status applied | duplicate | conflict | stale | gap |
-- tampered (what names the stored value that is not the caller's: nothing was written).

local seq = tonumber(ARGV[2])
local head_raw = redis.call('GET', KEYS[2])
local head = tonumber(head_raw or '0')

local function publish()
  redis.call('PUBLISH', ARGV[9], ARGV[8])
  redis.call('PUBLISH', ARGV[10], ARGV[8])
end

if seq <= head then
  -- Step 1: a seq already passed. Same bytes: an exact duplicate, a no-op (at-least-once delivery).
  local found = redis.call('XRANGE', KEYS[1], ARGV[2] .. '-0', ARGV[2] .. '-0')
  local existing = nil
  if #found > 0 then
    local fields = found[1][2]
    for i = 1, #fields, 2 do
      if fields[i] == 'e' then existing = fields[i + 1] end
    end
  end
  if existing ~= nil and existing == ARGV[5] then
    return {'duplicate', head, 0, writes_now(), ''}
  end
  if ARGV[1] ~= 'conflict' then
    -- A different event under a used seq: the caller must turn it into a finding first.
    return {'conflict', head, 0, writes_now(), ''}
  end
  if tonumber(ARGV[3]) ~= head or fenced(ARGV[11]) then
    return {'stale', head, 0, writes_now(), ''}
  end
  local differs = tampered(ARGV[14], ARGV[15])
  if differs then
    return {'tampered', head, 0, writes_now(), differs}
  end
  -- Step 2: archive it after the head, in arrival order, so a rebuild replays exactly what the engine saw.
  local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
  local n = 1
  if #last > 0 then
    local ms, sub = string.match(last[1][1], '^(%d+)%-(%d+)$')
    if tonumber(ms) == head then n = tonumber(sub) + 1 end
  end
  local kind = 'late'
  if existing ~= nil then kind = 'conflict' end
  local late = kept_late()
  redis.call('XADD', KEYS[1], head .. '-' .. n, 'e', ARGV[5], 'k', kind, 't', arrival())
  keep_extent(late, 1, head .. '-' .. n)
  local writes = write_record(ARGV[7], ARGV[12], ARGV[13], ARGV[16])
  publish()
  return {'conflict', head, 1, writes, ''}
end

-- A new seq: the caller's state must be built on the current head, and gaps must be deliberate.
if ARGV[1] ~= 'append' or tonumber(ARGV[3]) ~= head or fenced(ARGV[11]) then
  return {'stale', head, 0, writes_now(), ''}
end
local differs = tampered(ARGV[14], ARGV[15])
if differs then
  return {'tampered', head, 0, writes_now(), differs}
end
if seq ~= head + 1 and ARGV[4] ~= '1' then
  return {'gap', head, 0, writes_now(), ''}
end
local late = kept_late()
redis.call('XADD', KEYS[1], ARGV[2] .. '-0', 'e', ARGV[5], 't', arrival())
keep_extent(late, 0, ARGV[2] .. '-0')
redis.call('HDEL', KEYS[5], ARGV[2])
redis.call('SET', KEYS[2], ARGV[2])
redis.call('SET', KEYS[3], ARGV[6])
local writes = write_record(ARGV[7], ARGV[12], ARGV[13], ARGV[16])
publish()
return {'applied', seq, 1, writes, ''}

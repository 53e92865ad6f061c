-- Prizecheck: the part every write script shares (prepended to ingest.lua, append_run.lua and record.lua
-- when they are loaded; see docs/storage.md). Every key belongs to one match and shares its {match} tag.
--
-- KEYS[4] pc:{m}:record   string, msgpack of the record
-- KEYS[6] pc:{m}:state    hash: writes (how many times the record was written: the fence of every
--                         writer of this record, the match's owner and a playoff child settling it) and
--                         chain (the chain head of the archive, hex: what a rebuild must arrive at)
-- KEYS[7] pc:{m}:versions list, every finished record that was stored, oldest first
-- KEYS[8] pc:{m}:causes   list, parallel to versions: "<match> <seq>", the event that caused each one

-- Has another writer written the record since the caller read the write count? ('' : the caller does not
-- fence, which only a test does)
local function fenced(expected)
  if expected == '' then return false end
  return tonumber(expected) ~= tonumber(redis.call('HGET', KEYS[6], 'writes') or '0')
end

-- Store the record. A finished record (the caller names its cause) that differs from the stored one is
-- also kept as a new version: a finished record never changes silently. Returns the new write count.
local function write_record(record, chain, cause)
  if cause ~= '' and redis.call('GET', KEYS[4]) ~= record then
    redis.call('RPUSH', KEYS[7], record)
    redis.call('RPUSH', KEYS[8], cause)
  end
  redis.call('SET', KEYS[4], record)
  if chain ~= '' then redis.call('HSET', KEYS[6], 'chain', chain) end
  return redis.call('HINCRBY', KEYS[6], 'writes', 1)
end

local function writes_now()
  return tonumber(redis.call('HGET', KEYS[6], 'writes') or '0')
end

-- Prizecheck: the part every write script shares (prepended to ingest.lua, append_run.lua and record.lua
-- when they are loaded; see docs/storage.md). Every key belongs to one match and shares its {match} tag.
--
-- KEYS[4] pc:{m}:record   string, msgpack of the record
-- KEYS[3] pc:{m}:board    string, msgpack of the public board
-- KEYS[6] pc:{m}:state    hash: writes (how many times the record was written: the fence of every
--                         writer of this record, the match's owner and a playoff child settling it),
--                         chain (the chain head of the archive, hex: what a rebuild must arrive at) and
--                         ck (the signed checkpoint of the last write: streams/store/checkpoint.py);
--                         xlen, xlate, xlast: the archive stream's extent (keep_extent below)
-- KEYS[7] pc:{m}:versions list, every finished record that was stored, oldest first
-- KEYS[8] pc:{m}:causes   list, parallel to versions: "<match> <seq>", the event that caused each one

-- When an archive entry arrived: the server's clock, "<seconds>.<microseconds>", kept in the stream entry
-- beside the event's bytes ('t'), never in them: the hash chain and the event are unchanged. What a
-- broadcast delay reads (streams/http/delay.py: the public sees a delayed match as it was N seconds ago).
local function arrival()
  local t = redis.call('TIME')
  return t[1] .. '.' .. string.format('%06d', tonumber(t[2]))
end

-- Has another writer written the record since the caller read the write count? ('' : the caller does not
-- fence, which only a test does)
local function fenced(expected)
  if expected == '' then return false end
  return tonumber(expected) ~= tonumber(redis.call('HGET', KEYS[6], 'writes') or '0')
end

-- Is what the store holds what the caller's checkpoint says? ``summary`` is "<record> <board> <versions>"
-- (SHA-1 hex of the stored record and board, of '' when absent; the version list's length; '-' : not
-- compared) and ``ck`` the stored checkpoint's bytes ('' : none; '-' : not compared). Returns what differs
-- ('record', 'board', 'checkpoint', 'versions'), or false. Called after the fence, before any write: data
-- changed outside the service is refused (an alarm), never overwritten.
local function tampered(summary, ck)
  if summary == nil or summary == '' then return false end
  local record, board, versions = string.match(summary, '^(%S+) (%S+) (%S+)$')
  if record ~= '-' and redis.sha1hex(redis.call('GET', KEYS[4]) or '') ~= record then return 'record' end
  if board ~= '-' and redis.sha1hex(redis.call('GET', KEYS[3]) or '') ~= board then return 'board' end
  if ck ~= '-' and (redis.call('HGET', KEYS[6], 'ck') or '') ~= ck then return 'checkpoint' end
  if versions ~= '-' and redis.call('LLEN', KEYS[7]) ~= tonumber(versions) then return 'versions' end
  return false
end

-- Store the record. A finished record (the caller names its cause) that differs from the stored one is
-- also kept as a new version: a finished record never changes silently. ``ck``: the signed checkpoint of
-- the state after this write ('' : none). Returns the new write count.
local function write_record(record, chain, cause, ck)
  if cause ~= '' and redis.call('GET', KEYS[4]) ~= record then
    redis.call('RPUSH', KEYS[7], record)
    redis.call('RPUSH', KEYS[8], cause)
  end
  redis.call('SET', KEYS[4], record)
  if chain ~= '' then redis.call('HSET', KEYS[6], 'chain', chain) end
  if ck ~= nil and ck ~= '' then redis.call('HSET', KEYS[6], 'ck', ck) end
  return redis.call('HINCRBY', KEYS[6], 'writes', 1)
end

local function writes_now()
  return tonumber(redis.call('HGET', KEYS[6], 'writes') or '0')
end

-- The archive stream's extent, kept in the state hash beside the entries so that the review of a long game
-- reads it without walking the stream (scripts.py LUA_EXTENT): xlen, the stream's entries when it was
-- kept; xlate, how many of them were archived after the head (ids "<head>-<n>", n >= 1: the others are
-- "<seq>-0"); xlast, the last entry's id. Call kept_late() before the appends (the late entries kept, or
-- nil when what is kept is not this stream's: a stream written before the count was kept, or changed
-- outside the scripts; an empty stream counts from 0) and keep_extent() after them.
local function kept_late()
  local len = redis.call('XLEN', KEYS[1])
  if len == 0 then return 0 end
  local kept = redis.call('HMGET', KEYS[6], 'xlen', 'xlate')
  if tonumber(kept[1]) == len and tonumber(kept[2]) then return tonumber(kept[2]) end
  return nil
end

-- ``late``: what kept_late() gave; ``added``: the late entries appended since; ``last``: the last id now.
-- A count not kept stays not kept (the extent's walk counts it again, and keeps it).
local function keep_extent(late, added, last)
  if late == nil then
    redis.call('HDEL', KEYS[6], 'xlen', 'xlate', 'xlast')
    return
  end
  redis.call('HSET', KEYS[6], 'xlen', redis.call('XLEN', KEYS[1]), 'xlate', late + added, 'xlast', last)
end

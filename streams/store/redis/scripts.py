"""The Redis backend's Lua scripts: the files beside the store (``write.lua`` and the record writers,
``index.lua``, ``page.lua``) and the short steps written here. Key layout and the scripts' steps:
docs/storage.md; each script takes every key it touches in KEYS (built by :mod:`streams.store.keys`).
"""

from __future__ import annotations

from importlib import resources


def _lua(name: str) -> str:
    return resources.files("streams.store").joinpath(name).read_text(encoding="utf-8")


# The three record writers share write.lua's functions (the fence, the trusted chain head, the versions).
LUA_INGEST = _lua("write.lua") + _lua("ingest.lua")
LUA_APPEND_RUN = _lua("write.lua") + _lua("append_run.lua")
LUA_RECORD = _lua("write.lua") + _lua("record.lua")
LUA_INDEX = _lua("index.lua")
# The cold archive's swap: the stream leaves, the marker stays, if the stream is the one verified.
LUA_ARCHIVE = """
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
if redis.call('XLEN', KEYS[1]) ~= tonumber(ARGV[1]) then return 0 end
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
if #last == 0 or last[1][1] ~= ARGV[2] then return 0 end
redis.call('SET', KEYS[2], ARGV[3])
redis.call('DEL', KEYS[1])
return 1
"""
# A match's archive stream's extent without its entries' bytes leaving Redis (the review of a long game
# reads the start of it): {entries, steps, first id, last id}. A step is a seq: an event appended in order
# is <seq>-0, one archived after the head <head>-<n>, and that head's <head>-0 is in the stream before it
# unless the head is the stream's first seq (the head 0 of an empty match, or the last seq of an archived
# match's cold copy): so the steps are the entries less those archived after the head, and one more when
# the first id does not end in -0. The append scripts keep that count in the state hash (write.lua's
# keep_extent: xlen, xlate, xlast), read here when it is the stream's (its length and last id the
# stream's): O(1). Else (a stream written before the count was kept, or changed outside the scripts) the
# stream's ids are walked, 4,096 a call, their ends compared, not parsed (~0.1-0.6 s for 50,000 entries,
# Redis busy all along), and the count kept for the next read and the next append.
# KEYS: the match's events stream, its state hash.
LUA_EXTENT = """
local entries = redis.call('XLEN', KEYS[1])
if entries == 0 then return {0, 0, '', ''} end
local first = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', 1)[1][1]
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)[1][1]
local kept = redis.call('HMGET', KEYS[2], 'xlen', 'xlate', 'xlast')
local late = tonumber(kept[2])
if tonumber(kept[1]) ~= entries or kept[3] ~= last or not late then
  local zero, start = 0, '-'
  while true do
    local batch = redis.call('XRANGE', KEYS[1], start, '+', 'COUNT', 4096)
    for i = 1, #batch do
      if string.sub(batch[i][1], -2) == '-0' then zero = zero + 1 end
    end
    if #batch < 4096 then break end
    start = '(' .. batch[#batch][1]
  end
  late = entries - zero
  redis.call('HSET', KEYS[2], 'xlen', entries, 'xlate', late, 'xlast', last)
end
local steps = entries - late
if string.sub(first, -2) ~= '-0' then steps = steps + 1 end
return {entries, steps, first, last}
"""
# A record written outside an append taken away (a playoff stub whose playoff will not be played): fenced
# and compared as record.lua writes; the signed checkpoint of the state after it is kept.
# KEYS: the match's eight keys; ARGV: writes, expect, expect_ck, ck, channel, channel_all, match.
LUA_DROP = (
    _lua("write.lua")
    + """
if fenced(ARGV[1]) then return {0, writes_now(), ''} end
local differs = tampered(ARGV[2], ARGV[3])
if differs then return {-1, writes_now(), differs} end
redis.call('DEL', KEYS[4])
if ARGV[4] ~= '' then redis.call('HSET', KEYS[6], 'ck', ARGV[4]) end
local writes = redis.call('HINCRBY', KEYS[6], 'writes', 1)
local update = '{"match":"' .. ARGV[7] .. '","seq":' .. (redis.call('GET', KEYS[2]) or '0') .. '}'
redis.call('PUBLISH', ARGV[5], update)
redis.call('PUBLISH', ARGV[6], update)
return {1, writes, ''}
"""
)
# A match's index entry taken away (its record was): KEYS entry, matches, findings, nfindings, text, then
# the membership sets it leaves; ARGV match, the entry the caller read (as index.lua compares it). 1 done, 0
# nothing indexed, -1 changed since it was read.
LUA_UNINDEX = """
local old = redis.call('HMGET', KEYS[1], 'seq', 'status', 'league', 'season', 'players', 'findings', 'about')
if not old[1] then return 0 end
local seen = table.concat(
  {old[1], old[2] or '', old[3] or '', old[4] or '', old[5] or '', old[6] or '', old[7] or ''}, '|')
if seen ~= ARGV[2] then return -1 end
redis.call('HDEL', KEYS[5], ARGV[1])
for i = 6, #KEYS do redis.call('SREM', KEYS[i], ARGV[1]) end
for code, count in pairs(cjson.decode(old[6] or '{}')) do
  if redis.call('HINCRBY', KEYS[3], code, -count) <= 0 then redis.call('HDEL', KEYS[3], code) end
end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[4], ARGV[1])
redis.call('DEL', KEYS[1])
return 1
"""
# The console's lease: one key per match, compared and set in one step (a holder renews or hands over
# only its own lease; a free or expired one is taken; ``replace`` takes it from the holder the caller saw,
# and from nobody else).
# A stream table's or slot's state (streams/http/tables.py), replaced only if it is still what the caller
# read (ARGV[2], '' : none), so that two presses of a Stream Deck at once never lose one. 1 done, 0 not.
LUA_SWAP_ON_AIR = """
local now = redis.call('HGET', KEYS[1], ARGV[1]) or ''
if now ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return 1
"""

LUA_LEASE = """
local held = redis.call('GET', KEYS[1])
local action, console, ms, expected = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]
if (action == 'take' and (not held or held == console))
    or (action == 'replace' and (not held or held == expected)) then
  redis.call('SET', KEYS[1], console, 'PX', ms)
  return console
elseif action == 'renew' and held == console then
  redis.call('PEXPIRE', KEYS[1], ms)
elseif action == 'release' and held == console then
  redis.call('DEL', KEYS[1])
  return false
end
return held
"""
LUA_PAGE = _lua("page.lua")

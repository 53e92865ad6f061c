-- Prizecheck: league-wide indexes for one match (the second, idempotent step after ingest.lua).
-- See docs/storage.md. All keys share the hash tag {idx:<b>} of the match's index bucket (one cluster
-- slot, separate from the match's),
-- which is why this cannot run inside ingest.lua on Redis Cluster. Every key it touches is declared.
--
-- KEYS[1] <p>:{idx:<b>}:m:<match>   hash: seq, status, league, season, players (JSON), findings (JSON),
--                               severities (JSON), about (JSON: event, round, table, date, top finding;
--                               absent in an entry written before them)
-- KEYS[2] <p>:{idx:<b>}:matches     sorted set (score 0, so ordered by match id) of every indexed match
-- KEYS[3] <p>:{idx:<b>}:findings    hash: finding code -> count over all indexed matches
-- KEYS[4] <p>:{idx:<b>}:nfindings   sorted set: match -> its rank (IndexEntry.rank: violations, then
--                               warnings, then info notes; the list's "games to review" order)
-- KEYS[5] <p>:{idx:<b>}:text        hash: match -> what a search looks in (IndexEntry.search_text, folded
--                               in Python: NFKC and case folded, which Lua cannot do)
-- KEYS[6] <p>:{idx:<b>}:names:league  set of the leagues ever indexed in the bucket (the pick list; a
-- KEYS[7] <p>:{idx:<b>}:names:season  name whose membership set is empty is left out when read)
-- KEYS[8] <p>:{idx:<b>}:format      "2" once every entry of the bucket has a search text (set here when the
--                               bucket's first entry is written; else by RedisStore._upgrade)
-- KEYS[9 .. 8+n]                membership sets the match leaves (built from the entry the caller read)
-- KEYS[9+n ..]                  membership sets the match joins:
--                               <p>:{idx:<b>}:status:<s>, :league:<l>, :season:<s>, :player:<id>
-- ARGV: 1 match, 2 seq, 3 status, 4 league ("" = none), 5 season ("" = none), 6 players (JSON array),
--       7 findings by code (JSON object), 8 n (how many KEYS leave), 9 the stored entry the caller read
--       ("seq|status|league|season|players|findings|about", "" when none), 10 findings by severity (JSON
--       object), 11 the rank (an entry written before ranks: its number of findings), 12 about ("" =
--       none), 13 the search text.
-- Values are absolute, so running the same step twice changes nothing; an entry older (lower seq) than
-- the stored one is ignored. Returns 1 (indexed), 0 (older: ignored), -1 (the entry changed since the
-- caller read it: read again and retry).

local match, seq, n = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[8])
local old = redis.call('HMGET', KEYS[1], 'seq', 'status', 'league', 'season', 'players', 'findings', 'about')
local seen = ''
if old[1] then
  seen = table.concat(
    {old[1], old[2] or '', old[3] or '', old[4] or '', old[5] or '', old[6] or '', old[7] or ''}, '|')
end
if seen ~= ARGV[9] then
  return -1
end
if old[1] and tonumber(old[1]) > seq then
  return 0
end

for i = 9, 8 + n do redis.call('SREM', KEYS[i], match) end
for i = 9 + n, #KEYS do redis.call('SADD', KEYS[i], match) end

local before = {}
if old[6] then before = cjson.decode(old[6]) end
local after = cjson.decode(ARGV[7])
local function bump(code, delta)
  if delta ~= 0 then
    local count = redis.call('HINCRBY', KEYS[3], code, delta)
    if count <= 0 then redis.call('HDEL', KEYS[3], code) end
  end
end
local total = 0
for code, count in pairs(after) do
  bump(code, count - (before[code] or 0))
  total = total + count
end
for code, count in pairs(before) do
  if after[code] == nil then bump(code, -count) end
end

redis.call('HSET', KEYS[1], 'seq', ARGV[2], 'status', ARGV[3], 'league', ARGV[4], 'season', ARGV[5],
  'players', ARGV[6], 'findings', ARGV[7], 'severities', ARGV[10] or '{}')
if ARGV[12] ~= '' then
  redis.call('HSET', KEYS[1], 'about', ARGV[12])
else
  redis.call('HDEL', KEYS[1], 'about')
end
if redis.call('ZCARD', KEYS[2]) == 0 then redis.call('SET', KEYS[8], '2') end
redis.call('ZADD', KEYS[2], 0, match)
redis.call('ZADD', KEYS[4], tonumber(ARGV[11]) or total, match)
redis.call('HSET', KEYS[5], match, ARGV[13])
if ARGV[4] ~= '' then redis.call('SADD', KEYS[6], ARGV[4]) end
if ARGV[5] ~= '' then redis.call('SADD', KEYS[7], ARGV[5]) end
return 1

-- Prizecheck: league-wide indexes for one match (the second, idempotent step after ingest.lua).
-- See docs/storage.md. All keys share the hash tag {idx:<b>} of the match's index bucket (one cluster
-- slot, separate from the match's),
-- which is why this cannot run inside ingest.lua on Redis Cluster. Every key it touches is declared.
--
-- KEYS[1] <p>:{idx:<b>}:m:<match>   hash: seq, status, league, season, players (JSON), findings (JSON)
-- KEYS[2] <p>:{idx:<b>}:matches     sorted set (score 0, so ordered by match id) of every indexed match
-- KEYS[3] <p>:{idx:<b>}:findings    hash: finding code -> count over all indexed matches
-- KEYS[4] <p>:{idx:<b>}:nfindings   sorted set: match -> its rank (IndexEntry.rank: violations, then
--                               warnings, then info notes; the list's "games to review" order)
-- KEYS[5] <p>:{idx:<b>}:players     sorted set, score 0: "<id in ASCII lower case>\0<id>" (the player search)
-- KEYS[6 .. 5+n]                membership sets the match leaves (built from the entry the caller read)
-- KEYS[6+n ..]                  membership sets the match joins:
--                               <p>:{idx:<b>}:status:<s>, :league:<l>, :season:<s>, :player:<id>
-- ARGV: 1 match, 2 seq, 3 status, 4 league ("" = none), 5 season ("" = none), 6 players (JSON array),
--       7 findings by code (JSON object), 8 n (how many KEYS leave), 9 the stored entry the caller read
--       ("seq|status|league|season|players|findings", "" when none), 10 findings by severity (JSON
--       object), 11 the rank (an entry written before ranks: its number of findings).
-- Values are absolute, so running the same step twice changes nothing; an entry older (lower seq) than
-- the stored one is ignored. Returns 1 (indexed), 0 (older: ignored), -1 (the entry changed since the
-- caller read it: read again and retry).

local match, seq, n = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[8])
local old = redis.call('HMGET', KEYS[1], 'seq', 'status', 'league', 'season', 'players', 'findings')
local seen = ''
if old[1] then
  seen = table.concat({old[1], old[2] or '', old[3] or '', old[4] or '', old[5] or '', old[6] or ''}, '|')
end
if seen ~= ARGV[9] then
  return -1
end
if old[1] and tonumber(old[1]) > seq then
  return 0
end

for i = 6, 5 + n do redis.call('SREM', KEYS[i], match) end
for i = 6 + n, #KEYS do redis.call('SADD', KEYS[i], match) end

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
redis.call('ZADD', KEYS[2], 0, match)
redis.call('ZADD', KEYS[4], tonumber(ARGV[11]) or total, match)
for _, player in ipairs(cjson.decode(ARGV[6])) do
  redis.call('ZADD', KEYS[5], 0, string.lower(player) .. '\0' .. player)
end
return 1

-- Prizecheck: league-wide indexes for one match (the second, idempotent step after ingest.lua).
-- See docs/storage.md. All keys share the {idx} hash tag (one cluster slot, separate from the match's),
-- which is why this cannot run inside ingest.lua on Redis Cluster.
--
-- KEYS[1] <p>:{idx}:m:<match>   hash: seq, status, league, season, players (JSON), findings (JSON)
-- KEYS[2] <p>:{idx}:matches     sorted set (score 0, so ordered by match id) of every indexed match
-- KEYS[3] <p>:{idx}:findings    hash: finding code -> count over all indexed matches
-- Membership sets are built from ARGV[1] and stay in the same slot:
--   <p>:{idx}:status:<status>, <p>:{idx}:league:<league>, <p>:{idx}:season:<season>, <p>:{idx}:player:<id>
-- ARGV: 1 base "<p>:{idx}", 2 match, 3 seq, 4 status, 5 league ("" = none), 6 season ("" = none),
--       7 players (JSON array), 8 findings by code (JSON object). Values are absolute, so running the
--       same step twice changes nothing; an entry older (lower seq) than the stored one is ignored.

local base, match, seq = ARGV[1], ARGV[2], tonumber(ARGV[3])
local old = redis.call('HMGET', KEYS[1], 'seq', 'status', 'league', 'season', 'players', 'findings')
if old[1] and tonumber(old[1]) > seq then
  return 0
end

if old[2] then redis.call('SREM', base .. ':status:' .. old[2], match) end
if old[3] and old[3] ~= '' then redis.call('SREM', base .. ':league:' .. old[3], match) end
if old[4] and old[4] ~= '' then redis.call('SREM', base .. ':season:' .. old[4], match) end
if old[5] then
  for _, p in ipairs(cjson.decode(old[5])) do redis.call('SREM', base .. ':player:' .. p, match) end
end

redis.call('SADD', base .. ':status:' .. ARGV[4], match)
if ARGV[5] ~= '' then redis.call('SADD', base .. ':league:' .. ARGV[5], match) end
if ARGV[6] ~= '' then redis.call('SADD', base .. ':season:' .. ARGV[6], match) end
for _, p in ipairs(cjson.decode(ARGV[7])) do redis.call('SADD', base .. ':player:' .. p, match) end

local before = {}
if old[6] then before = cjson.decode(old[6]) end
local after = cjson.decode(ARGV[8])
local function bump(code, delta)
  if delta ~= 0 then
    local n = redis.call('HINCRBY', KEYS[3], code, delta)
    if n <= 0 then redis.call('HDEL', KEYS[3], code) end
  end
end
for code, n in pairs(after) do bump(code, n - (before[code] or 0)) end
for code, n in pairs(before) do
  if after[code] == nil then bump(code, -n) end
end

redis.call('HSET', KEYS[1], 'seq', ARGV[3], 'status', ARGV[4], 'league', ARGV[5], 'season', ARGV[6],
  'players', ARGV[7], 'findings', ARGV[8])
redis.call('ZADD', KEYS[2], 0, match)
return 1

-- Prizecheck: one page of the league index (Store.index_page), in one step. See docs/storage.md.
-- Every key shares one index bucket's hash tag {idx:<b>} (one cluster slot) and is declared; the caller
-- runs it in every bucket and merges the pages (RedisStore.index_page).
--
-- KEYS[1] <i>:matches     sorted set, score 0: every indexed match (ordered by id)
-- KEYS[2] <i>:nfindings   sorted set: match -> its number of findings
-- KEYS[3], KEYS[4]              scratch keys (written and deleted here)
-- KEYS[5 .. 4+nf]               filter sets, intersected (status, league, season, player)
-- KEYS[5+nf ..]                 the player sets of a search (united), when ARGV[2] is "1"
-- ARGV: 1 nf, 2 "1" when a search applies, 3 "match" | "findings", 4 "1" for the reverse order,
--       5 offset, 6 count.
-- Orders come from Redis's sorted sets (score, then the member's bytes), never from Lua's string
-- comparison, which follows the server's locale. Returns {total, {match, score, match, score, ...}} (the
-- scores let the caller merge the buckets' pages in the same order).

local nf, searching = tonumber(ARGV[1]), ARGV[2] == '1'
local by, reverse = ARGV[3], ARGV[4] == '1'
local first, count = tonumber(ARGV[5]), tonumber(ARGV[6])

local inputs, weights = {}, {}
if by == 'findings' then
  inputs[1], weights[1] = KEYS[2], 1
else
  inputs[1], weights[1] = KEYS[1], 0
end
for i = 5, 4 + nf do
  inputs[#inputs + 1], weights[#weights + 1] = KEYS[i], 0
end
if searching then
  if #KEYS < 5 + nf then
    return {0, {}}
  end
  local union = {'ZUNIONSTORE', KEYS[4], #KEYS - 4 - nf}
  for i = 5 + nf, #KEYS do union[#union + 1] = KEYS[i] end
  redis.call(unpack(union))
  inputs[#inputs + 1], weights[#weights + 1] = KEYS[4], 0
end

local source = inputs[1]
if #inputs > 1 then
  local inter = {'ZINTERSTORE', KEYS[3], #inputs}
  for _, k in ipairs(inputs) do inter[#inter + 1] = k end
  inter[#inter + 1] = 'WEIGHTS'
  for _, w in ipairs(weights) do inter[#inter + 1] = w end
  redis.call(unpack(inter))
  source = KEYS[3]
end

local total = redis.call('ZCARD', source)
local page = {}
if count > 0 and first < total then
  if reverse then
    page = redis.call('ZREVRANGE', source, first, first + count - 1, 'WITHSCORES')
  else
    page = redis.call('ZRANGE', source, first, first + count - 1, 'WITHSCORES')
  end
end
redis.call('DEL', KEYS[3], KEYS[4])
return {total, page}

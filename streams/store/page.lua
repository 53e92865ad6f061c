-- Prizecheck: one page of the league index (Store.index_page), in one step. See docs/storage.md.
-- Every key shares one index bucket's hash tag {idx:<b>} (one cluster slot) and is declared; the caller
-- runs it in every bucket and merges the pages (RedisStore.index_page).
--
-- KEYS[1] <i>:matches     sorted set, score 0: every indexed match (ordered by id)
-- KEYS[2] <i>:nfindings   sorted set: match -> its rank (violations, then warnings, then info notes)
-- KEYS[3], KEYS[4]        scratch keys (written and deleted here)
-- KEYS[5] <i>:text        hash: match -> what a search looks in (folded by the caller)
-- KEYS[6 .. 5+nf]         filter sets, intersected (status, league, season, player)
-- ARGV: 1 nf, 2 the search, folded ("" = none), 3 "match" | "findings", 4 "1" for the reverse order,
--       5 offset (rows skipped after the cursor), 6 count, 7 the cursor's score ("" = from the start),
--       8 the cursor's match, 9 how many entries a search may look through (more: too broad).
-- Orders come from Redis's sorted sets (score, then the member's bytes), never from Lua's string
-- comparison, which follows the server's locale. Returns {total, {match, score, match, score, ...}} (the
-- scores let the caller merge the buckets' pages in the same order), or {-1, {}} when the search would
-- look through more entries than ARGV[9].
--
-- A search is a scan inside Redis: the candidates (the filters' intersection, or every match) are read
-- 500 at a time with their search texts and the ones that contain the search (a plain byte substring;
-- UTF-8 makes that a substring of characters) go into a scratch set, so nothing but the page leaves
-- Redis. An entry with no search text (indexed by an earlier version and not yet given one:
-- RedisStore._upgrade) is searched by its match id.

local nf, needle = tonumber(ARGV[1]), ARGV[2]
local by, reverse = ARGV[3], ARGV[4] == '1'
local first, count = tonumber(ARGV[5]), tonumber(ARGV[6])
local scanmax = tonumber(ARGV[9])

local inputs, weights = {}, {}
if by == 'findings' then
  inputs[1], weights[1] = KEYS[2], 1
else
  inputs[1], weights[1] = KEYS[1], 0
end
for i = 6, 5 + nf do
  inputs[#inputs + 1], weights[#weights + 1] = KEYS[i], 0
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

if needle ~= '' then
  local n = redis.call('ZCARD', source)
  if n > scanmax then
    redis.call('DEL', KEYS[3], KEYS[4])
    return {-1, {}}
  end
  redis.call('DEL', KEYS[4])
  local i = 0
  while i < n do
    local rows = redis.call('ZRANGE', source, i, i + 499, 'WITHSCORES')
    if #rows == 0 then break end
    local names = {}
    for j = 1, #rows, 2 do names[#names + 1] = rows[j] end
    local texts = redis.call('HMGET', KEYS[5], unpack(names))
    for j = 1, #names do
      local hay = texts[j] or string.lower(names[j])
      if string.find(hay, needle, 1, true) then
        redis.call('ZADD', KEYS[4], rows[2 * j], names[j])
      end
    end
    i = i + 500
  end
  source = KEYS[4]
end

local total = redis.call('ZCARD', source)
local start = first
if ARGV[7] ~= '' and total > 0 then
  -- the first row after the cursor (score, match): the cursor's own rank + 1 when it is still there with
  -- that score; else where it would be (marked in a scratch copy, then taken out again)
  local score, member = ARGV[7], ARGV[8]
  local now = redis.call('ZSCORE', source, member)
  local at
  if now and tonumber(now) == tonumber(score) then
    if reverse then at = redis.call('ZREVRANK', source, member) else at = redis.call('ZRANK', source, member) end
    at = at + 1
  else
    if source ~= KEYS[3] and source ~= KEYS[4] then
      redis.call('ZUNIONSTORE', KEYS[3], 1, source)
      source = KEYS[3]
    end
    redis.call('ZADD', source, score, member)
    if reverse then at = redis.call('ZREVRANK', source, member) else at = redis.call('ZRANK', source, member) end
    redis.call('ZREM', source, member)
    if now then
      redis.call('ZADD', source, now, member)
      -- the match moved (its findings changed): it is before the cursor's place in the order, or after
      if (reverse and tonumber(now) > tonumber(score)) or (not reverse and tonumber(now) < tonumber(score)) then
        at = at + 1
      end
    end
  end
  start = at + first
end

local page = {}
if count > 0 and start < total then
  if reverse then
    page = redis.call('ZREVRANGE', source, start, start + count - 1, 'WITHSCORES')
  else
    page = redis.call('ZRANGE', source, start, start + count - 1, 'WITHSCORES')
  end
end
redis.call('DEL', KEYS[3], KEYS[4])
return {total, page}

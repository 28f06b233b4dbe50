-- One decision of the Redis throttler: check every limit that applies and
-- charge all of them, or none, in one atomic step.
--
-- KEYS[1] is the client's state, KEYS[2] (if present) its group's. Both
-- carry the same hash tag, so they live in one Redis Cluster slot.
--
-- ARGV[1]      n, the requests asked for at once
-- ARGV[2], [3] the time as whole seconds and nanoseconds since the Unix
--              epoch; ARGV[2] empty: the server's TIME
-- ARGV[4]      the least TTL of a key, in milliseconds
-- ARGV[5..9]   the client's limit: algorithm (0 fixed window, 1 sliding
--              window of two buckets, 2 token bucket), requests, per (ns),
--              and for a token bucket the units in a token and the units
--              gained a nanosecond
-- ARGV[10..14] the group's limit, the same way
--
-- Returns {allowed (0 or 1), remaining, retry after in ns}.
--
-- Lua's numbers are doubles: integers are exact below 2^53, and a time in
-- nanoseconds since 1970 is not. So the time stays split in two, windows
-- are found by long division, and every other quantity is a difference
-- from now, which New has made sure fits.

local floor = math.floor
local n = tonumber(ARGV[1])
local s, f
if ARGV[2] == '' then
  local t = redis.call('TIME')
  s, f = tonumber(t[1]), tonumber(t[2]) * 1000
else
  s, f = tonumber(ARGV[2]), tonumber(ARGV[3])
end
local minttl = tonumber(ARGV[4])

-- divmod returns floor(N/p) and N mod p for the instant N = s*1e9 + f,
-- one decimal digit of f at a time, so nothing passes 10*p.
local function divmod(p)
  local q = floor(s / p)
  local r = s - q * p
  local d = 100000000
  for _ = 1, 9 do
    local cur = r * 10 + floor(f / d) % 10
    local qd = floor(cur / p)
    q, r, d = q * 10 + qd, cur - qd * p, d / 10
  end
  return q, r
end

local function ceildiv(a, b)
  local q = floor(a / b)
  if q * b < a then q = q + 1 end
  return q
end

-- expire gives a key the time until its state equals a fresh one, in ms.
local function expire(key, ns)
  redis.call('PEXPIRE', key, math.max(minttl, ceildiv(ns, 1000000) + 1))
end

-- Each limit becomes a table with room (how many it allows now), charge()
-- and wait() (the nanoseconds until n fit, when they do not now).
local function fixed(key, req, per)
  local v = redis.call('HMGET', key, 'w', 'c')
  local w, c = tonumber(v[1]), tonumber(v[2]) or 0
  local k, e = divmod(per)
  if not w or w < k then w, c = k, 0 end -- a new window
  -- w > k: the clock went back; the later window stays.
  local left = (w - k) * per + per - e -- until the window ends
  return {
    room = req - c,
    charge = function()
      redis.call('HSET', key, 'w', w, 'c', c + n)
      expire(key, left)
    end,
    wait = function() return left end,
  }
end

local function sliding(key, req, per)
  local v = redis.call('HMGET', key, 'w', 'p', 'c')
  local w, prev, cur = tonumber(v[1]), tonumber(v[2]) or 0, tonumber(v[3]) or 0
  local k, e = divmod(per)
  if not w then
    w = k
  elseif w < k then
    if w == k - 1 then prev, cur = cur, 0 else prev, cur = 0, 0 end
    w = k
  end
  -- start is the start of bucket w from now, elapsed how far into it the
  -- window is. If the clock went back, the request counts in the newest
  -- bucket, with the oldest at full weight.
  local start, elapsed = -e, e
  if w > k then start, elapsed = (w - k) * per - e, 0 end
  -- The oldest bucket weighs prev*(per-elapsed)/per, rounded up since
  -- everything else is whole.
  local room = req - cur - ceildiv(prev * (per - elapsed), per)
  return {
    room = math.max(0, room),
    charge = function()
      redis.call('HSET', key, 'w', w, 'p', prev, 'c', cur + n)
      expire(key, start + 2 * per)
    end,
    wait = function()
      -- While the oldest bucket fades, the first instant at which
      -- ceil(oldest*(per-x)/per) <= spare is x = per - floor(spare*per/oldest).
      local spare = req - cur - n
      if spare >= 0 then
        local x = 0
        if prev > spare then x = per - floor(spare * per / prev) end
        return math.max(0, start + x)
      end
      -- Not before the next bucket, where this one becomes the oldest.
      spare = req - n
      local x = 0
      if cur > spare then x = per - floor(spare * per / cur) end
      return start + per + x
    end,
  }
end

local function token(key, req, unit, refill)
  local full = req * unit
  local v = redis.call('HMGET', key, 's', 'f', 'l')
  local ts, tf, level = tonumber(v[1]), tonumber(v[2]), tonumber(v[3])
  local behind = 0 -- how far the bucket's time is ahead of now, in ns
  if not ts then
    ts, tf, level = s, f, full
  elseif s > ts or (s == ts and f > tf) then
    local need = ceildiv(full - level, refill) -- ns until full, at most per
    if s - ts > 1000000 then
      level = full -- over 11 days: full, since per is at most 10 days
    else
      local elapsed = (s - ts) * 1000000000 + f - tf
      if elapsed >= need then level = full else level = level + elapsed * refill end
    end
    ts, tf = s, f
  else
    behind = (ts - s) * 1000000000 + tf - f -- the clock went back: no refill
  end
  return {
    room = floor(level / unit),
    charge = function()
      local after = level - n * unit
      redis.call('HSET', key, 's', ts, 'f', tf, 'l', after)
      expire(key, behind + ceildiv(full - after, refill))
    end,
    wait = function() return behind + ceildiv(n * unit - level, refill) end,
  }
end

local function limit(key, i)
  local alg, req, per = tonumber(ARGV[i]), tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2])
  local l
  if alg == 0 then
    l = fixed(key, req, per)
  elseif alg == 1 then
    l = sliding(key, req, per)
  else
    l = token(key, req, tonumber(ARGV[i + 3]), tonumber(ARGV[i + 4]))
  end
  l.req = req
  return l
end

local limits = {limit(KEYS[1], 5)}
if #KEYS > 1 then limits[2] = limit(KEYS[2], 10) end

local allowed, remaining = true, limits[1].room
for _, l in ipairs(limits) do
  if n > l.room then allowed = false end
  remaining = math.min(remaining, l.room)
end
if allowed then
  for _, l in ipairs(limits) do l.charge() end
  return {1, remaining - n, 0}
end
-- Denied, and nothing charged. More than a limit's requests never fit:
-- RetryAfter 0. Otherwise each limit only gets better with time, so all
-- fit from the latest of the instants at which each does.
local wait = 0
for _, l in ipairs(limits) do
  if n > l.req then return {0, remaining, 0} end
  if n > l.room then wait = math.max(wait, l.wait()) end
end
return {0, remaining, wait}

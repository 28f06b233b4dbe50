-- One decision of the Redis throttler: check every limit that applies and
-- charge all of them, or none, in one atomic step.
--
-- KEYS[1] is the client's state, KEYS[2] (if present) its group's. Both
-- carry the same hash tag, so they live in one Redis Cluster slot.
--
-- ARGV[1]       n, the requests asked for at once
-- ARGV[2..5]    the client's limit: algorithm (0 fixed window, 1 sliding
--               window of two buckets, 2 token bucket), Requests, then
--               for a window Per (ns) and 0, for a token bucket the units
--               in a token and the units gained a nanosecond
-- ARGV[6..9]    the group's limit, the same way, if there is a group
-- then, if present, the time as whole seconds and nanoseconds since the
-- Unix epoch (a harness clock); if not, the server's TIME.
--
-- Returns Remaining, a number, when the requests are allowed, and
-- {Remaining, RetryAfter in ns} when they are denied.
--
-- A decision is TIME, then one GET a limit, then if allowed one SET ... PX
-- a limit, which stores the state and its TTL together. Each state is a
-- few numbers in one string value, after a letter that names the
-- algorithm: f (fixed window: window, count), s (sliding window: current
-- bucket, previous count, current count) or t (token bucket: seconds,
-- nanoseconds, level in units). Redis packs the numbers as doubles with
-- its struct library, which costs far less than writing and parsing them
-- as text; miniredis, which has no struct, gets them as text. A value of
-- another shape (another algorithm under the same prefix) is taken as a
-- fresh state; a key of another type fails the GET, and so the call.
--
-- Lua's numbers are doubles: integers are exact below 2^53, and a time in
-- nanoseconds since 1970 is not. So the time stays split in two, windows
-- are found by long division, and every other quantity is a difference
-- from now, which New has made sure fits.

local floor, max, min, tonumber = math.floor, math.max, math.min, tonumber

local n = tonumber(ARGV[1])
local limits = #KEYS
local s, f, minttl
if #ARGV > 1 + 4 * limits then
  local t = 2 + 4 * limits
  -- A harness clock need not move with Redis's own: a key lives at least
  -- a minute, which changes no answer (the script checks the window or
  -- time it stored), so that it never expires before its state is fresh.
  s, f, minttl = tonumber(ARGV[t]), tonumber(ARGV[t + 1]), 60000
else
  local t = redis.call('TIME')
  s, f, minttl = tonumber(t[1]), tonumber(t[2]) * 1000, 1
end

-- Redis has the struct library; miniredis does not.
local struct = rawget(_G, 'struct')

local function ceildiv(a, b)
  local q = floor(a / b)
  if q * b < a then q = q + 1 end
  return q
end

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

-- check reads limit i and returns: the requests it has room for now, its
-- Requests, the wait (ns) until n fit if they do not now, and what to
-- store once n are charged: the time (ns) until that state equals a fresh
-- one, the algorithm's letter and its numbers.
local function check(i)
  local a = 4 * i - 2
  local alg, req, p, refill = tonumber(ARGV[a]), tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3])
  -- x, y and z are the stored state's numbers, if it is one of this
  -- algorithm's, whose letter is f, s or t: as a byte, 102, 115 or 116.
  local tag = alg == 0 and 102 or alg == 1 and 115 or 116
  local x, y, z
  local v = redis.call('GET', KEYS[i])
  if v then
    local t
    if struct then
      if #v == 17 then
        t, x, y = struct.unpack('Bdd', v)
      elseif #v == 25 then
        t, x, y, z = struct.unpack('Bddd', v)
      end
    else
      t = string.byte(v)
      x, y, z = string.match(v, '^.(%-?%d+) (%d+) ?(%d*)$')
      if x then x, y, z = tonumber(x), tonumber(y), tonumber(z) end
    end
    if t ~= tag or (alg == 0) ~= (z == nil) then x, y, z = nil, nil, nil end
  end

  if alg == 2 then -- token bucket: p is the units in a token
    local full = req * p
    local ts, tf, level = x, y, z
    local behind = 0 -- how far the bucket's time is ahead of now, in ns
    if not ts then
      ts, tf, level = s, f, full
    elseif s > ts or (s == ts and f > tf) then
      -- A gap too long for exact nanoseconds fills the bucket all the same.
      level = min(full, level + ((s - ts) * 1000000000 + f - tf) * refill)
      ts, tf = s, f
    else
      behind = (ts - s) * 1000000000 + tf - f -- the clock went back: no refill
      level = min(full, level)
    end
    local after = level - n * p
    return floor(level / p), req, behind + ceildiv(n * p - level, refill),
      behind + ceildiv(full - after, refill), tag, ts, tf, after
  end

  local k, e = divmod(p)
  if alg == 0 then -- fixed window
    local w, c = x, y
    if not w or w < k then w, c = k, 0 end -- a new window
    -- w > k: the clock went back; the later window stays.
    local left = (w - k) * p + p - e -- until the window ends
    return max(0, req - c), req, left, left, tag, w, c + n
  end

  -- sliding window of two buckets
  local w, prev, cur = x, y, z
  if not w then
    w, prev, cur = k, 0, 0
  elseif w < k then
    if w == k - 1 then prev, cur = cur, 0 else prev, cur = 0, 0 end
    w = k
  end
  -- start is the start of bucket w from now, elapsed how far into it the
  -- window is. If the clock went back, the request counts in the newest
  -- bucket, with the oldest at full weight.
  local start, elapsed = -e, e
  if w > k then start, elapsed = (w - k) * p - e, 0 end
  -- The oldest bucket weighs prev*(per-elapsed)/per, rounded up since
  -- everything else is whole.
  local room = max(0, req - cur - ceildiv(prev * (p - elapsed), p))
  -- The wait: while the oldest bucket fades, the first instant at which
  -- ceil(oldest*(per-x)/per) <= spare is x = per - floor(spare*per/oldest).
  local wait
  local spare = req - cur - n
  if spare >= 0 then
    local x = 0
    if prev > spare then x = p - floor(spare * p / prev) end
    wait = max(0, start + x)
  else
    -- Not before the next bucket, where this one becomes the oldest.
    spare = req - n
    local x = 0
    if cur > spare then x = p - floor(spare * p / cur) end
    wait = start + p + x
  end
  return room, req, wait, start + 2 * p, tag, w, prev, cur + n
end

-- store writes a limit's state, and gives it the time until it equals a
-- fresh one, and a ms more, to live. %d writes the numbers whole, where
-- tostring would round them to 14 digits.
local function store(key, ns, tag, x, y, z)
  local value
  if struct then
    value = z and struct.pack('Bddd', tag, x, y, z) or struct.pack('Bdd', tag, x, y)
  else
    value = z and string.format('%c%d %d %d', tag, x, y, z) or string.format('%c%d %d', tag, x, y)
  end
  redis.call('SET', key, value, 'PX', max(minttl, ceildiv(ns, 1000000) + 1))
end

local room1, req1, wait1, ns1, tag1, x1, y1, z1 = check(1)
local remaining = room1
local room2, req2, wait2, ns2, tag2, x2, y2, z2
if limits > 1 then
  room2, req2, wait2, ns2, tag2, x2, y2, z2 = check(2)
  remaining = min(room1, room2)
end

if n <= remaining then
  store(KEYS[1], ns1, tag1, x1, y1, z1)
  if room2 then store(KEYS[2], ns2, tag2, x2, y2, z2) end
  return remaining - n
end
-- Denied, and nothing charged. More than a limit's requests never fit:
-- RetryAfter 0. Otherwise each limit only gets better with time, so all
-- fit from the latest of the instants at which each does.
if n > req1 or (room2 and n > req2) then return {remaining, 0} end
local wait = 0
if n > room1 then wait = wait1 end
if room2 and n > room2 then wait = max(wait, wait2) end
-- A clock that went back centuries could ask for more than int64
-- nanoseconds, which Redis would not turn into an integer reply.
return {remaining, min(wait, 9.2e18)}

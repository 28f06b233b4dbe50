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
-- A state is one string of whole numbers, read with GET and written with
-- SET ... PX, so that a limit costs one command to read and one to charge
-- with its TTL (a hash would need HMGET, HSET and PEXPIRE):
--
--   fixed window    "f<window> <count>"
--   sliding window  "s<current bucket> <previous count> <current count>"
--   token bucket    "t<seconds> <nanoseconds> <level in units>"
--
-- A value of another shape (another algorithm under the same prefix) is
-- taken as a fresh state; a key of another type fails the GET, and the
-- call returns that error.
--
-- Returns {allowed (0 or 1), remaining, retry after in ns}.
--
-- Lua's numbers are doubles: integers are exact below 2^53, and a time in
-- nanoseconds since 1970 is not. So the time stays split in two, windows
-- are found by long division, and every other quantity is a difference
-- from now, which New has made sure fits. string.format's %d writes them
-- whole; tostring would round them to 14 digits.

local floor, max, min = math.floor, math.max, math.min
local tonumber, match, format = tonumber, string.match, string.format

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

-- check reads limit i and returns: the requests it has room for now, its
-- Requests, the wait (ns) until n fit if they do not now, and what to
-- store once n are charged: the time (ns) until that state equals a fresh
-- one, the format and its numbers.
local function check(i)
  local a = 5 * i
  local alg, req, per = tonumber(ARGV[a]), tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
  local v = redis.call('GET', KEYS[i])

  if alg == 2 then -- token bucket
    local unit, refill = tonumber(ARGV[a + 3]), tonumber(ARGV[a + 4])
    local full = req * unit
    local ts, tf, level = s, f, full
    local behind = 0 -- how far the bucket's time is ahead of now, in ns
    local vs, vf, vl
    if v then vs, vf, vl = match(v, '^t(%-?%d+) (%d+) (%d+)$') end
    if vs then
      ts, tf, level = tonumber(vs), tonumber(vf), min(full, tonumber(vl))
      if s > ts or (s == ts and f > tf) then
        if s - ts > 1000000 then
          level = full -- over 11 days: full, since per is at most 10 days
        else
          local elapsed = (s - ts) * 1000000000 + f - tf
          if elapsed >= ceildiv(full - level, refill) then
            level = full
          else
            level = level + elapsed * refill
          end
        end
        ts, tf = s, f
      else
        behind = (ts - s) * 1000000000 + tf - f -- the clock went back: no refill
      end
    end
    local after = level - n * unit
    return floor(level / unit), req, behind + ceildiv(n * unit - level, refill),
      behind + ceildiv(full - after, refill), 't%d %d %d', ts, tf, after
  end

  local k, e = divmod(per)
  if alg == 0 then -- fixed window
    local w, c = k, 0
    local vw, vc
    if v then vw, vc = match(v, '^f(%-?%d+) (%d+)$') end
    if vw then
      w, c = tonumber(vw), tonumber(vc)
      if w < k then w, c = k, 0 end -- a new window
      -- w > k: the clock went back; the later window stays.
    end
    local left = (w - k) * per + per - e -- until the window ends
    return max(0, req - c), req, left, left, 'f%d %d', w, c + n
  end

  -- sliding window of two buckets
  local w, prev, cur = k, 0, 0
  local vw, vp, vc
  if v then vw, vp, vc = match(v, '^s(%-?%d+) (%d+) (%d+)$') end
  if vw then
    w, prev, cur = tonumber(vw), tonumber(vp), tonumber(vc)
    if w < k then
      if w == k - 1 then prev, cur = cur, 0 else prev, cur = 0, 0 end
      w = k
    end
  end
  -- start is the start of bucket w from now, elapsed how far into it the
  -- window is. If the clock went back, the request counts in the newest
  -- bucket, with the oldest at full weight.
  local start, elapsed = -e, e
  if w > k then start, elapsed = (w - k) * per - e, 0 end
  -- The oldest bucket weighs prev*(per-elapsed)/per, rounded up since
  -- everything else is whole.
  local room = max(0, req - cur - ceildiv(prev * (per - elapsed), per))
  -- The wait: while the oldest bucket fades, the first instant at which
  -- ceil(oldest*(per-x)/per) <= spare is x = per - floor(spare*per/oldest).
  local wait
  local spare = req - cur - n
  if spare >= 0 then
    local x = 0
    if prev > spare then x = per - floor(spare * per / prev) end
    wait = max(0, start + x)
  else
    -- Not before the next bucket, where this one becomes the oldest.
    spare = req - n
    local x = 0
    if cur > spare then x = per - floor(spare * per / cur) end
    wait = start + per + x
  end
  return room, req, wait, start + 2 * per, 's%d %d %d', w, prev, cur + n
end

-- charge stores a limit's state with the TTL until it equals a fresh one.
local function charge(key, ns, form, x, y, z)
  local ms = max(minttl, ceildiv(ns, 1000000) + 1)
  redis.call('SET', key, format(form, x, y, z), 'PX', ms)
end

local room1, req1, wait1, ns1, form1, x1, y1, z1 = check(1)
local remaining = room1
local room2, req2, wait2, ns2, form2, x2, y2, z2
if #KEYS > 1 then
  room2, req2, wait2, ns2, form2, x2, y2, z2 = check(2)
  remaining = min(room1, room2)
end

if n <= remaining then
  charge(KEYS[1], ns1, form1, x1, y1, z1)
  if room2 then charge(KEYS[2], ns2, form2, x2, y2, z2) end
  return {1, remaining - n, 0}
end
-- Denied, and nothing charged. More than a limit's requests never fit:
-- RetryAfter 0. Otherwise each limit only gets better with time, so all
-- fit from the latest of the instants at which each does.
if n > req1 or (room2 and n > req2) then return {0, remaining, 0} end
local wait = 0
if n > room1 then wait = wait1 end
if room2 and n > room2 then wait = max(wait, wait2) end
-- A clock that went back centuries could ask for more than int64
-- nanoseconds, which Redis would not convert to an integer reply.
return {0, remaining, min(wait, 9.2e18)}
